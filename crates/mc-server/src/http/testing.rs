//! In-process HTTP tests: a real [`AppState`] over an in-memory SQLite store holding a few
//! objects of two clusters, and the whole [`router`] called without a socket or a cluster.
//!
//! ```ignore
//! let api = TestApi::new().await;
//! let answer = api.get("/api/v1/configmaps").await;
//! assert_eq!(answer.status, StatusCode::OK);
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

// The contract of each part of the API, through the whole router, a file each (the Kubernetes
// API's is in `kube/tests`).
mod access;
mod auth;
mod can_i;
mod count;
mod history;
mod hub;
mod join;
mod list;
mod oidc;
mod search;
mod service;
mod tree;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use futures::StreamExt;
use mc_types::config::Role;
use mc_types::{Gvr, ResourceInfo};
use serde_json::{Value, json};
use tower::ServiceExt;

use super::{AppState, router};
use crate::auth::Auth;
use crate::clusters::transport::Addresses;
use crate::clusters::{Cluster, ClusterSpec, Registry};
use crate::membership::Membership;
use crate::metrics::Metrics;
use crate::store::{ApplyOne, Change, Store, StoredObject};
use crate::sync::{Prepare, SyncContext, writer};

/// The admin token every [`TestApi`] accepts.
pub const TOKEN: &str = "test-admin-token-0123456789";

/// A token with the `read` role, also accepted by every [`TestApi`].
pub const READ_TOKEN: &str = "test-read-token-0123456789";

/// A static token mapped to user `ci` in group `team-a`, also accepted by every [`TestApi`].
pub const MAPPED_TOKEN: &str = "test-mapped-token-0123456789";

/// The clusters of a [`TestApi`], in the store's order.
pub const CLUSTERS: [&str; 2] = ["alpha", "beta"];

/// What [`TestApi::with`] sets up differently from the default.
#[derive(Clone, Copy, Default)]
pub struct Setup {
    /// `server.anonymousRead`.
    pub anonymous_read: bool,
    /// `server.metricsAuth`.
    pub metrics_auth: bool,
    /// alpha is the master cluster (whose RBAC says whom an identity may impersonate).
    pub master: bool,
    /// `authorization.mode`.
    pub authorization: crate::access::Mode,
    /// beta's labels.
    pub beta_labels: &'static [(&'static str, &'static str)],
    /// History on (`history.enabled`), with its default rules.
    pub history: bool,
    /// Search off (`search.enabled: false`).
    pub search_off: bool,
    /// The search index deferred for the first sync, as the server does for an empty store:
    /// the fixture's objects have no index rows until `complete_search_index` runs.
    pub search_deferred: bool,
}

/// A server's state and router over a store filled with [`fixture`] objects.
pub struct TestApi {
    /// The state the router serves.
    pub state: AppState,
    /// The writer's task (changes written through [`TestApi::write`] reach watches).
    _writer: tokio::task::JoinHandle<()>,
}

/// One answer, read whole.
pub struct Answer {
    /// Status code.
    pub status: StatusCode,
    /// Headers.
    pub headers: HeaderMap,
    /// Body.
    pub body: Bytes,
}

