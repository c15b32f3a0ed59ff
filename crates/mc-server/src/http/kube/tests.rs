//! In-process tests of the Kubernetes API: here what `Accept` gets, and watches (their timeout and
//! the bookmark that ends their initial events); in the files below discovery, list and get,
//! Tables, and watches from a resourceVersion.

#![allow(clippy::unwrap_used)]

mod discovery;
mod logs;
mod objects;
mod tables;
mod version;
mod watches;

use std::time::Duration;

use axum::http::StatusCode;
use mc_types::Gvr;
use mc_types::crd::CLUSTER_ANNOTATION;
use serde_json::json;

use crate::http::testing::{Next, TestApi, cluster_and_name, object};

const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";
/// What kubectl get sends.
const KUBECTL: &str = "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

#[tokio::test]
async fn what_is_not_served_is_406_and_json_among_the_accepted_is_served() {
    let api = TestApi::new().await;
    for accept in [
        "application/vnd.kubernetes.protobuf",
        "application/cbor",
        "application/yaml",
        "application/json;as=Table;v=v1;g=meta.k8s.io;q=0",
        "application/json;q=0",
    ] {
        for path in [
            "/api/v1/configmaps",
            "/api/v1/namespaces/default/configmaps/cm-a1",
            "/api/v1/configmaps?watch=true",
        ] {
            let answer = api.get_accepting(path, accept).await;
            let message = answer.status_object(StatusCode::NOT_ACCEPTABLE, "NotAcceptable");
            assert!(message.contains("application/json"), "{message}");
        }
    }
    for path in ["/api", "/apis", "/api/v1", "/apis/apps/v1"] {
        api.get_accepting(path, "application/vnd.kubernetes.protobuf")
            .await
            .status_object(StatusCode::NOT_ACCEPTABLE, "NotAcceptable");
        let answer =
            api.get_accepting(path, "application/vnd.kubernetes.protobuf,application/json;q=0.5").await;
        assert_eq!(answer.status, StatusCode::OK, "{path}: {}", answer.text());
    }
    for accept in [
        "application/json",
        "*/*",
        "application/*",
        "application/vnd.kubernetes.protobuf, */*",
        "application/cbor;q=1,application/json;q=0.1",
    ] {
        let answer = api.get_accepting("/api/v1/configmaps", accept).await;
        assert_eq!(answer.json()["kind"], "ConfigMapList", "{accept}");
    }
    let table = api.get_accepting("/api/v1/configmaps", KUBECTL).await;
    assert_eq!(table.json()["kind"], "Table", "{}", table.text());
    assert_eq!(table.json()["rows"].as_array().unwrap().len(), 5);
    let table = api.get_accepting("/api/v1/namespaces/default/configmaps/cm-a1", TABLE).await;
    assert_eq!(table.json()["kind"], "Table", "{}", table.text());
    // A Table the client takes less than JSON is not what it gets.
    let list = api.get_accepting("/api/v1/configmaps", &format!("application/json,{TABLE};q=0.5")).await;
    assert_eq!(list.json()["kind"], "ConfigMapList");
    let aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    assert_eq!(api.get_accepting("/apis", aggregated).await.json()["kind"], "APIGroupDiscoveryList");
    assert_eq!(api.get("/apis").await.json()["kind"], "APIGroupList");
}

#[tokio::test]
async fn partial_object_metadata_is_served_for_lists_and_objects() {
    let api = TestApi::new().await;
    let accept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
    for path in ["/api/v1/configmaps?limit=3", "/api/v1/configmaps"] {
        let list = api.get_accepting(path, accept).await.json();
        assert_eq!(list["kind"], "PartialObjectMetadataList", "{list}");
        assert_eq!(list["apiVersion"], "meta.k8s.io/v1");
        let items = list["items"].as_array().unwrap();
        assert_eq!(items[0]["kind"], "PartialObjectMetadata");
        assert_eq!(cluster_and_name(&items[0]), "alpha/cm-a1");
        assert!(items.iter().all(|i| i.get("data").is_none()), "{list}");
    }
    let one = api
        .get_accepting(
            "/api/v1/namespaces/default/configmaps/cm-b1",
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
        )
        .await
        .json();
    assert_eq!(one["kind"], "PartialObjectMetadata", "{one}");
    assert_eq!(one["metadata"]["annotations"][CLUSTER_ANNOTATION], "beta");
    assert!(one.get("data").is_none());
}

