//! Callers that are Kubernetes identities read what each cluster's RBAC allows them, in both
//! APIs; static tokens read everything.

use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, StatusCode};
use mc_types::Gvr;
use serde_json::{Value, json};

use super::{ALICE, Next, Setup, TOKEN, TestApi, object, rbac};
use crate::authz::User;
use crate::identity::PeerIdentity;
use crate::store::StoredObject;

/// The fixture (alpha the master), with a `view` ClusterRole (ConfigMaps and Pods, no Secrets) in both clusters,
/// bound to alice in alpha's `default` only; alice's token is known.
async fn alice_views_alphas_default() -> TestApi {
    let api = TestApi::with(Setup { master: true, ..Setup::default() }).await;
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
    // Every built-in type is offered, so that kubectl finds `secrets` and says it found none.
    assert_eq!(offered, ["configmaps", "namespaces", "pods", "secrets"]);
    let apps = api.call(Method::GET, "/apis/apps/v1", Some(ALICE)).await;
    assert_eq!(apps.status, StatusCode::OK, "{}", apps.text());
    // A custom type she may list nowhere is not.
    let widgets = api.call(Method::GET, "/apis/a.example.com/v1", Some(ALICE)).await;
    widgets.status_object(StatusCode::NOT_FOUND, "NotFound");
    let groups = api.call(Method::GET, "/apis", Some(ALICE)).await.text();
    assert!(groups.contains("\"apps\"") && !groups.contains("example.com"), "{groups}");
    // Secrets across every namespace: none, and the Warning says why.
    let secrets = api.call(Method::GET, "/api/v1/secrets", Some(ALICE)).await;
    assert_eq!(secrets.status, StatusCode::OK, "{}", secrets.text());
    assert_eq!(secrets.json()["items"], json!([]));
    assert!(
        secrets.warnings().iter().any(|w| w.contains("alice may not list secrets")),
        "{:?}",
        secrets.warnings()
    );
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

fn impersonating(uri: &str, token: &str, headers: &[(&str, &str)]) -> axum::http::Request<axum::body::Body> {
    let mut request = TestApi::request_as(Method::GET, uri, Some(token));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(axum::body::Body::empty()).unwrap()
}

#[tokio::test]
async fn an_admin_token_acts_as_the_user_it_names_and_reads_what_that_user_may() {
    let api = alice_views_alphas_default().await;
    let request = impersonating("/api/v1/configmaps", TOKEN, &[("Impersonate-User", "alice")]);
    let answer = api.send(request).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert_eq!(names(answer.json()["items"].as_array().unwrap()), ["cm-a1", "cm-a2"]);
    assert!(answer.warnings().iter().any(|w| w.contains("alice may not list configmaps")));
    // As a group bound nowhere: nothing.
    let request = impersonating(
        "/api/v1/configmaps",
        TOKEN,
        &[("Impersonate-User", "bob"), ("Impersonate-Group", "devs")],
    );
    assert_eq!(api.send(request).await.json()["items"], json!([]));
}

#[tokio::test]
async fn an_identity_impersonates_only_whom_the_masters_rbac_allows() {
    let api = alice_views_alphas_default().await;
    // Refused: nothing in the master (alpha) lets alice impersonate.
    let request = impersonating("/api/v1/configmaps", ALICE, &[("Impersonate-User", "bob")]);
    let refused = api.send(request).await.status_object(StatusCode::FORBIDDEN, "Forbidden");
    assert!(
        refused.contains(
            r#"users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group """#
        ),
        "{refused}"
    );
    // The master lets her impersonate bob and the group devs (beta's RBAC is not asked).
    let rules = json!({"rules": [
        {"apiGroups": [""], "resources": ["users"], "verbs": ["impersonate"], "resourceNames": ["bob"]},
        {"apiGroups": [""], "resources": ["groups"], "verbs": ["impersonate"], "resourceNames": ["devs"]},
    ]});
    api.write("alpha", rbac("clusterroles", "ClusterRole", None, "impersonator", rules)).await;
    let subjects = json!({
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "impersonator"},
        "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}],
    });
    api.write("alpha", rbac("clusterrolebindings", "ClusterRoleBinding", None, "alice-as-bob", subjects))
        .await;
    // bob is bound to view in beta's default: as bob, alice reads beta's, not her own.
    let bob = json!({
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "bob"}],
    });
    api.write("beta", rbac("rolebindings", "RoleBinding", Some("default"), "bob-view", bob)).await;
    let request = impersonating(
        "/api/v1/configmaps",
        ALICE,
        &[("Impersonate-User", "bob"), ("Impersonate-Group", "devs")],
    );
    let answer = api.send(request).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let items = answer.json()["items"].as_array().unwrap().clone();
    assert!(
        !items.is_empty()
            && items.iter().all(|o| o["metadata"]["name"].as_str().unwrap().starts_with("cm-b"))
    );
    // A group she may not impersonate: refused, not reduced.
    let request = impersonating(
        "/api/v1/configmaps",
        ALICE,
        &[("Impersonate-User", "bob"), ("Impersonate-Group", "system:masters")],
    );
    let refused = api.send(request).await.status_object(StatusCode::FORBIDDEN, "Forbidden");
    assert!(refused.contains(r#"groups "system:masters" is forbidden"#), "{refused}");
}

#[tokio::test]
async fn a_read_token_never_impersonates_and_bad_headers_are_400() {
    let api = alice_views_alphas_default().await;
    let request =
        impersonating("/v1/list?gvr=configmaps", super::READ_TOKEN, &[("Impersonate-User", "alice")]);
    let refused = api.send(request).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.text());
    assert!(refused.text().contains("read role"), "{}", refused.text());
    let request = impersonating("/api/v1/configmaps", TOKEN, &[("Impersonate-Group", "devs")]);
    let bad = api.send(request).await.status_object(StatusCode::BAD_REQUEST, "BadRequest");
    assert!(bad.contains("needs Impersonate-User"), "{bad}");
}

