//! Benchmark helper: counts in the store alone, without clusters (`scripts/bench.sh count`).
//! Writes N Pod-like objects of ~1.3 KB (3 clusters, 1,000 namespaces, 90 % Running, 5 %
//! Pending, 3 % Succeeded, 2 % Failed) through the store API in batches of 2,000, as the sync
//! writer does; then times what `kubectl multicluster count pods --by cluster,status.phase`
//! asks of the store (a field read from every object, grouped in SQL), and `--by
//! cluster,namespace` (columns only), over several runs. Prints one JSON line of figures.
//!
//! `cargo run --release -p mc-server --example count_bench -- STORAGE_URL [N in all] [--queries-only]`

use std::time::{Duration, Instant};

use mc_server::store::{Batch, Change, Expect, GroupKey, Query, Store, StoredObject};
use mc_types::Gvr;
use mc_types::count::FieldPath;
use serde_json::json;

const CLUSTERS: [&str; 3] = ["bench1", "bench2", "bench3"];
const NAMESPACES: usize = 1000;
const BATCH: usize = 2000;
const RUNS: usize = 5;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, url, rest @ ..] = args.as_slice() else {
        anyhow::bail!("usage: count_bench STORAGE_URL [N in all] [--queries-only]");
    };
    let n: usize =
        rest.iter().find(|a| !a.starts_with("--")).map(|s| s.parse()).transpose()?.unwrap_or(1_000_000);
    let write = !rest.iter().any(|a| a == "--queries-only");
    let store = Store::connect(url).await?;
    let gvr = Gvr::new("", "v1", "pods");

    let mut busy = Duration::ZERO;
    let per_cluster = n.div_ceil(CLUSTERS.len());
    let mut written = 0usize;
    for first in (0..per_cluster).step_by(BATCH).filter(|_| write) {
        for (c, cluster) in CLUSTERS.iter().enumerate() {
            let batch = (first..(first + BATCH).min(per_cluster))
                .map(|i| StoredObject::from_json(gvr.clone(), "Pod", pod(c, i)).map(Change::Upsert))
                .collect::<Result<Vec<_>, _>>()?;
            written += batch.len();
            let started = Instant::now();
            store.apply(&[Batch::new(cluster, &batch, Expect::NewRows)]).await?;
            busy += started.elapsed();
        }
    }
    store.optimize().await?;

    let query = Query { gvr: Some(gvr.clone()), ..Query::default() };
    let by_phase = [GroupKey::Cluster, GroupKey::Field(FieldPath::parse("status.phase")?)];
    let by_namespace = [GroupKey::Cluster, GroupKey::Namespace];
    let (phase_ms, phase_groups, counted) = timed(&store, &query, &by_phase).await?;
    let (namespace_ms, namespace_groups, _) = timed(&store, &query, &by_namespace).await?;
    let at = |v: &[f64], q: f64| round(v[((v.len() - 1) as f64 * q).round() as usize], 1);
    println!(
        "{}",
        json!({
            "benchmark": "count", "backend": format!("{:?}", store.backend()), "objects": written.max(counted as usize),
            "write_seconds": round(busy.as_secs_f64(), 2), "runs": RUNS,
            "counted": counted,
            "count_phase_groups": phase_groups,
            "count_phase_ms_min": at(&phase_ms, 0.0), "count_phase_ms_p50": at(&phase_ms, 0.5),
            "count_phase_ms_max": at(&phase_ms, 1.0),
            "count_namespace_groups": namespace_groups,
            "count_namespace_ms_p50": at(&namespace_ms, 0.5), "count_namespace_ms_max": at(&namespace_ms, 1.0),
        })
    );
    store.close().await;
    Ok(())
}

/// Sorted times of [`RUNS`] counts (one run before, not timed: the first read of a cold
/// database), the number of groups and of objects counted.
async fn timed(store: &Store, query: &Query, by: &[GroupKey]) -> anyhow::Result<(Vec<f64>, usize, u64)> {
    store.count_by(query, by).await?;
    let mut times = Vec::with_capacity(RUNS);
    let mut last = Vec::new();
    for _ in 0..RUNS {
        let started = Instant::now();
        last = store.count_by(query, by).await?;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    Ok((times, last.len(), last.iter().map(|c| c.count).sum()))
}

/// Pod `i` of cluster `c`, shaped as the API server writes one (without managedFields).
fn pod(c: usize, i: usize) -> serde_json::Value {
    let k = i % NAMESPACES;
    let phase = match i % 100 {
        0..90 => "Running",
        90..95 => "Pending",
        95..98 => "Succeeded",
        _ => "Failed",
    };
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": format!("web-{i:07}"), "namespace": format!("ns-{k:03}"),
            "uid": format!("{c:02x}{i:06x}-0000-4000-8000-{:012x}", i * 7919),
            "resourceVersion": format!("{}", 1000 + i), "creationTimestamp": "2026-11-23T12:00:00Z",
            "labels": {"app": format!("app-{k:03}"), "pod-template-hash": "7dbf7cc5"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("web-{k:03}-7dbf7cc5"),
                "uid": "00000000-0000-4000-8000-000000000000", "controller": true, "blockOwnerDeletion": true}],
        },
        "spec": {
            "containers": [{"name": "web", "image": "nginx:1.27", "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                "terminationMessagePath": "/dev/termination-log", "imagePullPolicy": "IfNotPresent"}],
            "nodeName": format!("{}-node-{}", CLUSTERS[c], i % 50), "restartPolicy": "Always",
            "serviceAccountName": "default", "schedulerName": "default-scheduler",
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
        },
        "status": {
            "phase": phase,
            "conditions": [
                {"type": "Initialized", "status": "True", "lastTransitionTime": "2026-11-23T12:00:00Z"},
                {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-23T12:00:05Z"},
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-23T12:00:00Z"},
            ],
            "hostIP": "10.0.0.1", "podIP": format!("10.{}.{}.{}", c, (i / 250) % 250, i % 250),
            "startTime": "2026-11-23T12:00:00Z",
            "containerStatuses": [{"name": "web", "ready": true, "restartCount": 0, "image": "nginx:1.27",
                "state": {"running": {"startedAt": "2026-11-23T12:00:04Z"}}}],
        },
    })
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}
