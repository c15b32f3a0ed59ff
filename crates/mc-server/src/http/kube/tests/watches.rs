//! Watches from a list's resourceVersion, as client-go's reflector and `kubectl get -w` start
//! them.

use std::time::Duration;

use axum::http::StatusCode;
use mc_types::Gvr;
use serde_json::{Value, json};

use crate::http::testing::{Next, TestApi, cluster_and_name, object};

const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";

fn configmaps() -> Gvr {
    Gvr::new("", "v1", "configmaps")
}

/// The `metadata.resourceVersion` of a list.
async fn listed_at(api: &TestApi, path: &str) -> String {
    api.get(path).await.json()["metadata"]["resourceVersion"].as_str().unwrap().to_string()
}

/// `TYPE cluster/name` of an event.
fn event(next: Next) -> String {
    match next {
        Next::Line(e) => format!("{} {}", e["type"].as_str().unwrap(), cluster_and_name(&e["object"])),
        other => panic!("no event: {other:?}"),
    }
}

const QUICK: Duration = Duration::from_secs(5);
const QUIET: Duration = Duration::from_millis(200);

#[tokio::test]
async fn a_watch_from_a_lists_version_sends_exactly_the_later_changes() {
    let api = TestApi::new().await;
    api.write("alpha", object(&configmaps(), Some("default"), "cm-before", json!({}))).await;
    let rv = listed_at(&api, "/api/v1/configmaps").await;
    api.write("alpha", object(&configmaps(), Some("default"), "cm-a1", json!({"app": "db"}))).await;
    api.create("beta", object(&configmaps(), Some("default"), "cm-b3", json!({}))).await;
    let mut watch = api.stream(&format!("/api/v1/configmaps?watch=true&resourceVersion={rv}")).await;
    assert_eq!(watch.status, StatusCode::OK);
    let Next::Line(first) = watch.next(QUICK).await else { panic!("no event") };
    assert_eq!(first["type"], "MODIFIED", "{first}");
    assert_eq!(cluster_and_name(&first["object"]), "alpha/cm-a1");
    assert_eq!(first["object"]["metadata"]["labels"]["app"], "db");
    let version = first["object"]["metadata"]["resourceVersion"].as_str().unwrap();
    assert!(version.starts_with("mc.") && version != rv, "{version} after {rv}");
    assert_eq!(event(watch.next(QUICK).await), "ADDED beta/cm-b3");
    assert_eq!(watch.next(QUIET).await, Next::Quiet, "nothing from before the list");
    api.delete("beta", &configmaps(), "default", "cm-b3").await;
    assert_eq!(event(watch.next(QUICK).await), "DELETED beta/cm-b3");
    // Other types are other watches'.
    api.write("beta", object(&Gvr::new("", "v1", "secrets"), Some("default"), "s-b9", json!({}))).await;
    assert_eq!(watch.next(QUIET).await, Next::Quiet);
}

#[tokio::test]
async fn a_watch_from_an_event_version_resumes_after_that_event() {
    let api = TestApi::new().await;
    let rv = listed_at(&api, "/api/v1/configmaps").await;
    for name in ["cm-n1", "cm-n2", "cm-n3"] {
        api.create("beta", object(&configmaps(), Some("default"), name, json!({}))).await;
    }
    let lines = api
        .get(&format!("/api/v1/configmaps?watch=true&resourceVersion={rv}&timeoutSeconds=1"))
        .await
        .lines();
    assert_eq!(lines.len(), 3, "{lines:?}");
    let second = lines[1]["object"]["metadata"]["resourceVersion"].as_str().unwrap();
    let mut watch = api.stream(&format!("/api/v1/configmaps?watch=true&resourceVersion={second}")).await;
    assert_eq!(event(watch.next(QUICK).await), "ADDED beta/cm-n3");
    assert_eq!(watch.next(QUIET).await, Next::Quiet);
}

#[tokio::test]
async fn a_watch_from_an_unknown_version_ends_with_410_expired() {
    let api = TestApi::new().await;
    let rv = listed_at(&api, "/api/v1/configmaps").await;
    let (epoch, seq) = rv.rsplit_once('.').unwrap();
    let ahead = format!("{epoch}.{}", seq.parse::<u64>().unwrap() + 100);
    for version in ["12345", "mc.1.1", ahead.as_str(), "not-a-version"] {
        let mut watch = api.stream(&format!("/api/v1/configmaps?watch=true&resourceVersion={version}")).await;
        assert_eq!(watch.status, StatusCode::OK, "kube-apiserver says it in the stream");
        let Next::Line(error) = watch.next(QUICK).await else { panic!("{version}: no event") };
        assert_eq!(error["type"], "ERROR", "{version}: {error}");
        let status = &error["object"];
        assert_eq!(
            (&status["kind"], &status["code"], &status["reason"]),
            (&json!("Status"), &json!(410), &json!("Expired"))
        );
        assert!(status["message"].as_str().unwrap().contains("too old resource version"), "{status}");
        assert_eq!(watch.next(QUICK).await, Next::End, "{version}: the stream ends");
    }
}

