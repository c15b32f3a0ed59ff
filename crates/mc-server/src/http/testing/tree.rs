//! `/v1/tree` in process: a Deployment's ReplicaSet and Pods with what each Pod uses, missing
//! objects said, and bad input answered as 4xx.

use axum::http::{Method, StatusCode};
use mc_types::{Gvr, ResourceInfo};
use serde_json::{Value, json};

use super::{ALICE, Setup, TOKEN, TestApi, rbac, types};
use crate::authz::User;
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
    // What owns what: the Deployment its ReplicaSet, the ReplicaSet its Pods.
    let kind = if owner == "web" { "Deployment" } else { "ReplicaSet" };
    json!({"name": name, "namespace": "default", "uid": format!("uid-{name}"), "resourceVersion": "1",
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": kind, "name": owner, "uid": format!("uid-{owner}"), "controller": true}]})
}

/// beta: Deployment web (from the fixture) → ReplicaSet web-1 → Pods web-1-a (on node n1,
/// mounting cm-b1 and the missing ConfigMap gone) and web-1-b.
async fn api() -> TestApi {
    with_tree(TestApi::new().await).await
}

/// [`api`] over a setup of one's own.
async fn with_tree(api: TestApi) -> TestApi {
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

/// `relation kind/name` of each child of a tree's root.
fn neighbours(tree: &Value) -> Vec<String> {
    tree["root"]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {}/{}",
                c["relation"].as_str().unwrap(),
                c["kind"].as_str().unwrap(),
                c["name"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn neighbours_are_one_step_away_with_the_owner() {
    let api = api().await;
    let a = api.call(Method::GET, "/v1/tree?gvr=replicasets&name=web-1&neighbours=true", Some(TOKEN)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text());
    let trees = a.array();
    assert_eq!(neighbours(&trees[0]), ["owner Deployment/web", "owned Pod/web-1-a", "owned Pod/web-1-b"]);
    // One level: the Pods' nodes and ConfigMaps are not read.
    assert!(trees[0]["root"]["children"][1]["children"].is_null(), "{}", a.text());
    let pod = api.call(Method::GET, "/v1/tree?gvr=pods&name=web-1-a&neighbours=true", Some(TOKEN)).await;
    assert_eq!(
        neighbours(&pod.array()[0]),
        ["owner ReplicaSet/web-1", "runsOn Node/n1", "configMap ConfigMap/cm-b1", "configMap ConfigMap/gone"]
    );
    let bad = api.call(Method::GET, "/v1/tree?gvr=pods&name=web-1-a&neighbours=maybe", Some(TOKEN)).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{}", bad.text());
}

fn pod_names(items: &[Value]) -> Vec<&str> {
    items.iter().map(|o| o["metadata"]["name"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn owner_lists_what_an_object_owns_at_any_depth() {
    let api = api().await;
    let a = api.call(Method::GET, "/v1/list?gvr=pods&owner=deploy/web&limit=0", Some(TOKEN)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text());
    assert_eq!(pod_names(&a.array()), ["web-1-a", "web-1-b"]);
    // Selectors and limit apply to what is owned.
    let running = api
        .call(
            Method::GET,
            "/v1/list?gvr=pods&owner=deploy/web&fieldSelector=status.phase%3DRunning",
            Some(TOKEN),
        )
        .await;
    assert_eq!(pod_names(&running.array()), ["web-1-a"]);
    let one = api.call(Method::GET, "/v1/list?gvr=pods&owner=deploy/web&limit=1", Some(TOKEN)).await;
    assert_eq!(pod_names(&one.array()), ["web-1-a"]);
    let rs =
        api.call(Method::GET, "/v1/list_with_cluster?gvr=replicasets&owner=deploy/web", Some(TOKEN)).await;
    assert_eq!(rs.array().len(), 1, "{}", rs.text());
    assert_eq!(rs.array()[0]["clusterName"], "beta");
    // An owner found nowhere: nothing, and said.
    let none =
        api.call(Method::GET, "/v1/list?gvr=pods&owner=deploy/nope&namespace=default", Some(TOKEN)).await;
    assert_eq!(none.status, StatusCode::OK);
    assert!(none.array().is_empty());
    assert!(
        none.warnings()
            .iter()
            .any(|w| w.contains("deployments.apps") && w.contains("nope") && w.contains("not found")),
        "{:?}",
        none.warnings()
    );
    for uri in [
        "/v1/list?gvr=pods&owner=web",
        "/v1/list?gvr=pods&owner=deploy/",
        "/v1/list?gvr=pods&owner=deploy/web&watch=true",
        "/v1/list?gvr=pods,cm&owner=deploy/web",
        "/v1/list?gvr=pods&owner=deploy/web&continue=abcd",
    ] {
        let a = api.call(Method::GET, uri, Some(TOKEN)).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{uri}: {}", a.text());
    }
    let unknown = api.call(Method::GET, "/v1/list?gvr=pods&owner=nothings/web", Some(TOKEN)).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND, "{}", unknown.text());
}

/// alice may read Deployments, ReplicaSets and Pods in beta's `default`, not Nodes or ConfigMaps:
/// her tree leaves them out and says how many.
#[tokio::test]
async fn a_restricted_caller_sees_the_tree_without_what_she_may_not_list() {
    let api = with_tree(TestApi::with(Setup { master: true, ..Setup::default() }).await).await;
    let rules = json!({"rules": [
        {"apiGroups": ["", "apps"], "resources": ["deployments", "replicasets", "pods"], "verbs": ["get", "list"]},
    ]});
    api.write("beta", rbac("clusterroles", "ClusterRole", None, "workloads", rules)).await;
    let binding = json!({
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "workloads"},
        "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}],
    });
    api.write("beta", rbac("rolebindings", "RoleBinding", Some("default"), "alice-workloads", binding)).await;
    api.state.reviewer.remember(ALICE, User::new("alice", ["system:authenticated"])).await;
    let a = api.call(Method::GET, "/v1/tree?gvr=deploy&name=web&namespace=default", Some(ALICE)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text());
    let trees = a.array();
    assert_eq!(
        lines(&trees[0]),
        ["0 Deployment web", "1 ReplicaSet web-1", "2 Pod web-1-a", "2 Pod web-1-b"]
    );
    assert_eq!(trees[0]["hidden"], 3);
    assert!(
        a.warnings()
            .iter()
            .any(|w| w.contains("3 object(s) of the tree in cluster beta left out") && w.contains("alice")),
        "{:?}",
        a.warnings()
    );
    // The admin sees all of it.
    let admin = api.call(Method::GET, "/v1/tree?gvr=deploy&name=web&namespace=default", Some(TOKEN)).await;
    assert_eq!(lines(&admin.array()[0]).len(), 7);
}

/// Links declared in the config: a Widget names a ConfigMap at `spec.configRef.name` and Pods at
/// `spec.pods`, and selects ConfigMaps by `spec.selector`; its tree follows them all.
#[tokio::test]
async fn a_declared_link_is_followed_by_name_and_by_selector() {
    use mc_types::declared_links::{DeclaredLink, TypeRef};

    let mut api = api().await;
    let widgets = TypeRef { group: "a.example.com".into(), resource: "widgets".into() };
    let to = |resource: &str| TypeRef { group: String::new(), resource: resource.into() };
    api.state.relation_links = std::sync::Arc::new(vec![
        DeclaredLink {
            from: widgets.clone(),
            to: to("configmaps"),
            field_path: Some("spec.configRef.name".into()),
            selector: None,
        },
        DeclaredLink {
            from: widgets.clone(),
            to: to("configmaps"),
            field_path: None,
            selector: Some("spec.selector".into()),
        },
        DeclaredLink { from: widgets, to: to("pods"), field_path: Some("spec.pods".into()), selector: None },
    ]);
    let widget = obj(
        "a.example.com",
        "widgets",
        "Widget",
        json!({"name": "w", "namespace": "default", "uid": "uid-w", "resourceVersion": "1"}),
        json!({"spec": {"configRef": {"name": "nope"}, "selector": {"matchLabels": {"app": "web"}}, "pods": ["web-1-a"]}}),
    );
    api.state.store.apply_batch("beta", vec![widget]).await.unwrap();
    let a = api.call(Method::GET, "/v1/tree?gvr=widgets.a.example.com&name=w", Some(TOKEN)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text());
    let trees = a.array();
    assert_eq!(
        lines(&trees[0]),
        [
            "0 Widget w",
            "1 ConfigMap cm-b1",
            "1 ConfigMap nope missing",
            "1 Pod web-1-a",
            "2 Node n1",
            "2 ConfigMap cm-b1",
            "2 ConfigMap gone missing",
        ]
    );
    assert!(trees[0]["root"]["children"].as_array().unwrap().iter().all(|c| c["relation"] == "linked"));
    // Neighbours too.
    let n =
        api.call(Method::GET, "/v1/tree?gvr=widgets.a.example.com&name=w&neighbours=true", Some(TOKEN)).await;
    assert_eq!(
        neighbours(&n.array()[0]),
        ["linked ConfigMap/cm-b1", "linked ConfigMap/nope", "linked Pod/web-1-a"]
    );
}
