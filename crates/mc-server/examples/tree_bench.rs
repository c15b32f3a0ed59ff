//! Benchmark helper: `tree` in the store alone, without clusters (`scripts/bench.sh tree`).
//! Writes, through the store API in batches of 2,000 as the sync writer does, a Deployment
//! `shop/web` in cluster bench1 with three ReplicaSets (one of them owning 1,000 Pods spread over
//! 100 Nodes, each Pod mounting two ConfigMaps and running as a ServiceAccount), inside N objects
//! in all: the rest are Pods of ~1.3 KB in 3 clusters and 1,000 namespaces, each owned by its
//! namespace's ReplicaSet. The deferred indexes are dropped before the writes and built after,
//! as a server's first sync does. Then times the tree of `deploy/web` (the root read by name,
//! then [`mc_server::relations::tree`]) over several runs. Prints one JSON line of figures.
//!
//! `cargo run --release -p mc-server --example tree_bench -- STORAGE_URL [N in all] [--fill-only | --queries-only]`
//! (`--fill-only`: writes the objects and builds the indexes only, printing the fill's figures;
//! `--queries-only`: the objects are already written; times the trees only).

use std::time::{Duration, Instant};

use mc_server::relations::{self, Types};
use mc_server::store::{Batch, Change, Expect, Store, StoredObject};
use mc_types::{Gvr, ResourceInfo};
use serde_json::{Value, json};

mod common;
use common::round;

