//! The history API in process: an object's revisions with the fields each changed, states at a
//! time, deletions, Events kept after their deletion, the callers' rights, and bad input.

use axum::http::{Method, StatusCode};
use mc_types::{Gvr, ResourceInfo};
use serde_json::{Value, json};

use super::{ALICE, Setup, TestApi, object, rbac, stored, types};
use crate::authz::User;

fn cm() -> Gvr {
    Gvr::new("", "v1", "configmaps")
}

/// History on, alpha the master, Events served by both clusters.
async fn api() -> TestApi {
    let api = TestApi::with(Setup { history: true, master: true, ..Setup::default() }).await;
    for name in super::CLUSTERS {
        let mut catalog = types();
        catalog.push(ResourceInfo {
            group: String::new(),
            version: "v1".into(),
            resource: "events".into(),
            singular: "event".into(),
            kind: "Event".into(),
            short_names: vec!["ev".into()],
            namespaced: true,
            verbs: ["get", "list", "watch"].map(String::from).to_vec(),
            categories: Vec::new(),
        });
        api.state.registry.get(name).unwrap().set_catalog(catalog);
    }
    api
}

fn fields(revision: &Value) -> Vec<&str> {
    revision["fields"].as_array().unwrap().iter().filter_map(Value::as_str).collect()
}

fn now_ms() -> i64 {
    mc_types::moment::now_ms()
}

#[tokio::test]
async fn an_objects_changes_come_back_oldest_first_with_the_fields_they_changed() {
    let api = api().await;
    api.create("alpha", object(&cm(), Some("default"), "h1", json!({"app": "web"}))).await;
    let changed = stored(
        &cm(),
        json!({"metadata": {"name": "h1", "namespace": "default", "uid": "uid-h1", "resourceVersion": "2",
            "creationTimestamp": "2024-01-01T00:00:00Z", "labels": {"app": "web", "tier": "front"}}, "data": {"k": "w"}}),
    );
    api.write("alpha", changed).await;
    api.delete("alpha", &cm(), "default", "h1").await;

    let answer = api.get("/v1/history?gvr=cm&namespace=default&name=h1").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let revisions = answer.array();
    let changes: Vec<&str> = revisions.iter().filter_map(|r| r["change"].as_str()).collect();
    assert_eq!(changes, ["ADDED", "MODIFIED", "DELETED"], "{revisions:#?}");
    assert_eq!(fields(&revisions[1]), ["data.k", "metadata.labels.tier"]);
    assert_eq!(revisions[1]["fieldsChanged"], 2);
    assert_eq!(revisions[1]["clusterName"], "alpha");
    assert!(revisions.iter().all(|r| r.get("object").is_none()), "objects only when asked");
    let ids: Vec<i64> = revisions.iter().map(|r| r["revision"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));

    // The newest N, still oldest first.
    let answer = api.get("/v1/history?gvr=cm&namespace=default&name=h1&limit=2").await;
    let kept: Vec<i64> = answer.array().iter().map(|r| r["revision"].as_i64().unwrap()).collect();
    assert_eq!(kept, ids[1..]);

    // Two chosen revisions, with their objects.
    let uri =
        format!("/v1/history?gvr=cm&namespace=default&name=h1&revisions={},{}&objects=true", ids[0], ids[1]);
    let both = api.get(&uri).await.array();
    assert_eq!(both.len(), 2);
    assert_eq!(both[0]["object"]["data"]["k"], "v");
    assert_eq!(both[1]["object"]["data"]["k"], "w");
    // The deletion keeps the last state.
    let uri = format!("/v1/history?gvr=cm&namespace=default&name=h1&revisions={}&objects=true", ids[2]);
    let last = api.get(&uri).await.array();
    assert_eq!(last[0]["object"]["metadata"]["labels"]["tier"], "front");
}

#[tokio::test]
async fn a_types_objects_at_a_time_and_its_deletions() {
    let api = api().await;
    api.create("alpha", object(&cm(), Some("default"), "h2", json!({"v": "1"}))).await;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let between = now_ms();
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    api.write("alpha", object(&cm(), Some("default"), "h2", json!({"v": "2"}))).await;
    api.delete("alpha", &cm(), "default", "h2").await;

    let at = mc_types::moment::rfc3339(between);
    let answer =
        api.get(&format!("/v1/history/at?gvr=configmaps&cluster=alpha&namespace=default&at={at}")).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let all = answer.array();
    let then: Vec<&Value> = all.iter().filter(|o| o["Object"]["metadata"]["name"] == "h2").collect();
    assert_eq!(then.len(), 1);
    assert_eq!(then[0]["Object"]["metadata"]["labels"]["v"], "1");
    // Now: gone.
    let now = mc_types::moment::rfc3339(now_ms());
    let answer = api.get(&format!("/v1/history/at?gvr=configmaps&namespace=default&at={now}")).await;
    assert!(answer.array().iter().all(|o| o["Object"]["metadata"]["name"] != "h2"), "{}", answer.text());
    // A label selector applies to the state answered.
    let answer = api
        .get(&format!("/v1/history/at?gvr=configmaps&namespace=default&at={at}&labelSelector=v%3D2"))
        .await;
    assert!(answer.array().iter().all(|o| o["Object"]["metadata"]["name"] != "h2"));

    let answer = api.get("/v1/history/deleted?gvr=cm&since=10m").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let gone = answer.array();
    assert_eq!(gone.len(), 1, "{gone:#?}");
    assert_eq!(gone[0]["clusterName"], "alpha");
    assert_eq!(gone[0]["Object"]["metadata"]["labels"]["v"], "2", "the last state");
}

