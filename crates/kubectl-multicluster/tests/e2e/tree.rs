//! `tree` through kubectl against real clusters: a Deployment's ReplicaSets and Pods in each of
//! three clusters, exactly as each cluster has them, with each Pod's node and the ConfigMap it
//! mounts.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::Value;

use crate::harness::{Env, Server, eventually};

const NS: &str = "mc-cli-tree";

fn children<'a>(node: &'a Value, kind: &str) -> Vec<&'a Value> {
    node["children"].as_array().map_or(vec![], |c| c.iter().filter(|n| n["kind"] == kind).collect())
}

fn names(nodes: &[&Value]) -> BTreeSet<String> {
    nodes.iter().filter_map(|n| n["name"].as_str().map(String::from)).collect()
}

/// A cluster, its ReplicaSets of the Deployment, and their Pods with each one's node.
type Truth = (String, BTreeSet<String>, BTreeSet<(String, String)>);

#[test]
fn a_deployments_tree_in_each_cluster_is_what_the_cluster_has() {
    let env = Env::get();
    let server = Server::shared();
    let manifest = format!(
        "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {NS}}}\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: tree-conf, namespace: {NS}}}\ndata: {{a: '1'}}\n---\n\
         apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: tree-web, namespace: {NS}}}\n\
         spec:\n  replicas: 2\n  selector: {{matchLabels: {{app: tree-web}}}}\n  template:\n    metadata: {{labels: {{app: tree-web}}}}\n\
         \x20   spec:\n      containers: [{{name: web, image: \"nginx:1.27\", volumeMounts: [{{name: conf, mountPath: /etc/conf}}]}}]\n\
         \x20     volumes: [{{name: conf, configMap: {{name: tree-conf}}}}]\n"
    );
    std::thread::scope(|s| {
        for cluster in &env.clusters {
            let manifest = manifest.clone();
            s.spawn(move || {
                env.kubectl_stdin(cluster, &["apply", "-f", "-"], Some(&manifest));
                env.kubectl(
                    cluster,
                    &["rollout", "status", "deployment/tree-web", "-n", NS, "--timeout=120s"],
                );
            });
        }
    });
    // What each cluster has: its ReplicaSets of tree-web, their Pods and each Pod's node.
    let truth: Vec<Truth> = env
        .clusters
        .iter()
        .map(|c| {
            let rs: Value = serde_json::from_str(
                &env.kubectl(c, &["get", "rs", "-n", NS, "-l", "app=tree-web", "-o", "json"]),
            )
            .unwrap();
            let pods: Value = serde_json::from_str(
                &env.kubectl(c, &["get", "pods", "-n", NS, "-l", "app=tree-web", "-o", "json"]),
            )
            .unwrap();
            let rs = rs["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["metadata"]["name"].as_str().unwrap().to_string())
                .collect();
            let pods = pods["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    (
                        p["metadata"]["name"].as_str().unwrap().to_string(),
                        p["spec"]["nodeName"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect();
            (c.clone(), rs, pods)
        })
        .collect();
    let trees: Vec<Value> = eventually("every cluster's tree has its pods", Duration::from_secs(60), || {
        let run = server.plugin(&["tree", "deploy/tree-web", "-n", NS, "-o", "json"]);
        let trees: Vec<Value> = serde_json::from_str(&run.stdout).ok()?;
        let complete = trees.len() == truth.len()
            && trees.iter().all(|t| {
                let pods: usize =
                    children(&t["root"], "ReplicaSet").iter().map(|rs| children(rs, "Pod").len()).sum();
                pods == 2
            });
        complete.then_some(trees)
    });
    for (cluster, rs_names, pods) in &truth {
        let tree = trees
            .iter()
            .find(|t| t["cluster"] == cluster.as_str())
            .unwrap_or_else(|| panic!("no tree of {cluster}"));
        assert_eq!(
            (tree["root"]["kind"].as_str(), tree["root"]["name"].as_str()),
            (Some("Deployment"), Some("tree-web"))
        );
        let replica_sets = children(&tree["root"], "ReplicaSet");
        assert_eq!(&names(&replica_sets), rs_names, "{cluster}: {tree:#}");
        let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
        for rs in &replica_sets {
            for pod in children(rs, "Pod") {
                let node = children(pod, "Node");
                assert_eq!(node.len(), 1, "{cluster}: {pod:#}");
                seen.insert((
                    pod["name"].as_str().unwrap().to_string(),
                    node[0]["name"].as_str().unwrap().to_string(),
                ));
                // The ConfigMap it mounts, and the one its service account token projects.
                let conf = children(pod, "ConfigMap");
                assert_eq!(
                    names(&conf),
                    BTreeSet::from(["kube-root-ca.crt".to_string(), "tree-conf".to_string()]),
                    "{cluster}: {pod:#}"
                );
                assert!(conf.iter().all(|c| c["missing"] != true), "{cluster}: {pod:#}");
            }
        }
        assert_eq!(&seen, pods, "{cluster}: pods and their nodes");
    }
    // The table: one tree per cluster, headed by its cluster.
    let run = server.plugin(&["tree", "deploy/tree-web", "-n", NS]).ok();
    for cluster in &env.clusters {
        assert!(run.stdout.contains(cluster.as_str()), "{}", run.stdout);
    }
    assert!(run.stdout.contains("tree-conf"), "{}", run.stdout);
}