impl Answer {
    /// The body as JSON (panics with the body's text when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// One header as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body as newline-delimited JSON (watch events).
    pub fn lines(&self) -> Vec<Value> {
        self.text()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The body as a JSON array (a `/v1` list), asserting a 200.
    #[track_caller]
    pub fn array(&self) -> Vec<Value> {
        assert_eq!(self.status, StatusCode::OK, "{}", self.text());
        self.json().as_array().unwrap_or_else(|| panic!("not an array: {}", self.text())).clone()
    }

    /// The `Warning` headers, as sent (`299 - "…"`; UTF-8, as kube-apiserver's may be).
    pub fn warnings(&self) -> Vec<String> {
        let values = self.headers.get_all(header::WARNING).iter();
        values.map(|v| String::from_utf8(v.as_bytes().to_vec()).unwrap()).collect()
    }

    /// The names in a Kubernetes `List` (`items[].metadata.name`), each as `cluster/name`.
    pub fn names(&self) -> Vec<String> {
        let body = self.json();
        let items = body["items"].as_array().unwrap_or_else(|| panic!("no items: {body}"));
        items.iter().map(cluster_and_name).collect()
    }

    /// Asserts a Kubernetes `Status` answer with this code and reason; returns its message.
    #[track_caller]
    pub fn status_object(&self, code: StatusCode, reason: &str) -> String {
        let body = self.json();
        assert_eq!(self.status, code, "{body}");
        assert_eq!(body["kind"], "Status", "{body}");
        assert_eq!(body["code"], code.as_u16(), "{body}");
        assert_eq!(body["reason"], reason, "{body}");
        let message = body["message"].as_str().unwrap().to_string();
        assert!(!message.is_empty() && !message.contains('\n'), "{message:?}");
        message
    }

    /// Asserts a `/v1` error answer (`{"error": ...}`) with this code; returns its message.
    #[track_caller]
    pub fn error(&self, code: StatusCode) -> String {
        let body = self.json();
        assert_eq!(self.status, code, "{body}");
        let message = body["error"].as_str().unwrap_or_else(|| panic!("no error: {body}")).to_string();
        assert!(!message.is_empty() && !message.contains('\n'), "{message:?}");
        message
    }
}

/// An answer read as it streams (a watch), a line at a time.
pub struct Streamed {
    /// Status code.
    pub status: StatusCode,
    /// Headers.
    pub headers: HeaderMap,
    /// The body, for reading it other than by lines.
    pub body: axum::body::BodyDataStream,
    buffer: Vec<u8>,
}

/// What a [`Streamed`] answer brought next.
#[derive(Debug, PartialEq)]
pub enum Next {
    /// One line, as JSON.
    Line(Value),
    /// The answer ended.
    End,
    /// Nothing came in the time given.
    Quiet,
}

impl Streamed {
    /// The next line, waiting at most `within`.
    pub async fn next(&mut self, within: Duration) -> Next {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(at) = self.buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=at).collect();
                return Next::Line(serde_json::from_slice(&line).unwrap());
            }
            match tokio::time::timeout_at(deadline, self.body.next()).await {
                Ok(Some(chunk)) => self.buffer.extend_from_slice(&chunk.unwrap()),
                Ok(None) => return Next::End,
                Err(_) => return Next::Quiet,
            }
        }
    }

    /// The next `n` lines, each within `within`.
    pub async fn lines(&mut self, n: usize, within: Duration) -> Vec<Value> {
        let mut lines = Vec::new();
        for _ in 0..n {
            match self.next(within).await {
                Next::Line(v) => lines.push(v),
                other => panic!("line {} of {n}: {other:?} after {lines:?}", lines.len() + 1),
            }
        }
        lines
    }
}

