//! Benchmark helper for free-text search (`scripts/bench.sh search`), without clusters:
//! - a first sync of N Pod-like objects (~1.5 KB; 3 clusters, 1,000 namespaces) written through
//!   `Store::apply` in batches of 2,000 as new rows, into two fresh stores: one without the
//!   search index (`URL_OFF`), one keeping it (`URL_ON`), batch after batch in turn, so both
//!   see the same load; each object's hash and search text are computed before the clock runs,
//!   as the sync computes them on the cluster's task. Objects/s of each, and on/off;
//! - then searches of the `URL_ON` store, each asked RUNS times (one untimed first): an image
//!   tag, a name prefix, an annotation value, a rare term (one name), a common term (every
//!   object's image) and the common term within one namespace: p50 and p99 in ms, and the hits.
//!
//! The store with the index defers it for the first sync, as mc-server does for an empty store,
//! and builds it after (timed apart); `--inline` keeps it row by row during the sync instead.
//!
//! The two parts can run apart, so that only the searches are timed on a quiet machine:
//! `--fill-only` writes and builds, then stops; `--search-only` times the searches of the
//! stores as they are (filled by an earlier `--fill-only` of the same N).
//!
//! `cargo run --release -p mc-server --example search_bench -- URL_OFF URL_ON [N in all] [--inline]
//! [--fill-only | --search-only]`

use std::time::{Duration, Instant};

use mc_server::store::search::SearchQuery;
use mc_server::store::{Batch, Change, Expect, Store, StoredObject};
use mc_types::Gvr;
use serde_json::{Value, json};

mod common;
use common::round;

const CLUSTERS: [&str; 3] = ["bench1", "bench2", "bench3"];
const NAMESPACES: usize = 1000;
const BATCH: usize = 2000;
const RUNS: usize = 100;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, url_off, url_on, rest @ ..] = args.as_slice() else {
        anyhow::bail!("usage: search_bench URL_OFF URL_ON [N in all]");
    };
    let n: usize =
        rest.iter().find(|a| !a.starts_with("--")).map(|s| s.parse()).transpose()?.unwrap_or(1_000_000);
    let off = Store::connect(url_off).await?;
    let on = Store::connect(url_on).await?.keep_search_index();
    // As mc-server does for an empty store: rows are written after the first sync.
    let inline = rest.iter().any(|a| a == "--inline");
    let fill = !rest.iter().any(|a| a == "--search-only");
    let search = !rest.iter().any(|a| a == "--fill-only");
    let mut figures = serde_json::Map::new();
    figures.insert("benchmark".into(), json!("search"));
    figures.insert("backend".into(), json!(format!("{:?}", on.backend())));
    figures.insert("runs".into(), json!(RUNS));
    let per_cluster = n.div_ceil(CLUSTERS.len());
    if fill {
        fill_stores(&off, &on, n, inline, &mut figures).await?;
    } else {
        figures.insert("objects".into(), json!(per_cluster * CLUSTERS.len()));
    }
    if search {
        time_searches(&on, per_cluster, &mut figures).await?;
    }
    println!("{}", Value::Object(figures));
    off.close().await;
    on.close().await;
    Ok(())
}

