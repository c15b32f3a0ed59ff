//! A fake mc-server: canned answers from the print fixtures, recording every request.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Multipart, Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use serde_json::{Value, json};

use crate::print::fixture;

#[derive(Clone)]
struct Shared {
    token: Option<String>,
    requests: Arc<Mutex<Vec<String>>>,
}

/// A router served on 127.0.0.1 (only loopback) from its own thread; stops when dropped.
pub struct Served {
    pub url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Served {
    pub fn start(app: Router) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stopped.await;
                    })
                    .await
                    .unwrap();
            });
        });
        Served { url: format!("http://{addr}"), stop: Some(stop), thread: Some(thread) }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // A watch stream may still be open; do not wait for it.
        drop(self.thread.take());
    }
}

/// A running fake server; stops when dropped.
pub struct FakeServer {
    pub url: String,
    requests: Arc<Mutex<Vec<String>>>,
    _served: Served,
}

impl FakeServer {
    pub fn start() -> Self {
        Self::with_token(None)
    }

    pub fn with_token(token: Option<&str>) -> Self {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let shared = Shared { token: token.map(str::to_owned), requests: requests.clone() };
        let app = Router::new()
            .route("/v1/list_with_cluster", get(list))
            .route("/v1/resources", get(resources))
            .route("/v1/clusters", get(clusters))
            .route("/v1/join", post(join))
            .route("/v1/unjoin", delete(unjoin))
            .route("/v1/auth/can-i", get(can_i))
            .route("/clusters/{cluster}/api/v1/namespaces/{namespace}/pods/{pod}/log", get(log))
            .route("/apis/metrics.k8s.io/v1beta1/{*rest}", get(metrics))
            .route("/clusters/{cluster}/apis/metrics.k8s.io/v1beta1/{*rest}", get(cluster_metrics))
            .layer(middleware::from_fn_with_state(shared.clone(), record_and_authorize))
            .with_state(shared);
        let served = Served::start(app);
        FakeServer { url: served.url.clone(), requests, _served: served }
    }

    /// `METHOD path?query` of every request so far.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

async fn record_and_authorize(State(shared): State<Shared>, req: Request, next: Next) -> Response {
    let line = format!("{} {}", req.method(), req.uri());
    shared.requests.lock().unwrap().push(line);
    if let Some(token) = &shared.token {
        let given = req.headers().get(header::AUTHORIZATION).and_then(|h| h.to_str().ok());
        if given != Some(&format!("Bearer {token}")) {
            let body = json!({"error": "missing bearer token (Authorization: Bearer <token>)"});
            return (StatusCode::UNAUTHORIZED, axum::Json(body)).into_response();
        }
    }
    next.run(req).await
}

/// A pod's log, as mc-server's Kubernetes API serves it: two lines naming where they come
/// from; container `envoy` answers a `Status` 400, as a container whose log cannot be read.
async fn log(
    axum::extract::Path((cluster, _ns, pod)): axum::extract::Path<(String, String, String)>,
    Query(params): Query<Vec<(String, String)>>,
) -> Response {
    let container = param(&params, "container").unwrap_or("?").to_string();
    if container == "envoy" {
        let body = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 400,
            "reason": "BadRequest", "message": format!("cluster \"{cluster}\" cannot serve the log of container \"envoy\"")});
        return (StatusCode::BAD_REQUEST, axum::Json(body)).into_response();
    }
    let text = format!("{cluster} {pod} {container} line 1\n{cluster} {pod} {container} line 2\n");
    ([(header::CONTENT_TYPE, "text/plain")], text).into_response()
}

/// `metrics.k8s.io/v1beta1` as mc-server serves it: tencent1 and tencent2 have metrics (the pods
/// of the namespace asked for, or of every one), tencent4 has no metrics API (a `Warning`).
async fn metrics(axum::extract::Path(rest): axum::extract::Path<String>) -> Response {
    metrics_of(
        &["tencent1", "tencent2"],
        &rest,
        Some("cluster(s) tencent4 serve no metrics API (metrics.k8s.io/v1beta1): they are left out"),
    )
}

