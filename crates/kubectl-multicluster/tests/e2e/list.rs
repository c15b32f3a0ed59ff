//! `list` and `describe` through kubectl against real clusters.

use std::time::Duration;

use serde_json::Value;

use crate::harness::{Env, NS, Server, eventually, split_row, workloads};

/// The rows of `list pods -n NS` once every cluster's two web pods are Running.
fn running_web_pods(server: &Server) -> Vec<Vec<String>> {
    eventually("6 Running web pods in the list", Duration::from_secs(90), || {
        let run = server.plugin(&["list", "pods", "-n", NS, "-l", "app=web"]);
        let rows = run.rows();
        let body: Vec<Vec<String>> = rows.iter().skip(1).cloned().collect();
        (run.code == Some(0)
            && body.len() == 6
            && body.iter().all(|r| r.get(5).is_some_and(|s| s == "Running")))
        .then_some(rows)
    })
}

#[test]
fn list_pods_through_kubectl_shows_running_pods_of_every_cluster_with_node_and_ip() {
    workloads();
    let env = Env::get();
    let rows = running_web_pods(Server::shared());
    assert_eq!(rows[0], ["CLUSTER", "NAME", "NAMESPACE", "NODE", "POD IP", "STATUS", "CONTAINER", "IMAGE"]);
    for cluster in &env.clusters {
        let mine: Vec<&Vec<String>> = rows.iter().filter(|r| &r[0] == cluster).collect();
        assert_eq!(mine.len(), 2, "{cluster}: {rows:?}");
        for row in mine {
            assert!(row[1].starts_with("web-"), "{row:?}");
            assert_eq!(row[2], NS);
            assert!(row[3].starts_with(cluster.as_str()), "node of {cluster}: {row:?}");
            assert!(row[4].parse::<std::net::Ipv4Addr>().is_ok(), "pod IP: {row:?}");
            assert_eq!(row[5..], ["Running", "web", "nginx:1.27"]);
        }
    }
}

#[test]
fn filters_narrow_the_rows() {
    workloads();
    let server = Server::shared();
    let rows = running_web_pods(server);
    let one_name = rows[3][1].clone();

    let only = |args: &[&str]| -> Vec<Vec<String>> {
        let mut all = vec!["list", "pods", "-n", NS];
        all.extend_from_slice(args);
        server.plugin(&all).ok().rows().into_iter().skip(1).collect()
    };
    let tencent2 = only(&["--clusterName=tencent2"]);
    assert_eq!(tencent2.len(), 2);
    assert!(tencent2.iter().all(|r| r[0] == "tencent2"));
    let by_node = only(&["--field-selector", "spec.nodeName=tencent4-node-0"]);
    assert!(!by_node.is_empty() && by_node.iter().all(|r| r[0] == "tencent4"), "{by_node:?}");
    let by_name = only(&["--name", &one_name]);
    assert_eq!(by_name.len(), 1);
    assert_eq!(by_name[0][1], one_name);
    assert_eq!(only(&["--limit", "1"]).len(), 1);
    assert!(only(&["-l", "app=nothing-like-this"]).is_empty());
    assert_eq!(only(&["-l", "app in (web, api)", "--field-selector", "status.phase=Running"]).len(), 6);
}

#[test]
fn json_output_parses_into_a_list_whose_items_name_their_cluster() {
    workloads();
    let server = Server::shared();
    running_web_pods(server);
    let run = server.plugin(&["list", "v1/pods", "-n", NS, "-l", "app=web", "-o", "json"]).ok();
    let list: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(list["kind"], "List");
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 6);
    let mut clusters: Vec<&str> = items
        .iter()
        .map(|i| i["metadata"]["annotations"]["mulitcluster.practice.com/cluster"].as_str().unwrap())
        .collect();
    clusters.dedup();
    assert_eq!(clusters, Env::get().clusters);
    let yaml = server.plugin(&["list", "pods", "-n", NS, "-o", "yaml"]).ok();
    let parsed: Value = serde_saphyr::from_str(&yaml.stdout).unwrap();
    assert_eq!(parsed["items"].as_array().unwrap().len(), items.len());
}

#[test]
fn every_form_of_a_resource_type_lists_the_same_objects() {
    workloads();
    let server = Server::shared();
    running_web_pods(server);
    let names = |gvr: &str| server.plugin(&["list", gvr, "-n", NS, "-o", "name"]).ok().stdout;
    let pods = names("v1/pods");
    assert_eq!(pods.lines().count(), 6, "{pods}");
    for form in ["core/v1/pods", "v1.pods", "core.v1.pods", "pods", "pod", "po", "Pod"] {
        assert_eq!(names(form), pods, "{form}");
    }
    let deployments = names("apps/v1/deployments");
    assert_eq!(deployments.lines().count(), 3, "{deployments}");
    assert!(deployments.lines().all(|l| l.ends_with("/deployment.apps/web")), "{deployments}");
    for form in [
        "v1/apps/deployments",
        "apps.v1.deployments",
        "deployments",
        "deploy",
        "Deployment",
        "deployments.apps",
    ] {
        assert_eq!(names(form), deployments, "{form}");
    }
}

