//! A fake master cluster that only answers aggregated discovery (`/api`, `/apis`): the core
//! group's pods, and a CRD `widgets.example.com` (short name `wd`) that no built-in table knows.

use std::path::Path;

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::{Value, json};

use crate::fake::Served;

/// The running fake; stops when dropped.
pub struct FakeMaster {
    served: Served,
}

impl FakeMaster {
    pub fn start() -> Self {
        let app = Router::new().route("/api", get(core)).route("/apis", get(groups));
        FakeMaster { served: Served::start(app) }
    }

    /// Writes a kubeconfig for this cluster (no credentials: it checks none).
    pub fn write_kubeconfig(&self, path: &Path) {
        let text = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: master\n  cluster: {{server: \"{}\"}}\nusers:\n- name: u\n  user: {{}}\ncontexts:\n- name: master\n  context: {{cluster: master, user: u}}\ncurrent-context: master\n",
            self.served.url
        );
        std::fs::write(path, text).unwrap();
    }
}

fn discovery(items: Value) -> impl IntoResponse {
    let body = json!({"apiVersion": "apidiscovery.k8s.io/v2", "kind": "APIGroupDiscoveryList", "metadata": {}, "items": items});
    (
        [(header::CONTENT_TYPE, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")],
        body.to_string(),
    )
}

fn resource(group: &str, version: &str, plural: &str, kind: &str, short: &[&str]) -> Value {
    json!({"resource": plural, "responseKind": {"group": group, "version": version, "kind": kind},
           "scope": "Namespaced", "singularResource": kind.to_lowercase(), "verbs": ["list", "watch"],
           "shortNames": short})
}

async fn core() -> impl IntoResponse {
    discovery(json!([{"metadata": {"name": ""}, "versions": [
        {"version": "v1", "resources": [resource("", "v1", "pods", "Pod", &["po"])]}
    ]}]))
}

async fn groups() -> impl IntoResponse {
    discovery(json!([{"metadata": {"name": "example.com"}, "versions": [
        {"version": "v1", "resources": [resource("example.com", "v1", "widgets", "Widget", &["wd"])]}
    ]}]))
}