#[tokio::test]
async fn a_watch_keeps_to_its_cluster_namespace_and_selectors() {
    let api = TestApi::new().await;
    let path = "/clusters/alpha/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb";
    let rv = listed_at(&api, path).await;
    let mut watch = api.stream(&format!("{path}&watch=true&resourceVersion={rv}")).await;
    let web = json!({"app": "web"});
    api.create("beta", object(&configmaps(), Some("default"), "cm-b5", web.clone())).await;
    api.create("alpha", object(&configmaps(), Some("team"), "cm-a5", web.clone())).await;
    api.create("alpha", object(&Gvr::new("", "v1", "secrets"), Some("default"), "cm-a6", web.clone())).await;
    api.create("alpha", object(&configmaps(), Some("default"), "cm-a7", web)).await;
    assert_eq!(event(watch.next(QUICK).await), "ADDED alpha/cm-a7", "only what is in scope");
    api.write("alpha", object(&configmaps(), Some("default"), "cm-a1", json!({"app": "db"}))).await;
    assert_eq!(event(watch.next(QUICK).await), "DELETED alpha/cm-a1", "left the selector");
    assert_eq!(watch.next(QUIET).await, Next::Quiet);
}

#[tokio::test]
#[ignore = "limitation: a change notice does not carry the object's previous labels, so a watch \
            resumed with a label selector tells an object that comes to match as MODIFIED \
            (client-go's informers add it all the same); see docs/kubernetes-api.md"]
async fn a_resumed_watch_with_a_selector_adds_an_object_that_comes_to_match() {
    let api = TestApi::new().await;
    let path = "/api/v1/configmaps?labelSelector=app%3Dweb";
    let rv = listed_at(&api, path).await;
    let mut watch = api.stream(&format!("{path}&watch=true&resourceVersion={rv}")).await;
    // cm-b2 existed at the list's version, without the label: the client does not hold it.
    api.write("beta", object(&configmaps(), Some("default"), "cm-b2", json!({"app": "web"}))).await;
    assert_eq!(event(watch.next(QUICK).await), "ADDED beta/cm-b2");
}

#[tokio::test]
async fn a_resumed_watch_with_a_selector_is_silent_about_a_new_object_that_does_not_match() {
    let api = TestApi::new().await;
    let path = "/api/v1/configmaps?labelSelector=app%3Dweb";
    let rv = listed_at(&api, path).await;
    let mut watch = api.stream(&format!("{path}&watch=true&resourceVersion={rv}")).await;
    api.create("alpha", object(&configmaps(), Some("default"), "cm-db", json!({"app": "db"}))).await;
    api.create("alpha", object(&configmaps(), Some("default"), "cm-web", json!({"app": "web"}))).await;
    assert_eq!(event(watch.next(QUICK).await), "ADDED alpha/cm-web");
}

#[tokio::test]
async fn a_watch_asked_for_tables_sends_one_row_tables() {
    let api = TestApi::new().await;
    let rv = listed_at(&api, "/api/v1/configmaps").await;
    api.write("beta", object(&configmaps(), Some("default"), "cm-b1", json!({}))).await;
    let uri = format!("/api/v1/configmaps?watch=true&resourceVersion={rv}&timeoutSeconds=1");
    let answer = api.get_accepting(&uri, TABLE).await;
    let lines = answer.lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let table: &Value = &lines[0]["object"];
    assert_eq!((&lines[0]["type"], &table["kind"]), (&json!("MODIFIED"), &json!("Table")), "{table}");
    let names: Vec<&Value> =
        table["columnDefinitions"].as_array().unwrap().iter().map(|c| &c["name"]).collect();
    assert_eq!(names, [&json!("Name"), &json!("Cluster"), &json!("Data"), &json!("Age")]);
    assert_eq!(table["rows"][0]["cells"].as_array().unwrap()[..2], [json!("cm-b1"), json!("beta")]);
    assert!(table["metadata"]["resourceVersion"].as_str().unwrap().starts_with("mc."));
}
