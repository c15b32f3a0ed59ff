//! Benchmark helper: time from creating MultiClusterResources to Applied in every cluster, and
//! drift-restore latency. Prints one JSON line.
//!
//! `cargo run --release -p mc-server --example dispatch_bench -- MASTER_KUBECONFIG MEMBER_KUBECONFIG... [--count N]`

use std::collections::HashMap;
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, ResourceExt};
use mc_types::crd::{MultiClusterResource, Phase};
use serde_json::json;

const NS: &str = "mc-bench";

async fn client(path: &str) -> anyhow::Result<Client> {
    let config =
        kube::Config::from_custom_kubeconfig(Kubeconfig::read_from(path)?, &KubeConfigOptions::default())
            .await?;
    Ok(Client::try_from(config)?)
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let idx = ((p / 100.0) * (v.len() as f64 - 1.0)).round() as usize;
    v[idx.min(v.len() - 1)]
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut count = 100usize;
    if let Some(i) = args.iter().position(|a| a == "--count") {
        count = args.get(i + 1).map(|c| c.parse()).transpose()?.unwrap_or(100);
        args.drain(i..=i + 1);
    }
    let [master_path, members @ ..] = args.as_slice() else {
        anyhow::bail!("usage: dispatch_bench MASTER_KUBECONFIG MEMBER_KUBECONFIG... [--count N]");
    };
    let master = client(master_path).await?;
    let mut member_clients = Vec::new();
    let mut names = Vec::new();
    for m in members {
        member_clients.push(client(m).await?);
        let name =
            std::path::Path::new(m).file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        names.push(name);
    }
    for c in std::iter::once(&master).chain(member_clients.iter()) {
        let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": NS}}))?;
        let _ = Api::<Namespace>::all(c.clone()).create(&PostParams::default(), &ns).await;
    }
    let mcrs: Api<MultiClusterResource> = Api::namespaced(master.clone(), NS);
    // Watch statuses before creating anything.
    let mut stream = Box::pin(watcher(mcrs.clone(), watcher::Config::default()).applied_objects());
    let mut created: HashMap<String, Instant> = HashMap::new();
    let mut applied: HashMap<String, f64> = HashMap::new();
    let placement: Vec<_> = names.iter().map(|n| json!({"name": n})).collect();
    for i in 0..count {
        let name = format!("bench-{i:04}");
        let mcr: MultiClusterResource = serde_json::from_value(json!({
            "apiVersion": "mulitcluster.practice.com/v1alpha1", "kind": "MultiClusterResource",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": NS}, "data": {"v": "1"}},
                     "placement": {"clusters": placement}}
        }))?;
        created.insert(name.clone(), Instant::now());
        mcrs.create(&PostParams::default(), &mcr).await?;
        // Observe completions while creating, so latencies are not inflated by the loop.
        while let Ok(Some(Ok(obj))) = tokio::time::timeout(Duration::from_millis(1), stream.next()).await {
            record(&obj, names.len(), &created, &mut applied);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    while applied.len() < count && Instant::now() < deadline {
        if let Ok(Some(Ok(obj))) = tokio::time::timeout(Duration::from_secs(1), stream.next()).await {
            record(&obj, names.len(), &created, &mut applied);
        }
    }
    drop(stream);
    let latencies: Vec<f64> = applied.values().copied().collect();

    // Drift: edit copies by hand and time the restore.
    let mut drift = Vec::new();
    for (i, c) in member_clients.iter().enumerate().take(3) {
        let cms: Api<ConfigMap> = Api::namespaced(c.clone(), NS);
        for j in 0..10 {
            let name = format!("bench-{:04}", (i * 10 + j) % count);
            let mut restored = Box::pin(
                watcher(cms.clone(), watcher::Config::default().fields(&format!("metadata.name={name}")))
                    .applied_objects(),
            );
            let t = Instant::now();
            cms.patch(&name, &PatchParams::default(), &Patch::Merge(json!({"data": {"v": "drifted"}})))
                .await?;
            let until = Instant::now() + Duration::from_secs(10);
            while Instant::now() < until {
                if let Ok(Some(Ok(cm))) = tokio::time::timeout(Duration::from_secs(1), restored.next()).await
                    && cm.data.as_ref().and_then(|d| d.get("v")).map(String::as_str) == Some("1")
                {
                    // The watch starts after the edit, so the first "1" seen is the restore.
                    drift.push(t.elapsed().as_secs_f64() * 1000.0);
                    break;
                }
            }
        }
    }

    // Clean up.
    let _ = mcrs.delete_collection(&DeleteParams::default(), &ListParams::default()).await;
    let out = json!({
        "benchmark": "dispatch",
        "resources": count,
        "clusters": names.len(),
        "applied": latencies.len(),
        "to_applied_ms_p50": percentile(latencies.clone(), 50.0),
        "to_applied_ms_p99": percentile(latencies, 99.0),
        "drift_samples": drift.len(),
        "drift_restore_ms_p50": percentile(drift.clone(), 50.0),
        "drift_restore_ms_p99": percentile(drift, 99.0),
    });
    println!("{out}");
    Ok(())
}

fn record(
    obj: &MultiClusterResource,
    clusters: usize,
    created: &HashMap<String, Instant>,
    applied: &mut HashMap<String, f64>,
) {
    let name = obj.name_any();
    if applied.contains_key(&name) {
        return;
    }
    let Some(status) = &obj.status else { return };
    let done = status.clusters.iter().filter(|c| c.phase == Phase::Applied).count();
    if done == clusters
        && let Some(t) = created.get(&name)
    {
        applied.insert(name, t.elapsed().as_secs_f64() * 1000.0);
    }
}
