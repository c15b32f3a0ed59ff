//! `meta.k8s.io/v1` Tables, as `kubectl get` asks for them.

use axum::http::StatusCode;
use mc_types::Gvr;
use mc_types::crd::CLUSTER_ANNOTATION;
use serde_json::{Value, json};

use crate::http::testing::{TestApi, stored};

const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";

/// The column names of a Table.
fn columns(table: &Value) -> Vec<&str> {
    table["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect()
}

/// The first `n` cells of each row.
fn cells(table: &Value, n: usize) -> Vec<Vec<&str>> {
    let rows = table["rows"].as_array().unwrap_or_else(|| panic!("no rows: {table}"));
    rows.iter()
        .map(|r| r["cells"].as_array().unwrap()[..n].iter().map(|c| c.as_str().unwrap()).collect())
        .collect()
}

#[tokio::test]
async fn a_table_has_a_cluster_column_after_the_name_and_a_row_per_object() {
    let api = TestApi::new().await;
    let table = api.get_accepting("/api/v1/configmaps", TABLE).await.json();
    assert_eq!((&table["kind"], &table["apiVersion"]), (&json!("Table"), &json!("meta.k8s.io/v1")));
    assert!(table["metadata"]["resourceVersion"].as_str().unwrap().starts_with("mc."), "{table}");
    assert_eq!(columns(&table), ["Name", "Cluster", "Data", "Age"]);
    let cluster = &table["columnDefinitions"][1];
    assert_eq!((&cluster["type"], &cluster["priority"]), (&json!("string"), &json!(0)));
    assert_eq!(
        cells(&table, 3),
        [
            ["cm-a1", "alpha", "1"],
            ["cm-a2", "alpha", "1"],
            ["cm-a3", "alpha", "1"],
            ["cm-b1", "beta", "1"],
            ["cm-b2", "beta", "1"]
        ]
    );
    // kubectl's default: each row's object is its metadata, with the cluster (kubectl -A reads
    // the namespace from it).
    let object = &table["rows"][3]["object"];
    assert_eq!(object["kind"], "PartialObjectMetadata", "{object}");
    assert_eq!(object["metadata"]["annotations"][CLUSTER_ANNOTATION], "beta");
    assert_eq!(object["metadata"]["namespace"], "default");
    assert!(object.get("data").is_none());
}

#[tokio::test]
async fn a_table_under_a_cluster_has_no_cluster_column() {
    let api = TestApi::new().await;
    let table = api.get_accepting("/clusters/beta/api/v1/configmaps", TABLE).await.json();
    assert_eq!(columns(&table), ["Name", "Data", "Age"]);
    assert_eq!(cells(&table, 2), [["cm-b1", "1"], ["cm-b2", "1"]]);
    let pods = api.get_accepting("/api/v1/pods", TABLE).await.json();
    let status = columns(&pods).iter().position(|c| *c == "Status").unwrap();
    let phases: Vec<&str> =
        pods["rows"].as_array().unwrap().iter().map(|r| r["cells"][status].as_str().unwrap()).collect();
    assert_eq!(phases, ["Running", "Pending", "Failed"]);
}

#[tokio::test]
async fn include_object_chooses_what_each_row_carries() {
    let api = TestApi::new().await;
    let path = "/api/v1/namespaces/team/configmaps";
    let none = api.get_accepting(&format!("{path}?includeObject=None"), TABLE).await.json();
    assert_eq!(cells(&none, 2), [["cm-a3", "alpha"]]);
    assert!(none["rows"][0].get("object").is_none(), "{none}");
    let whole = api.get_accepting(&format!("{path}?includeObject=Object"), TABLE).await.json();
    let object = &whole["rows"][0]["object"];
    assert_eq!(object["kind"], "ConfigMap");
    assert_eq!(object["data"], json!({"k": "v"}));
    assert_eq!(object["metadata"]["annotations"][CLUSTER_ANNOTATION], "alpha");
    // Kubernetes' name (what k9s sends), and the one earlier plugins sent.
    for metadata in ["Metadata", "PartialObjectMetadata"] {
        let table = api.get_accepting(&format!("{path}?includeObject={metadata}"), TABLE).await.json();
        assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata", "{metadata}");
    }
    let message = api
        .get_accepting(&format!("{path}?includeObject=Everything"), TABLE)
        .await
        .status_object(StatusCode::BAD_REQUEST, "BadRequest");
    assert!(message.contains("includeObject"), "{message}");
}

#[tokio::test]
async fn a_table_follows_a_change_of_its_objects() {
    let api = TestApi::new().await;
    // Without objects, rows may be kept between requests: a change must still show.
    let path = "/api/v1/namespaces/default/configmaps?includeObject=None";
    let before = api.get_accepting(path, TABLE).await.json();
    assert_eq!(cells(&before, 3)[0], ["cm-a1", "alpha", "1"]);
    assert_eq!(api.get_accepting(path, TABLE).await.json()["rows"], before["rows"], "the same answer again");
    let meta = json!({"name": "cm-a1", "namespace": "default", "uid": "uid-cm-a1", "creationTimestamp": "2024-01-01T00:00:00Z"});
    let changed = stored(
        &Gvr::new("", "v1", "configmaps"),
        json!({"metadata": meta, "data": {"a": "1", "b": "2", "c": "3"}}),
    );
    api.write("alpha", changed).await;
    let after = api.get_accepting(path, TABLE).await.json();
    assert_eq!(cells(&after, 3)[0], ["cm-a1", "alpha", "3"], "{after}");
    assert_eq!(cells(&after, 3)[1], ["cm-a2", "alpha", "1"]);
}

#[tokio::test]
async fn a_table_of_one_name_has_a_row_per_cluster_that_has_it() {
    let api = TestApi::new().await;
    let answer = api.get_accepting("/api/v1/namespaces/default", TABLE).await;
    let table = answer.json();
    assert_eq!(columns(&table), ["Name", "Cluster", "Status", "Age"]);
    assert_eq!(cells(&table, 2), [["default", "alpha"], ["default", "beta"]]);
    assert_eq!(answer.warnings(), Vec::<String>::new(), "both are shown: nothing to warn of");
}

#[tokio::test]
async fn the_plugins_view_puts_cluster_name_and_namespace_first() {
    let api = TestApi::new().await;
    let table = api.get_accepting("/api/v1/namespaces/default/configmaps?view=plugin", TABLE).await.json();
    assert_eq!(columns(&table), ["CLUSTER", "NAME", "NAMESPACE", "DATA"]);
    assert_eq!(cells(&table, 4)[3], ["beta", "cm-b2", "default", "1"]);
    let message = api
        .get_accepting("/api/v1/configmaps?view=fancy", TABLE)
        .await
        .status_object(StatusCode::BAD_REQUEST, "BadRequest");
    assert!(message.contains("\"fancy\""), "{message}");
}
