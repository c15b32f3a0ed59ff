//! Benchmark helper for the history store (`scripts/bench.sh history`), without clusters:
//! - a first sync of N ConfigMap-like objects (~1 KB, namespaces of 10,000 objects, at least
//!   10, of one cluster) written
//!   through `Store::apply` in batches of 2,000 as new rows (the objects made before the clock
//!   runs), with history off (`URL_OFF`), on with the objects compressed before they reach the
//!   writer, as the sync does (`URL_ON`), and on with the writer compressing them
//!   (`URL_ON_WRITER`): objects/s each, and the ratios to off;
//! - watch batches of 10 modifications, off and on (compressed before): changes/s each;
//!   where the backend stages revisions (SQLite), the time counted includes moving them into
//!   the history: after each first-sync batch, and every 25 watch batches;
//! - the history store filled to about R revisions (every object modified again, a round at a
//!   time), then 1,000 more modifications spread over the namespaces (watch batches of 10);
//!   then: one object's history, and `state_at` of one namespace at two times, p50/p99: in the
//!   middle of the history (every object changed since) and just before those last 1,000
//!   (1% changed since); and a prune that removes every superseded revision, in steps of
//!   5,000: revisions removed, steps, mean and longest write transaction.
//!
//! `cargo run --release -p mc-server --example history_bench -- URL_OFF URL_ON URL_ON_WRITER [N] [R]`
//!
//! For a store too large to fill while measuring (10M revisions), the two halves run apart:
//! `history_bench fill URL N R FILLED` (first sync with history on, the rounds and the recent
//! modifications; the times the reads need go to the file FILLED) and then, as often as
//! needed, `history_bench measure URL FILLED` (the reads alone, nothing written).

use std::time::{Duration, Instant};

use mc_server::store::{Batch, Change, Expect, HistoryRules, Listed, PruneRules, Query, Store, StoredObject};
use mc_types::Gvr;
use serde_json::json;

const CLUSTER: &str = "bench1";
/// Objects per namespace (a namespace is what one `list --at` of the benchmark reads).
const PER_NAMESPACE: usize = 10_000;
const BATCH: usize = 2000;

fn namespaces(n: usize) -> usize {
    (n / PER_NAMESPACE).max(10)
}

fn object(gvr: &Gvr, i: usize, version: usize, n: usize) -> StoredObject {
    let body = json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": format!("cm-{i:07}"), "namespace": format!("ns-{}", i % namespaces(n)),
            "uid": format!("{:08x}-0000-4000-8000-{:012x}", i, i * 7919), "resourceVersion": format!("{}", 1000 + version),
            "creationTimestamp": "2026-11-20T10:00:00Z",
            "labels": {"app": format!("app-{}", i % 50), "tier": "backend"}},
        "data": {"config.yaml": format!("replicas: {}\nname: cm-{i}\nversion: {version}\n{}", i % 7, "padding: value\n".repeat(50))},
    });
    let mut o = StoredObject::from_json(gvr.clone(), "ConfigMap", body).unwrap_or_else(|e| panic!("{e}"));
    o.created = version == 0;
    o
}

/// Writes every object once at `version`, as a first list (`Expect::NewRows`) or a relist;
/// the objects are made (and, when `compressed`, compressed as the sync does) before the clock
/// runs. Objects/s.
async fn round(
    store: &Store,
    gvr: &Gvr,
    n: usize,
    version: usize,
    expect: Expect,
    compressed: bool,
) -> anyhow::Result<f64> {
    let listed = Listed(vec![(gvr.clone(), None)]);
    let mut busy = Duration::ZERO;
    for first in (0..n).step_by(BATCH) {
        let batch: Vec<Change> = (first..(first + BATCH).min(n))
            .map(|i| {
                let o = object(gvr, i, version, n);
                if compressed {
                    o.object.compressed();
                }
                Change::Upsert(o)
            })
            .collect();
        let started = Instant::now();
        store.apply(&[Batch::new(CLUSTER, &batch, expect).listed(&listed)]).await?;
        // The move of staged revisions (SQLite) is the writes' work too.
        store.settle_history().await?;
        busy += started.elapsed();
    }
    Ok(n as f64 / busy.as_secs_f64())
}

