//! `metrics.k8s.io/v1beta1` through the whole router, over members whose clients answer as a
//! metrics-server would (see [`crate::http::kube::fake_member`]).

#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use axum::http::{Method, StatusCode};
use mc_types::ResourceInfo;
use mc_types::crd::CLUSTER_ANNOTATION;
use serde_json::{Value, json};

use crate::authz::User;
use crate::http::kube::fake_member::client_with_query;
use crate::http::testing::{ALICE, Setup, TestApi, rbac, types};

const PODS: &str = "/apis/metrics.k8s.io/v1beta1/pods";
const NODES: &str = "/apis/metrics.k8s.io/v1beta1/nodes";

/// A `PodMetrics` of one container.
fn pod(namespace: &str, name: &str, cpu: &str) -> Value {
    json!({"kind": "PodMetrics", "apiVersion": "metrics.k8s.io/v1beta1",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": name}},
        "timestamp": "2026-01-02T15:04:05Z", "window": "15s",
        "containers": [{"name": "main", "usage": {"cpu": cpu, "memory": "10Mi"}}]})
}

/// A `NodeMetrics`.
fn node(name: &str) -> Value {
    json!({"kind": "NodeMetrics", "apiVersion": "metrics.k8s.io/v1beta1", "metadata": {"name": name},
        "timestamp": "2026-01-02T15:04:05Z", "window": "15s", "usage": {"cpu": "250m", "memory": "1Gi"}})
}

/// The resource metrics API as discovery finds it.
fn metrics_types() -> Vec<ResourceInfo> {
    super::types()
}

/// `cluster` serves these pods' and nodes' metrics (or answers every request with `broken`);
/// returns the paths (with queries) it was asked.
fn serve(
    api: &TestApi,
    cluster: &str,
    pods: Vec<Value>,
    nodes: Vec<Value>,
    broken: Option<u16>,
) -> Arc<Mutex<Vec<String>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorded = seen.clone();
    let member = api.state.registry.get(cluster).unwrap();
    member.set_catalog(types().into_iter().chain(metrics_types()).collect());
    member.set_client(Some(client_with_query(move |path, query| {
        recorded.lock().unwrap().push(if query.is_empty() {
            path.to_string()
        } else {
            format!("{path}?{query}")
        });
        if let Some(code) = broken {
            return Some((code, b"<member's own words>".to_vec()));
        }
        let list = |kind: &str, items: Vec<Value>| {
            let body =
                json!({"kind": kind, "apiVersion": "metrics.k8s.io/v1beta1", "metadata": {}, "items": items});
            Some((200, body.to_string().into_bytes()))
        };
        let one = |item: Option<&Value>| item.map(|i| (200, i.to_string().into_bytes()));
        let rest = path.strip_prefix("/apis/metrics.k8s.io/v1beta1/")?;
        match rest.split('/').collect::<Vec<_>>().as_slice() {
            ["pods"] => list("PodMetricsList", pods.clone()),
            ["nodes"] => list("NodeMetricsList", nodes.clone()),
            ["nodes", name] => one(nodes.iter().find(|n| n["metadata"]["name"] == *name)),
            ["namespaces", ns, "pods"] => list(
                "PodMetricsList",
                pods.iter().filter(|p| p["metadata"]["namespace"] == *ns).cloned().collect(),
            ),
            ["namespaces", ns, "pods", name] => {
                one(pods.iter().find(|p| p["metadata"]["namespace"] == *ns && p["metadata"]["name"] == *name))
            }
            _ => None,
        }
    })));
    seen
}

/// The text of each `Warning`.
fn warned(answer: &crate::http::testing::Answer) -> Vec<String> {
    answer
        .warnings()
        .iter()
        .map(|w| w.trim_start_matches("299 - \"").trim_end_matches('"').to_string())
        .collect()
}

