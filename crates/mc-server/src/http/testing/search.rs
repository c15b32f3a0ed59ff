//! `/v1/search` in process: objects found and ranked, every parameter bounded as the API
//! document declares, a restricted caller kept to what it may list, and search switched off.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use super::{ALICE, Setup, TestApi, rbac};
use crate::authz::User;

fn found(answer: &[Value]) -> Vec<String> {
    answer
        .iter()
        .map(|i| {
            format!(
                "{}/{}/{}",
                i["cluster"].as_str().unwrap(),
                i["kind"].as_str().unwrap(),
                i["name"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn finds_and_ranks_objects_of_every_type() {
    let api = TestApi::new().await;
    let web = api.get("/v1/search?q=web").await;
    assert_eq!(web.status, StatusCode::OK, "{}", web.text());
    // The Deployment named web first, then the objects labelled app=web.
    assert_eq!(
        found(&web.array()),
        [
            "beta/Deployment/web",
            "alpha/ConfigMap/cm-a1",
            "alpha/ConfigMap/cm-a2",
            "alpha/Pod/p-a1",
            "beta/ConfigMap/cm-b1"
        ]
    );
    let first = &web.array()[0];
    assert_eq!(
        (
            first["group"].clone(),
            first["resource"].clone(),
            first["namespace"].clone(),
            first["matched"].clone()
        ),
        (json!("apps"), json!("deployments"), json!("default"), json!(["name"]))
    );
    assert_eq!(web.array()[1]["matched"], json!(["label app=web"]));
    // Filters, and a cut answer says so.
    let in_beta = api.get("/v1/search?q=web&cluster=beta&kind=configmaps").await;
    assert_eq!(found(&in_beta.array()), ["beta/ConfigMap/cm-b1"]);
    let team = api.get("/v1/search?q=cm-a&namespace=team").await;
    assert_eq!(found(&team.array()), ["alpha/ConfigMap/cm-a3"]);
    let one = api.get("/v1/search?q=web&limit=1").await;
    assert_eq!(found(&one.array()), ["beta/Deployment/web"]);
    assert!(one.warnings().iter().any(|w| w.contains("more objects match")), "{:?}", one.warnings());
    assert!(api.get("/v1/search?q=nothing-like-this").await.array().is_empty());
}

#[tokio::test]
async fn every_parameter_is_bounded_as_declared() {
    let api = TestApi::new().await;
    let long = "x".repeat(254);
    for (uri, status) in [
        ("/v1/search".to_string(), StatusCode::BAD_REQUEST),
        ("/v1/search?q=ab".to_string(), StatusCode::BAD_REQUEST),
        (format!("/v1/search?q={long}"), StatusCode::BAD_REQUEST),
        ("/v1/search?q=ab%0Acd".to_string(), StatusCode::BAD_REQUEST),
        ("/v1/search?q=web&limit=0".to_string(), StatusCode::BAD_REQUEST),
        ("/v1/search?q=web&limit=1001".to_string(), StatusCode::BAD_REQUEST),
        ("/v1/search?q=web&limit=ten".to_string(), StatusCode::BAD_REQUEST),
        ("/v1/search?q=web&namespace=Not_A_Label".to_string(), StatusCode::BAD_REQUEST),
        (format!("/v1/search?q=web&namespace={}", "n".repeat(64)), StatusCode::BAD_REQUEST),
        ("/v1/search?q=web&cluster=gamma".to_string(), StatusCode::NOT_FOUND),
        ("/v1/search?q=web&kind=widgetz".to_string(), StatusCode::NOT_FOUND),
        (
            format!(
                "/v1/search?q=web&kind={}",
                (0..33).map(|i| format!("k{i}")).collect::<Vec<_>>().join(",")
            ),
            StatusCode::BAD_REQUEST,
        ),
        ("/v1/search?q=web&colour=red".to_string(), StatusCode::BAD_REQUEST),
    ] {
        let answer = api.get(&uri).await;
        assert_eq!(answer.status, status, "{uri}: {}", answer.text());
        assert!(!answer.error(status).is_empty(), "{uri}: a JSON error");
    }
    let at_bounds =
        api.get(&format!("/v1/search?q={}&limit=1000&namespace=&cluster=", "x".repeat(253))).await;
    assert_eq!(at_bounds.status, StatusCode::OK, "{}", at_bounds.text());
    // Quotes and LIKE's wildcards are text like any other.
    for q in ["%22web%22", "w%25b", "we_", "%5C%5C%5C"] {
        let answer = api.get(&format!("/v1/search?q={q}")).await;
        assert_eq!(answer.status, StatusCode::OK, "{q}: {}", answer.text());
        assert!(answer.array().is_empty(), "{q}");
    }
}

/// alice may list ConfigMaps and Pods in alpha's `default` only.
async fn alice_views_alphas_default() -> TestApi {
    let api = TestApi::with(Setup { master: true, ..Setup::default() }).await;
    let rules = json!({"rules": [
        {"apiGroups": [""], "resources": ["configmaps", "pods"], "verbs": ["get", "list", "watch"]},
    ]});
    for cluster in ["alpha", "beta"] {
        api.write(cluster, rbac("clusterroles", "ClusterRole", None, "view", rules.clone())).await;
    }
    let binding = json!({
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}],
    });
    api.write("alpha", rbac("rolebindings", "RoleBinding", Some("default"), "alice-view", binding)).await;
    api.state.reviewer.remember(ALICE, User::new("alice", ["system:authenticated"])).await;
    api
}

#[tokio::test]
async fn a_restricted_caller_finds_only_what_it_may_list() {
    let api = alice_views_alphas_default().await;
    // Not beta's objects, not the team namespace, not Secrets, Deployments or RBAC objects.
    let web = api.call(Method::GET, "/v1/search?q=web", Some(ALICE)).await;
    assert_eq!(web.status, StatusCode::OK, "{}", web.text());
    assert_eq!(found(&web.array()), ["alpha/ConfigMap/cm-a1", "alpha/ConfigMap/cm-a2", "alpha/Pod/p-a1"]);
    let cms = api.call(Method::GET, "/v1/search?q=cm-a", Some(ALICE)).await;
    assert_eq!(found(&cms.array()), ["alpha/ConfigMap/cm-a1", "alpha/ConfigMap/cm-a2"]);
    let secrets = api.call(Method::GET, "/v1/search?q=s-a1", Some(ALICE)).await;
    assert!(secrets.array().is_empty(), "{}", secrets.text());
    // A type named, in a namespace allowed nowhere: as its list would answer.
    let team = api.call(Method::GET, "/v1/search?q=cm-a&kind=configmaps&namespace=team", Some(ALICE)).await;
    assert_eq!(team.status, StatusCode::FORBIDDEN, "{}", team.text());
    // The admin token sees all three.
    assert_eq!(found(&api.get("/v1/search?q=cm-a").await.array()).len(), 3);
}

#[tokio::test]
async fn search_switched_off_says_so() {
    let api = TestApi::with(Setup { search_off: true, ..Setup::default() }).await;
    let answer = api.get("/v1/search?q=web").await;
    assert_eq!(answer.status, StatusCode::NOT_IMPLEMENTED);
    assert!(answer.error(StatusCode::NOT_IMPLEMENTED).contains("search.enabled: false"), "{}", answer.text());
}

/// The `mc_search_index_building` line of `state`, and the rows written.
async fn building_metric(api: &TestApi, state: &str) -> String {
    let metrics = api.get("/metrics").await.text();
    let line = metrics
        .lines()
        .find(|l| l.starts_with(&format!("mc_search_index_building{{state=\"{state}\"}}")))
        .unwrap_or_else(|| panic!("no {state} line in {metrics}"));
    line.rsplit(' ').next().unwrap().to_string()
}

#[tokio::test]
async fn readyz_and_metrics_tell_the_search_index_build() {
    let api = TestApi::with(Setup { search_deferred: true, ..Setup::default() }).await;
    // Deferred for the first sync: ready (lists are whole), saying so; searches find nothing.
    let ready = api.get("/readyz").await;
    assert_eq!(ready.status, StatusCode::OK, "{}", ready.text());
    assert_eq!(
        ready.json()["search_index"],
        json!("the search index is built after the first sync of the clusters")
    );
    assert_eq!(building_metric(&api, "deferred").await, "1");
    assert_eq!(building_metric(&api, "sweeping").await, "0");
    let early = api.get("/v1/search?q=web").await;
    assert!(early.array().is_empty(), "{}", early.text());
    assert!(early.warnings().iter().any(|w| w.contains("after the first sync")), "{:?}", early.warnings());
    // Built: nothing said any more, and the objects are found.
    let store = api.state.store.clone();
    assert!(store.complete_search_index().await.unwrap() > 0);
    assert_eq!(api.get("/readyz").await.json(), json!({"status": "ready"}));
    assert_eq!(building_metric(&api, "deferred").await, "0");
    assert_eq!(building_metric(&api, "failed").await, "0");
    assert_eq!(found(&api.get("/v1/search?q=web&limit=1").await.array()), ["beta/Deployment/web"]);
    // A build that fails (the store closed under it) says why, and stays ready.
    let state = store.search_index_state().await.unwrap();
    assert!(state.complete);
    store.close().await;
    assert!(store.complete_search_index().await.is_err());
    let ready = api.get("/readyz").await;
    assert_eq!(ready.status, StatusCode::OK, "{}", ready.text());
    let why = ready.json()["search_index"].as_str().unwrap_or_default().to_string();
    assert!(why.starts_with("building the search index failed ("), "{why}");
    assert_eq!(building_metric(&api, "failed").await, "1");
}