/// A query parameter's value, percent-encoded (selectors hold `=`, `!`, `,`, spaces).
pub fn encoded(value: &str) -> String {
    let mut out = String::new();
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `cluster/name` of an annotated object.
pub fn cluster_and_name(o: &Value) -> String {
    let meta = &o["metadata"];
    let cluster = meta["annotations"][mc_types::crd::CLUSTER_ANNOTATION].as_str().unwrap_or("?");
    format!("{cluster}/{}", meta["name"].as_str().unwrap_or("?"))
}

/// The types every cluster of a [`TestApi`] has: a few built-in ones with kubectl's short names
/// (pods and deployments in the category `all`, as Kubernetes puts them), and `widgets` of two
/// groups (so the bare name is ambiguous).
pub fn types() -> Vec<ResourceInfo> {
    let info = |group: &str, resource: &str, kind: &str, namespaced: bool, short: &[&str]| ResourceInfo {
        group: group.into(),
        version: "v1".into(),
        resource: resource.into(),
        singular: kind.to_ascii_lowercase(),
        kind: kind.into(),
        short_names: short.iter().map(|s| s.to_string()).collect(),
        namespaced,
        verbs: ["get", "list", "watch"].map(String::from).to_vec(),
        categories: match resource {
            "pods" | "deployments" => vec!["all".to_owned()],
            _ => Vec::new(),
        },
    };
    vec![
        info("", "configmaps", "ConfigMap", true, &["cm"]),
        info("", "secrets", "Secret", true, &[]),
        info("", "namespaces", "Namespace", false, &["ns"]),
        info("", "pods", "Pod", true, &["po"]),
        info("apps", "deployments", "Deployment", true, &["deploy"]),
        info("a.example.com", "widgets", "Widget", true, &[]),
        info("b.example.com", "widgets", "Widget", true, &[]),
    ]
}

/// An object of `gvr` named `name` (in `namespace`, unless cluster-scoped) with these labels.
pub fn object(gvr: &Gvr, namespace: Option<&str>, name: &str, labels: Value) -> StoredObject {
    let mut meta = json!({"name": name, "uid": format!("uid-{name}"), "resourceVersion": "1",
        "creationTimestamp": "2024-01-01T00:00:00Z", "labels": labels});
    if let Some(ns) = namespace {
        meta["namespace"] = json!(ns);
    }
    stored(gvr, json!({"metadata": meta, "data": {"k": "v"}}))
}

/// A Pod in `namespace` in this `status.phase`, with these labels.
pub fn pod(namespace: &str, name: &str, phase: &str, labels: Value) -> StoredObject {
    let meta = json!({"name": name, "namespace": namespace, "uid": format!("uid-{name}"),
        "resourceVersion": "1", "creationTimestamp": "2024-01-01T00:00:00Z", "labels": labels});
    let spec = json!({"containers": [{"name": "main", "image": "nginx"}]});
    stored(&Gvr::new("", "v1", "pods"), json!({"metadata": meta, "spec": spec, "status": {"phase": phase}}))
}

/// An object of `gvr` as given (its kind from [`types`]), as the sync would store it.
pub fn stored(gvr: &Gvr, value: Value) -> StoredObject {
    let kind = types().into_iter().find(|t| t.resource == gvr.resource).map(|t| t.kind).unwrap_or_default();
    StoredObject::from_json(gvr.clone(), kind, value).unwrap()
}

/// A token the tests make act as the Kubernetes identity `alice` (see
/// [`crate::identity::TokenReviewer::remember`]).
pub const ALICE: &str = "alice-token-0123456789";

/// An RBAC object of `kind` (its plural `resource`) with this body besides its metadata.
pub fn rbac(resource: &str, kind: &str, namespace: Option<&str>, name: &str, body: Value) -> StoredObject {
    let mut meta = json!({"name": name, "uid": format!("uid-{name}"), "resourceVersion": "1"});
    if let Some(ns) = namespace {
        meta["namespace"] = ns.into();
    }
    let mut object = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta});
    for (k, v) in body.as_object().unwrap() {
        object[k] = v.clone();
    }
    StoredObject::from_json(Gvr::new("rbac.authorization.k8s.io", "v1", resource), kind, object).unwrap()
}

/// What the store holds at the start: per cluster, its namespaces, ConfigMaps, Secrets, Pods
/// and one Deployment (no widgets).
///
/// - alpha: namespaces `default`, `team`; ConfigMaps `default/cm-a1`, `default/cm-a2`,
///   `team/cm-a3` (`app=web` on the first two); Secrets `default/s-a1`, `team/s-a2`; Pods
///   `default/p-a1` (Running, `app=web`), `team/p-a2` (Pending, `app=db`).
/// - beta: namespace `default`; ConfigMaps `default/cm-b1` (`app=web`), `default/cm-b2`;
///   Secret `default/s-b1`; Deployment `default/web`; Pod `default/p-b1` (Failed).
pub fn fixture() -> Vec<(&'static str, StoredObject)> {
    let (cm, secret, ns) =
        (Gvr::new("", "v1", "configmaps"), Gvr::new("", "v1", "secrets"), Gvr::new("", "v1", "namespaces"));
    let web = json!({"app": "web"});
    vec![
        ("alpha", object(&ns, None, "default", json!({}))),
        ("alpha", object(&ns, None, "team", json!({}))),
        ("alpha", object(&cm, Some("default"), "cm-a1", web.clone())),
        ("alpha", object(&cm, Some("default"), "cm-a2", web.clone())),
        ("alpha", object(&cm, Some("team"), "cm-a3", json!({}))),
        ("alpha", object(&secret, Some("default"), "s-a1", json!({}))),
        ("alpha", object(&secret, Some("team"), "s-a2", json!({}))),
        ("beta", object(&ns, None, "default", json!({}))),
        ("beta", object(&cm, Some("default"), "cm-b1", web)),
        ("beta", object(&cm, Some("default"), "cm-b2", json!({}))),
        ("beta", object(&secret, Some("default"), "s-b1", json!({}))),
        ("beta", object(&Gvr::new("apps", "v1", "deployments"), Some("default"), "web", json!({}))),
        ("alpha", pod("default", "p-a1", "Running", json!({"app": "web"}))),
        ("alpha", pod("team", "p-a2", "Pending", json!({"app": "db"}))),
        ("beta", pod("default", "p-b1", "Failed", json!({}))),
    ]
}

