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

/// The Deployment `tree-web` (2 replicas mounting `tree-conf`) and the Service `tree-web`
/// selecting its Pods, in every cluster, rolled out.
fn deploy_web(env: &Env) {
    let manifest = format!(
        "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {NS}}}\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: tree-conf, namespace: {NS}}}\ndata: {{a: '1'}}\n---\n\
         apiVersion: v1\nkind: Service\nmetadata: {{name: tree-web, namespace: {NS}}}\n\
         spec: {{selector: {{app: tree-web}}, ports: [{{port: 80}}]}}\n---\n\
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
}

/// The names of the items of a `kubectl get -o json` answer.
fn item_names(json: &str) -> BTreeSet<String> {
    let list: Value = serde_json::from_str(json).unwrap();
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap().to_string())
        .collect()
}

/// A cluster, its ReplicaSets of the Deployment, and their Pods with each one's node.
type Truth = (String, BTreeSet<String>, BTreeSet<(String, String)>);

#[test]
fn a_deployments_tree_in_each_cluster_is_what_the_cluster_has() {
    let env = Env::get();
    let server = Server::shared();
    deploy_web(env);
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

/// `(cluster, name)` of each object of a plugin `-o json` list.
fn listed(stdout: &str) -> BTreeSet<(String, String)> {
    let list: Value = serde_json::from_str(stdout).unwrap();
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let cluster = i["metadata"]["annotations"]["mulitcluster.practice.com/cluster"].as_str().unwrap();
            (cluster.to_string(), i["metadata"]["name"].as_str().unwrap().to_string())
        })
        .collect()
}

/// `list pods --owner deploy/NAME` lists the Pods of its ReplicaSets in every cluster, exactly;
/// `describe rs NAME --related` shows its owner and its Pods; an unknown owner is "No resources
/// found" with a Warning naming it.
#[test]
fn list_owner_and_describe_related_follow_ownership_in_each_cluster() {
    let env = Env::get();
    let server = Server::shared();
    deploy_web(env);
    let truth: BTreeSet<(String, String)> = env
        .clusters
        .iter()
        .flat_map(|c| {
            let json = env.kubectl(c, &["get", "pods", "-n", NS, "-l", "app=tree-web", "-o", "json"]);
            item_names(&json).into_iter().map(move |p| (c.clone(), p))
        })
        .collect();
    assert_eq!(truth.len(), 2 * env.clusters.len());
    eventually("list --owner answers every cluster's pods", Duration::from_secs(60), || {
        let run = server.plugin(&["list", "pods", "--owner", "deploy/tree-web", "-n", NS, "-o", "json"]);
        (run.code == Some(0) && listed(&run.stdout) == truth).then_some(())
    });
    // Without a namespace, the owner is looked for in every namespace; -c takes one cluster.
    let first = &env.clusters[0];
    let run = server.plugin(&["list", "pods", "--owner", "deploy/tree-web", "-c", first, "-o", "json"]).ok();
    let only_first: BTreeSet<_> = truth.iter().filter(|(c, _)| c == first).cloned().collect();
    assert_eq!(listed(&run.stdout), only_first);
    // The table form, through the same answer.
    let run = server.plugin(&["list", "pods", "--owner", "deploy/tree-web", "-n", NS]).ok();
    for (_, pod) in &truth {
        assert!(run.stdout.contains(pod.as_str()), "{}", run.stdout);
    }
    let run = server.plugin(&["list", "pods", "--owner", "deploy/no-such-web", "-n", NS]).ok();
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains(&format!("No resources found in {NS} namespace.")), "{run:?}");
    assert!(
        run.stderr.contains("Warning: owner deployments.apps 'no-such-web' not found in namespace"),
        "{run:?}"
    );

    // describe --related of a ReplicaSet: its Deployment above, its Pods below.
    let rs = item_names(&env.kubectl(first, &["get", "rs", "-n", NS, "-l", "app=tree-web", "-o", "json"]));
    let rs = rs.iter().next().unwrap();
    let run = server.plugin(&["describe", "rs", rs, "-n", NS, "-c", first, "--related"]).ok();
    let related = run.stdout.split("# Related:").nth(1).unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(related.contains("owner") && related.contains("Deployment/tree-web"), "{related}");
    for (_, pod) in only_first {
        assert!(related.contains(&format!("owned     Pod/{pod}")), "{related}");
    }
}

