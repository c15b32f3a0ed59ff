//! `count` through kubectl against real clusters: what mc-server counts equals what each
//! cluster's own `kubectl get` lists.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::harness::{Env, NS, Server, eventually, split_row, workloads};

/// `(cluster, value) → pods` from each cluster's `kubectl get pods -A`: `value` is what `cell`
/// takes from a row of `kubectl get pods -A --no-headers` (NAMESPACE NAME READY STATUS …).
fn kubectl_counts(env: &Env, cell: impl Fn(&[String]) -> String) -> BTreeMap<(String, String), u64> {
    let mut counts = BTreeMap::new();
    for cluster in &env.clusters {
        for line in env.kubectl(cluster, &["get", "pods", "-A", "--no-headers"]).lines() {
            *counts.entry((cluster.clone(), cell(&split_row(line)))).or_default() += 1;
        }
    }
    counts
}

/// The same from `kubectl get pods -A -o json`, by `status.phase`.
fn kubectl_phases(env: &Env) -> BTreeMap<(String, String), u64> {
    let mut counts = BTreeMap::new();
    for cluster in &env.clusters {
        let list: Value =
            serde_json::from_str(&env.kubectl(cluster, &["get", "pods", "-A", "-o", "json"])).unwrap();
        for pod in list["items"].as_array().unwrap() {
            let phase = pod["status"]["phase"].as_str().unwrap_or("<none>").to_string();
            *counts.entry((cluster.clone(), phase)).or_default() += 1;
        }
    }
    counts
}

/// `(cluster, value) → count` of a `count … --by cluster,KEY` table (header checked).
fn plugin_counts(server: &Server, key: &str, header: &str) -> Option<BTreeMap<(String, String), u64>> {
    let by = format!("cluster,{key}");
    let run = server.plugin(&["count", "pods", "-A", "--by", &by]);
    let rows = run.rows();
    if run.code != Some(0)
        || rows.first().map(Vec::as_slice)
            != Some(&["CLUSTER".to_string(), header.into(), "COUNT".into()][..])
    {
        return None;
    }
    rows.iter().skip(1).map(|r| Some(((r[0].clone(), r[1].clone()), r[2].parse().ok()?))).collect()
}

/// Waits until the plugin's count equals the clusters' own, read before and after it (pods
/// still starting change between two reads).
fn agree(server: &Server, key: &str, header: &str, kubectl: impl Fn() -> BTreeMap<(String, String), u64>) {
    let env = Env::get();
    let counts = eventually(
        &format!("count pods --by cluster,{key} equals kubectl's"),
        Duration::from_secs(90),
        || {
            let before = kubectl();
            let counted = plugin_counts(server, key, header)?;
            (counted == before && kubectl() == before).then_some(counted)
        },
    );
    // Not an empty agreement: every cluster has its web pods, Running.
    for cluster in &env.clusters {
        let running = counts.get(&(cluster.clone(), "Running".to_string())).copied().unwrap_or(0);
        assert!(running >= 2, "{cluster}: {counts:?}");
    }
}

#[test]
fn count_pods_by_cluster_and_phase_equals_each_clusters_kubectl_get_pods() {
    workloads();
    let env = Env::get();
    agree(Server::shared(), "status.phase", "PHASE", || kubectl_phases(env));
}

#[test]
fn count_pods_by_the_status_column_equals_kubectls_status_column() {
    workloads();
    let env = Env::get();
    agree(Server::shared(), "status", "STATUS", || kubectl_counts(env, |row| row[3].clone()));
}

#[test]
fn count_narrows_as_a_list_does_and_prints_json() {
    workloads();
    let server = Server::shared();
    let env = Env::get();
    let answer: Value = eventually("6 Running web pods counted", Duration::from_secs(90), || {
        let run = server.plugin(&[
            "count",
            "pods",
            "-n",
            NS,
            "-l",
            "app=web",
            "--by",
            "status.phase",
            "-o",
            "json",
        ]);
        let answer: Value = serde_json::from_str(&run.stdout).ok()?;
        (answer["total"] == 6).then_some(answer)
    });
    assert_eq!(answer["by"], serde_json::json!(["status.phase"]));
    assert_eq!(answer["items"], serde_json::json!([{"values": ["Running"], "count": 6}]));
    // Two clusters asked apart and added up; the other one left out.
    let (a, b) = (&env.clusters[0], &env.clusters[1]);
    let run = server
        .plugin(&["count", "pods", "-n", NS, "-l", "app=web", "-c", &format!("{a},{b}"), "--by", "namespace"])
        .ok();
    assert_eq!(run.rows(), [vec!["NAMESPACE".to_string(), "COUNT".into()], vec![NS.to_string(), "4".into()]]);
    // A bad key: one line, no panic, a failure code.
    let run = server.plugin(&["count", "pods", "--by", "spec.containers[*].image"]);
    assert_ne!(run.code, Some(0));
    assert!(run.stderr.contains("only an index"), "{run:?}");
}

#[test]
fn metrics_count_each_clusters_pods_as_kubectl_lists_them() {
    workloads();
    let env = Env::get();
    let server = Server::shared();
    let series = |cluster: &str| format!("mc_objects{{cluster=\"{cluster}\",group=\"\",resource=\"pods\"}} ");
    // Counted every 30 s: wait for counts that equal each cluster's own, read before and after.
    eventually("mc_objects of pods equals kubectl get pods -A", Duration::from_secs(120), || {
        let before: Vec<usize> = env
            .clusters
            .iter()
            .map(|c| env.kubectl(c, &["get", "pods", "-A", "--no-headers"]).lines().count())
            .collect();
        let (code, text) = crate::harness::https_get(&server.ca, server.port, "/metrics")?;
        let counted: Vec<usize> = env
            .clusters
            .iter()
            .map(|c| text.lines().find_map(|l| l.strip_prefix(&series(c))).and_then(|n| n.parse().ok()))
            .collect::<Option<_>>()?;
        let after: Vec<usize> = env
            .clusters
            .iter()
            .map(|c| env.kubectl(c, &["get", "pods", "-A", "--no-headers"]).lines().count())
            .collect();
        (code == 200 && counted == before && before == after && before.iter().all(|&n| n >= 2)).then_some(())
    });
}