/// `batches` watch batches of 10 modifications (compressed before the clock runs): changes/s.
async fn watch(store: &Store, gvr: &Gvr, n: usize, batches: usize, version: usize) -> anyhow::Result<f64> {
    let mut busy = Duration::ZERO;
    for b in 0..batches {
        let batch: Vec<Change> = (0..10)
            .map(|k| {
                let o = object(gvr, (b * 10 + k) % n, version, n);
                o.object.compressed();
                Change::Upsert(o)
            })
            .collect();
        let started = Instant::now();
        store.apply(&[Batch::new(CLUSTER, &batch, Expect::Any)]).await?;
        // Staged revisions (SQLite) moved about as often as the server does under 1,000
        // changes/s: every 250 changes.
        if b % SETTLE_BATCHES == SETTLE_BATCHES - 1 || b + 1 == batches {
            store.settle_history().await?;
        }
        busy += started.elapsed();
    }
    Ok((batches * 10) as f64 / busy.as_secs_f64())
}

/// Watch batches between two moves of staged revisions.
const SETTLE_BATCHES: usize = 25;

/// Modifications after the recent time of `state_at`.
const RECENT: usize = 1000;

/// [`RECENT`] modifications spread over every namespace, in watch batches of 10.
async fn recent(store: &Store, gvr: &Gvr, n: usize, version: usize) -> anyhow::Result<()> {
    let stride = n / RECENT + 1;
    for b in 0..RECENT / 10 {
        let batch: Vec<Change> = (0..10)
            .map(|k| {
                let o = object(gvr, ((b * 10 + k) * stride) % n, version, n);
                o.object.compressed();
                Change::Upsert(o)
            })
            .collect();
        store.apply(&[Batch::new(CLUSTER, &batch, Expect::Any)]).await?;
    }
    Ok(())
}

fn percentiles(mut ms: Vec<f64>) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    let at = |p: f64| ms[((ms.len() as f64 * p).ceil() as usize).clamp(1, ms.len()) - 1];
    ((at(0.5) * 100.0).round() / 100.0, (at(0.99) * 100.0).round() / 100.0)
}

/// Times of a filled store that the reads need: its objects, just before the [`RECENT`]
/// modifications, and the middle of the history.
#[derive(serde::Serialize, serde::Deserialize)]
struct Filled {
    objects: usize,
    recent_ms: i64,
    mid_ms: i64,
}

/// Fills `on` to about `r` revisions (whole rounds of modifications after the first sync at
/// `version` 0), then the [`RECENT`] modifications: the rounds' mean objects/s, and the times.
async fn fill(on: &Store, gvr: &Gvr, n: usize, r: usize) -> anyhow::Result<(Vec<f64>, Filled)> {
    let mut version = 2;
    let mut modify_rates = Vec::new();
    loop {
        let revisions: u64 = on.history_stats().await?.iter().map(|s| s.revisions).sum();
        if revisions as usize >= r {
            break;
        }
        modify_rates.push(round(on, gvr, n, version, Expect::Any, true).await?);
        version += 1;
    }
    on.optimize().await?;
    let before_recent = on.newest_revision_ms(CLUSTER).await?.unwrap_or(0);
    tokio::time::sleep(Duration::from_millis(2)).await;
    let recent_ms = mc_server::store::now_ms();
    tokio::time::sleep(Duration::from_millis(2)).await;
    recent(on, gvr, n, version).await?;
    let stats = on.history_stats().await?;
    let oldest = stats.iter().filter_map(|s| s.oldest_ms).min().unwrap_or(0);
    Ok((modify_rates, Filled { objects: n, recent_ms, mid_ms: oldest + (before_recent - oldest) / 2 }))
}

