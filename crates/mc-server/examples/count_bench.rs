//! Benchmark helper: counts in the store alone, without clusters (`scripts/bench.sh count`).
//!
//! Writes N Pod-like objects of ~1.3 KB (3 clusters, 1,000 namespaces, 90 % Running, 5 %
//! Pending, 3 % Succeeded, 2 % Failed) through the store API in batches of 2,000, as a first
//! sync does (indexes deferred, built at the end), into three stores at once, a batch to each
//! in turn so that they share the machine's load:
//!
//! - `indexed`: `status.phase` kept beside each object (`count.indexedFields`, the default);
//! - `plain`: no field kept, as before;
//! - `expression`: no field kept, and the database computes the phase instead: SQLite an
//!   expression index, PostgreSQL a stored generated column and an index on it, made before
//!   the writes (so every write pays for them) with the same key as the kept field's index.
//!
//! Then it times what `kubectl multicluster count pods --by cluster,status.phase` asks of each
//! (the indexed store answers from its index, the plain one reads every object, the expression
//! one is asked by the expression's own text), and `--by cluster,namespace`, in turn. Prints
//! one JSON line of figures.
//!
//! `cargo run --release -p mc-server --example count_bench -- INDEXED_URL PLAIN_URL EXPRESSION_URL [N in all]
//! [--plain-sample M] [--plain-runs K] [--fill-only | --measure-only]`
//!
//! `--plain-sample M`: the plain store holds only M pods (its count reads every object, so its
//! time grows with their number) and its figures are scaled to N, labelled `extrapolated`.
//! `--plain-runs K`: K timed counts of the plain store (default 3). `--fill-only`: write the
//! stores, build their indexes and print the fill's figures only; `--measure-only`: time the
//! counts of stores filled so (the fill may share the machine; the timing need not).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use mc_server::store::{Backend, Batch, Change, Expect, GroupKey, IndexedFields, Query, Store, StoredObject};
use mc_types::Gvr;
use mc_types::count::FieldPath;
use serde_json::json;

mod common;
use common::round;

const CLUSTERS: [&str; 3] = ["bench1", "bench2", "bench3"];
const NAMESPACES: usize = 1000;
const BATCH: usize = 2000;
/// Timed runs of the fast counts, and of the counts that read every object.
const RUNS: usize = 20;
const SLOW_RUNS: usize = 3;

/// What the command line asks.
struct Args {
    urls: [String; 3],
    n: usize,
    plain_sample: Option<usize>,
    plain_runs: usize,
    fill: bool,
    measure: bool,
}

const USAGE: &str = "usage: count_bench INDEXED_URL PLAIN_URL EXPRESSION_URL [N in all] [--plain-sample M] \
     [--plain-runs K] [--fill-only | --measure-only]";

fn args() -> anyhow::Result<Args> {
    let mut urls = Vec::new();
    let mut n = None;
    let (mut plain_sample, mut plain_runs, mut fill, mut measure) = (None, SLOW_RUNS, true, true);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or_else(|| anyhow::anyhow!("{a} wants a value; {USAGE}"));
        match a.as_str() {
            "--plain-sample" => plain_sample = Some(value()?.parse()?),
            "--plain-runs" => plain_runs = value()?.parse()?,
            "--fill-only" => measure = false,
            "--measure-only" => fill = false,
            _ if a.starts_with("--") => anyhow::bail!("unknown option {a}; {USAGE}"),
            _ if urls.len() < 3 => urls.push(a),
            _ if n.is_none() => n = Some(a.parse()?),
            _ => anyhow::bail!("{USAGE}"),
        }
    }
    let urls: [String; 3] = urls.try_into().map_err(|_| anyhow::anyhow!("{USAGE}"))?;
    anyhow::ensure!(plain_runs >= 1, "--plain-runs must be at least 1");
    anyhow::ensure!(fill || measure, "--fill-only and --measure-only exclude each other");
    Ok(Args { urls, n: n.unwrap_or(1_000_000), plain_sample, plain_runs, fill, measure })
}

/// The expression store's statements, by backend: what it adds before the writes, and its count.
const SQLITE_EXPRESSION: &str = "CREATE INDEX ix_phase ON resources (\"group\", version, resource, \
     cluster, (object ->> '$.status.phase'), namespace)";
const SQLITE_EXPRESSION_COUNT: &str = "SELECT cluster, object ->> '$.status.phase', COUNT(*) FROM resources \
     WHERE \"group\" = '' AND version = 'v1' AND resource = 'pods' GROUP BY cluster, object ->> '$.status.phase'";