impl TestApi {
    /// The default setup: [`TOKEN`] is the only way in.
    pub async fn new() -> Self {
        Self::with(Setup::default()).await
    }

    /// A setup of one's own.
    pub async fn with(setup: Setup) -> Self {
        let store = Store::connect("sqlite::memory:").await.expect("in-memory store");
        let store = if setup.search_off { store } else { store.keep_search_index() };
        if setup.search_deferred {
            assert!(store.defer_search_index().await.expect("search index deferred"));
        }
        let store =
            if setup.history { store.record_history(crate::store::HistoryRules::default()) } else { store };
        for cluster in CLUSTERS {
            let changes = fixture()
                .into_iter()
                .filter(|(c, _)| *c == cluster)
                .map(|(_, o)| Change::Upsert(o))
                .collect();
            store.apply_batch(cluster, changes).await.expect("fixture written");
        }
        let health = Arc::new(crate::sync::resilient::StoreHealth::default());
        let (writer, notices, history, task) = writer::spawn(store.clone(), health.clone());
        let registry = Arc::new(Registry::new());
        for name in CLUSTERS {
            let labels = if name == CLUSTERS[1] { setup.beta_labels } else { &[] };
            let spec = ClusterSpec {
                is_master: setup.master && name == CLUSTERS[0],
                labels: labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
                ..ClusterSpec::for_test(name)
            };
            let cluster = Arc::new(Cluster::new(spec));
            cluster.set_catalog(types());
            cluster.update(|s| {
                s.attempted = true;
                s.ready = true;
                s.initial_sync_done = true;
                s.synced_types = types().iter().map(ResourceInfo::gvr).collect();
            });
            registry.insert(cluster);
        }
        let sync = SyncContext {
            store: store.clone(),
            writer,
            shards: None,
            watch_all: true,
            notices,
            history,
            ready_tx: tokio::sync::broadcast::channel(4).0,
            prepare: Prepare {
                redact_secrets: false,
                compress: None,
                indexed: Default::default(),
                search: true,
            },
            exclude_groups: Vec::new(),
            exclude_resources: Vec::new(),
            health,
            lists: Default::default(),
        };
        let membership = Arc::new(Membership::new(
            registry.clone(),
            sync.clone(),
            "mc-system".into(),
            Addresses::NoLinkLocal,
        ));
        membership.mark_restore_tried();
        let tokens = [(TOKEN.into(), Role::Admin), (READ_TOKEN.into(), Role::Read)];
        let mapped =
            [(MAPPED_TOKEN.to_string(), crate::authz::User::new("ci", ["team-a", "system:authenticated"]))];
        let auth = Auth::new(&tokens, setup.anonymous_read, setup.metrics_auth).with_users(&mapped);
        let access = Arc::new(
            crate::access::AccessControl::new(store.clone(), setup.authorization, sync.history.clone())
                .with_registry(registry.clone()),
        );
        let openapi = Arc::new(super::kube::openapi::Documents::default().following(sync.history.clone()));
        let state = AppState {
            registry,
            store,
            auth: Arc::new(auth),
            metrics: Arc::new(Metrics::default()),
            sync,
            membership,
            queries: Arc::new(tokio::sync::Semaphore::new(super::MAX_CONCURRENT_QUERIES)),
            rows: Arc::default(),
            reviewer: Arc::default(),
            oidc: None,
            access,
            openapi,
            relation_links: Arc::default(),
        };
        TestApi { state, _writer: task }
    }

    /// The whole API over this state.
    pub fn router(&self) -> Router {
        router(self.state.clone())
    }

    /// A request with the admin token.
    pub fn request(method: Method, uri: &str) -> axum::http::request::Builder {
        Self::request_as(method, uri, Some(TOKEN))
    }

    /// A request with this bearer token, or none.
    pub fn request_as(method: Method, uri: &str, token: Option<&str>) -> axum::http::request::Builder {
        let request = Request::builder().method(method).uri(uri);
        match token {
            Some(token) => request.header(header::AUTHORIZATION, format!("Bearer {token}")),
            None => request,
        }
    }

    /// `method uri` without a body, with this bearer token or none.
    pub async fn call(&self, method: Method, uri: &str, token: Option<&str>) -> Answer {
        self.send(Self::request_as(method, uri, token).body(Body::empty()).unwrap()).await
    }

