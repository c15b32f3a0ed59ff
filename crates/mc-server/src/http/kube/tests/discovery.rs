//! `/api`, `/apis`, `/api/v1` and `/apis/{group}/{version}`, as kubectl and client-go read them.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::http::testing::TestApi;

#[tokio::test]
async fn api_lists_the_core_version_on_every_scope() {
    let api = TestApi::new().await;
    for path in ["/api", "/clusters/alpha/api", "/clusters/beta/api"] {
        let answer = api.get(path).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert_eq!(
            answer.json(),
            json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}),
            "{path}"
        );
    }
}

#[tokio::test]
async fn apis_lists_every_named_group_with_its_preferred_version() {
    let api = TestApi::new().await;
    let list = api.get("/apis").await.json();
    assert_eq!(list["kind"], "APIGroupList");
    assert_eq!(list["apiVersion"], "v1");
    let groups = list["groups"].as_array().unwrap();
    let names: Vec<&str> = groups.iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a.example.com", "apps", "b.example.com"], "named groups only: the core one is /api");
    let apps = &groups[1];
    let v1 = json!({"groupVersion": "apps/v1", "version": "v1"});
    assert_eq!(apps["versions"], json!([v1]));
    assert_eq!(apps["preferredVersion"], v1);
    assert_eq!(api.get("/clusters/beta/apis").await.json(), list, "the same under a cluster");
}

#[tokio::test]
async fn a_group_version_lists_its_types_with_read_verbs() {
    let api = TestApi::new().await;
    let core = api.get("/api/v1").await.json();
    assert_eq!(core["kind"], "APIResourceList");
    assert_eq!(core["apiVersion"], "v1");
    assert_eq!(core["groupVersion"], "v1");
    let resources = core["resources"].as_array().unwrap();
    let names: Vec<&str> = resources.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["configmaps", "namespaces", "pods", "secrets"]);
    let by_name = |name: &str| resources.iter().find(|r| r["name"] == name).unwrap().clone();
    assert_eq!(
        by_name("configmaps"),
        json!({"name": "configmaps", "singularName": "configmap", "namespaced": true, "kind": "ConfigMap",
            "verbs": ["get", "list", "watch"], "shortNames": ["cm"]})
    );
    assert_eq!(by_name("namespaces")["namespaced"], false);
    assert!(by_name("secrets").get("shortNames").is_none(), "no empty shortNames");
    assert_eq!(by_name("pods")["categories"], json!(["all"]), "kubectl get all reads them");
    assert!(resources.iter().all(|r| r["verbs"] == json!(["get", "list", "watch"])), "read-only");

    let apps = api.get("/apis/apps/v1").await.json();
    assert_eq!(apps["groupVersion"], "apps/v1");
    let kinds: Vec<&Value> = apps["resources"].as_array().unwrap().iter().map(|r| &r["kind"]).collect();
    assert_eq!(kinds, [&json!("Deployment")]);
    assert_eq!(api.get("/clusters/alpha/apis/apps/v1").await.json(), apps);
}

#[tokio::test]
async fn an_unknown_group_version_or_cluster_is_404_in_kubectls_words() {
    let api = TestApi::new().await;
    for path in ["/api/v2", "/apis/apps/v2", "/apis/nope.example.com/v1", "/clusters/alpha/apis/apps/v1beta1"]
    {
        let message = api.get(path).await.status_object(StatusCode::NOT_FOUND, "NotFound");
        assert_eq!(message, "the server could not find the requested resource", "{path}");
    }
    for path in ["/clusters/gamma/api", "/clusters/gamma/apis", "/clusters/gamma/api/v1"] {
        let message = api.get(path).await.status_object(StatusCode::NOT_FOUND, "NotFound");
        assert_eq!(message, "cluster \"gamma\" not found", "{path}");
    }
}

#[tokio::test]
async fn aggregated_discovery_carries_each_types_categories_for_kubectl_get_all() {
    let api = TestApi::new().await;
    let accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    let mut in_all = Vec::new();
    for path in ["/api", "/apis"] {
        let list = api.get_accepting(path, accept).await.json();
        assert_eq!(list["kind"], "APIGroupDiscoveryList", "{path}");
        for group in list["items"].as_array().unwrap() {
            for version in group["versions"].as_array().unwrap() {
                for r in version["resources"].as_array().unwrap() {
                    if r["categories"] == json!(["all"]) {
                        in_all.push(r["resource"].as_str().unwrap().to_owned());
                    } else {
                        assert!(r.get("categories").is_none(), "no empty categories: {r}");
                    }
                }
            }
        }
    }
    assert_eq!(in_all, ["pods", "deployments"]);
}
