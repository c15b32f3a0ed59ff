//! The member's log answer, copied through chunk by chunk as it arrives: nothing is gathered,
//! so a log of any size takes the memory of one chunk in flight. The caller leaving drops the
//! member's request; the member's stream breaking ends the answer with one line of ours saying
//! so. A member's refusal becomes a `Status` in our words with its status code kept.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_body::Body as _;

use super::LogParams;
use crate::http::status::{KubeError, KubeResult};

/// How long the member may take to begin its answer (its API server asks the node's kubelet).
pub const FIRST_BYTE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a log that is not followed may go without a byte before it is given up: a
/// followed log may rightly be quiet for hours.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// The most of a member's error answer that is read (to learn its reason).
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Asks `cluster` (through `client`) for the log of pod `namespace/name` and answers with it.
pub async fn proxy(
    client: kube::Client,
    cluster: &str,
    namespace: &str,
    name: &str,
    params: &LogParams,
) -> KubeResult<Response> {
    let query = params.query();
    let sep = if query.is_empty() { "" } else { "?" };
    let uri = format!("/api/v1/namespaces/{namespace}/pods/{name}/log{sep}{query}");
    let request = axum::http::Request::get(uri)
        .body(kube::client::Body::empty())
        .map_err(|e| KubeError::bad_request(format!("the log request cannot be made: {e}")))?;
    let answer = match tokio::time::timeout(FIRST_BYTE_TIMEOUT, client.send(request)).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(e)) => {
            tracing::warn!(cluster, error = %e, "log request failed");
            return Err(KubeError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("cluster \"{cluster}\" cannot be reached for the log of pod \"{name}\"; try again"),
            ));
        }
        Err(_) => {
            return Err(KubeError::new(
                StatusCode::GATEWAY_TIMEOUT,
                format!(
                    "cluster \"{cluster}\" did not begin the log of pod \"{name}\" within {}s",
                    FIRST_BYTE_TIMEOUT.as_secs()
                ),
            ));
        }
    };
    let (parts, body) = answer.into_parts();
    if !parts.status.is_success() {
        return Err(refused(cluster, namespace, name, params, parts.status, body).await);
    }
    let idle = (!params.follow).then_some(IDLE_TIMEOUT);
    let relay = Relay { body, cluster: cluster.to_string(), idle, at_line_start: true };
    let body = Body::from_stream(futures::stream::unfold(Some(relay), Relay::next));
    Ok(([(header::CONTENT_TYPE, "text/plain")], body).into_response())
}

/// The member's answer on its way to the caller.
struct Relay {
    body: kube::client::Body,
    cluster: String,
    /// `None`: wait for the next chunk as long as it takes.
    idle: Option<Duration>,
    /// Whether what was sent so far ends a line (the closing line of ours begins on its own).
    at_line_start: bool,
}

impl Relay {
    /// The next chunk; after a break, our closing line and then the end.
    async fn next(relay: Option<Relay>) -> Option<(Result<Bytes, Infallible>, Option<Relay>)> {
        let mut r = relay?;
        loop {
            let frame = std::future::poll_fn(|cx| std::pin::Pin::new(&mut r.body).poll_frame(cx));
            let frame = match r.idle {
                Some(idle) => match tokio::time::timeout(idle, frame).await {
                    Ok(frame) => frame,
                    Err(_) => {
                        let why = format!("it sent nothing for {}s", idle.as_secs());
                        return Some((Ok(r.closing(&why)), None));
                    }
                },
                None => frame.await,
            };
            match frame {
                None => return None,
                Some(Ok(frame)) => {
                    // Trailers carry nothing for the caller.
                    let Ok(data) = frame.into_data() else { continue };
                    if data.is_empty() {
                        continue;
                    }
                    r.at_line_start = data.ends_with(b"\n");
                    return Some((Ok(data), Some(r)));
                }
                Some(Err(e)) => {
                    tracing::warn!(cluster = %r.cluster, error = %e, "log stream broke");
                    return Some((Ok(r.closing("the connection to its API server broke")), None));
                }
            }
        }
    }

    /// The line that ends a broken stream, in our words.
    fn closing(&self, why: &str) -> Bytes {
        let newline = if self.at_line_start { "" } else { "\n" };
        Bytes::from(format!(
            "{newline}mc-server: the log stream from cluster {} ended: {why}\n",
            self.cluster
        ))
    }
}

/// A member's error answer as a `Status` of ours: its code kept, its words not (they are
/// logged): the member's reason only picks which of ours.
async fn refused(
    cluster: &str,
    namespace: &str,
    name: &str,
    params: &LogParams,
    status: StatusCode,
    body: kube::client::Body,
) -> KubeError {
    let reason = match tokio::time::timeout(FIRST_BYTE_TIMEOUT, read_some(body)).await {
        Ok(bytes) => serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .map(|s| {
                tracing::info!(cluster, code = status.as_u16(), message = %s["message"], "member refused a log request");
                s["reason"].as_str().unwrap_or_default().to_string()
            })
            .unwrap_or_default(),
        Err(_) => String::new(),
    };
    let container = match &params.container {
        Some(c) => format!("container \"{c}\" of "),
        None => String::new(),
    };
    let what =
        format!("the log of {container}pod \"{name}\" in namespace \"{namespace}\" of cluster \"{cluster}\"");
    let message = match status {
        StatusCode::NOT_FOUND => {
            format!("pods \"{name}\" not found in namespace \"{namespace}\" of cluster \"{cluster}\"")
        }
        StatusCode::BAD_REQUEST => format!(
            "cluster \"{cluster}\" cannot serve {what}: check the container's name (its pod's \
             containers: kubectl --context {cluster} get pod -n {namespace} {name} -o \
             jsonpath='{{.spec.containers[*].name}}'), and, for previous, that it restarted"
        ),
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
            format!("mc-server's credentials for cluster \"{cluster}\" may not read {what}")
        }
        _ if reason.is_empty() => format!("cluster \"{cluster}\" cannot serve {what} now"),
        _ => format!("cluster \"{cluster}\" cannot serve {what} now ({})", kube_reason(&reason)),
    };
    KubeError::new(status, message)
}

/// One of Kubernetes' reasons as it is, anything else as `Unknown`: the member's text is not
/// passed on.
fn kube_reason(reason: &str) -> &str {
    const KNOWN: [&str; 12] = [
        "BadRequest",
        "Unauthorized",
        "Forbidden",
        "NotFound",
        "Conflict",
        "Gone",
        "Invalid",
        "ServerTimeout",
        "Timeout",
        "TooManyRequests",
        "InternalError",
        "ServiceUnavailable",
    ];
    KNOWN.iter().copied().find(|k| *k == reason).unwrap_or("Unknown")
}

/// At most [`MAX_ERROR_BODY`] bytes of a body.
async fn read_some(mut body: kube::client::Body) -> Vec<u8> {
    let mut out = Vec::new();
    while out.len() < MAX_ERROR_BODY {
        match std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await {
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    out.extend_from_slice(&data[..data.len().min(MAX_ERROR_BODY - out.len())]);
                }
            }
            _ => break,
        }
    }
    out
}
