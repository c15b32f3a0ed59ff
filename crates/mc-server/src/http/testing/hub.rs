//! Hub grants (`authorization.mode: hub`): the master's bindings decide in every cluster, each
//! where its cluster selector selects; the other clusters' own RBAC is not asked.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use super::{ALICE, Setup, TestApi, rbac};
use crate::access::Mode;
use crate::authz::User;
use crate::store::StoredObject;

/// A RoleBinding of `view` to alice in `default`, with this cluster selector if any.
fn view_binding(name: &str, selector: Option<&str>) -> StoredObject {
    let mut meta =
        json!({"name": name, "namespace": "default", "uid": format!("uid-{name}"), "resourceVersion": "1"});
    if let Some(s) = selector {
        meta["annotations"] = json!({ mc_types::crd::CLUSTER_SELECTOR_ANNOTATION: s });
    }
    rbac(
        "rolebindings",
        "RoleBinding",
        Some("default"),
        name,
        json!({
            "metadata": meta,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}],
        }),
    )
}

fn names(answer: &Value) -> Vec<String> {
    let items = answer["items"].as_array().unwrap();
    items.iter().map(|o| o["metadata"]["name"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn the_masters_bindings_grant_where_their_selector_selects_and_members_rbac_is_not_asked() {
    let setup =
        Setup { master: true, authorization: Mode::Hub, beta_labels: &[("env", "prod")], ..Setup::default() };
    let api = TestApi::with(setup).await;
    let rules = json!({"rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}]});
    api.write("alpha", rbac("clusterroles", "ClusterRole", None, "view", rules.clone())).await;
    api.write("beta", rbac("clusterroles", "ClusterRole", None, "view", rules)).await;
    api.state.reviewer.remember(ALICE, User::new("alice", ["system:authenticated"])).await;
    // beta's own binding of alice counts for nothing in hub mode.
    api.write("beta", view_binding("beta-own", None)).await;
    // A master binding without a selector: the master alone.
    api.write("alpha", view_binding("alice-view", None)).await;
    let answer = api.call(Method::GET, "/api/v1/configmaps", Some(ALICE)).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert_eq!(names(&answer.json()), ["cm-a1", "cm-a2"]);
    // One selecting env=prod: beta too, as soon as it is written.
    api.write("alpha", view_binding("alice-prod", Some("env=prod"))).await;
    let answer = api.call(Method::GET, "/api/v1/configmaps", Some(ALICE)).await;
    assert_eq!(names(&answer.json()), ["cm-a1", "cm-a2", "cm-b1", "cm-b2"]);
    // can-i names the master's binding for beta.
    let can_i =
        api.call(Method::GET, "/v1/auth/can-i?verb=list&gvr=configmaps&namespace=default", Some(ALICE)).await;
    let beta = can_i.array().into_iter().find(|a| a["cluster"] == "beta").unwrap();
    assert_eq!(
        (beta["allowed"].clone(), beta["reason"].clone()),
        (json!(true), json!("RoleBinding/default/alice-prod"))
    );
    // Selecting env=dev instead: beta is left out again.
    api.write("alpha", view_binding("alice-prod", Some("env=dev"))).await;
    let answer = api.call(Method::GET, "/api/v1/configmaps", Some(ALICE)).await;
    assert_eq!(names(&answer.json()), ["cm-a1", "cm-a2"]);
}
