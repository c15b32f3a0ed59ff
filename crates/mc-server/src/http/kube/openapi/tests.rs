//! `/openapi/v2` and `/openapi/v3` through the whole router, over clusters whose clients serve
//! fake documents: the master's, a member's CRDs joined, a member's own under its path, what a
//! caller may not see hidden, and a cluster that cannot be read.

#![allow(clippy::unwrap_used)]

use axum::body::Body;
use axum::http::{Method, StatusCode, header};
use mc_types::ResourceInfo;
use serde_json::json;

use super::hex;
use super::testing::{Cluster as Fake, client};
use crate::authz::User;
use crate::http::testing::{ALICE, Setup, TestApi, rbac, types};

/// alpha (the master) has `a.example.com` Widgets; beta also has `only.example.com` Gizmos and
/// an `a.example.com` Gadget.
async fn two_clusters() -> (TestApi, Fake, Fake) {
    let api = TestApi::with(Setup { master: true, ..Setup::default() }).await;
    let alpha = Fake::default()
        .with("api/v1", &[("io.k8s.api.core.v1.ConfigMap", "ConfigMap")], "alpha")
        .with("apis/apps/v1", &[("io.k8s.api.apps.v1.Deployment", "Deployment")], "alpha")
        .with("apis/a.example.com/v1", &[("com.example.a.v1.Widget", "Widget")], "alpha")
        .with("apis/b.example.com/v1", &[("com.example.b.v1.Widget", "Widget")], "alpha");
    let beta = Fake::default()
        .with("api/v1", &[("io.k8s.api.core.v1.ConfigMap", "ConfigMap")], "beta")
        .with("apis/apps/v1", &[("io.k8s.api.apps.v1.Deployment", "Deployment")], "beta")
        .with(
            "apis/a.example.com/v1",
            &[("com.example.a.v1.Widget", "Widget"), ("com.example.a.v1.Gadget", "Gadget")],
            "beta",
        )
        .with("apis/only.example.com/v1", &[("com.example.only.v1.Gizmo", "Gizmo")], "beta");
    let registry = &api.state.registry;
    registry.get("alpha").unwrap().set_client(Some(alpha.client()));
    let member = registry.get("beta").unwrap();
    member.set_client(Some(beta.client()));
    let mut catalog = types();
    catalog.push(info("only.example.com", "gizmos", "Gizmo"));
    catalog.push(info("a.example.com", "gadgets", "Gadget"));
    member.set_catalog(catalog);
    (api, alpha, beta)
}

fn info(group: &str, resource: &str, kind: &str) -> ResourceInfo {
    ResourceInfo { group: group.into(), resource: resource.into(), kind: kind.into(), ..types()[0].clone() }
}

fn url(index: &serde_json::Value, path: &str) -> String {
    index["paths"][path]["serverRelativeURL"]
        .as_str()
        .unwrap_or_else(|| panic!("{path} in {index}"))
        .to_string()
}

#[tokio::test]
async fn the_index_is_the_masters_with_the_group_versions_only_members_serve() {
    let (api, alpha, _beta) = two_clusters().await;
    let answer = api.get("/openapi/v3").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let index = answer.json();
    let master_hash = hex(&alpha.v3["api/v1"].to_string());
    assert_eq!(url(&index, "api/v1"), format!("/openapi/v3/api/v1?hash={master_hash}"), "the master's own");
    assert!(
        url(&index, "apis/only.example.com/v1").starts_with("/openapi/v3/apis/only.example.com/v1?hash=")
    );

    // A CRD only the member has: the member's document.
    let gizmos = api.get(&url(&index, "apis/only.example.com/v1")).await;
    assert_eq!(gizmos.status, StatusCode::OK, "{}", gizmos.text());
    assert_eq!(
        gizmos.json()["components"]["schemas"]["com.example.only.v1.Gizmo"]["description"],
        "Gizmo of beta"
    );
    // A group version both have, with a kind only the member has: joined, the master's word standing.
    let widgets = api.get(&url(&index, "apis/a.example.com/v1")).await.json();
    let schemas = &widgets["components"]["schemas"];
    assert_eq!(schemas["com.example.a.v1.Widget"]["description"], "Widget of alpha");
    assert_eq!(schemas["com.example.a.v1.Gadget"]["description"], "Gadget of beta");
    // Built-in group versions are the master's document as it is, member unread.
    let core = api.get(&url(&index, "api/v1")).await;
    assert_eq!(core.json(), alpha.v3["api/v1"]);
}