/// `metrics.k8s.io/v1beta1` of one cluster: 404 for tencent4, as mc-server answers a cluster
/// without metrics.
async fn cluster_metrics(
    axum::extract::Path((cluster, rest)): axum::extract::Path<(String, String)>,
) -> Response {
    if cluster == "tencent4" {
        let body = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404,
            "reason": "NotFound", "message": "the server could not find the requested resource"});
        return (StatusCode::NOT_FOUND, axum::Json(body)).into_response();
    }
    metrics_of(&[cluster.as_str()], &rest, None)
}

fn metrics_of(clusters: &[&str], rest: &str, warning: Option<&str>) -> Response {
    let annotations = |c: &str| json!({"mulitcluster.practice.com/cluster": c});
    let (kind, items): (&str, Vec<Value>) = match rest.split('/').collect::<Vec<_>>().as_slice() {
        ["nodes"] => (
            "NodeMetricsList",
            clusters
                .iter()
                .map(|c| {
                    let name = if *c == "tencent1" { "vm-0-16-centos" } else { "minikube" };
                    json!({"metadata": {"name": name, "annotations": annotations(c)},
                        "usage": {"cpu": "183912345n", "memory": "1532Mi"}})
                })
                .collect(),
        ),
        ["pods"] | ["namespaces", _, "pods"] => {
            let ns = rest.split('/').nth(1).filter(|_| rest.starts_with("namespaces/")).unwrap_or("shop");
            let pod = |c: &str, name: &str, cpu: &str, memory: &str| {
                json!({"metadata": {"name": name, "namespace": ns, "annotations": annotations(c)},
                    "containers": [{"name": "main", "usage": {"cpu": cpu, "memory": memory}},
                                   {"name": "envoy", "usage": {"cpu": "1m", "memory": "4Mi"}}]})
            };
            let items = clusters
                .iter()
                .flat_map(|c| match *c {
                    "tencent1" => vec![pod(c, "web-1", "12m", "30Mi"), pod(c, "api-0", "250m", "128974848")],
                    _ => vec![pod(c, "web-1", "1500000n", "20Mi")],
                })
                .collect();
            ("PodMetricsList", items)
        }
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    let body = json!({"kind": kind, "apiVersion": "metrics.k8s.io/v1beta1", "metadata": {}, "items": items});
    let mut resp = axum::Json(body).into_response();
    if let Some(w) = warning {
        resp.headers_mut().insert(header::WARNING, format!("299 - \"{w}\"").parse().unwrap());
    }
    resp
}

/// The clusters of the fixtures (and of `clusters.json`).
const KNOWN_CLUSTERS: [&str; 3] = ["tencent1", "tencent2", "tencent4"];

fn param<'a>(params: &'a [(String, String)], key: &str) -> Option<&'a str> {
    params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

fn items_of(gvr: &str) -> Option<Vec<Value>> {
    let name = match gvr {
        "pods" | "v1/pods" | "core/v1/pods" | "po" => "pods",
        "configmaps" | "v1/configmaps" | "cm" => "configmaps",
        "nodes" | "v1/nodes" => "nodes",
        "deployments" | "deploy" | "apps/v1/deployments" => "deployments",
        "widgets" => "widgets",
        "nothing" => return Some(vec![]),
        "many" => {
            let one = &fixture("configmaps").items[0];
            return Some(
                (0..3000)
                    .map(|i| {
                        let mut obj = one.object.clone();
                        obj["metadata"]["name"] = json!(format!("cm-{i:04}"));
                        json!({"clusterName": one.cluster_name, "Object": obj})
                    })
                    .collect(),
            );
        }
        "apiextensions.k8s.io/v1/customresourcedefinitions" => {
            return Some(
                fixture("widgets")
                    .crd
                    .into_iter()
                    .map(|crd| json!({"clusterName": "tencent1", "Object": crd}))
                    .collect(),
            );
        }
        _ => return None,
    };
    Some(fixture(name).items.into_iter().map(|i| serde_json::to_value(i).unwrap()).collect())
}