const POSTGRES_EXPRESSION: [&str; 2] = [
    "ALTER TABLE resources ADD COLUMN phase TEXT GENERATED ALWAYS AS \
     (CASE WHEN \"group\" = '' AND resource = 'pods' THEN CAST(object AS json) #>> '{status,phase}' END) STORED",
    "CREATE INDEX ix_phase ON resources (\"group\", version, resource, cluster, phase, namespace)",
];
const POSTGRES_EXPRESSION_COUNT: &str = "SELECT cluster, phase, COUNT(*) FROM resources \
     WHERE \"group\" = '' AND version = 'v1' AND resource = 'pods' GROUP BY cluster, phase";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = args()?;
    let n = args.n;
    let [indexed_url, plain_url, expression_url] = &args.urls;
    let stores = [
        Store::connect(indexed_url).await?,
        Store::connect(plain_url).await?,
        Store::connect(expression_url).await?,
    ];
    let backend = stores[0].backend();
    let expression = Raw::connect(expression_url).await?;
    let gvr = Gvr::new("", "v1", "pods");
    let per_cluster = n.div_ceil(CLUSTERS.len());
    let plain_per_cluster =
        args.plain_sample.map_or(per_cluster, |m| m.div_ceil(CLUSTERS.len()).min(per_cluster));
    let fill = if args.fill {
        fill_stores(&stores, &expression, backend, &gvr, per_cluster, plain_per_cluster).await?
    } else {
        json!({})
    };
    if !args.measure {
        println!("{fill}");
        for store in &stores {
            store.close().await;
        }
        return Ok(());
    }

    let phase = FieldPath::parse("status.phase")?;
    let query = Query { gvr: Some(gvr.clone()), ..Query::default() };
    let by_phase = [GroupKey::Cluster, GroupKey::Field(phase)];
    let by_namespace = [GroupKey::Cluster, GroupKey::Namespace];
    // Warm: one untimed run of each.
    let (groups, counted) = stores[0]
        .count_by(&query, &by_phase)
        .await
        .map(|c| (c.len(), c.iter().map(|c| c.count).sum::<u64>()))?;
    let plain_counts = stores[1].count_by(&query, &by_phase).await?;
    if plain_per_cluster == per_cluster {
        anyhow::ensure!(
            stores[0].count_by(&query, &by_phase).await? == plain_counts,
            "the indexed and the plain store count differently"
        );
    }
    let plain_counted: u64 = plain_counts.iter().map(|c| c.count).sum();
    expression.count(backend).await?;
    let mut times: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for run in 0..RUNS {
        let t = |started: Instant| started.elapsed().as_secs_f64() * 1000.0;
        let started = Instant::now();
        stores[0].count_by(&query, &by_phase).await?;
        times.entry("indexed").or_default().push(t(started));
        let started = Instant::now();
        expression.count(backend).await?;
        times.entry("expression").or_default().push(t(started));
        let started = Instant::now();
        stores[0].count_by(&query, &by_namespace).await?;
        times.entry("namespace").or_default().push(t(started));
        if run < args.plain_runs {
            let started = Instant::now();
            stores[1].count_by(&query, &by_phase).await?;
            times.entry("plain").or_default().push(t(started));
        }
    }
    for v in times.values_mut() {
        v.sort_by(f64::total_cmp);
    }
    let at = |k: &str, q: f64| {
        let v = &times[k];
        round(v[((v.len() - 1) as f64 * q).round() as usize], 1)
    };
    let mut figures = json!({
        "benchmark": "count", "backend": format!("{backend:?}"), "objects": counted, "runs": RUNS,
        "load_at_measure": load(),
        "counted": counted, "count_phase_groups": groups,
        "count_phase_ms_min": at("indexed", 0.0), "count_phase_ms_p50": at("indexed", 0.5),
        "count_phase_ms_p99": at("indexed", 0.99), "count_phase_ms_max": at("indexed", 1.0),
        "count_namespace_groups": 3000usize.min(NAMESPACES * CLUSTERS.len()),
        "count_namespace_ms_p50": at("namespace", 0.5), "count_namespace_ms_max": at("namespace", 1.0),
        "expression_count_phase_ms_p50": at("expression", 0.5), "expression_count_phase_ms_p99": at("expression", 0.99),
        "plain_runs": args.plain_runs,
    });
    if plain_counted == counted {
        figures["plain_count_phase_ms_p50"] = json!(at("plain", 0.5));
        figures["plain_count_phase_ms_max"] = json!(at("plain", 1.0));
    } else {
        // Every object read: the time of the sample, scaled to the whole.
        let scale = counted as f64 / plain_counted.max(1) as f64;
        figures["plain_sample_pods"] = json!(plain_counted);
        figures["plain_sample_count_phase_ms_p50"] = json!(at("plain", 0.5));
        figures["plain_count_phase_ms_p50_extrapolated"] = json!(round(at("plain", 0.5) * scale, 0));
    }
    if let (Some(out), Some(fill)) = (figures.as_object_mut(), fill.as_object()) {
        for (k, v) in fill {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    println!("{figures}");
    for store in &stores {
        store.close().await;
    }
    Ok(())
}

/// The load average over the last minute, as `uptime` shows it.
fn load() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|l| l.parse().ok()))
        .unwrap_or(-1.0)
}