/// A Service's tree lists exactly the Pods its EndpointSlices' endpoints point to, in each
/// cluster (compared with `kubectl get endpointslices -l kubernetes.io/service-name=`).
#[test]
fn a_services_tree_has_the_pods_of_its_endpoint_slices_in_each_cluster() {
    let env = Env::get();
    let server = Server::shared();
    deploy_web(env);
    // Each cluster's EndpointSlices of the Service and the Pods their endpoints point to, once
    // every slice has both endpoints.
    let truth: Vec<(String, BTreeSet<String>, BTreeSet<String>)> = env
        .clusters
        .iter()
        .map(|c| {
            eventually("the service's endpoints", Duration::from_secs(60), || {
                let json = env.kubectl(
                    c,
                    &[
                        "get",
                        "endpointslices",
                        "-n",
                        NS,
                        "-l",
                        "kubernetes.io/service-name=tree-web",
                        "-o",
                        "json",
                    ],
                );
                let list: Value = serde_json::from_str(&json).ok()?;
                let slices = item_names(&json);
                let pods: BTreeSet<String> = list["items"]
                    .as_array()?
                    .iter()
                    .flat_map(|s| s["endpoints"].as_array().cloned().unwrap_or_default())
                    .filter(|e| e["targetRef"]["kind"] == "Pod")
                    .filter_map(|e| e["targetRef"]["name"].as_str().map(String::from))
                    .collect();
                (pods.len() == 2).then(|| (c.clone(), slices, pods))
            })
        })
        .collect();
    let trees: Vec<Value> = eventually("every cluster's service tree", Duration::from_secs(60), || {
        let run = server.plugin(&["tree", "svc/tree-web", "-n", NS, "-o", "json"]);
        let trees: Vec<Value> = serde_json::from_str(&run.stdout).ok()?;
        let matches = trees.len() == truth.len()
            && truth.iter().all(|(cluster, slices, pods)| {
                trees.iter().any(|t| {
                    let got = children(&t["root"], "EndpointSlice");
                    let got_pods: BTreeSet<String> =
                        got.iter().flat_map(|s| names(&children(s, "Pod"))).collect();
                    t["cluster"] == cluster.as_str() && &names(&got) == slices && &got_pods == pods
                })
            });
        matches.then_some(trees)
    });
    for t in &trees {
        for slice in children(&t["root"], "EndpointSlice") {
            // The EndpointSlice controller makes the Service its owner too: reached either way.
            assert!(["owned", "endpoints"].contains(&slice["relation"].as_str().unwrap()), "{t:#}");
            for pod in children(slice, "Pod") {
                assert_eq!(pod["relation"], "endpoint", "{t:#}");
                // A Pod reached through its endpoint has its own links below it.
                assert_eq!(children(pod, "Node").len(), 1, "{t:#}");
            }
        }
    }
}

/// A MultiClusterResource's tree shows the Deployment it applied in each placed cluster, with
/// that Deployment's readiness there and its own tree.
#[test]
fn a_multicluster_resources_tree_has_its_object_in_each_placed_cluster() {
    let env = Env::get();
    let server = Server::shared();
    let placed = &env.clusters[1..];
    let manifest = format!(
        "apiVersion: mulitcluster.practice.com/v1alpha1\nkind: MultiClusterResource\n\
         metadata: {{name: tree-mcr, namespace: default}}\n\
         spec:\n  template:\n    apiVersion: apps/v1\n    kind: Deployment\n\
         \x20   metadata: {{name: tree-mcr-web, namespace: default}}\n\
         \x20   spec:\n      replicas: 1\n      selector: {{matchLabels: {{app: tree-mcr-web}}}}\n\
         \x20     template:\n        metadata: {{labels: {{app: tree-mcr-web}}}}\n\
         \x20       spec: {{containers: [{{name: web, image: \"nginx:1.27\"}}]}}\n\
         \x20 placement:\n    clusters: [{}]\n",
        placed.iter().map(|c| format!("{{name: {c}}}")).collect::<Vec<_>>().join(", ")
    );
    let file = env.dir.join("mc-cli").join("tree-mcr.yaml");
    std::fs::write(&file, manifest).unwrap();
    let file = file.to_str().unwrap();
    server.plugin(&["apply", "-f", file]).ok();
    for c in placed {
        eventually("the dispatched deployment", Duration::from_secs(120), || {
            let run = env.kubectl_stdin(
                c,
                &["get", "deploy", "tree-mcr-web", "-n", "default", "--ignore-not-found"],
                None,
            );
            (!run.is_empty()).then_some(())
        });
        env.kubectl(c, &["rollout", "status", "deployment/tree-mcr-web", "-n", "default", "--timeout=120s"]);
    }
    let tree: Value = eventually("each placed cluster's deployment, ready", Duration::from_secs(120), || {
        let run = server.plugin(&["tree", "multiclusterresources/tree-mcr", "-n", "default", "-o", "json"]);
        let trees: Vec<Value> = serde_json::from_str(&run.stdout).ok()?;
        let tree = trees.into_iter().find(|t| t["cluster"] == env.master())?;
        let applied = children(&tree["root"], "Deployment");
        let ready = applied.len() == placed.len()
            && applied.iter().all(|d| d["status"] == "Ready" && d["ready"] == "1/1");
        ready.then_some(tree)
    });
    let applied = children(&tree["root"], "Deployment");
    let clusters: BTreeSet<&str> = applied.iter().filter_map(|d| d["cluster"].as_str()).collect();
    assert_eq!(clusters, placed.iter().map(String::as_str).collect(), "{tree:#}");
    for d in &applied {
        assert_eq!((d["relation"].as_str(), d["name"].as_str()), (Some("applied"), Some("tree-mcr-web")));
        // Its own tree: the ReplicaSet and its Pod, from that cluster.
        let pods: usize = children(d, "ReplicaSet").iter().map(|rs| children(rs, "Pod").len()).sum();
        assert_eq!(pods, 1, "{d:#}");
    }
    server.plugin(&["delete", "-f", file, "--timeout", "90s"]).ok();
}