#[tokio::test]
async fn an_event_deleted_by_its_cluster_is_still_listed() {
    let api = api().await;
    let events = Gvr::new("", "v1", "events");
    let event = |name: &str, reason: &str, kind: &str| {
        stored(
            &events,
            json!({"metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"), "resourceVersion": "5",
                   "creationTimestamp": "2026-11-28T10:00:00Z"},
                   "involvedObject": {"kind": kind, "name": "web"}, "reason": reason, "type": "Warning",
                   "message": "m", "lastTimestamp": mc_types::moment::rfc3339(now_ms())}),
        )
    };
    api.create("alpha", event("e1", "BackOff", "Pod")).await;
    api.create("beta", event("e2", "Scaled", "Deployment")).await;
    api.delete("alpha", &events, "default", "e1").await;

    let answer = api.get("/v1/events?since=1h").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let names: Vec<String> = answer
        .array()
        .iter()
        .filter_map(|e| e["Object"]["metadata"]["name"].as_str().map(String::from))
        .collect();
    assert_eq!(names, ["e1", "e2"], "the deleted one too, oldest first");
    for (query, expected) in [
        ("reason=BackOff", vec!["e1"]),
        ("for=deploy/web", vec!["e2"]),
        ("for=pod/web", vec!["e1"]),
        ("for=web", vec!["e1", "e2"]),
        ("type=Normal", vec![]),
        ("cluster=beta", vec!["e2"]),
    ] {
        let answer = api.get(&format!("/v1/events?since=1h&{query}")).await;
        assert_eq!(answer.status, StatusCode::OK, "{query}: {}", answer.text());
        let got: Vec<String> = answer
            .array()
            .iter()
            .filter_map(|e| e["Object"]["metadata"]["name"].as_str().map(String::from))
            .collect();
        assert_eq!(got, expected, "{query}");
    }
}

#[tokio::test]
async fn a_caller_sees_the_past_only_where_it_may_read_now() {
    let api = api().await;
    let rules =
        json!({"rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]});
    api.write("alpha", rbac("clusterroles", "ClusterRole", None, "view", rules)).await;
    api.write(
        "alpha",
        rbac(
            "rolebindings",
            "RoleBinding",
            Some("default"),
            "alice-view",
            json!({"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                   "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}]}),
        ),
    )
    .await;
    api.state.reviewer.remember(ALICE, User::new("alice", ["system:authenticated"])).await;
    for (ns, name) in [("default", "mine"), ("team", "theirs")] {
        api.create("alpha", object(&cm(), Some(ns), name, json!({}))).await;
        api.delete("alpha", &cm(), ns, name).await;
    }
    let answer = api.call(Method::GET, "/v1/history?gvr=cm&name=mine", Some(ALICE)).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert_eq!(answer.array().len(), 2);
    let answer = api.call(Method::GET, "/v1/history?gvr=cm&name=theirs", Some(ALICE)).await;
    assert_eq!(answer.array(), Vec::<Value>::new(), "team is not alice's");
    let answer = api.call(Method::GET, "/v1/history?gvr=cm&name=theirs&namespace=team", Some(ALICE)).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.text());
    let answer = api.call(Method::GET, "/v1/history/deleted?gvr=cm&since=1h", Some(ALICE)).await;
    let names: Vec<String> = answer
        .array()
        .iter()
        .filter_map(|o| o["Object"]["metadata"]["name"].as_str().map(String::from))
        .collect();
    assert_eq!(names, ["mine"]);
    assert!(answer.warnings().iter().any(|w| w.contains("beta")), "{:?}", answer.warnings());
    // Secrets are not alice's anywhere.
    let answer =
        api.call(Method::GET, "/v1/history?gvr=secrets&name=s-a1&namespace=default", Some(ALICE)).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.text());
}

#[tokio::test]
async fn bad_input_and_history_off_are_clear_errors() {
    let api = api().await;
    for (uri, status, says) in [
        ("/v1/history?gvr=cm", StatusCode::BAD_REQUEST, "missing parameter name"),
        ("/v1/history?name=x", StatusCode::BAD_REQUEST, "missing parameter gvr"),
        ("/v1/history?gvr=nope&name=x", StatusCode::NOT_FOUND, "nope"),
        ("/v1/history?gvr=cm&name=x&cluster=gamma", StatusCode::NOT_FOUND, "unknown cluster"),
        ("/v1/history?gvr=cm&name=x&labelSelector=a", StatusCode::BAD_REQUEST, "unknown query parameter"),
        ("/v1/history/at?gvr=cm", StatusCode::BAD_REQUEST, "missing parameter at"),
        ("/v1/history/at?gvr=cm&at=soon", StatusCode::BAD_REQUEST, "invalid time"),
        ("/v1/history/deleted?gvr=cm&since=-1h", StatusCode::BAD_REQUEST, "invalid time"),
        ("/v1/events?for=deploy%2F", StatusCode::BAD_REQUEST, ""),
        ("/v1/events?gvr=pods", StatusCode::BAD_REQUEST, "unknown query parameter"),
    ] {
        let answer = api.get(uri).await;
        assert_eq!(answer.status, status, "{uri}: {}", answer.text());
        assert!(answer.error(status).contains(says), "{uri}: {}", answer.text());
    }
    let off = TestApi::new().await;
    let answer = off.get("/v1/history?gvr=cm&name=cm-a1").await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert!(answer.error(StatusCode::NOT_FOUND).contains("history.enabled: false"), "{}", answer.text());
}