/// A first sync of the three stores: the deferrable indexes dropped, the objects written (the
/// plain store's first `plain_per_cluster` of each cluster), the indexes built. Returns the
/// fill's figures.
async fn fill_stores(
    stores: &[Store; 3],
    expression: &Raw,
    backend: Backend,
    gvr: &Gvr,
    per_cluster: usize,
    plain_per_cluster: usize,
) -> anyhow::Result<serde_json::Value> {
    expression.add_expression(backend).await?;
    let fields = IndexedFields::new(&BTreeMap::from([("pods".to_string(), "status.phase".to_string())]))?;
    for store in stores {
        store.defer_indexes().await?;
    }
    let mut busy = [Duration::ZERO; 3];
    let mut written = [0usize; 3];
    let mut extract = Duration::ZERO;
    for first in (0..per_cluster).step_by(BATCH) {
        for (c, cluster) in CLUSTERS.iter().enumerate() {
            let plain = (first..(first + BATCH).min(per_cluster))
                .map(|i| StoredObject::from_json(gvr.clone(), "Pod", pod(c, i)))
                .collect::<Result<Vec<_>, _>>()?;
            // What the cluster's task adds: the phase read from the pod's `status` as sent.
            let started = Instant::now();
            let indexed: Vec<Change> = plain
                .iter()
                .map(|o| {
                    let status = serde_json::value::to_raw_value(&o.object.value()["status"])
                        .map(|raw| vec![("status".to_string(), raw)]);
                    let value = status.ok().and_then(|f| fields.value_in_fields(gvr, &f)).map(Box::new);
                    Change::Upsert(StoredObject { indexed: value, ..o.clone() })
                })
                .collect();
            extract += started.elapsed();
            let sample = plain_per_cluster.saturating_sub(first).min(plain.len());
            let plain: Vec<Change> = plain.into_iter().map(Change::Upsert).collect();
            for (s, store) in stores.iter().enumerate() {
                let batch = match s {
                    0 => &indexed[..],
                    1 => &plain[..sample],
                    _ => &plain[..],
                };
                if batch.is_empty() {
                    continue;
                }
                written[s] += batch.len();
                let started = Instant::now();
                store.apply(&[Batch::new(cluster, batch, Expect::NewRows)]).await?;
                busy[s] += started.elapsed();
            }
        }
    }
    let mut build = [Duration::ZERO; 3];
    for (s, store) in stores.iter().enumerate() {
        let started = Instant::now();
        store.build_deferred_indexes().await?;
        store.optimize().await?;
        build[s] = started.elapsed();
    }
    expression.analyze(backend).await?;
    let secs = |d: Duration| round(d.as_secs_f64(), 2);
    let rate = |s: usize| round(written[s] as f64 / (busy[s] + build[s]).as_secs_f64(), 0);
    Ok(json!({
        "write_seconds": secs(busy[0]), "index_build_seconds": secs(build[0]),
        "plain_write_seconds": secs(busy[1]), "plain_index_build_seconds": secs(build[1]),
        "expression_write_seconds": secs(busy[2]), "expression_index_build_seconds": secs(build[2]),
        "first_sync_objects_per_s": rate(0), "plain_first_sync_objects_per_s": rate(1),
        "expression_first_sync_objects_per_s": rate(2),
        "extract_ns_per_object": round(extract.as_secs_f64() * 1e9 / written[0] as f64, 0),
        "load_at_fill_end": load(),
    }))
}

/// The expression store's own connection, for the statements the store API does not make.
enum Raw {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

impl Raw {
    async fn connect(url: &str) -> anyhow::Result<Raw> {
        Ok(if url.starts_with("sqlite:") {
            Raw::Sqlite(sqlx::SqlitePool::connect(url).await?)
        } else {
            Raw::Postgres(sqlx::PgPool::connect(url).await?)
        })
    }

    async fn add_expression(&self, backend: Backend) -> anyhow::Result<()> {
        match (self, backend) {
            (Raw::Sqlite(p), Backend::Sqlite) => {
                sqlx::query(SQLITE_EXPRESSION).execute(p).await?;
            }
            (Raw::Postgres(p), Backend::Postgres) => {
                for sql in POSTGRES_EXPRESSION {
                    sqlx::query(sql).execute(p).await?;
                }
            }
            _ => anyhow::bail!("the three stores must be of one backend, SQLite or PostgreSQL"),
        }
        Ok(())
    }

    async fn analyze(&self, _: Backend) -> anyhow::Result<()> {
        match self {
            Raw::Sqlite(p) => {
                sqlx::query("ANALYZE").execute(p).await?;
            }
            Raw::Postgres(p) => {
                sqlx::query("ANALYZE resources").execute(p).await?;
            }
        }
        Ok(())
    }

    async fn count(&self, _: Backend) -> anyhow::Result<usize> {
        Ok(match self {
            Raw::Sqlite(p) => sqlx::query(SQLITE_EXPRESSION_COUNT).fetch_all(p).await?.len(),
            Raw::Postgres(p) => sqlx::query(POSTGRES_EXPRESSION_COUNT).fetch_all(p).await?.len(),
        })
    }
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