#[test]
fn deployments_show_total_available_ready_per_cluster() {
    workloads();
    let server = Server::shared();
    let rows = eventually("3 ready deployments", Duration::from_secs(60), || {
        let rows = server.plugin(&["list", "deployments", "-n", NS]).rows();
        (rows.len() == 4 && rows[1..].iter().all(|r| r[3..] == ["2", "2", "2"])).then_some(rows)
    });
    assert_eq!(rows[0], ["CLUSTER", "NAME", "NAMESPACE", "TOTAL", "AVAILABLE", "READY"]);
}

#[test]
fn other_kinds_print_their_own_tables() {
    workloads();
    let server = Server::shared();
    let header =
        |args: &[&str]| split_row(server.plugin(args).ok().stdout.lines().next().unwrap_or_default());
    assert_eq!(
        header(&["list", "configmaps", "-n", "kube-system"]),
        ["CLUSTER", "NAME", "NAMESPACE", "DATA"]
    );
    assert_eq!(header(&["list", "nodes"]), ["CLUSTER", "NAME", "STATUS", "ROLES", "AGE", "VERSION"]);
    assert_eq!(header(&["list", "ns"]), ["CLUSTER", "NAME", "STATUS", "AGE"]);
    assert_eq!(
        header(&["list", "svc", "-A"]),
        ["CLUSTER", "NAME", "NAMESPACE", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"]
    );
    assert_eq!(header(&["list", "replicasets", "-n", NS])[3..], ["DESIRED", "CURRENT", "READY", "AGE"]);
    assert_eq!(
        header(&["list", "leases", "-n", "kube-system"]),
        ["CLUSTER", "NAME", "NAMESPACE", "HOLDER", "AGE"]
    );
    assert_eq!(header(&["list", "clusterroles"]), ["CLUSTER", "NAME", "CREATED AT"]);
    // -o wide: kubectl's columns.
    assert_eq!(
        header(&["list", "pods", "-A", "-o", "wide"])[3..],
        ["READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"]
    );
    // A custom resource: the CRD's printer columns.
    let crd = header(&["list", "multiclusters"]);
    assert_eq!(crd[..2], ["CLUSTER", "NAME"], "{crd:?}");
}

#[test]
fn list_clusters_shows_every_cluster_ready_with_version_and_master() {
    let env = Env::get();
    let server = Server::shared();
    let rows = eventually("every cluster Ready", Duration::from_secs(60), || {
        let rows = server.plugin(&["list", "clusters"]).rows();
        (rows.len() == env.clusters.len() + 1 && rows[1..].iter().all(|r| r[5] == "Synced")).then_some(rows)
    });
    assert_eq!(rows[0], ["NAME", "VERSION", "HOST", "PLATFORM", "ISMASTER", "STATUS"]);
    for (row, cluster) in rows[1..].iter().zip(&env.clusters) {
        assert_eq!(&row[0], cluster);
        assert!(row[1].starts_with("v1."), "{row:?}");
        assert!(row[2].starts_with("https://127.0.0.1:"), "{row:?}");
        assert_eq!(row[4], if cluster == env.master() { "true" } else { "false" });
    }
}

#[test]
fn describe_prints_the_object_as_yaml_once_per_cluster() {
    workloads();
    let env = Env::get();
    let server = Server::shared();
    let run = eventually("the deployment in every cluster", Duration::from_secs(60), || {
        let run = server.plugin(&["describe", "apps/v1/deployments", "--name=web", "--namespace", NS]);
        (run.code == Some(0) && run.stdout.matches("# cluster: ").count() == 3).then_some(run)
    });
    // Each deployment's Events from the store, as YAML comments after it.
    let described = eventually("each deployment's events", Duration::from_secs(60), || {
        let run = server.plugin(&["describe", "apps/v1/deployments", "--name=web", "--namespace", NS]);
        (run.stdout.matches("# Events:\n").count() == 3
            && run.stdout.matches("ScalingReplicaSet").count() >= 3)
            .then_some(run)
    });
    assert!(described.stdout.contains("deployment-controller"), "{}", described.stdout);
    let headers: Vec<&str> = run.stdout.lines().filter(|l| l.starts_with("# cluster: ")).collect();
    let expected: Vec<String> = env.clusters.iter().map(|c| format!("# cluster: {c}")).collect();
    assert_eq!(headers, expected);
    let docs: Vec<Value> = serde_saphyr::from_multiple(&run.stdout).unwrap();
    assert_eq!(docs.len(), 3);
    for doc in docs {
        assert_eq!(doc["kind"], "Deployment");
        assert_eq!(doc["metadata"]["name"], "web");
        assert!(doc["metadata"].get("managedFields").is_none(), "managedFields are stripped");
    }
    let one = server.plugin(&["describe", "deploy", "web", "-n", NS, "--clusterName", "tencent2"]).ok();
    assert!(
        one.stdout.starts_with("# cluster: tencent2\napiVersion: apps/v1\nkind: Deployment\n"),
        "{}",
        one.stdout
    );
}
