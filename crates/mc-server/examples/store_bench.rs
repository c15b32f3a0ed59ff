//! Benchmark helper: the store alone, without clusters (`scripts/bench.sh store`). Writes N
//! ConfigMap-like objects of ~1 KB (real shapes: labels, random uids, owner-less) over 3
//! clusters and 1,000 namespaces through the store API in batches of 2,000, as the sync writer
//! does; then times the queries the API serves. Prints one JSON line of figures:
//! - writes: objects/s, RSS after writing, database size;
//! - `namespace+label` and `namespace` across every cluster (~N/1000 hits each), by-name get,
//!   first page of 500: p50/p99 of many runs;
//! - the full list read page by page (1,000 rows, as a streamed answer): time and RSS peak.
//!
//! `cargo run --release -p mc-server --example store_bench -- STORAGE_URL [N in all] [--queries-only]`
//! (`--queries-only`: the objects are already there, from an earlier run with the same N)

use std::time::{Duration, Instant};

use mc_server::store::{Batch, Change, Cursor, Expect, Query, Store, StoredObject};
use mc_types::Gvr;
use mc_types::selector::LabelSelector;
use serde_json::json;

mod common;
use common::round;

const CLUSTERS: [&str; 3] = ["bench1", "bench2", "bench3"];
const NAMESPACES: usize = 1000;
const BATCH: usize = 2000;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, url, rest @ ..] = args.as_slice() else {
        anyhow::bail!("usage: store_bench STORAGE_URL [N in all]");
    };
    let n: usize = rest.first().map(|s| s.parse()).transpose()?.unwrap_or(1_000_000);
    let write = !rest.iter().any(|a| a == "--queries-only");
    let store = Store::connect(url).await?;
    let gvr = Gvr::new("", "v1", "configmaps");
    let idle_rss = rss_kib();

    // --- Writes ---------------------------------------------------------------------------
    let mut busy = Duration::ZERO;
    let per_cluster = n.div_ceil(CLUSTERS.len());
    let mut written = 0usize;
    for first in (0..per_cluster).step_by(BATCH).filter(|_| write) {
        for (c, cluster) in CLUSTERS.iter().enumerate() {
            let batch = (first..(first + BATCH).min(per_cluster))
                .map(|i| StoredObject::from_json(gvr.clone(), "ConfigMap", object(c, i)).map(Change::Upsert))
                .collect::<Result<Vec<_>, _>>()?;
            written += batch.len();
            let started = Instant::now();
            // As a first sync writes its lists' pages: objects not stored yet.
            store.apply(&[Batch::new(cluster, &batch, Expect::NewRows)]).await?;
            busy += started.elapsed();
        }
    }
    let write_rss = rss_kib();
    store.optimize().await?;

    // --- Queries --------------------------------------------------------------------------
    let ns = |k: usize| format!("ns-{:03}", k % NAMESPACES);
    let runs = 200;
    let ns_label = timed(runs, |k| {
        let q = Query {
            gvr: Some(gvr.clone()),
            namespace: Some(ns(k)),
            labels: Some(LabelSelector::parse(&format!("app=app-{:03}", k % NAMESPACES)).unwrap_or_default()),
            ..Query::default()
        };
        let store = store.clone();
        async move { store.query(&q).await.map(|p| p.items.len()) }
    })
    .await?;
    let ns_only = timed(runs, |k| {
        let q = Query { gvr: Some(gvr.clone()), namespace: Some(ns(k + 7)), ..Query::default() };
        let store = store.clone();
        async move { store.query(&q).await.map(|p| p.items.len()) }
    })
    .await?;
    let by_name = timed(runs * 5, |k| {
        // Object i lives in namespace i % 1000 of every cluster.
        let i = (k * 7919) % per_cluster;
        let q = Query {
            gvr: Some(gvr.clone()),
            cluster: Some(CLUSTERS[k % CLUSTERS.len()].into()),
            namespace: Some(ns(i)),
            name: Some(format!("cm-{i:07}")),
            ..Query::default()
        };
        let store = store.clone();
        async move { store.query(&q).await.map(|p| p.items.len()) }
    })
    .await?;
    let first_page = timed(runs, |_| {
        let q = Query { gvr: Some(gvr.clone()), limit: Some(500), ..Query::default() };
        let store = store.clone();
        async move { store.query(&q).await.map(|p| p.items.len()) }
    })
    .await?;

    // --- The full list, a page at a time ---------------------------------------------------
    let before_list = rss_kib();
    let mut peak = before_list;
    let started = Instant::now();
    let mut listed = 0usize;
    let mut after: Option<Cursor> = None;
    loop {
        let q = Query {
            gvr: Some(gvr.clone()),
            limit: Some(1000),
            continue_after: after.take(),
            ..Query::default()
        };
        let page = store.query(&q).await?;
        listed += page.items.len();
        // What a streamed answer writes: the text, then the page is dropped.
        let bytes: usize = page.items.iter().map(|(_, o)| o.text().len()).sum();
        std::hint::black_box(bytes);
        peak = peak.max(rss_kib());
        match page.next {
            Some(c) => after = Some(c),
            None => break,
        }
    }
    let list_seconds = started.elapsed().as_secs_f64();

    let seconds = busy.as_secs_f64();
    println!(
        "{}",
        json!({
            "benchmark": "store", "backend": format!("{:?}", store.backend()), "objects": written,
            "write_seconds": round(seconds, 2),
            "objects_per_second": if write { (written as f64 / seconds).round() } else { 0.0 },
            "idle_rss_mib": round(idle_rss as f64 / 1024.0, 1),
            "rss_after_writes_mib": round(write_rss as f64 / 1024.0, 1),
            "database_mib": database_mib(&store, url).await,
            "namespace_label_hits": ns_label.hits, "namespace_label_ms_p50": ns_label.p50, "namespace_label_ms_p99": ns_label.p99,
            "namespace_hits": ns_only.hits, "namespace_ms_p50": ns_only.p50, "namespace_ms_p99": ns_only.p99,
            "get_by_name_ms_p50": by_name.p50, "get_by_name_ms_p99": by_name.p99,
            "first_page_500_ms_p50": first_page.p50, "first_page_500_ms_p99": first_page.p99,
            "full_list_objects": listed, "full_list_seconds": round(list_seconds, 2),
            "full_list_rss_above_start_mib": round((peak.saturating_sub(before_list)) as f64 / 1024.0, 1),
        })
    );
    store.close().await;
    Ok(())
}