#[tokio::test]
async fn a_document_at_its_hash_is_immutable_and_at_another_redirects_to_it() {
    let (api, _alpha, _beta) = two_clusters().await;
    let index = api.get("/openapi/v3").await.json();
    let current = url(&index, "apis/apps/v1");
    let answer = api.get(&current).await;
    assert_eq!(answer.header("cache-control"), Some("public, immutable"));
    assert!(answer.header("expires").is_some());
    let etag = answer.header("etag").unwrap().to_string();
    assert_eq!(api.get("/openapi/v3/apis/apps/v1").await.header("cache-control"), Some("no-cache, private"));
    let moved = api.get("/openapi/v3/apis/apps/v1?hash=0123").await;
    assert_eq!(moved.status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(moved.header("location"), Some(current.as_str()));
    let again = TestApi::request(Method::GET, &current).header(header::IF_NONE_MATCH, &etag);
    assert_eq!(api.send(again.body(Body::empty()).unwrap()).await.status, StatusCode::NOT_MODIFIED);
    api.get("/openapi/v3/apis/nowhere.io/v1").await.status_object(StatusCode::NOT_FOUND, "NotFound");
    api.get("/openapi/v3/apis/../v1").await.status_object(StatusCode::NOT_FOUND, "NotFound");
}

#[tokio::test]
async fn v2_is_json_with_the_members_kinds_and_protobuf_is_not_acceptable() {
    let (api, alpha, _beta) = two_clusters().await;
    let protobuf = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
    api.get_accepting("/openapi/v2", protobuf)
        .await
        .status_object(StatusCode::NOT_ACCEPTABLE, "NotAcceptable");
    let answer = api.get_accepting("/openapi/v2", &format!("{protobuf}, application/json")).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let v2 = answer.json();
    assert_eq!(v2["definitions"]["com.example.a.v1.Widget"]["description"], "Widget of alpha");
    assert_eq!(v2["definitions"]["com.example.only.v1.Gizmo"]["description"], "Gizmo of beta");
    assert!(v2["paths"]["/apis/only.example.com/v1/gizmos"].is_object());
    // The member has no kinds the master lacks: the master's document as it is.
    api.state.registry.get("beta").unwrap().set_catalog(types());
    let only_master = api.get("/openapi/v2").await;
    assert_eq!(only_master.json(), alpha.v2);
    assert_eq!(only_master.header("etag"), Some(format!("\"{}\"", hex(&alpha.v2.to_string())).as_str()));
}

#[tokio::test]
async fn under_a_clusters_path_the_documents_are_that_clusters_own() {
    let (api, _alpha, beta) = two_clusters().await;
    let index = api.get("/clusters/beta/openapi/v3").await.json();
    let paths: Vec<&String> = index["paths"].as_object().unwrap().keys().collect();
    assert_eq!(paths, ["api/v1", "apis/a.example.com/v1", "apis/apps/v1", "apis/only.example.com/v1"]);
    let gv = url(&index, "apis/a.example.com/v1");
    assert!(gv.starts_with("/clusters/beta/openapi/v3/apis/a.example.com/v1?hash="), "{gv}");
    assert_eq!(api.get(&gv).await.json(), beta.v3["apis/a.example.com/v1"]);
    assert_eq!(api.get("/clusters/beta/openapi/v2").await.json(), beta.v2);
    let alpha_index = api.get("/clusters/alpha/openapi/v3").await.json();
    assert!(alpha_index["paths"].get("apis/only.example.com/v1").is_none(), "{alpha_index}");
    api.get("/clusters/nope/openapi/v3").await.status_object(StatusCode::NOT_FOUND, "NotFound");
}

#[tokio::test]
async fn custom_group_versions_a_caller_may_list_nowhere_are_hidden_from_it() {
    let (api, _alpha, _beta) = two_clusters().await;
    let rules = json!({"rules": [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["a.example.com"], "resources": ["widgets"], "verbs": ["list"]},
    ]});
    api.write("alpha", rbac("clusterroles", "ClusterRole", None, "view", rules)).await;
    let subjects = json!([{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}]);
    let role = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"});
    api.write(
        "alpha",
        rbac(
            "rolebindings",
            "RoleBinding",
            Some("default"),
            "alice-view",
            json!({"roleRef": role, "subjects": subjects}),
        ),
    )
    .await;
    api.state.reviewer.remember(ALICE, User::new("alice", ["system:authenticated"])).await;

    let index = api.call(Method::GET, "/openapi/v3", Some(ALICE)).await.json();
    let paths: Vec<&String> = index["paths"].as_object().unwrap().keys().collect();
    assert_eq!(paths, ["api/v1", "apis/a.example.com/v1", "apis/apps/v1"], "built-in ones and hers");
    let hidden = api.call(Method::GET, "/openapi/v3/apis/b.example.com/v1", Some(ALICE)).await;
    hidden.status_object(StatusCode::NOT_FOUND, "NotFound");
    let v2 = api.call(Method::GET, "/openapi/v2", Some(ALICE)).await.json();
    let definitions = v2["definitions"].as_object().unwrap();
    assert!(
        definitions.contains_key("com.example.a.v1.Widget")
            && definitions.contains_key("io.k8s.api.apps.v1.Deployment")
    );
    assert!(!definitions.keys().any(|k| k.contains(".b.") || k.contains(".only.")), "{definitions:?}");
    assert!(!v2["paths"].as_object().unwrap().keys().any(|p| p.contains("b.example.com")));
    // The static token sees everything.
    let all = api.get("/openapi/v3").await.json();
    assert!(
        all["paths"].get("apis/b.example.com/v1").is_some()
            && all["paths"].get("apis/only.example.com/v1").is_some()
    );
}

