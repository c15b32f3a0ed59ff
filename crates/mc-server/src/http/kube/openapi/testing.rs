//! A fake cluster client that serves OpenAPI documents, as kube-apiserver answers them: an
//! `ETag` of each document's hash, `304` to a matching `If-None-Match`.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::http::{Request, Response, header};
use serde_json::{Value, json};

use super::index::hex;

/// A client whose answers `serve` gives by path: `(status, body)`, or none for 404.
pub fn client(serve: impl Fn(&str) -> Option<(u16, Vec<u8>)> + Send + Sync + 'static) -> kube::Client {
    let serve = Arc::new(serve);
    let service = tower::service_fn(move |request: Request<kube::client::Body>| {
        let serve = serve.clone();
        async move {
            let path = request.uri().path().to_string();
            let (status, body) = serve(&path).unwrap_or((404, Vec::new()));
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

/// A cluster's documents: v3 by path, and v2, which [`Cluster::client`] serves; `reads` counts
/// the requests by path.
#[derive(Clone, Default)]
pub struct Cluster {
    /// v3 documents by index path (`apis/apps/v1`).
    pub v3: BTreeMap<String, Value>,
    /// The v2 document.
    pub v2: Value,
    /// Requests by path.
    pub reads: Arc<Mutex<BTreeMap<String, usize>>>,
}

impl Cluster {
    /// A v3 document of `path` with one schema per kind (`kinds`: `(schema name, kind)`), and the
    /// v2 definition of each.
    pub fn with(mut self, path: &str, kinds: &[(&str, &str)], marker: &str) -> Self {
        let (group, version) = match path.split('/').collect::<Vec<_>>().as_slice() {
            ["api", v] => (String::new(), v.to_string()),
            ["apis", g, v] => (g.to_string(), v.to_string()),
            _ => (String::new(), String::new()),
        };
        let schema = |kind: &str| {
            json!({"description": format!("{kind} of {marker}"),
                "x-kubernetes-group-version-kind": [{"group": group, "version": version, "kind": kind}]})
        };
        let doc = self
            .v3
            .entry(path.to_string())
            .or_insert_with(|| json!({"openapi": "3.0.0", "paths": {}, "components": {"schemas": {}}}));
        for (name, kind) in kinds {
            doc["components"]["schemas"][*name] = schema(kind);
            doc["paths"][format!("/{path}/{}s", kind.to_lowercase())] =
                json!({"get": {"description": marker}});
        }
        if self.v2.is_null() {
            self.v2 = json!({"swagger": "2.0", "paths": {}, "definitions": {}});
        }
        for (name, kind) in kinds {
            self.v2["definitions"][*name] = schema(kind);
            let base =
                if group.is_empty() { format!("/api/{version}") } else { format!("/apis/{group}/{version}") };
            self.v2["paths"][format!("{base}/{}s", kind.to_lowercase())] =
                json!({"get": {"description": marker}});
        }
        self
    }

    /// How often `path` was read.
    pub fn read(&self, path: &str) -> usize {
        self.reads.lock().unwrap().get(path).copied().unwrap_or(0)
    }

    /// A client serving these documents (`/openapi/v3` lists them by their hash).
    pub fn client(&self) -> kube::Client {
        let me = self.clone();
        client(move |path| {
            *me.reads.lock().unwrap().entry(path.to_string()).or_default() += 1;
            let body = |v: &Value| Some((200, v.to_string().into_bytes()));
            match path {
                "/openapi/v2" => body(&me.v2),
                "/openapi/v3" => {
                    let paths: serde_json::Map<String, Value> = me
                        .v3
                        .iter()
                        .map(|(p, d)| {
                            let url = format!("/openapi/v3/{p}?hash={}", hex(&d.to_string()));
                            (p.clone(), json!({"serverRelativeURL": url}))
                        })
                        .collect();
                    body(&json!({"paths": paths}))
                }
                _ => me.v3.get(path.strip_prefix("/openapi/v3/")?).and_then(body),
            }
        })
    }
}
