//! `/v1/tree` in process: a Deployment's ReplicaSet and Pods with what each Pod uses, missing
//! objects said, and bad input answered as 4xx.

use axum::http::{Method, StatusCode};
use mc_types::{Gvr, ResourceInfo};
use serde_json::{Value, json};

use super::{TOKEN, TestApi, types};
use crate::store::{ApplyOne, Change, StoredObject};

fn info(group: &str, resource: &str, kind: &str, namespaced: bool) -> ResourceInfo {
    ResourceInfo {
        group: group.into(),
        version: "v1".into(),
        resource: resource.into(),
        singular: String::new(),
        kind: kind.into(),
        short_names: Vec::new(),
        namespaced,
        verbs: ["get", "list", "watch"].map(String::from).to_vec(),
        categories: Vec::new(),
    }
}

fn obj(group: &str, resource: &str, kind: &str, meta: Value, rest: Value) -> Change {
    let mut o = json!({"apiVersion": if group.is_empty() { "v1".to_string() } else { format!("{group}/v1") },
        "kind": kind, "metadata": meta});
    for (k, v) in rest.as_object().into_iter().flatten() {
        o[k] = v.clone();
    }
    Change::Upsert(StoredObject::from_json(Gvr::new(group, "v1", resource), kind, o).unwrap())
}

fn owned(name: &str, owner: &str) -> Value {
    json!({"name": name, "namespace": "default", "uid": format!("uid-{name}"), "resourceVersion": "1",
        "ownerReferences": [{"apiVersion": "v1", "kind": "X", "name": owner, "uid": format!("uid-{owner}"), "controller": true}]})
}

/// beta: Deployment web (from the fixture) → ReplicaSet web-1 → Pods web-1-a (on node n1,
/// mounting cm-b1 and the missing ConfigMap gone) and web-1-b.
async fn api() -> TestApi {
    let api = TestApi::new().await;
    for name in super::CLUSTERS {
        let mut catalog = types();
        catalog.push(info("apps", "replicasets", "ReplicaSet", true));
        catalog.push(info("", "nodes", "Node", false));
        api.state.registry.get(name).unwrap().set_catalog(catalog);
    }
    let pod_spec = |node: &str| {
        json!({"spec": {"nodeName": node, "containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "gone"}}]}],
            "volumes": [{"name": "v", "configMap": {"name": "cm-b1"}}]},
            "status": {"phase": "Running", "containerStatuses": [{"ready": true}]}})
    };
    let changes = vec![
        obj(
            "apps",
            "replicasets",
            "ReplicaSet",
            owned("web-1", "web"),
            json!({"spec": {"replicas": 2}, "status": {"readyReplicas": 2}}),
        ),
        obj("", "pods", "Pod", owned("web-1-a", "web-1"), pod_spec("n1")),
        obj("", "pods", "Pod", owned("web-1-b", "web-1"), json!({"spec": {"containers": [{"name": "c"}]}})),
        obj("", "pods", "Pod", owned("other", "elsewhere"), json!({})),
        obj(
            "",
            "nodes",
            "Node",
            json!({"name": "n1", "uid": "uid-n1", "resourceVersion": "1"}),
            json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}}),
        ),
    ];
    api.state.store.apply_batch("beta", changes).await.unwrap();
    api
}

/// `depth kind name [status]` of every node, depth first.
fn lines(tree: &Value) -> Vec<String> {
    let node: mc_types::tree::ClusterTree = serde_json::from_value(tree.clone()).unwrap();
    node.root
        .walk()
        .into_iter()
        .map(|(d, n)| {
            let missing = if n.missing { " missing" } else { "" };
            format!("{d} {} {}{missing}", n.kind, n.name)
        })
        .collect()
}

#[tokio::test]
async fn a_deployment_tree_shows_its_replica_sets_pods_and_what_each_pod_uses() {
    let api = api().await;
    let a = api.call(Method::GET, "/v1/tree?gvr=deploy&name=web&namespace=default", Some(TOKEN)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text());
    let trees = a.array();
    assert_eq!(trees.len(), 1, "only beta has the Deployment: {trees:?}");
    assert_eq!(trees[0]["cluster"], "beta");
    assert_eq!(
        lines(&trees[0]),
        [
            "0 Deployment web",
            "1 ReplicaSet web-1",
            "2 Pod web-1-a",
            "3 Node n1",
            "3 ConfigMap cm-b1",
            "3 ConfigMap gone missing",
            "2 Pod web-1-b",
        ]
    );
    let rs = &trees[0]["root"]["children"][0];
    assert_eq!((rs["ready"].as_str(), rs["relation"].as_str()), (Some("2/2"), Some("owned")));
    assert_eq!(rs["children"][0]["children"][0]["status"], "Ready");
}

#[tokio::test]
async fn bad_tree_requests_are_answered_as_client_errors() {
    let api = api().await;
    let long = format!("/v1/tree?gvr=deploy&name={}", "x".repeat(300));
    for (uri, code) in [
        (long.as_str(), StatusCode::BAD_REQUEST),
        ("/v1/tree?gvr=deploy", StatusCode::BAD_REQUEST),
        ("/v1/tree?name=web", StatusCode::BAD_REQUEST),
        ("/v1/tree?gvr=deploy&name=web&depth=3", StatusCode::BAD_REQUEST),
        ("/v1/tree?gvr=deploy&name=nope", StatusCode::NOT_FOUND),
        ("/v1/tree?gvr=deploy&name=web&cluster=gamma", StatusCode::NOT_FOUND),
        ("/v1/tree?gvr=nothings&name=web", StatusCode::NOT_FOUND),
    ] {
        let a = api.call(Method::GET, uri, Some(TOKEN)).await;
        assert_eq!(a.status, code, "{uri}: {}", a.text());
        assert!(a.json()["error"].is_string(), "{uri}: {}", a.text());
    }
}
