//! A fake cluster that serves OpenAPI documents through the fake member client
//! ([`crate::http::kube::fake_member`]), as kube-apiserver answers them.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::hex;
pub use crate::http::kube::fake_member::client;

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
