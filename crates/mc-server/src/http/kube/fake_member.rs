//! A fake member cluster's client for in-process tests: a kube client over a service that
//! answers by the request's path and query, as the member's API server would (an `ETag` of
//! each answer's hash and `304` to a matching `If-None-Match`, as kube-apiserver answers its
//! OpenAPI documents). Every request is answered at once; none goes to a network.

#![allow(clippy::unwrap_used)]

use std::convert::Infallible;
use std::sync::Arc;

use axum::http::{Request, Response, header};

use super::digest::hex;

/// An answer: `(status, body)`; none is a 404.
pub type Answer = Option<(u16, Vec<u8>)>;

/// A client whose answers `serve` gives by path.
pub fn client(serve: impl Fn(&str) -> Answer + Send + Sync + 'static) -> kube::Client {
    client_with_query(move |path, _| serve(path))
}

/// A client whose answers `serve` gives by path and query (`""` without one).
pub fn client_with_query(serve: impl Fn(&str, &str) -> Answer + Send + Sync + 'static) -> kube::Client {
    let serve = Arc::new(serve);
    let service = tower::service_fn(move |request: Request<kube::client::Body>| {
        let serve = serve.clone();
        async move {
            let path = request.uri().path().to_string();
            let query = request.uri().query().unwrap_or_default().to_string();
            let (status, body) = serve(&path, &query).unwrap_or((404, Vec::new()));
            let etag = hex(&String::from_utf8_lossy(&body));
            let held = request.headers().get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok());
            if status == 200 && held == Some(&format!("\"{etag}\"")) {
                return Ok::<_, Infallible>(
                    Response::builder().status(304).body(kube::client::Body::empty()).unwrap(),
                );
            }
            let response = Response::builder().status(status).header(header::ETAG, format!("\"{etag}\""));
            Ok(response.body(kube::client::Body::from(body)).unwrap())
        }
    });
    kube::Client::new(service, "default")
}