    /// Sends one request and reads the answer whole.
    pub async fn send(&self, request: Request<Body>) -> Answer {
        let resp = self.router().oneshot(request).await.expect("the router answers");
        let (parts, body) = resp.into_parts();
        let body = axum::body::to_bytes(body, usize::MAX).await.expect("the body is read");
        Answer { status: parts.status, headers: parts.headers, body }
    }

    /// `GET uri` with the admin token.
    pub async fn get(&self, uri: &str) -> Answer {
        self.send(Self::request(Method::GET, uri).body(Body::empty()).unwrap()).await
    }

    /// `GET uri` with the admin token, its answer read as it streams.
    pub async fn stream(&self, uri: &str) -> Streamed {
        self.stream_as(uri, TOKEN).await
    }

    /// `GET uri` with this bearer token, its answer read as it streams.
    pub async fn stream_as(&self, uri: &str, token: &str) -> Streamed {
        let request = Self::request_as(Method::GET, uri, Some(token)).body(Body::empty()).unwrap();
        let resp = self.router().oneshot(request).await.expect("the router answers");
        let (parts, body) = resp.into_parts();
        Streamed {
            status: parts.status,
            headers: parts.headers,
            body: body.into_data_stream(),
            buffer: Vec::new(),
        }
    }

    /// `GET uri` with the admin token and this `Accept`.
    pub async fn get_accepting(&self, uri: &str, accept: &str) -> Answer {
        let request = Self::request(Method::GET, uri).header(header::ACCEPT, accept).body(Body::empty());
        self.send(request.unwrap()).await
    }

    /// Writes an object of `cluster` through the writer, as a sync does (watches see it).
    pub async fn write(&self, cluster: &str, object: StoredObject) {
        let cluster = self.state.registry.get(cluster).expect("a cluster of the fixture");
        self.state.sync.writer.send(writer::Msg::Upsert(cluster, object, Instant::now())).await.unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.state.sync.writer.send(writer::Msg::Barrier(tx)).await.unwrap();
        rx.await.unwrap();
    }

    /// Writes an object that is new to `cluster` (its watch said `ADDED`) through the writer.
    pub async fn create(&self, cluster: &str, mut object: StoredObject) {
        object.created = true;
        self.write(cluster, object).await;
    }

    /// Deletes an object of `cluster` through the writer, as a sync does (watches see it).
    pub async fn delete(&self, cluster: &str, gvr: &Gvr, namespace: &str, name: &str) {
        let cluster = self.state.registry.get(cluster).expect("a cluster of the fixture");
        let key = (gvr.clone(), namespace.to_string(), name.to_string(), format!("uid-{name}"));
        self.state
            .sync
            .writer
            .send(writer::Msg::Delete(cluster, Box::new(key), Instant::now()))
            .await
            .unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.state.sync.writer.send(writer::Msg::Barrier(tx)).await.unwrap();
        rx.await.unwrap();
    }

    /// Puts a cluster back into its first sync (`Syncing`): its objects may be stale.
    pub fn unsync(&self, cluster: &str) {
        let cluster = self.state.registry.get(cluster).expect("a cluster of the fixture");
        cluster.update(|s| s.initial_sync_done = false);
    }

    /// Forgets a cluster, as an unjoin does (its objects stay in the store).
    pub fn forget(&self, cluster: &str) {
        self.state.registry.remove(cluster);
    }
}

#[tokio::test]
async fn the_fixture_is_served_on_both_apis() {
    let api = TestApi::new().await;
    let answer = api.get("/api/v1/configmaps").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert_eq!(
        answer.names(),
        ["alpha/cm-a1", "alpha/cm-a2", "alpha/cm-a3", "beta/cm-b1", "beta/cm-b2"],
        "every ConfigMap of both clusters, in cluster order"
    );
    let answer = api.get("/v1/list?gvr=v1/secrets&limit=0").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert_eq!(answer.json().as_array().unwrap().len(), 3);
    let answer = api.get("/apis/apps/v1/namespaces/default/deployments/web").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert_eq!(cluster_and_name(&answer.json()), "beta/web");
}

#[tokio::test]
async fn without_the_token_the_api_answers_401() {
    let api = TestApi::new().await;
    let request = Request::get("/api/v1/configmaps").body(Body::empty()).unwrap();
    assert_eq!(api.send(request).await.status, StatusCode::UNAUTHORIZED);
}