/// `cluster/namespace/name` of each item.
fn items(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let m = &i["metadata"];
            let ns = m["namespace"].as_str().map(|n| format!("{n}/")).unwrap_or_default();
            format!(
                "{}/{ns}{}",
                m["annotations"][CLUSTER_ANNOTATION].as_str().unwrap(),
                m["name"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn discovery_offers_metrics_only_while_a_cluster_in_scope_serves_it() {
    let api = TestApi::new().await;
    let groups = |list: Value| -> Vec<String> {
        list["groups"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap().to_string()).collect()
    };
    assert!(!groups(api.get("/apis").await.json()).contains(&"metrics.k8s.io".to_string()));
    for path in
        ["/apis/metrics.k8s.io/v1beta1", PODS, NODES, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods"]
    {
        let message = api.get(path).await.status_object(StatusCode::NOT_FOUND, "NotFound");
        assert_eq!(message, "the server could not find the requested resource", "{path}");
    }
    serve(&api, "alpha", vec![], vec![], None);
    assert!(groups(api.get("/apis").await.json()).contains(&"metrics.k8s.io".to_string()));
    assert!(groups(api.get("/clusters/alpha/apis").await.json()).contains(&"metrics.k8s.io".to_string()));
    assert!(!groups(api.get("/clusters/beta/apis").await.json()).contains(&"metrics.k8s.io".to_string()));
    let list = api.get("/apis/metrics.k8s.io/v1beta1").await.json();
    assert_eq!(
        list["resources"],
        json!([
            {"name": "nodes", "singularName": "", "namespaced": false, "kind": "NodeMetrics", "verbs": ["get", "list"]},
            {"name": "pods", "singularName": "", "namespaced": true, "kind": "PodMetrics", "verbs": ["get", "list"]},
        ])
    );
    // Aggregated discovery, as kubectl top reads it.
    let aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    let all = api.get_accepting("/apis", aggregated).await.json();
    let group =
        all["items"].as_array().unwrap().iter().find(|g| g["metadata"]["name"] == "metrics.k8s.io").unwrap();
    let resources = &group["versions"][0]["resources"];
    assert_eq!(resources[1]["resource"], "pods", "{group}");
    assert_eq!(resources[1]["scope"], "Namespaced");
    assert_eq!(resources[1]["verbs"], json!(["get", "list"]));
    assert_eq!(resources[0]["scope"], "Cluster");
    api.get("/clusters/beta/apis/metrics.k8s.io/v1beta1")
        .await
        .status_object(StatusCode::NOT_FOUND, "NotFound");
    api.get(&format!("/clusters/beta{PODS}")).await.status_object(StatusCode::NOT_FOUND, "NotFound");
    // Not stored: the store's list and watch never answer for the group.
    let watch = api.get(&format!("{PODS}?watch=true")).await;
    watch.status_object(StatusCode::METHOD_NOT_ALLOWED, "MethodNotAllowed");
}

#[tokio::test]
async fn the_members_lists_are_merged_with_their_clusters_and_the_others_are_warned_of() {
    let api = TestApi::new().await;
    serve(
        &api,
        "alpha",
        vec![pod("default", "web", "5m"), pod("team", "api", "7m")],
        vec![node("a-1")],
        None,
    );
    let list = api.get(PODS).await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.text());
    assert_eq!(list.json()["kind"], "PodMetricsList");
    assert_eq!(list.json()["apiVersion"], "metrics.k8s.io/v1beta1");
    assert_eq!(items(&list.json()), ["alpha/default/web", "alpha/team/api"]);
    assert_eq!(list.json()["items"][0]["containers"][0]["usage"]["cpu"], "5m");
    assert_eq!(
        warned(&list),
        ["cluster(s) beta serve no metrics API (metrics.k8s.io/v1beta1): they are left out"]
    );
    serve(&api, "beta", vec![pod("default", "web", "9m")], vec![node("b-1"), node("b-2")], None);
    let nodes = api.get(NODES).await;
    assert_eq!(nodes.json()["kind"], "NodeMetricsList");
    assert_eq!(items(&nodes.json()), ["alpha/a-1", "beta/b-1", "beta/b-2"]);
    assert!(warned(&nodes).is_empty(), "{:?}", warned(&nodes));
    let one_ns = api.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods").await.json();
    assert_eq!(items(&one_ns), ["alpha/default/web", "beta/default/web"]);
    let beta = api.get(&format!("/clusters/beta{PODS}")).await.json();
    assert_eq!(items(&beta), ["beta/default/web"]);
}

#[tokio::test]
async fn the_label_selector_is_checked_and_passed_on_to_each_member() {
    let api = TestApi::new().await;
    let alpha = serve(&api, "alpha", vec![pod("default", "web", "5m")], vec![], None);
    let beta = serve(&api, "beta", vec![], vec![], None);
    let answer = api
        .get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dweb,tier!%3Ddb")
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let asked = "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dweb%2Ctier%21%3Ddb";
    assert_eq!(*alpha.lock().unwrap(), [asked]);
    assert_eq!(*beta.lock().unwrap(), [asked]);
    let bad = api.get(&format!("{PODS}?labelSelector=app%3D%3D%3D")).await;
    bad.status_object(StatusCode::BAD_REQUEST, "BadRequest");
    let bad_name = api.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/Web%3Fx").await;
    bad_name.status_object(StatusCode::BAD_REQUEST, "BadRequest");
    assert_eq!(alpha.lock().unwrap().len(), 1, "a refused request reaches no member");
}

#[tokio::test]
async fn a_failing_member_is_a_warning_in_our_words_and_the_others_still_answer() {
    let api = TestApi::new().await;
    serve(&api, "alpha", vec![], vec![], Some(500));
    serve(&api, "beta", vec![pod("default", "web", "9m")], vec![], None);
    let list = api.get(PODS).await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.text());
    assert_eq!(items(&list.json()), ["beta/default/web"]);
    assert_eq!(warned(&list), ["metrics left out: cluster 'alpha': the cluster answered HTTP 500"]);
    // Every member failing: 503, still in our words.
    serve(&api, "beta", vec![], vec![], Some(502));
    let down = api.get(PODS).await;
    let message = down.status_object(StatusCode::SERVICE_UNAVAILABLE, "ServiceUnavailable");
    assert!(message.contains("cluster \"alpha\": the cluster answered HTTP 500"), "{message}");
    assert!(!message.contains("own words") && !down.text().contains("own words"), "{message}");
}

#[tokio::test]
async fn one_object_comes_from_the_cluster_that_has_it_and_is_409_in_several() {
    let api = TestApi::new().await;
    serve(
        &api,
        "alpha",
        vec![pod("default", "web", "5m"), pod("default", "twin", "1m")],
        vec![node("n")],
        None,
    );
    serve(&api, "beta", vec![pod("default", "twin", "2m")], vec![node("n")], None);
    let one = api.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web").await.json();
    assert_eq!(one["kind"], "PodMetrics");
    assert_eq!(one["metadata"]["annotations"][CLUSTER_ANNOTATION], "alpha");
    let twin = api.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/twin").await;
    let message = twin.status_object(StatusCode::CONFLICT, "Conflict");
    assert!(message.contains("has metrics in clusters alpha, beta"), "{message}");
    assert!(
        message.contains("/clusters/NAME/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/twin"),
        "{message}"
    );
    let beta =
        api.get("/clusters/beta/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/twin").await.json();
    assert_eq!(beta["containers"][0]["usage"]["cpu"], "2m");
    api.get(&format!("{NODES}/n")).await.status_object(StatusCode::CONFLICT, "Conflict");
    api.get(&format!("{PODS}/web")).await.status_object(StatusCode::NOT_FOUND, "NotFound");
    let none = api.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nowhere").await;
    let message = none.status_object(StatusCode::NOT_FOUND, "NotFound");
    assert_eq!(message, "podmetrics.metrics.k8s.io \"nowhere\" not found");
}

#[tokio::test]
async fn an_identity_bound_in_one_namespace_of_one_cluster_sees_only_those_pods_metrics() {
    let api = TestApi::with(Setup { master: true, ..Setup::default() }).await;
    let pods = || vec![pod("default", "web", "5m"), pod("team", "api", "7m")];
    let alpha = serve(&api, "alpha", pods(), vec![node("a-1")], None);
    let beta = serve(&api, "beta", pods(), vec![node("b-1")], None);
    let role = json!({"rules": [{"apiGroups": ["metrics.k8s.io"], "resources": ["pods"], "verbs": ["get", "list"]}]});
    api.write("alpha", rbac("clusterroles", "ClusterRole", None, "pod-metrics", role)).await;
    let binding = json!({
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "pod-metrics"},
        "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}],
    });
    api.write("alpha", rbac("rolebindings", "RoleBinding", Some("team"), "alice", binding)).await;
    api.state.reviewer.remember(ALICE, User::new("alice", ["system:authenticated"])).await;

    let all = api.call(Method::GET, PODS, Some(ALICE)).await;
    assert_eq!(all.status, StatusCode::OK, "{}", all.text());
    assert_eq!(items(&all.json()), ["alpha/team/api"]);
    assert_eq!(
        warned(&all),
        ["alice may not list pods.metrics.k8s.io in cluster(s) beta: they are left out"]
    );
    assert!(beta.lock().unwrap().is_empty(), "a cluster where nothing is allowed is not asked");
    let team = api.call(Method::GET, "/apis/metrics.k8s.io/v1beta1/namespaces/team/pods", Some(ALICE)).await;
    assert_eq!(items(&team.json()), ["alpha/team/api"]);
    let denied =
        api.call(Method::GET, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", Some(ALICE)).await;
    let message = denied.status_object(StatusCode::FORBIDDEN, "Forbidden");
    assert_eq!(
        message,
        "pods.metrics.k8s.io is forbidden: User \"alice\" cannot list resource \"pods\" in API group \
         \"metrics.k8s.io\" in the namespace \"default\" of any cluster"
    );
    let node = api.call(Method::GET, &format!("{NODES}/a-1"), Some(ALICE)).await;
    node.status_object(StatusCode::FORBIDDEN, "Forbidden");
    assert_eq!(alpha.lock().unwrap().len(), 2, "refusals reach no member");
}
