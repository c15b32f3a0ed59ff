//! `pods/{name}/log` read from a member cluster (faked: a kube client over a service that
//! answers as its API server would), and the refusal of `exec`, `attach`, `portforward` and
//! `proxy`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{Method, Request, Response, StatusCode};
use futures::StreamExt;
use serde_json::json;

use crate::http::testing::{ALICE, READ_TOKEN, Setup, TestApi, pod, rbac};

/// What the fake member answers to one request.
type Answer = Box<dyn FnMut() -> Response<Body> + Send>;

/// A member cluster's API server, faked: every request's path and query are recorded and
/// answered by `answer`.
fn member(api: &TestApi, cluster: &str, answer: Answer) -> Arc<Mutex<Vec<String>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorded = seen.clone();
    let answer = Arc::new(Mutex::new(answer));
    let service = tower::service_fn(move |req: Request<kube::client::Body>| {
        recorded.lock().unwrap().push(req.uri().to_string());
        let resp = (answer.lock().unwrap())();
        async move { Ok::<_, std::convert::Infallible>(resp) }
    });
    let client = kube::Client::new(service, "default");
    api.state.registry.get(cluster).unwrap().set_client(Some(client));
    seen
}

fn text(body: &'static str) -> Answer {
    Box::new(move || Response::new(Body::from(body)))
}

fn status(code: StatusCode, message: &'static str) -> Answer {
    Box::new(move || {
        let body = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message,
            "reason": "NotFound", "code": code.as_u16()});
        Response::builder().status(code).body(Body::from(body.to_string())).unwrap()
    })
}

/// A body fed through a channel: the sender learns when the body is dropped.
fn fed() -> (Answer, tokio::sync::mpsc::Sender<Result<Bytes, std::io::Error>>) {
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let mut rx = Some(rx);
    let answer: Answer = Box::new(move || {
        let rx = rx.take().expect("one request");
        let stream = futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|c| (c, rx)) });
        Response::new(Body::from_stream(stream))
    });
    (answer, tx)
}

const LOG: &str = "/api/v1/namespaces/default/pods/p-a1/log";

#[tokio::test]
async fn a_pods_log_comes_from_the_one_cluster_that_has_it_with_its_checked_parameters() {
    let api = TestApi::new().await;
    let seen = member(&api, "alpha", text("one\ntwo\n"));
    let beta = member(&api, "beta", text("not this one\n"));
    let query = "container=main&follow=1&tailLines=5&timestamps=true&sinceTime=2026-01-02T16:04:05%2B01:00&limitBytes=9";
    let answer = api.get(&format!("{LOG}?{query}")).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert_eq!(answer.text(), "one\ntwo\n");
    assert_eq!(answer.header("content-type"), Some("text/plain"));
    assert_eq!(
        *seen.lock().unwrap(),
        [format!(
            "{LOG}?container=main&follow=true&timestamps=true&tailLines=5&sinceTime=2026-01-02T15:04:05Z&limitBytes=9"
        )]
    );
    assert!(beta.lock().unwrap().is_empty());
    // Under /clusters/NAME/: that cluster, asked whether or not the store has the pod.
    let answer = api.get(&format!("/clusters/beta{LOG}")).await;
    assert_eq!(answer.text(), "not this one\n");
    assert_eq!(*beta.lock().unwrap(), [LOG]);
}