async fn list(Query(params): Query<Vec<(String, String)>>) -> Response {
    let gvr = param(&params, "gvr").unwrap_or_default();
    // Several types, as mc-server takes them: each type's items in the order given.
    let several = || gvr.split(',').map(items_of).collect::<Option<Vec<_>>>().map(|i| i.concat());
    let found = if gvr.contains(',') { several() } else { items_of(gvr) };
    let Some(mut items) = found else {
        let body = json!({
            "error": format!("unknown resource type \"{gvr}\"; did you mean: v1/pods"),
            "candidates": ["v1/pods"],
        });
        return (StatusCode::NOT_FOUND, axum::Json(body)).into_response();
    };
    // Like mc-server: a cluster it does not know is a 404.
    if let Some(cluster) = param(&params, "cluster").filter(|c| !KNOWN_CLUSTERS.contains(c)) {
        let known = KNOWN_CLUSTERS.join(", ");
        let body = json!({"error": format!("unknown cluster \"{cluster}\" (known: {known})")});
        return (StatusCode::NOT_FOUND, axum::Json(body)).into_response();
    }
    if let Some(name) = param(&params, "name") {
        items.retain(|i| i["Object"]["metadata"]["name"] == name);
    }
    if let Some(cluster) = param(&params, "cluster") {
        items.retain(|i| i["clusterName"] == cluster);
    }
    if param(&params, "watch") == Some("true") {
        return watch(items);
    }
    // Two pages for configmaps, so the client must follow the continue token.
    let mut headers = HeaderMap::new();
    if gvr.contains("configmaps") && items.len() > 1 {
        if param(&params, "continue") == Some("page2") {
            items.remove(0);
        } else {
            items.truncate(1);
            headers.insert("x-continue", "page2".parse().unwrap());
        }
    }
    if let Some(limit) = param(&params, "limit").and_then(|l| l.parse::<usize>().ok()).filter(|&l| l > 0) {
        items.truncate(limit);
    }
    (headers, axum::Json(Value::Array(items))).into_response()
}

/// The items as ADDED, then the first one MODIFIED after a pause, then the end of the stream.
fn watch(items: Vec<Value>) -> Response {
    let mut lines: Vec<(u64, String)> = items
        .iter()
        .map(|i| {
            (0, json!({"type": "ADDED", "clusterName": i["clusterName"], "object": i["Object"]}).to_string())
        })
        .collect();
    if let Some(first) = items.first() {
        let mut obj = first["Object"].clone();
        obj["metadata"]["name"] = json!("created-later");
        lines.push((800, json!({"type": "MODIFIED", "clusterName": "tencent4", "object": obj}).to_string()));
    }
    let stream = futures::stream::unfold(lines.into_iter(), |mut lines| async move {
        let (delay, line) = lines.next()?;
        tokio::time::sleep(Duration::from_millis(delay)).await;
        Some((Ok::<_, std::convert::Infallible>(Bytes::from(format!("{line}\n"))), lines))
    });
    ([(header::CONTENT_TYPE, "application/x-ndjson")], Body::from_stream(stream)).into_response()
}

async fn resources() -> axum::Json<Value> {
    let info = |group: &str, version: &str, resource: &str, kind: &str, short: &[&str], namespaced: bool| {
        json!({"group": group, "version": version, "resource": resource, "singular": kind.to_lowercase(),
               "kind": kind, "shortNames": short, "namespaced": namespaced, "verbs": ["list", "watch"]})
    };
    axum::Json(json!([
        info("", "v1", "pods", "Pod", &["po"], true),
        info("", "v1", "configmaps", "ConfigMap", &["cm"], true),
        info("apps", "v1", "deployments", "Deployment", &["deploy"], true),
        info("example.com", "v1", "widgets", "Widget", &[], true),
    ]))
}