#[tokio::test]
async fn a_watch_with_timeout_seconds_0_stays_open_past_its_current_objects() {
    let api = TestApi::new().await;
    let mut watch = api.stream("/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=0").await;
    assert_eq!(watch.status, StatusCode::OK);
    let added = watch.lines(4, Duration::from_secs(5)).await;
    assert!(added.iter().all(|e| e["type"] == "ADDED"), "{added:?}");
    assert_eq!(watch.next(Duration::from_millis(300)).await, Next::Quiet, "still open");
    let cm = Gvr::new("", "v1", "configmaps");
    api.write("beta", object(&cm, Some("default"), "cm-b3", json!({}))).await;
    let Next::Line(event) = watch.next(Duration::from_secs(5)).await else { panic!("no event") };
    assert_eq!(event["type"], "ADDED");
    assert_eq!(cluster_and_name(&event["object"]), "beta/cm-b3");
}

#[tokio::test]
async fn send_initial_events_ends_its_current_objects_with_a_bookmark() {
    let api = TestApi::new().await;
    let rv = api.get("/api/v1/configmaps").await.json()["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    // From a version (client-go's WatchList sends the one it has, or none).
    for from in ["", &format!("&resourceVersion={rv}")] {
        let path = format!(
            "/api/v1/configmaps?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan{from}"
        );
        let mut watch = api.stream(&path).await;
        let events = watch.lines(6, Duration::from_secs(5)).await;
        let added: Vec<String> = events[..5].iter().map(|e| cluster_and_name(&e["object"])).collect();
        assert!(events[..5].iter().all(|e| e["type"] == "ADDED"), "{events:?}");
        assert_eq!(added, ["alpha/cm-a1", "alpha/cm-a2", "alpha/cm-a3", "beta/cm-b1", "beta/cm-b2"]);
        let bookmark = &events[5];
        assert_eq!(bookmark["type"], "BOOKMARK", "{bookmark}");
        assert_eq!(bookmark["object"]["kind"], "ConfigMap");
        assert_eq!(bookmark["object"]["apiVersion"], "v1");
        assert_eq!(bookmark["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
        assert_eq!(bookmark["object"]["metadata"]["resourceVersion"], rv.as_str(), "{bookmark}");
        assert_eq!(watch.next(Duration::from_millis(200)).await, Next::Quiet);
    }
    // Without bookmarks, none.
    let path = "/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1";
    let lines = api.get(path).await.lines();
    assert_eq!(lines.len(), 5, "{lines:?}");
    // Without watch or NotOlderThan, what kube-apiserver refuses.
    for query in [
        "sendInitialEvents=true",
        "sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
        "watch=true&sendInitialEvents=true&allowWatchBookmarks=true",
        "watch=true&sendInitialEvents=true&resourceVersionMatch=Exact",
    ] {
        api.get(&format!("/api/v1/configmaps?{query}"))
            .await
            .status_object(StatusCode::UNPROCESSABLE_ENTITY, "Invalid");
    }
}

#[tokio::test]
async fn a_watch_that_takes_bookmarks_is_told_the_version_it_reached() {
    let api = TestApi::new().await;
    let mut watch =
        api.stream("/api/v1/namespaces/team/configmaps?watch=true&allowWatchBookmarks=true").await;
    assert_eq!(watch.status, StatusCode::OK);
    // A change of another namespace: not sent, but the bookmark's version is past it.
    let cm = Gvr::new("", "v1", "configmaps");
    api.write("beta", object(&cm, Some("default"), "cm-b9", json!({}))).await;
    let now = api.get("/api/v1/configmaps").await.json()["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let mut bookmark = None;
    for _ in 0..10 {
        match watch.next(Duration::from_secs(3)).await {
            Next::Line(e) if e["type"] == "BOOKMARK" => {
                bookmark = Some(e);
                break;
            }
            Next::Line(_) => continue,
            other => panic!("no bookmark: {other:?}"),
        }
    }
    let bookmark = bookmark.expect("a bookmark");
    assert_eq!(bookmark["object"]["kind"], "ConfigMap", "{bookmark}");
    assert_eq!(bookmark["object"]["apiVersion"], "v1");
    assert_eq!(bookmark["object"]["metadata"]["resourceVersion"], now.as_str(), "{bookmark}");
    // Watching again from it misses nothing and is not expired.
    let mut again = api
        .stream(&format!("/api/v1/configmaps?watch=true&resourceVersion={now}&allowWatchBookmarks=true"))
        .await;
    api.write("alpha", object(&cm, Some("team"), "cm-a9", json!({}))).await;
    let Next::Line(event) = again.next(Duration::from_secs(3)).await else { panic!("no event") };
    assert_ne!(event["type"], "ERROR", "{event}");
    assert_eq!(cluster_and_name(&event["object"]), "alpha/cm-a9");
    // Without allowWatchBookmarks, none.
    let quiet = api.get("/api/v1/namespaces/team/configmaps?watch=true&timeoutSeconds=2").await.lines();
    assert!(quiet.iter().all(|e| e["type"] != "BOOKMARK"), "{quiet:?}");
}