/// The reads of a filled store: one object's history (200 objects), and `state_at` of 20
/// namespaces in the middle of the history and at the recent time, p50/p99 each.
async fn reads(on: &Store, gvr: &Gvr, filled: &Filled) -> anyhow::Result<serde_json::Value> {
    let n = filled.objects;
    let stats = on.history_stats().await?;
    let revisions: u64 = stats.iter().map(|s| s.revisions).sum();
    let bytes: u64 = stats.iter().map(|s| s.bytes).sum();
    let mut one = Vec::new();
    for k in 0..200 {
        let i = (k * 7919) % n;
        let q = Query {
            gvr: Some(gvr.clone()),
            cluster: Some(CLUSTER.into()),
            namespace: Some(format!("ns-{}", i % namespaces(n))),
            name: Some(format!("cm-{i:07}")),
            ..Query::default()
        };
        let started = Instant::now();
        let h = on.history(&q, true, 1000).await?;
        one.push(started.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(h.len() >= 2, "object {i} has {} revisions", h.len());
    }
    let mut state = Vec::new();
    let mut state_recent = Vec::new();
    let mut state_objects = 0;
    for k in 0..20 {
        let q = Query {
            gvr: Some(gvr.clone()),
            cluster: Some(CLUSTER.into()),
            namespace: Some(format!("ns-{}", k % namespaces(n))),
            ..Query::default()
        };
        for (at, times) in [(filled.mid_ms, &mut state), (filled.recent_ms, &mut state_recent)] {
            let started = Instant::now();
            state_objects = on.state_at(&q, at).await?.len();
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let (one_p50, one_p99) = percentiles(one);
    let (state_p50, state_p99) = percentiles(state);
    let (recent_p50, recent_p99) = percentiles(state_recent);
    Ok(json!({
        "revisions": revisions, "revision_bytes_mib": round1(bytes as f64 / 1048576.0),
        "bytes_per_revision": round1(bytes as f64 / revisions.max(1) as f64),
        "one_object_history_ms_p50": one_p50, "one_object_history_ms_p99": one_p99,
        "state_at_objects": state_objects, "state_at_ms_p50": state_p50, "state_at_ms_p99": state_p99,
        "state_at_recent_ms_p50": recent_p50, "state_at_recent_ms_p99": recent_p99, "state_at_recent_changed": RECENT,
    }))
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Adds `more`'s fields to the object `into`.
fn merge(into: &mut serde_json::Value, more: serde_json::Value) {
    if let (Some(into), serde_json::Value::Object(more)) = (into.as_object_mut(), more) {
        into.extend(more);
    }
}

/// `fill URL N R FILLED`: a first sync of N objects with history on, modified to about R
/// revisions and the recent modifications; what the reads need goes to the file FILLED.
async fn fill_only(url: &str, n: usize, r: usize, filled_path: &str) -> anyhow::Result<()> {
    let gvr = Gvr::new("", "v1", "configmaps");
    let on = Store::connect(url).await?.record_history(HistoryRules::default());
    let first_on = round(&on, &gvr, n, 0, Expect::NewRows, true).await?;
    let (modify_rates, filled) = fill(&on, &gvr, n, r).await?;
    std::fs::write(filled_path, serde_json::to_vec(&filled)?)?;
    let revisions: u64 = on.history_stats().await?.iter().map(|s| s.revisions).sum();
    println!(
        "{}",
        json!({
            "benchmark": "history_fill", "backend": on.backend().to_string(), "objects": n,
            "first_sync_objects_per_second_on": round1(first_on),
            "modify_rounds": modify_rates.len(),
            "modify_objects_per_second_on": round1(modify_rates.iter().sum::<f64>() / modify_rates.len().max(1) as f64),
            "revisions": revisions,
        })
    );
    on.close().await;
    Ok(())
}

/// `measure URL FILLED`: the reads of a store that `fill` filled (nothing written).
async fn measure_only(url: &str, filled_path: &str) -> anyhow::Result<()> {
    let gvr = Gvr::new("", "v1", "configmaps");
    let filled: Filled = serde_json::from_slice(&std::fs::read(filled_path)?)?;
    let on = Store::connect(url).await?;
    let mut out =
        json!({"benchmark": "history_reads", "backend": on.backend().to_string(), "objects": filled.objects});
    merge(&mut out, reads(&on, &gvr, &filled).await?);
    println!("{out}");
    on.close().await;
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("fill") => {
            let [_, _, url, n, r, filled] = args.as_slice() else {
                anyhow::bail!("usage: history_bench fill URL N R FILLED");
            };
            return fill_only(url, n.parse()?, r.parse()?, filled).await;
        }
        Some("measure") => {
            let [_, _, url, filled] = args.as_slice() else {
                anyhow::bail!("usage: history_bench measure URL FILLED");
            };
            return measure_only(url, filled).await;
        }
        _ => {}
    }
    let [_, url_off, url_on, url_on_writer, rest @ ..] = args.as_slice() else {
        anyhow::bail!("usage: history_bench URL_OFF URL_ON URL_ON_WRITER [N objects] [R revisions]");
    };
    let n: usize = rest.first().map(|s| s.parse()).transpose()?.unwrap_or(100_000);
    let r: usize = rest.get(1).map(|s| s.parse()).transpose()?.unwrap_or(1_000_000);
    let gvr = Gvr::new("", "v1", "configmaps");
    let off = Store::connect(url_off).await?;
    let on = Store::connect(url_on).await?.record_history(HistoryRules::default());
    let backend = off.backend().to_string();

    let first_off = round(&off, &gvr, n, 0, Expect::NewRows, false).await?;
    let first_on = round(&on, &gvr, n, 0, Expect::NewRows, true).await?;
    let on_writer = Store::connect(url_on_writer).await?.record_history(HistoryRules::default());
    let first_on_writer = round(&on_writer, &gvr, n, 0, Expect::NewRows, false).await?;
    on_writer.close().await;
    let watch_off = watch(&off, &gvr, n, 1000, 1).await?;
    let watch_on = watch(&on, &gvr, n, 1000, 1).await?;
    off.close().await;

    let (modify_rates, filled) = fill(&on, &gvr, n, r).await?;
    let read_figures = reads(&on, &gvr, &filled).await?;

    // Prune every superseded revision.
    let rules = PruneRules { max_age_ms: 1, events_max_age_ms: 1, ..PruneRules::default() };
    tokio::time::sleep(Duration::from_millis(5)).await;
    let started = Instant::now();
    let pruned = on.prune_history(&rules, None).await?;
    let prune_seconds = started.elapsed().as_secs_f64();

    let mut out = json!({
        "benchmark": "history", "backend": backend, "objects": n,
        "first_sync_objects_per_second_off": round1(first_off),
        "first_sync_objects_per_second_on": round1(first_on),
        "first_sync_on_off_ratio": (first_on / first_off * 100.0).round() / 100.0,
        "first_sync_objects_per_second_on_writer_compresses": round1(first_on_writer),
        "first_sync_on_writer_compresses_off_ratio": (first_on_writer / first_off * 100.0).round() / 100.0,
        "watch_changes_per_second_off": round1(watch_off),
        "watch_changes_per_second_on": round1(watch_on),
        "watch_on_off_ratio": (watch_on / watch_off * 100.0).round() / 100.0,
        "modify_rounds": modify_rates.len(),
        "modify_objects_per_second_on": round1(modify_rates.iter().sum::<f64>() / modify_rates.len().max(1) as f64),
    });
    merge(&mut out, read_figures);
    merge(
        &mut out,
        json!({
            "pruned_revisions": pruned.revisions, "prune_steps": pruned.steps, "prune_seconds": round1(prune_seconds),
            "prune_step_ms_mean": (prune_seconds * 1000.0 / pruned.steps.max(1) as f64 * 10.0).round() / 10.0,
            "prune_longest_write_ms": round1(pruned.longest_write_ms),
        }),
    );
    println!("{out}");
    on.close().await;
    Ok(())
}