async fn clusters() -> Response {
    let text = std::fs::read_to_string(crate::print::fixtures_dir().join("clusters.json")).unwrap();
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

async fn join(Query(params): Query<Vec<(String, String)>>, mut form: Multipart) -> Response {
    let mut kubeconfig = Vec::new();
    while let Ok(Some(field)) = form.next_field().await {
        if field.name() == Some("kubeconfig") {
            kubeconfig = field.bytes().await.unwrap().to_vec();
        }
    }
    if kubeconfig.is_empty() {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"error": "multipart field kubeconfig is missing"})),
        )
            .into_response();
    }
    if param(&params, "cluster") == Some("tencent1") {
        return (
            StatusCode::CONFLICT,
            axum::Json(json!({"error": "cluster \"tencent1\" is already joined"})),
        )
            .into_response();
    }
    axum::Json(json!({"res": "join cluster successful"})).into_response()
}

async fn unjoin(Query(params): Query<Vec<(String, String)>>) -> Response {
    match param(&params, "cluster") {
        Some("nope") => {
            (StatusCode::NOT_FOUND, axum::Json(json!({"error": "unknown cluster \"nope\""}))).into_response()
        }
        _ => axum::Json(json!({"res": "unjoin cluster successful"})).into_response(),
    }
}

/// The token the fake's `/v1/auth/can-i` takes for an admin's (asking for another user).
pub const ADMIN_TOKEN: &str = "fake-admin-token-0123";

/// `/v1/auth/can-i` as mc-server answers it for a caller bound to view Pods in `team-a` of
/// tencent1 (a RoleBinding) and everywhere in tencent4 (a ClusterRoleBinding), and to read
/// ConfigMaps everywhere; `user=` (an admin token only): that user is allowed nothing, unless in
/// the group `devs` (allowed everything by `ClusterRoleBinding/devs`).
async fn can_i(headers: HeaderMap, Query(params): Query<Vec<(String, String)>>) -> Response {
    let error =
        |status: StatusCode, message: String| (status, axum::Json(json!({"error": message}))).into_response();
    let verb = param(&params, "verb").unwrap_or_default();
    let gvr = param(&params, "gvr").unwrap_or_default();
    let namespace = param(&params, "namespace");
    if !matches!(gvr, "pods" | "v1/pods" | "configmaps" | "cm") {
        return error(StatusCode::NOT_FOUND, format!("unknown resource type \"{gvr}\""));
    }
    let mut clusters: Vec<&str> = KNOWN_CLUSTERS.to_vec();
    if let Some(cluster) = param(&params, "cluster") {
        if !KNOWN_CLUSTERS.contains(&cluster) {
            return error(
                StatusCode::NOT_FOUND,
                format!("unknown cluster \"{cluster}\" (known: tencent1, tencent2, tencent4)"),
            );
        }
        clusters.retain(|c| *c == cluster);
    }
    let reads = matches!(verb, "get" | "list" | "watch");
    let answer = |cluster: &str| -> (bool, String) {
        if param(&params, "user").is_some() {
            let devs = params.iter().any(|(k, v)| k == "group" && v == "devs");
            return if devs { (true, "ClusterRoleBinding/devs".into()) } else { (false, String::new()) };
        }
        match (gvr, cluster) {
            ("configmaps" | "cm", _) if reads => (true, "ClusterRoleBinding/configmap-reader".into()),
            ("pods" | "v1/pods", "tencent1") if reads && namespace == Some("team-a") => {
                (true, "RoleBinding/team-a/alice-view".into())
            }
            ("pods" | "v1/pods", "tencent4") if reads => (true, "ClusterRoleBinding/view".into()),
            _ => (false, String::new()),
        }
    };
    if param(&params, "user").is_some() {
        let admin = format!("Bearer {ADMIN_TOKEN}");
        if headers.get(header::AUTHORIZATION).and_then(|h| h.to_str().ok()) != Some(admin.as_str()) {
            return error(
                StatusCode::FORBIDDEN,
                "users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope; asking for another user (user=, group=) needs the right to impersonate it".into(),
            );
        }
    }
    let answers: Vec<Value> = clusters
        .iter()
        .map(|c| {
            let (allowed, reason) = answer(c);
            json!({"cluster": c, "allowed": allowed, "reason": reason})
        })
        .collect();
    axum::Json(Value::Array(answers)).into_response()
}
