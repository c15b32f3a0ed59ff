//! Callers that are Kubernetes identities read what each cluster's RBAC allows them, in both
//! APIs; static tokens read everything.

use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, StatusCode};
use mc_types::Gvr;
use serde_json::{Value, json};

use super::{ALICE, Next, TOKEN, TestApi, object, rbac};
use crate::authz::User;
use crate::identity::PeerIdentity;
use crate::store::StoredObject;

/// The fixture, with a `view` ClusterRole (ConfigMaps and Pods, no Secrets) in both clusters,
/// bound to alice in alpha's `default` only; alice's token is known.
async fn alice_views_alphas_default() -> TestApi {
    let api = TestApi::new().await;
    let rules = json!({"rules": [
        {"apiGroups": [""], "resources": ["configmaps", "pods"], "verbs": ["get", "list", "watch"]},
    ]});
    for cluster in ["alpha", "beta"] {
        api.write(cluster, rbac("clusterroles", "ClusterRole", None, "view", rules.clone())).await;
    }
    api.write("alpha", binding()).await;
    api.state.reviewer.remember(ALICE, User::new("alice", ["system:authenticated"])).await;
    api
}

fn binding() -> StoredObject {
    rbac(
        "rolebindings",
        "RoleBinding",
        Some("default"),
        "alice-view",
        json!({
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}],
        }),
    )
}