#[tokio::test]
async fn a_static_token_mapped_to_a_user_reads_as_that_user() {
    let api = alice_views_alphas_default().await;
    let team = json!({
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "team-a"}],
    });
    api.write("beta", rbac("rolebindings", "RoleBinding", Some("default"), "team-a-view", team)).await;
    let answer = api.call(Method::GET, "/api/v1/configmaps", Some(super::MAPPED_TOKEN)).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert_eq!(names(answer.json()["items"].as_array().unwrap()), ["cm-b1", "cm-b2"]);
    assert!(
        answer.warnings().iter().any(|w| w.contains("ci may not list configmaps") && w.contains("alpha"))
    );
    // It is not reviewed, and it never joins or unjoins.
    let unjoin = api.call(Method::POST, "/v1/unjoin?clusterName=beta", Some(super::MAPPED_TOKEN)).await;
    assert_eq!(unjoin.status, StatusCode::FORBIDDEN, "{}", unjoin.text());
    assert!(api.get("/metrics").await.text().contains("mc_token_reviews_total 0"));
}

#[tokio::test]
async fn several_types_in_one_request_each_obey_the_callers_rights() {
    let api = alice_views_alphas_default().await;
    let v1 = api.call(Method::GET, "/v1/list?gvr=configmaps,pods,secrets&limit=0", Some(ALICE)).await;
    assert_eq!(v1.status, StatusCode::OK, "{}", v1.text());
    assert_eq!(names(&v1.array()), ["cm-a1", "cm-a2", "p-a1"]);
    let warnings = v1.warnings();
    assert!(
        warnings.iter().any(|w| w.contains("alice may not list configmaps") && w.contains("beta")),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("alice may not list secrets") && w.contains("alpha, beta")),
        "{warnings:?}"
    );
    // A namespace allowed nowhere for one of the types is forbidden, as for that type alone.
    let team = api.call(Method::GET, "/v1/list?gvr=pods,configmaps&namespace=team", Some(ALICE)).await;
    assert!(team.error(StatusCode::FORBIDDEN).contains("cannot list"));
}