#[tokio::test]
async fn unknown_parameters_and_bad_values_are_400_and_never_reach_the_member() {
    let api = TestApi::new().await;
    let seen = member(&api, "alpha", text("x\n"));
    for query in [
        "command=sh",
        "container=Main",
        "container=a%26follow%3Dtrue",
        "follow=maybe",
        "tailLines=-1",
        "sinceSeconds=soon",
        "limitBytes=0",
        "sinceTime=yesterday",
        "insecureSkipTLSVerifyBackend=true",
    ] {
        let answer = api.get(&format!("{LOG}?{query}")).await;
        answer.status_object(StatusCode::BAD_REQUEST, "BadRequest");
    }
    let both = api.get(&format!("{LOG}?sinceSeconds=5&sinceTime=2026-01-02T15:04:05Z")).await;
    both.status_object(StatusCode::UNPROCESSABLE_ENTITY, "Invalid");
    let bad_name = api.get("/api/v1/namespaces/default/pods/P_1/log").await;
    bad_name.status_object(StatusCode::BAD_REQUEST, "BadRequest");
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_pod_in_no_cluster_is_404_and_in_several_409_naming_them() {
    let api = TestApi::new().await;
    let none = api.get("/api/v1/namespaces/default/pods/nowhere/log").await;
    let message = none.status_object(StatusCode::NOT_FOUND, "NotFound");
    assert_eq!(message, "pods \"nowhere\" not found");
    api.create("alpha", pod("default", "twin", "Running", json!({}))).await;
    api.create("beta", pod("default", "twin", "Running", json!({}))).await;
    let twins = api.get("/api/v1/namespaces/default/pods/twin/log").await;
    let message = twins.status_object(StatusCode::CONFLICT, "Conflict");
    assert!(message.contains("exists in clusters alpha, beta"), "{message}");
    assert!(message.contains("/clusters/NAME/api/v1/namespaces/default/pods/twin/log"), "{message}");
    assert!(message.contains("kubectl multicluster logs pod/twin -n default"), "{message}");
}

#[tokio::test]
async fn a_members_refusal_is_a_status_in_our_words_with_its_code() {
    let api = TestApi::new().await;
    member(&api, "alpha", status(StatusCode::NOT_FOUND, "<script>member's own words</script>"));
    let answer = api.get(LOG).await;
    let message = answer.status_object(StatusCode::NOT_FOUND, "NotFound");
    assert_eq!(message, "pods \"p-a1\" not found in namespace \"default\" of cluster \"alpha\"");
    member(&api, "alpha", status(StatusCode::BAD_REQUEST, "<script>member's own words</script>"));
    let answer = api.get(&format!("{LOG}?container=nope")).await;
    let message = answer.status_object(StatusCode::BAD_REQUEST, "BadRequest");
    assert!(message.contains("container \"nope\" of pod \"p-a1\""), "{message}");
    assert!(!message.contains("member's own words"), "{message}");
}

#[tokio::test]
async fn a_stream_that_breaks_ends_with_one_line_of_ours() {
    let api = TestApi::new().await;
    let (answer, tx) = fed();
    member(&api, "alpha", answer);
    let mut stream = api.stream(&format!("{LOG}?follow=true")).await;
    tx.send(Ok(Bytes::from_static(b"first\nhalf a li"))).await.unwrap();
    tx.send(Err(std::io::Error::other("<member's own words>"))).await.unwrap();
    let mut body = Vec::new();
    while let Some(chunk) = tokio::time::timeout(Duration::from_secs(5), stream.body.next()).await.unwrap() {
        body.extend_from_slice(&chunk.unwrap());
    }
    assert_eq!(
        String::from_utf8(body).unwrap(),
        "first\nhalf a li\nmc-server: the log stream from cluster alpha ended: the connection to its API server broke\n"
    );
}

#[tokio::test]
async fn a_caller_that_leaves_drops_the_members_stream() {
    let api = TestApi::new().await;
    let (answer, tx) = fed();
    member(&api, "alpha", answer);
    let mut stream = api.stream(&format!("{LOG}?follow=true")).await;
    tx.send(Ok(Bytes::from_static(b"first\n"))).await.unwrap();
    let first = tokio::time::timeout(Duration::from_secs(5), stream.body.next()).await.unwrap();
    assert_eq!(first.unwrap().unwrap(), "first\n");
    drop(stream);
    tokio::time::timeout(Duration::from_secs(5), tx.closed()).await.expect("the member's stream is dropped");
}

#[tokio::test]
async fn without_get_on_pods_log_an_identity_is_forbidden_as_kube_apiserver_says() {
    let api = TestApi::with(Setup { master: true, ..Setup::default() }).await;
    let seen = member(&api, "alpha", text("secret\n"));
    let pods_only = json!({"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]});
    let logs = json!({"rules": [{"apiGroups": [""], "resources": ["pods", "pods/log"], "verbs": ["get"]}]});
    api.write("alpha", rbac("clusterroles", "ClusterRole", None, "pods-only", pods_only)).await;
    api.write("alpha", rbac("clusterroles", "ClusterRole", None, "logs", logs)).await;
    let bind = |role: &str| {
        json!({
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}],
        })
    };
    api.write("alpha", rbac("rolebindings", "RoleBinding", Some("default"), "alice", bind("pods-only")))
        .await;
    api.state.reviewer.remember(ALICE, crate::authz::User::new("alice", ["system:authenticated"])).await;
    let denied = api.call(Method::GET, LOG, Some(ALICE)).await;
    let message = denied.status_object(StatusCode::FORBIDDEN, "Forbidden");
    assert!(
        message.starts_with(
            "pods \"p-a1\" is forbidden: User \"alice\" cannot get resource \"pods/log\" in API group \"\" in the namespace \"default\""
        ),
        "{message}"
    );
    assert!(seen.lock().unwrap().is_empty());
    api.write("alpha", rbac("rolebindings", "RoleBinding", Some("default"), "alice", bind("logs"))).await;
    let allowed = api.call(Method::GET, LOG, Some(ALICE)).await;
    assert_eq!(allowed.text(), "secret\n");
    // A static token's role reads logs, read as well as admin.
    member(&api, "alpha", text("secret\n"));
    assert_eq!(api.call(Method::GET, LOG, Some(READ_TOKEN)).await.text(), "secret\n");
}

#[tokio::test]
async fn exec_attach_portforward_and_proxy_are_refused_with_the_command_for_the_member() {
    let api = TestApi::new().await;
    let seen = member(&api, "alpha", text("x\n"));
    for (method, path, command) in [
        (
            Method::POST,
            "/api/v1/namespaces/default/pods/p-a1/exec?command=sh&stdin=true",
            "kubectl --context alpha exec -n default p-a1 -- COMMAND",
        ),
        (
            Method::GET,
            "/api/v1/namespaces/default/pods/p-a1/exec?command=sh",
            "kubectl --context alpha exec -n default p-a1 -- COMMAND",
        ),
        (
            Method::POST,
            "/api/v1/namespaces/default/pods/p-a1/attach",
            "kubectl --context alpha attach -n default p-a1",
        ),
        (
            Method::POST,
            "/clusters/beta/api/v1/namespaces/default/pods/p-b1/portforward",
            "kubectl --context beta port-forward -n default pods/p-b1 PORT",
        ),
        (Method::GET, "/api/v1/namespaces/default/pods/p-a1/proxy/metrics", "kubectl --context alpha proxy"),
        (Method::GET, "/api/v1/nodes/n1/proxy/stats", "kubectl --context <the member> proxy"),
        (
            Method::GET,
            "/api/v1/namespaces/default/services/web/proxy",
            "kubectl --context <the member> proxy",
        ),
    ] {
        let answer = api.call(method.clone(), path, Some(crate::http::testing::TOKEN)).await;
        let message = answer.status_object(StatusCode::METHOD_NOT_ALLOWED, "MethodNotAllowed");
        assert!(message.contains("is not served by mc-server"), "{method} {path}: {message}");
        assert!(message.ends_with(command), "{method} {path}: {message}");
    }
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn other_subresources_are_not_served_and_writes_stay_read_only() {
    let api = TestApi::new().await;
    let status = api.get("/api/v1/namespaces/default/pods/p-a1/status").await;
    status.status_object(StatusCode::NOT_FOUND, "NotFound");
    let scale = api.get("/apis/apps/v1/namespaces/default/deployments/web/scale").await;
    scale.status_object(StatusCode::NOT_FOUND, "NotFound");
    let write = api
        .call(Method::PUT, "/api/v1/namespaces/default/pods/p-a1/status", Some(crate::http::testing::TOKEN))
        .await;
    let message = write.status_object(StatusCode::METHOD_NOT_ALLOWED, "MethodNotAllowed");
    assert!(message.contains("read-only"), "{message}");
    let log_write = api.call(Method::POST, LOG, Some(crate::http::testing::TOKEN)).await;
    log_write.status_object(StatusCode::METHOD_NOT_ALLOWED, "MethodNotAllowed");
}