fn names(items: &[Value]) -> Vec<String> {
    items.iter().map(|o| o["metadata"]["name"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn an_identity_lists_only_where_its_clusters_rbac_binds_it() {
    let api = alice_views_alphas_default().await;
    // The /v1 API: alpha's default only, and a Warning names beta.
    let v1 = api.call(Method::GET, "/v1/list?gvr=configmaps", Some(ALICE)).await;
    assert_eq!(v1.status, StatusCode::OK, "{}", v1.text());
    assert_eq!(names(&v1.array()), ["cm-a1", "cm-a2"]);
    assert!(v1.warnings().iter().any(|w| w.contains("alice may not list configmaps") && w.contains("beta")));
    // The Kubernetes API, across every namespace.
    let kube = api.call(Method::GET, "/api/v1/configmaps", Some(ALICE)).await;
    assert_eq!(kube.status, StatusCode::OK, "{}", kube.text());
    assert_eq!(names(kube.json()["items"].as_array().unwrap()), ["cm-a1", "cm-a2"]);
    // Pods too; Secrets are not in the role: nothing, and said.
    let pods = api.call(Method::GET, "/api/v1/pods", Some(ALICE)).await;
    assert_eq!(names(pods.json()["items"].as_array().unwrap()), ["p-a1"]);
    let secrets = api.call(Method::GET, "/api/v1/secrets", Some(ALICE)).await;
    assert_eq!(secrets.status, StatusCode::OK);
    assert_eq!(secrets.json()["items"], json!([]));
    assert!(secrets.warnings().iter().any(|w| w.contains("alpha, beta")), "{:?}", secrets.warnings());
    // The admin token still reads everything.
    let admin = api.get("/api/v1/configmaps").await;
    assert_eq!(admin.json()["items"].as_array().unwrap().len(), 5);
}

#[tokio::test]
async fn a_namespace_or_an_object_allowed_nowhere_is_forbidden_as_kube_apiserver_says() {
    let api = alice_views_alphas_default().await;
    let team = api.call(Method::GET, "/api/v1/namespaces/team/configmaps", Some(ALICE)).await;
    let message = team.status_object(StatusCode::FORBIDDEN, "Forbidden");
    assert!(
        message.contains(
            "User \"alice\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"team\""
        ),
        "{message}"
    );
    let one = "/clusters/alpha/api/v1/namespaces/team/configmaps/cm-a3";
    let message =
        api.call(Method::GET, one, Some(ALICE)).await.status_object(StatusCode::FORBIDDEN, "Forbidden");
    assert!(message.contains("configmaps \"cm-a3\" is forbidden: User \"alice\" cannot get"), "{message}");
    assert!(message.contains("of cluster \"alpha\""), "{message}");
    let allowed = api
        .call(Method::GET, "/clusters/alpha/api/v1/namespaces/default/configmaps/cm-a1", Some(ALICE))
        .await;
    assert_eq!(allowed.status, StatusCode::OK, "{}", allowed.text());
    // Beta's default holds cm-b1, but alice may not read it there: forbidden, not found.
    let beta =
        api.call(Method::GET, "/clusters/beta/api/v1/namespaces/default/configmaps/cm-b1", Some(ALICE)).await;
    beta.status_object(StatusCode::FORBIDDEN, "Forbidden");
    // /v1 in a namespace allowed nowhere: the /v1 error shape.
    let v1 = api.call(Method::GET, "/v1/list?gvr=configmaps&namespace=team", Some(ALICE)).await;
    assert!(v1.error(StatusCode::FORBIDDEN).contains("cannot list"));
}

#[tokio::test]
async fn a_client_certificates_user_reads_as_itself_before_any_token() {
    let api = alice_views_alphas_default().await;
    let peer = PeerIdentity::for_test(User::new("alice", ["team-a", "system:authenticated"]));
    for token in [None, Some(TOKEN), Some("someone-else-0123456789")] {
        let request = TestApi::request_as(Method::GET, "/api/v1/configmaps", token)
            .extension(peer.clone())
            .body(Body::empty())
            .unwrap();
        let answer = api.send(request).await;
        assert_eq!(answer.status, StatusCode::OK, "{token:?}: {}", answer.text());
        assert_eq!(names(answer.json()["items"].as_array().unwrap()), ["cm-a1", "cm-a2"], "{token:?}");
    }
    let join = TestApi::request_as(Method::POST, "/v1/unjoin?clusterName=beta", Some(TOKEN))
        .extension(peer)
        .body(Body::empty())
        .unwrap();
    assert_eq!(api.send(join).await.status, StatusCode::FORBIDDEN, "alice, not the admin token");
}

#[tokio::test]
async fn an_unknown_token_with_no_master_to_review_it_is_401() {
    let api = alice_views_alphas_default().await;
    let answer = api.call(Method::GET, "/api/v1/configmaps", Some("someone-else-0123456789")).await;
    answer.status_object(StatusCode::UNAUTHORIZED, "Unauthorized");
}

#[tokio::test]
async fn an_identity_may_not_join_clusters() {
    let api = alice_views_alphas_default().await;
    let answer = api.call(Method::POST, "/v1/unjoin?clusterName=beta", Some(ALICE)).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.text());
}

#[tokio::test]
async fn a_watch_stops_sending_what_its_caller_may_no_longer_see() {
    let api = alice_views_alphas_default().await;
    let cm = Gvr::new("", "v1", "configmaps");
    for uri in ["/api/v1/configmaps?watch=true", "/v1/list?gvr=configmaps&watch=true"] {
        let listed = api.call(Method::GET, "/api/v1/configmaps", Some(ALICE)).await.json()["items"].clone();
        let mut watch = api.stream_as(uri, ALICE).await;
        assert_eq!(watch.status, StatusCode::OK);
        // The ConfigMaps of alpha's default, as listed.
        let first = watch.lines(listed.as_array().unwrap().len(), Duration::from_secs(5)).await;
        assert!(first.len() >= 2);
        // A change alice may see, then one in beta she may not.
        api.write("beta", object(&cm, Some("default"), "cm-b9", json!({}))).await;
        api.write("alpha", object(&cm, Some("default"), "cm-a9", json!({}))).await;
        let Next::Line(seen) = watch.next(Duration::from_secs(5)).await else { panic!("{uri}: no event") };
        assert_eq!(seen["object"]["metadata"]["name"], "cm-a9", "{uri}: {seen}");
        // The binding goes: nothing more of alpha's default comes.
        let bindings = Gvr::new("rbac.authorization.k8s.io", "v1", "rolebindings");
        api.delete("alpha", &bindings, "default", "alice-view").await;
        api.write("alpha", object(&cm, Some("default"), "cm-a8", json!({}))).await;
        assert_eq!(watch.next(Duration::from_secs(1)).await, Next::Quiet, "{uri}");
        // Bound again for the next API's watch.
        api.write("alpha", binding()).await;
    }
}

#[tokio::test]
async fn discovery_and_clusters_offer_only_what_the_identity_may_read() {
    let api = alice_views_alphas_default().await;
    let core = api.call(Method::GET, "/api/v1", Some(ALICE)).await.json();
    let offered: Vec<&str> =
        core["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(offered, ["configmaps", "pods"]);
    let apps = api.call(Method::GET, "/apis/apps/v1", Some(ALICE)).await;
    apps.status_object(StatusCode::NOT_FOUND, "NotFound");
    let clusters = api.call(Method::GET, "/v1/clusters", Some(ALICE)).await.array();
    let names: Vec<&str> = clusters.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["alpha"]);
    // The admin token sees both clusters and every type.
    assert_eq!(api.get("/v1/clusters").await.array().len(), 2);
    assert!(api.get("/api/v1").await.json()["resources"].as_array().unwrap().len() > 2);
}

#[tokio::test]
async fn requests_are_counted_by_identity() {
    let api = alice_views_alphas_default().await;
    api.call(Method::GET, "/api/v1/pods", Some(ALICE)).await;
    api.call(Method::GET, "/api/v1/pods", Some(ALICE)).await;
    let metrics = api.get("/metrics").await.text();
    assert!(metrics.contains("mc_http_requests_by_identity_total{identity=\"alice\"} 2"), "{metrics}");
    // Known tokens are not reviewed again.
    assert!(metrics.contains("mc_token_reviews_total 0"), "{metrics}");
}

#[tokio::test]
async fn impersonation_is_refused_not_ignored() {
    let api = alice_views_alphas_default().await;
    let request = TestApi::request_as(Method::GET, "/api/v1/secrets", Some(ALICE))
        .header("Impersonate-User", "admin")
        .body(axum::body::Body::empty())
        .unwrap();
    let answer = api.send(request).await;
    assert!(answer.status_object(StatusCode::FORBIDDEN, "Forbidden").contains("impersonation"));
}
