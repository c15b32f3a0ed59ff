//! A stand-in for the Go project's server: only `/v1/list`, `/v1/list_with_cluster`, `/v1/join`
//! and `/v1/unjoin`; resource types only as `group/version/resource` (else 400 `not found gvr`, as
//! its handler answers); `limit` 10 by default; no selectors, `continue`, watch or token; Gin's
//! plain-text 404 for every other path. It records every request with its answer's status.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Multipart, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use serde_json::{Value, json};

use crate::fake::Served;
use crate::print::fixture;

/// One request the stand-in received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    pub method: String,
    pub path: String,
    /// The query parameters, decoded, in order.
    pub params: Vec<(String, String)>,
    pub status: u16,
}

impl Received {
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

type Log = Arc<Mutex<Vec<Received>>>;

/// The running stand-in; stops when dropped.
pub struct FakeGoServer {
    pub url: String,
    log: Log,
    _served: Served,
}

impl FakeGoServer {
    pub fn start() -> Self {
        let log: Log = Arc::default();
        let app = Router::new()
            .route("/v1/list", get(list))
            .route("/v1/list_with_cluster", get(list_with_cluster))
            .route("/v1/join", post(join))
            .route("/v1/unjoin", delete(unjoin))
            .fallback(|| async { (StatusCode::NOT_FOUND, "404 page not found") })
            .layer(middleware::from_fn_with_state(log.clone(), record));
        let served = Served::start(app);
        FakeGoServer { url: served.url.clone(), log, _served: served }
    }

    /// Every request so far.
    pub fn received(&self) -> Vec<Received> {
        self.log.lock().unwrap().clone()
    }

    /// The requests to one path.
    pub fn received_at(&self, path: &str) -> Vec<Received> {
        self.received().into_iter().filter(|r| r.path == path).collect()
    }
}

async fn record(State(log): State<Log>, req: Request, next: Next) -> Response {
    let method = req.method().to_string();
    let path = req.uri().path().to_owned();
    let params = Query::<Vec<(String, String)>>::try_from_uri(req.uri()).map(|q| q.0).unwrap_or_default();
    let resp = next.run(req).await;
    let status = resp.status().as_u16();
    log.lock().unwrap().push(Received { method, path, params, status });
    resp
}

fn param<'a>(params: &'a [(String, String)], key: &str) -> Option<&'a str> {
    params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// The objects of a type the Go project's server parsed from `group/version/resource` (`core` for
/// the core group), with their clusters; `None` when it cannot parse the type.
fn items_of(gvr: &str) -> Option<Vec<Value>> {
    let parts: Vec<&str> = gvr.split('/').collect();
    let (group, version, resource) = match parts.as_slice() {
        [version, resource] => ("", *version, *resource),
        [group, version, resource] => (if *group == "core" { "" } else { *group }, *version, *resource),
        _ => return None,
    };
    if version.is_empty() || resource.is_empty() {
        return None;
    }
    let fixture_items = |name: &str| -> Vec<Value> {
        fixture(name).items.into_iter().map(|i| serde_json::to_value(i).unwrap()).collect()
    };
    Some(match (group, version, resource) {
        ("", "v1", "pods") => fixture_items("pods")
            .into_iter()
            .map(|mut item| {
                // Labels for `-l`: app=<first container's name> (web, api, main, …).
                let app = item["Object"]["spec"]["containers"][0]["name"].clone();
                item["Object"]["metadata"]["labels"] = json!({"app": app});
                item
            })
            .collect(),
        ("", "v1", "configmaps") => fixture_items("configmaps"),
        ("apps", "v1", "deployments") => fixture_items("deployments"),
        ("mulitcluster.practice.com", "v1alpha1", "multiclusters") => multiclusters(),
        // A type it does not sync: nothing.
        _ => vec![],
    })
}

/// MultiCluster objects as the Go project writes them: in `default` on the master, every spec
/// field a string, `status.status: Healthy`. One more in another namespace, which its CLI never
/// asks for.
fn multiclusters() -> Vec<Value> {
    let cluster = |name: &str, namespace: &str, host: &str, version: &str, is_master: &str| {
        json!({"clusterName": "tencent1", "Object": {
            "apiVersion": "mulitcluster.practice.com/v1alpha1", "kind": "MultiCluster",
            "metadata": {"name": name, "namespace": namespace, "creationTimestamp": "2025-12-01T00:00:00Z"},
            "spec": {"name": name, "host": host, "version": version, "platform": "linux/amd64", "isMaster": is_master},
            "status": {"status": "Healthy"}
        }})
    };
    vec![
        cluster("tencent1", "default", "https://10.0.0.16:6443", "v1.27.3", "true"),
        cluster("tencent2", "default", "https://10.0.0.17:6443", "v1.26.1", "false"),
        cluster("elsewhere", "kube-system", "https://10.0.0.99:6443", "v1.20.0", "false"),
    ]
}

/// What both list endpoints answer: the filtered items; `None` when the type is not in the slash
/// form.
fn listed(params: &[(String, String)]) -> Option<Vec<Value>> {
    let mut items = items_of(param(params, "gvr").unwrap_or_default())?;
    for (key, pointer) in [
        ("name", "/Object/metadata/name"),
        ("namespace", "/Object/metadata/namespace"),
        ("cluster", "/clusterName"),
    ] {
        if let Some(wanted) = param(params, key).filter(|v| !v.is_empty()) {
            items.retain(|i| i.pointer(pointer).and_then(Value::as_str) == Some(wanted));
        }
    }
    let limit = param(params, "limit").unwrap_or("10").parse::<usize>().unwrap_or(10);
    if limit > 0 {
        items.truncate(limit);
    }
    Some(items)
}

/// The Go project's server's answer to a type it cannot parse.
fn not_found_gvr() -> Response {
    (StatusCode::BAD_REQUEST, axum::Json(json!({"error": "not found gvr"}))).into_response()
}

async fn list(Query(params): Query<Vec<(String, String)>>) -> Response {
    match listed(&params) {
        Some(items) => {
            axum::Json(items.into_iter().map(|i| i["Object"].clone()).collect::<Vec<_>>()).into_response()
        }
        None => not_found_gvr(),
    }
}

async fn list_with_cluster(Query(params): Query<Vec<(String, String)>>) -> Response {
    match listed(&params) {
        Some(items) => axum::Json(items).into_response(),
        None => not_found_gvr(),
    }
}

async fn join(Query(params): Query<Vec<(String, String)>>, mut form: Multipart) -> Response {
    let mut kubeconfig = Vec::new();
    while let Ok(Some(field)) = form.next_field().await {
        if field.name() == Some("kubeconfig") {
            kubeconfig = field.bytes().await.unwrap().to_vec();
        }
    }
    if kubeconfig.is_empty() || param(&params, "cluster").is_none() {
        return (StatusCode::BAD_REQUEST, axum::Json(json!({"error": "join cluster error"}))).into_response();
    }
    ([(header::CONTENT_TYPE, "application/json")], r#"{"res":"join cluster successful"}"#).into_response()
}

async fn unjoin(Query(params): Query<Vec<(String, String)>>) -> Response {
    if param(&params, "cluster").is_none() {
        return (StatusCode::BAD_REQUEST, axum::Json(json!({"error": "unjoin cluster error"})))
            .into_response();
    }
    axum::Json(json!({"res": "unjoin cluster successful"})).into_response()
}