const CLUSTERS: [&str; 3] = ["bench1", "bench2", "bench3"];
const NAMESPACES: usize = 1000;
const BATCH: usize = 2000;
const RUNS: usize = 200;
const TREE_PODS: usize = 1000;
const NODES: usize = 100;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, url, rest @ ..] = args.as_slice() else {
        anyhow::bail!("usage: tree_bench STORAGE_URL [N in all] [--fill-only | --queries-only]");
    };
    let n: usize =
        rest.iter().find(|a| !a.starts_with("--")).map(|s| s.parse()).transpose()?.unwrap_or(1_000_000);
    let write = !rest.iter().any(|a| a == "--queries-only");
    let measure = !rest.iter().any(|a| a == "--fill-only");
    let store = Store::connect(url).await?;
    let deferred = if write { store.defer_indexes().await? } else { 0 };
    let pods = Gvr::new("", "v1", "pods");

    // The tree's objects, each type in its own batch.
    let mut busy = Duration::ZERO;
    let mut written = 0usize;
    let tree = if write { tree_objects() } else { Vec::new() };
    for chunk in tree.chunk_by(|a, b| a.0 == b.0) {
        let batch = chunk
            .iter()
            .map(|(gvr, kind, o)| StoredObject::from_json(gvr.clone(), *kind, o.clone()).map(Change::Upsert))
            .collect::<Result<Vec<_>, _>>()?;
        for part in batch.chunks(BATCH) {
            written += part.len();
            let started = Instant::now();
            store.apply(&[Batch::new(CLUSTERS[0], part, Expect::Any)]).await?;
            busy += started.elapsed();
        }
    }
    // The other objects.
    let per_cluster = if write { n.saturating_sub(written).div_ceil(CLUSTERS.len()) } else { 0 };
    for first in (0..per_cluster).step_by(BATCH) {
        for (c, cluster) in CLUSTERS.iter().enumerate() {
            let batch = (first..(first + BATCH).min(per_cluster))
                .map(|i| StoredObject::from_json(pods.clone(), "Pod", filler(c, i)).map(Change::Upsert))
                .collect::<Result<Vec<_>, _>>()?;
            written += batch.len();
            let started = Instant::now();
            store.apply(&[Batch::new(cluster, &batch, Expect::NewRows)]).await?;
            busy += started.elapsed();
        }
    }
    let started = Instant::now();
    let built = store.build_deferred_indexes().await?;
    let index_seconds = started.elapsed().as_secs_f64();
    store.optimize().await?;
    let fill = if write {
        json!({"write_seconds": round(busy.as_secs_f64(), 2), "deferred_indexes": deferred.max(built),
            "index_seconds": round(index_seconds, 2)})
    } else {
        json!({})
    };
    if !measure {
        println!("{fill}");
        store.close().await;
        return Ok(());
    }

    let objects =
        if write { written as u64 } else { store.count_types().await?.iter().map(|t| t.count).sum() };
    let types = Types::new(&catalog());
    let deployments = Gvr::new("apps", "v1", "deployments");
    let mut times = Vec::with_capacity(RUNS);
    let mut nodes = 0;
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|l| l.parse::<f64>().ok()));
    // One run before, not timed: the first read of a cold database.
    for run in 0..=RUNS {
        let started = Instant::now();
        let root = store.objects_named(CLUSTERS[0], &deployments, "shop", &["web".to_string()]).await?;
        let root = root.into_iter().next().ok_or_else(|| anyhow::anyhow!("deploy/web not stored"))?;
        let t = relations::tree(&store, &types, CLUSTERS[0], root, None).await?;
        if run > 0 {
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        anyhow::ensure!(!t.truncated, "the tree was cut");
        nodes = t.root.walk().len();
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| round(times[((times.len() - 1) as f64 * q).round() as usize], 1);
    let mut figures = json!({
        "benchmark": "tree", "backend": format!("{:?}", store.backend()), "objects": objects,
        "runs": RUNS, "tree_nodes": nodes, "load_at_measure": load,
        "tree_ms_min": at(0.0), "tree_ms_p50": at(0.5), "tree_ms_p99": at(0.99), "tree_ms_max": at(1.0),
    });
    if let (Some(out), Some(fill)) = (figures.as_object_mut(), fill.as_object()) {
        out.extend(fill.clone());
    }
    println!("{figures}");
    store.close().await;
    Ok(())
}

fn info(group: &str, resource: &str, kind: &str, namespaced: bool) -> ResourceInfo {
    ResourceInfo {
        group: group.into(),
        version: "v1".into(),
        resource: resource.into(),
        singular: kind.to_ascii_lowercase(),
        kind: kind.into(),
        short_names: Vec::new(),
        namespaced,
        verbs: ["get", "list", "watch"].map(String::from).to_vec(),
        categories: Vec::new(),
    }
}

/// The types a cluster discovers that a tree may name.
fn catalog() -> Vec<ResourceInfo> {
    vec![
        info("", "pods", "Pod", true),
        info("", "nodes", "Node", false),
        info("", "configmaps", "ConfigMap", true),
        info("", "secrets", "Secret", true),
        info("", "serviceaccounts", "ServiceAccount", true),
        info("", "persistentvolumeclaims", "PersistentVolumeClaim", true),
        info("", "persistentvolumes", "PersistentVolume", false),
        info("", "services", "Service", true),
        info("discovery.k8s.io", "endpointslices", "EndpointSlice", true),
        info("apps", "deployments", "Deployment", true),
        info("apps", "replicasets", "ReplicaSet", true),
    ]
}

fn meta(namespace: &str, name: &str, uid: &str, owner: Option<(&str, &str, &str)>) -> Value {
    let mut m = json!({"name": name, "uid": uid, "resourceVersion": "1", "creationTimestamp": "2026-11-23T12:00:00Z"});
    if !namespace.is_empty() {
        m["namespace"] = json!(namespace);
    }
    if let Some((kind, name, uid)) = owner {
        m["ownerReferences"] =
            json!([{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid, "controller": true}]);
    }
    m
}

/// `shop/web` and what is related to it in bench1, by type.
fn tree_objects() -> Vec<(Gvr, &'static str, Value)> {
    let g = |group: &str, resource: &str| Gvr::new(group, "v1", resource);
    let mut out = vec![(
        g("apps", "deployments"),
        "Deployment",
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta("shop", "web", "tree-deploy", None),
            "spec": {"replicas": TREE_PODS}, "status": {"readyReplicas": TREE_PODS}}),
    )];
    for (rs, replicas) in [("web-new", TREE_PODS), ("web-old1", 0), ("web-old2", 0)] {
        out.push((
            g("apps", "replicasets"),
            "ReplicaSet",
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": meta("shop", rs, &format!("tree-{rs}"), Some(("Deployment", "web", "tree-deploy"))),
                "spec": {"replicas": replicas}, "status": {"readyReplicas": replicas}}),
        ));
    }
    for name in ["web-conf", "web-env"] {
        out.push((
            g("", "configmaps"),
            "ConfigMap",
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("shop", name, &format!("tree-{name}"), None),
                "data": {"a": "1"}}),
        ));
    }
    out.push((
        g("", "serviceaccounts"),
        "ServiceAccount",
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta("shop", "web", "tree-sa", None)}),
    ));
    for i in 0..NODES {
        let name = format!("shop-node-{i:03}");
        out.push((
            g("", "nodes"),
            "Node",
            json!({"apiVersion": "v1", "kind": "Node", "metadata": meta("", &name, &format!("tree-{name}"), None),
                "status": {"conditions": [{"type": "Ready", "status": "True"}]}}),
        ));
    }
    for i in 0..TREE_PODS {
        let mut pod = filler(0, i);
        let name = format!("web-new-{i:05}");
        pod["metadata"] =
            meta("shop", &name, &format!("tree-pod-{i}"), Some(("ReplicaSet", "web-new", "tree-web-new")));
        pod["spec"]["nodeName"] = json!(format!("shop-node-{:03}", i % NODES));
        pod["spec"]["serviceAccountName"] = json!("web");
        pod["spec"]["volumes"] = json!([{"name": "conf", "configMap": {"name": "web-conf"}}]);
        pod["spec"]["containers"][0]["envFrom"] = json!([{"configMapRef": {"name": "web-env"}}]);
        out.push((g("", "pods"), "Pod", pod));
    }
    out
}

/// Pod `i` of cluster `c`, shaped as the API server writes one (without managedFields), owned by
/// its namespace's ReplicaSet.
fn filler(c: usize, i: usize) -> Value {
    let k = i % NAMESPACES;
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": format!("app-{i:07}"), "namespace": format!("ns-{k:03}"),
            "uid": format!("{c:02x}{i:06x}-0000-4000-8000-{:012x}", i * 7919),
            "resourceVersion": format!("{}", 1000 + i), "creationTimestamp": "2026-11-23T12:00:00Z",
            "labels": {"app": format!("app-{k:03}"), "pod-template-hash": "7dbf7cc5"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("app-{k:03}-7dbf7cc5"),
                "uid": format!("rs-{c}-{k:03}"), "controller": true, "blockOwnerDeletion": true}],
        },
        "spec": {
            "containers": [{"name": "web", "image": "nginx:1.27", "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                "terminationMessagePath": "/dev/termination-log", "imagePullPolicy": "IfNotPresent"}],
            "nodeName": format!("{}-node-{}", CLUSTERS[c], i % 50), "restartPolicy": "Always",
            "serviceAccountName": "default", "schedulerName": "default-scheduler",
        },
        "status": {
            "phase": "Running",
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