/// Writes N pods into both stores, builds the index of `on`, and refreshes the planners'
/// statistics.
async fn fill_stores(
    off: &Store,
    on: &Store,
    n: usize,
    inline: bool,
    figures: &mut serde_json::Map<String, Value>,
) -> anyhow::Result<()> {
    let deferred = !inline && on.defer_search_index().await?;
    let gvr = Gvr::new("", "v1", "pods");

    let (mut busy_off, mut busy_on) = (Duration::ZERO, Duration::ZERO);
    let per_cluster = n.div_ceil(CLUSTERS.len());
    let mut written = 0usize;
    for first in (0..per_cluster).step_by(BATCH) {
        for (c, cluster) in CLUSTERS.iter().enumerate() {
            let batch = (first..(first + BATCH).min(per_cluster))
                .map(|i| {
                    let o = StoredObject::from_json(gvr.clone(), "Pod", pod(c, i))?;
                    o.object.hash();
                    o.object.search_body();
                    Ok(Change::Upsert(o))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            written += batch.len();
            // In turn, the first of the two alternating, so neither always goes first.
            let stores =
                if (first / BATCH + c).is_multiple_of(2) { [(off, 0), (on, 1)] } else { [(on, 1), (off, 0)] };
            for (store, which) in stores {
                let started = Instant::now();
                store.apply(&[Batch::new(cluster, &batch, Expect::NewRows)]).await?;
                let took = started.elapsed();
                if which == 0 { busy_off += took } else { busy_on += took }
            }
        }
    }
    // The index built after the first sync (nothing to do with `--inline`).
    let build_started = Instant::now();
    let built = on.complete_search_index().await?;
    let build = build_started.elapsed();
    off.optimize().await?;
    on.optimize().await?;
    let rate = |busy: Duration| round(written as f64 / busy.as_secs_f64(), 0);
    figures.insert("objects".into(), json!(written));
    figures.insert("write_seconds_off".into(), json!(round(busy_off.as_secs_f64(), 2)));
    figures.insert("write_seconds_on".into(), json!(round(busy_on.as_secs_f64(), 2)));
    figures.insert("write_objects_per_s_off".into(), json!(rate(busy_off)));
    figures.insert("write_objects_per_s_on".into(), json!(rate(busy_on)));
    figures.insert("index_deferred".into(), json!(deferred));
    figures.insert("index_build_seconds".into(), json!(round(build.as_secs_f64(), 2)));
    figures.insert("index_rows_built".into(), json!(built));
    figures.insert("write_on_vs_off".into(), json!(round(busy_off.as_secs_f64() / busy_on.as_secs_f64(), 3)));
    Ok(())
}

/// Times each search of the bench RUNS times, after one untimed run: p50, p99 and hits.
async fn time_searches(
    on: &Store,
    per_cluster: usize,
    figures: &mut serde_json::Map<String, Value>,
) -> anyhow::Result<()> {
    // The last two: a text every object holds outside its name (its image), alone and within one
    // namespace (a thousandth of the objects): the index proposes every object.
    let queries = [
        ("image_tag", "app-042:1.7.2".to_string(), None),
        ("name_prefix", "web-00012".to_string(), None),
        ("annotation_value", "oncall-777@".to_string(), None),
        ("rare", format!("web-{:07}", per_cluster / 2), None),
        ("common", "registry.local".to_string(), None),
        ("common_in_namespace", "registry.local".to_string(), Some("ns-042".to_string())),
    ];
    let mut worst_p99 = 0.0_f64;
    for (name, text, namespace) in queries {
        let q = SearchQuery { text, namespace, limit: 100, ..Default::default() };
        let first = on.search(&q).await?;
        let mut times = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let started = Instant::now();
            on.search(&q).await?;
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(f64::total_cmp);
        let at = |p: f64| round(times[((times.len() - 1) as f64 * p).round() as usize], 1);
        worst_p99 = worst_p99.max(at(0.99));
        figures.insert(format!("search_{name}_ms_p50"), json!(at(0.5)));
        figures.insert(format!("search_{name}_ms_p99"), json!(at(0.99)));
        figures.insert(format!("search_{name}_hits"), json!(first.hits.len()));
    }
    figures.insert("search_ms_p99_worst".into(), json!(worst_p99));
    Ok(())
}

/// Pod `i` of cluster `c`, shaped as the API server writes one (without managedFields): an
/// image of its namespace's app, tagged by `i`, and a contact annotation per namespace.
fn pod(c: usize, i: usize) -> Value {
    let k = i % NAMESPACES;
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": format!("web-{i:07}"), "namespace": format!("ns-{k:03}"),
            "uid": format!("{c:02x}{i:06x}-0000-4000-8000-{:012x}", i * 7919),
            "resourceVersion": format!("{}", 1000 + i), "creationTimestamp": "2026-11-23T12:00:00Z",
            "labels": {"app": format!("app-{k:03}"), "pod-template-hash": "7dbf7cc5"},
            "annotations": {"team.example.com/contact": format!("oncall-{k:03}@example.com")},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("web-{k:03}-7dbf7cc5"),
                "uid": "00000000-0000-4000-8000-000000000000", "controller": true, "blockOwnerDeletion": true}],
        },
        "spec": {
            "containers": [{"name": "web", "image": format!("registry.local/app-{k:03}:1.{}.{c}", (i / NAMESPACES) % 20),
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                "terminationMessagePath": "/dev/termination-log", "imagePullPolicy": "IfNotPresent"}],
            "nodeName": format!("{}-node-{}", CLUSTERS[c], i % 50), "restartPolicy": "Always",
            "serviceAccountName": "default", "schedulerName": "default-scheduler",
        },
        "status": {
            "phase": "Running",
            "conditions": [
                {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-23T12:00:05Z"},
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-23T12:00:00Z"},
            ],
            "hostIP": "10.0.0.1", "podIP": format!("10.{}.{}.{}", c, (i / 250) % 250, i % 250),
            "startTime": "2026-11-23T12:00:00Z",
        },
    })
}