#[tokio::test]
async fn a_master_that_cannot_be_read_answers_503_in_our_words_or_the_copy_read_before() {
    let (api, _alpha, _beta) = two_clusters().await;
    let master = api.state.registry.get("alpha").unwrap();
    let broken = || client(|_| Some((500, b"etcd is on fire at 10.0.0.7".to_vec())));
    master.set_client(Some(broken()));
    for path in ["/openapi/v3", "/openapi/v2", "/openapi/v3/api/v1"] {
        let answer = api.get(path).await;
        let message = answer.status_object(StatusCode::SERVICE_UNAVAILABLE, "ServiceUnavailable");
        assert!(message.contains("cluster \"alpha\"") && message.contains("HTTP 500"), "{message}");
        assert!(!answer.text().contains("etcd"), "the member's words are not repeated");
    }
    // Read once, then unreadable: the copy read before, and a Warning.
    let (api, alpha, _beta) = two_clusters().await;
    let first = api.get("/openapi/v3").await.json();
    api.state.registry.get("alpha").unwrap().set_client(Some(broken()));
    api.state.openapi.invalidate("alpha");
    let answer = api.get("/openapi/v3").await;
    assert_eq!(answer.json(), first);
    let warnings = answer.warnings();
    assert!(warnings.iter().any(|w| w.contains("cluster alpha cannot be read now")), "{warnings:?}");
    assert_eq!(alpha.read("/openapi/v3"), 1, "the broken client was asked, not this one");
}