/// Object `i` of cluster `c`: namespace `i % 1000`, labels that select it with its namespace.
fn object(c: usize, i: usize) -> serde_json::Value {
    let k = i % NAMESPACES;
    let tier = ["web", "db", "cache"][i % 3];
    json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {
            "name": format!("cm-{i:07}"), "namespace": format!("ns-{k:03}"),
            "uid": uid(c, i),
            "resourceVersion": format!("{}", 1000 + i),
            "creationTimestamp": "2026-11-23T12:00:00Z",
            "labels": {"app": format!("app-{k:03}"), "tier": tier, "release": format!("r{}", i % 10)},
            "annotations": {"owner": "team-a"},
        },
        "data": {"config.yaml": "x".repeat(800), "index": i.to_string()},
    })
}

/// Latencies of one query shape.
struct Timed {
    hits: usize,
    p50: f64,
    p99: f64,
}

async fn timed<F, Fut>(runs: usize, mut query: F) -> anyhow::Result<Timed>
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = mc_server::store::Result<usize>>,
{
    let mut times = Vec::with_capacity(runs);
    let mut hits = 0;
    for k in 0..runs {
        let started = Instant::now();
        hits = query(k).await?;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| round(times[((times.len() - 1) as f64 * q).round() as usize], 2);
    Ok(Timed { hits, p50: at(0.5), p99: at(0.99) })
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).map(str::to_owned))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

/// The database's size on disk: the SQLite files, or what the server reports.
async fn database_mib(store: &Store, url: &str) -> f64 {
    let bytes: u64 = match store.backend() {
        mc_server::store::Backend::Sqlite => {
            let path = url.trim_start_matches("sqlite://").split('?').next().unwrap_or_default();
            ["", "-wal", "-shm"]
                .iter()
                .filter_map(|s| std::fs::metadata(format!("{path}{s}")).ok())
                .map(|m| m.len())
                .sum()
        }
        _ => store.database_bytes().await.ok().flatten().unwrap_or(0),
    };
    round(bytes as f64 / 1048576.0, 1)
}

/// A uid as scattered as the API server's random ones (index inserts land all over the tree).
fn uid(c: usize, i: usize) -> String {
    let mut x = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ((c as u64 + 1) << 56);
    x ^= x >> 31;
    let y = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        x >> 32,
        (x >> 16) & 0xffff,
        x & 0xfff,
        y & 0xfff,
        y >> 16
    )
}
