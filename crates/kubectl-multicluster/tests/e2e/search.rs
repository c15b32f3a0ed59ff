//! `search` through kubectl against real clusters: a Pod found by its image's tag in each of
//! three clusters, a ConfigMap by an annotation's value, and nothing found said as kubectl says
//! it.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::Value;

use crate::harness::{Env, Server, eventually};

const NS: &str = "mc-cli-search";
const TAG: &str = "v7.3.1-mcsearch";

#[test]
fn search_finds_a_pod_by_image_tag_in_every_cluster_and_a_configmap_by_annotation() {
    let env = Env::get();
    let server = Server::shared();
    let pod = format!(
        "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {NS}}}\n---\n\
         apiVersion: v1\nkind: Pod\nmetadata: {{name: probe, namespace: {NS}}}\n\
         spec:\n  containers: [{{name: probe, image: \"registry.example/search-probe:{TAG}\"}}]\n"
    );
    std::thread::scope(|s| {
        for cluster in &env.clusters {
            let pod = pod.clone();
            s.spawn(move || env.kubectl_stdin(cluster, &["apply", "-f", "-"], Some(&pod)));
        }
    });
    let annotated = &env.clusters[1];
    let cm = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: contacts\n  namespace: {NS}\n  annotations: {{mc-e2e/pager: \"Pager-Rota-4711\"}}\ndata: {{a: '1'}}\n"
    );
    env.kubectl_stdin(annotated, &["apply", "-f", "-"], Some(&cm));

    let expected: BTreeSet<String> = env.clusters.iter().cloned().collect();
    let found: Vec<Value> = eventually("the pod is found in every cluster", Duration::from_secs(60), || {
        let run = server.plugin(&["search", TAG, "-o", "json"]);
        let items: Vec<Value> = serde_json::from_str(&run.stdout).ok()?;
        let clusters: BTreeSet<String> =
            items.iter().filter_map(|i| i["cluster"].as_str().map(String::from)).collect();
        (clusters == expected).then_some(items)
    });
    assert_eq!(found.len(), 3, "{found:#?}");
    for item in &found {
        assert_eq!(
            (item["kind"].as_str(), item["namespace"].as_str(), item["name"].as_str()),
            (Some("Pod"), Some(NS), Some("probe"))
        );
        assert_eq!(
            item["matched"],
            serde_json::json!([format!("image=registry.example/search-probe:{TAG}")])
        );
    }
    // The table, one row per cluster.
    let table = server.plugin(&["search", TAG, "-n", NS]).ok();
    let rows = table.rows();
    assert_eq!(rows[0], ["CLUSTER", "KIND", "NAMESPACE", "NAME", "MATCHED"]);
    let clusters: BTreeSet<String> = rows[1..].iter().map(|r| r[0].clone()).collect();
    assert_eq!(clusters, expected);
    assert!(rows[1..].iter().all(|r| r[1..4] == ["Pod", NS, "probe"]), "{rows:?}");

    // The ConfigMap by its annotation's value, case ignored, in its cluster only.
    let cms: Vec<Value> = eventually("the ConfigMap is found", Duration::from_secs(60), || {
        let run = server.plugin(&["search", "pager-rota-47", "--kind", "configmaps", "-o", "json"]);
        let items: Vec<Value> = serde_json::from_str(&run.stdout).ok()?;
        (!items.is_empty()).then_some(items)
    });
    assert_eq!(cms.len(), 1, "{cms:#?}");
    assert_eq!(
        (cms[0]["cluster"].as_str(), cms[0]["name"].as_str(), cms[0]["matched"].clone()),
        (
            Some(annotated.as_str()),
            Some("contacts"),
            serde_json::json!(["annotation mc-e2e/pager=Pager-Rota-4711"])
        )
    );

    // Nothing found, as kubectl says it; a text too short, one line and a failure.
    let none = server.plugin(&["search", "nothing-matches-this-e2e", "-n", NS]).ok();
    assert_eq!(
        (none.stdout.as_str(), none.stderr.trim()),
        ("", format!("No resources found in {NS} namespace.").as_str())
    );
    let short = server.plugin(&["search", "ab"]);
    assert_ne!(short.code, Some(0));
    assert_eq!(short.stderr.trim().lines().count(), 1, "{}", short.stderr);
}
