//! One JSON answer read from a member cluster through its client (an OpenAPI document, a list
//! of metrics): JSON asked for, at most [`Limits::bytes`] read, within [`Limits::time`]; a
//! member's error body is never read, only its status code is kept.

use std::time::Duration;

use axum::body::Bytes;
use axum::http::{Request, StatusCode, header};
use futures::StreamExt;

/// How much of an answer is read, and for how long.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most bytes of one answer (the largest document, `/openapi/v2`, is a few MiB).
    pub bytes: usize,
    /// Longest wait for one answer, body included.
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { bytes: 64 << 20, time: Duration::from_secs(30) }
    }
}

/// Why an answer could not be had. Every variant is retryable except [`Error::TooLarge`] and
/// [`Error::Json`], which last until the cluster's answer changes.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The cluster is not connected now (no client).
    #[error("the cluster is not connected")]
    NotConnected,
    /// The request could not be sent or answered (connection, TLS, credentials).
    #[error("the request failed")]
    Request(#[source] kube::Error),
    /// The request could not be made (a path that is no URI).
    #[error("the request could not be made")]
    Build(#[source] axum::http::Error),
    /// The cluster answered with an error status (its body is not read).
    #[error("the cluster answered HTTP {0}")]
    Status(u16),
    /// The answer is larger than [`Limits::bytes`].
    #[error("the answer is larger than {0} bytes")]
    TooLarge(usize),
    /// No whole answer within [`Limits::time`].
    #[error("no answer within {0}s")]
    Timeout(u64),
    /// The answer broke off.
    #[error("the answer broke off")]
    Body(#[source] axum::Error),
    /// The answer is not the JSON expected.
    #[error("the answer is not the JSON expected")]
    Json(#[source] serde_json::Error),
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An answer as read.
#[derive(Debug)]
pub enum Fetched {
    /// The answer, and its `ETag` without quotes (kube-apiserver's hash of an OpenAPI document).
    Document { body: Bytes, etag: Option<String> },
    /// `304`: the answer is still the one of `If-None-Match`.
    NotModified,
}

/// `GET path` (a path of the cluster's own, such as `/openapi/v3/apis/apps/v1`) as JSON, with
/// `If-None-Match: "etag"` when one is given.
pub async fn get(client: &kube::Client, path: &str, etag: Option<&str>, limits: Limits) -> Result<Fetched> {
    let read = async {
        let mut request = Request::get(path).header(header::ACCEPT, "application/json");
        if let Some(etag) = etag {
            request = request.header(header::IF_NONE_MATCH, format!("\"{etag}\""));
        }
        let request = request.body(kube::client::Body::empty()).map_err(Error::Build)?;
        let response = client.send(request).await.map_err(Error::Request)?;
        let status = response.status();
        if status == StatusCode::NOT_MODIFIED {
            return Ok(Fetched::NotModified);
        }
        if !status.is_success() {
            return Err(Error::Status(status.as_u16()));
        }
        let etag = response
            .headers()
            .get(header::ETAG)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim_start_matches("W/").trim_matches('"').to_string());
        let declared = response
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
        if declared.is_some_and(|n| n > limits.bytes) {
            return Err(Error::TooLarge(limits.bytes));
        }
        let mut stream = axum::body::Body::new(response.into_body()).into_data_stream();
        let mut body = Vec::with_capacity(declared.unwrap_or(0));
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(Error::Body)?;
            if body.len() + chunk.len() > limits.bytes {
                return Err(Error::TooLarge(limits.bytes));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Fetched::Document { body: body.into(), etag })
    };
    tokio::time::timeout(limits.time, read).await.unwrap_or(Err(Error::Timeout(limits.time.as_secs())))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::http::kube::fake_member::client;

    #[tokio::test]
    async fn a_document_larger_than_the_limit_is_refused_and_an_error_body_is_never_read() {
        let fake = client(|path| match path {
            "/big" => Some((200, vec![b'x'; 2048])),
            _ => Some((500, b"secret internals".to_vec())),
        });
        let limits = Limits { bytes: 1024, time: Duration::from_secs(5) };
        assert!(matches!(get(&fake, "/big", None, limits).await, Err(Error::TooLarge(1024))));
        let err = get(&fake, "/broken", None, limits).await.unwrap_err();
        assert_eq!(err.to_string(), "the cluster answered HTTP 500");
    }
}
