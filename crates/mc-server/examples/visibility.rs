//! Benchmark helper: how long a change in a cluster takes to become visible through mc-server.
//!
//! Patches ConfigMaps at a steady total rate spread over the clusters given, and reads
//! mc-server's watch stream (`/v1/list?…&watch=true`) at the same time. mc-server announces a
//! change after the store transaction that wrote it commits, so from that moment `/v1/list`
//! answers it. A change's latency is from the API server's answer to the patch until mc-server
//! announces it (negative when mc-server was faster than the patch's answer: counted as 0).
//! Every 100th change is also polled through `/v1/list?name=…` until it shows there. The
//! baseline is measured in the same run: a watch on each API server itself, timed the same way.
//! `--vs URL` watches a second mc-server (another build, syncing the same clusters) the same way
//! at the same time: both see the same changes on the same busy machine, so their difference is
//! measured change by change, not across runs.
//!
//! `cargo run --release -p mc-server --example visibility -- --server URL [--vs URL] --rate N
//!  --seconds S [--namespace NS] [--latencies FILE] KUBECONFIG...` (the bearer token in
//!  `MC_TOKEN`, for both)
//!
//! Prints one JSON line: rate reached, changes sent, seen, missing, latency p50/p99/max in ms,
//! the API servers' own watch's p50/p99 and this server's latency minus it change by change
//! (`this_minus_apiserver_ms_p50/p99`: what mc-server adds), and the second server's figures,
//! prefixed `vs_` (`vs_minus_apiserver_ms_p50/p99` what it adds), with the median of its
//! latency minus this one's. `--latencies FILE` also writes every change's latency, in ms and
//! sorted, of this server and the second (`{"this": [...], "vs": [...]}`), and each one's
//! latency minus the API server's own watch (`this_added`, `vs_added`): the rounds of a
//! benchmark are pooled from them.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::{Value, json};
use tokio::sync::{Mutex, Semaphore};

/// ConfigMaps each cluster cycles through.
const POOL: u64 = 200;
/// Patches in flight at once.
const IN_FLIGHT: usize = 128;

struct Args {
    server: String,
    vs: Option<String>,
    namespace: String,
    rate: u64,
    seconds: u64,
    kubeconfigs: Vec<String>,
    latencies: Option<String>,
}

fn args() -> anyhow::Result<Args> {
    let mut a = Args {
        server: String::new(),
        vs: None,
        namespace: "visibility".into(),
        rate: 1000,
        seconds: 20,
        kubeconfigs: vec![],
        latencies: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or_else(|| anyhow::anyhow!("{arg} needs a value"));
        match arg.as_str() {
            "--server" => a.server = value()?,
            "--vs" => a.vs = Some(value()?),
            "--namespace" => a.namespace = value()?,
            "--latencies" => a.latencies = Some(value()?),
            "--rate" => a.rate = value()?.parse()?,
            "--seconds" => a.seconds = value()?.parse()?,
            _ if arg.starts_with("--") => anyhow::bail!("unknown option {arg}"),
            _ => a.kubeconfigs.push(arg),
        }
    }
    anyhow::ensure!(
        !a.server.is_empty() && !a.kubeconfigs.is_empty() && a.rate > 0,
        "usage: visibility --server URL [--vs URL] [--rate N] [--seconds S] [--namespace NS] [--latencies FILE] KUBECONFIG..."
    );
    Ok(a)
}

/// When each change (cluster index, `seq` value) was answered by the API server and seen by
/// mc-server.
#[derive(Default)]
struct Log {
    acked: HashMap<(usize, u64), Instant>,
    seen: HashMap<(usize, u64), Instant>,
    /// Seen by the `--vs` server.
    vs: HashMap<(usize, u64), Instant>,
    /// Seen on the API server's own watch (the baseline).
    direct: HashMap<(usize, u64), Instant>,
}

/// The cluster index and number of a `seq` value `C:N`.
fn parse_seq(seq: &str) -> Option<(usize, u64)> {
    let (c, n) = seq.split_once(':')?;
    Some((c.parse().ok()?, n.parse().ok()?))
}

/// Latencies in ms from each acknowledged change to when it was seen, sorted; and how many were
/// seen before their acknowledgement (counted as 0).
fn delays(acked: &HashMap<(usize, u64), Instant>, seen: &HashMap<(usize, u64), Instant>) -> (Vec<f64>, u64) {
    let mut early = 0u64;
    let mut out: Vec<f64> = acked
        .iter()
        .filter_map(|(key, acked)| {
            let seen = seen.get(key)?;
            Some(seen.checked_duration_since(*acked).map_or_else(
                || {
                    early += 1;
                    0.0
                },
                |d| d.as_secs_f64() * 1000.0,
            ))
        })
        .collect();
    out.sort_by(f64::total_cmp);
    (out, early)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let a = args()?;
    let token = std::env::var("MC_TOKEN").unwrap_or_default();
    let mut apis = Vec::new();
    let mut names = Vec::new();
    for (c, path) in a.kubeconfigs.iter().enumerate() {
        let config =
            kube::Config::from_custom_kubeconfig(Kubeconfig::read_from(path)?, &KubeConfigOptions::default())
                .await?;
        names.push(config.cluster_url.to_string());
        let client = kube::Client::try_from(config)?;
        let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": a.namespace}}))?;
        let _ = Api::<Namespace>::all(client.clone()).create(&PostParams::default(), &ns).await;
        let api = Api::<ConfigMap>::namespaced(client, &a.namespace);
        for i in 0..POOL {
            let cm: ConfigMap = serde_json::from_value(json!({
                "metadata": {"name": format!("vis-{i:03}"), "labels": {"bench": "visibility"}},
                "data": {"seq": format!("{c}:0")}
            }))?;
            let _ = api.create(&PostParams::default(), &cm).await;
        }
        apis.push(api);
    }
    let http = reqwest::Client::new();
    let log = Arc::new(Mutex::new(Log::default()));

    // The baseline: each API server's own watch of the namespace. A watch that ends or fails
    // is started again from the last version it told (a baseline that lost a cluster half-way
    // timed only the others' changes).
    let restarts = Arc::new(AtomicU64::new(0));
    let mut direct_watchers = Vec::new();
    for api in &apis {
        let listed = api.list_metadata(&ListParams::default().limit(1)).await?.metadata.resource_version;
        let (api, log, restarts) = (api.clone(), log.clone(), restarts.clone());
        direct_watchers.push(tokio::spawn(async move {
            let mut version = listed.unwrap_or_default();
            loop {
                if version.is_empty()
                    && let Ok(list) = api.list_metadata(&ListParams::default().limit(1)).await
                {
                    version = list.metadata.resource_version.unwrap_or_default();
                }
                if let Ok(events) = api.watch(&WatchParams::default(), &version).await {
                    let mut events = events.boxed();
                    while let Some(Ok(event)) = events.next().await {
                        let at = Instant::now();
                        match event {
                            WatchEvent::Modified(cm) => {
                                version = cm.metadata.resource_version.clone().unwrap_or(version);
                                if let Some(key) =
                                    cm.data.as_ref().and_then(|d| d.get("seq")).and_then(|s| parse_seq(s))
                                {
                                    log.lock().await.direct.entry(key).or_insert(at);
                                }
                            }
                            WatchEvent::Added(cm) | WatchEvent::Deleted(cm) => {
                                version = cm.metadata.resource_version.unwrap_or(version);
                            }
                            WatchEvent::Bookmark(b) => version = b.metadata.resource_version,
                            // Expired (410): from the current version on, the changes between are
                            // not timed.
                            WatchEvent::Error(e) => {
                                if e.code == 410 {
                                    version.clear();
                                }
                                break;
                            }
                        }
                    }
                }
                restarts.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }));
    }

    // mc-server's watch (and the other build's): every MODIFIED ConfigMap of the namespace.
    let mut watchers = vec![watch(&http, &a.server, &token, &a.namespace, log.clone(), false).await?];
    if let Some(vs) = &a.vs {
        watchers.push(watch(&http, vs, &token, &a.namespace, log.clone(), true).await?);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;

    let errors = Arc::new(AtomicU64::new(0));
    let polled: Arc<Mutex<Vec<f64>>> = Arc::default();
    let room = Arc::new(Semaphore::new(IN_FLIGHT));
    let mut tick = tokio::time::interval(Duration::from_micros(1_000_000 / a.rate));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let start = Instant::now();
    let end = start + Duration::from_secs(a.seconds);
    let mut tasks = tokio::task::JoinSet::new();
    let mut sent = 0u64;
    while Instant::now() < end {
        tick.tick().await;
        sent += 1;
        let c = (sent % apis.len() as u64) as usize;
        let name = format!("vis-{:03}", (sent / apis.len() as u64) % POOL);
        let (api, log, errors, polled, http, token, server, namespace) = (
            apis[c].clone(),
            log.clone(),
            errors.clone(),
            polled.clone(),
            http.clone(),
            token.clone(),
            a.server.clone(),
            a.namespace.clone(),
        );
        let permit = room.clone().acquire_owned().await?;
        let n = sent;
        tasks.spawn(async move {
            let patch = json!({"data": {"seq": format!("{c}:{n}")}});
            let result = api.patch(&name, &PatchParams::default(), &Patch::Merge(&patch)).await;
            let acked = Instant::now();
            drop(permit);
            if result.is_err() {
                errors.fetch_add(1, Ordering::Relaxed);
                return;
            }
            log.lock().await.acked.insert((c, n), acked);
            if !n.is_multiple_of(100) {
                return;
            }
            // The same change through a plain list, polled.
            let url = format!("{server}/v1/list?gvr=v1/configmaps&namespace={namespace}&name={name}");
            let shows = |o: &Value| {
                o["data"]["seq"].as_str().and_then(parse_seq).is_some_and(|(sc, m)| sc == c && m >= n)
            };
            while acked.elapsed() < Duration::from_secs(10) {
                if let Ok(r) = http.get(&url).bearer_auth(&token).send().await
                    && let Ok(items) = r.json::<Vec<Value>>().await
                    && items.iter().any(shows)
                {
                    polled.lock().await.push(acked.elapsed().as_secs_f64() * 1000.0);
                    return;
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        });
    }
    let elapsed = start.elapsed().as_secs_f64();
    while tasks.join_next().await.is_some() {}
    tokio::time::sleep(Duration::from_secs(3)).await;
    for w in watchers.into_iter().chain(direct_watchers) {
        w.abort();
    }

    let log = log.lock().await;
    let (latencies, early) = delays(&log.acked, &log.seen);
    let (direct, _) = delays(&log.acked, &log.direct);
    let (vs, _) = delays(&log.acked, &log.vs);
    let signed_ms = |from: Instant, to: Instant| match to.checked_duration_since(from) {
        Some(d) => d.as_secs_f64() * 1000.0,
        None => -(from.duration_since(to).as_secs_f64() * 1000.0),
    };
    // The other build's latency minus this one's, change by change (both seen).
    let mut vs_minus: Vec<f64> =
        log.acked.keys().filter_map(|k| Some(signed_ms(*log.seen.get(k)?, *log.vs.get(k)?))).collect();
    vs_minus.sort_by(f64::total_cmp);
    // This server's latency minus the API server's own watch, change by change: what mc-server
    // adds, whatever the machine's load does to both.
    let minus_apiserver = |seen: &HashMap<(usize, u64), Instant>| {
        let mut v: Vec<f64> =
            log.acked.keys().filter_map(|k| Some(signed_ms(*log.direct.get(k)?, *seen.get(k)?))).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let minus_direct = minus_apiserver(&log.seen);
    let mut polled = polled.lock().await.clone();
    polled.sort_by(f64::total_cmp);
    let pick = |v: &[f64], p: f64| -> f64 {
        if v.is_empty() {
            return f64::NAN;
        }
        let i = ((p / 100.0) * (v.len() - 1) as f64).round() as usize;
        (v[i.min(v.len() - 1)] * 10.0).round() / 10.0
    };
    let mut figures = json!({
            "benchmark": "watch",
            "clusters": names.len(),
            "rate_asked": a.rate,
            "rate_reached": (log.acked.len() as f64 / elapsed).round(),
            "changes_sent": sent,
            "changes_acked": log.acked.len(),
            "patch_errors": errors.load(Ordering::Relaxed),
            "changes_seen": latencies.len(),
            "changes_missing": log.acked.len() - latencies.len(),
            "seen_before_ack": early,
            "visible_ms_p50": pick(&latencies, 50.0),
            "visible_ms_p99": pick(&latencies, 99.0),
            "visible_ms_max": pick(&latencies, 100.0),
            "apiserver_watch_ms_p50": pick(&direct, 50.0),
            "apiserver_watch_ms_p99": pick(&direct, 99.0),
            "apiserver_watch_seen": direct.len(),
            "apiserver_watch_restarts": restarts.load(Ordering::Relaxed),
            "this_minus_apiserver_ms_p50": pick(&minus_direct, 50.0),
            "this_minus_apiserver_ms_p99": pick(&minus_direct, 99.0),
            "list_polled": polled.len(),
            "list_visible_ms_p50": pick(&polled, 50.0),
            "list_visible_ms_p99": pick(&polled, 99.0),
    });
    let vs_minus_direct = if a.vs.is_some() { minus_apiserver(&log.vs) } else { Vec::new() };
    if let Some(server) = &a.vs {
        figures["vs_server"] = json!(server);
        figures["vs_changes_missing"] = json!(log.acked.len() - vs.len());
        figures["vs_visible_ms_p50"] = json!(pick(&vs, 50.0));
        figures["vs_visible_ms_p99"] = json!(pick(&vs, 99.0));
        figures["vs_visible_ms_max"] = json!(pick(&vs, 100.0));
        figures["vs_minus_this_ms_p50"] = json!(pick(&vs_minus, 50.0));
        figures["vs_minus_apiserver_ms_p50"] = json!(pick(&vs_minus_direct, 50.0));
        figures["vs_minus_apiserver_ms_p99"] = json!(pick(&vs_minus_direct, 99.0));
    }
    if let Some(path) = &a.latencies {
        let doc =
            json!({"this": latencies, "vs": vs, "this_added": minus_direct, "vs_added": vs_minus_direct});
        std::fs::write(path, doc.to_string())?;
    }
    println!("{figures}");
    Ok(())
}

/// Reads one mc-server's watch stream of the namespace, logging when each change shows (in
/// `Log::vs` for the `--vs` server).
async fn watch(
    http: &reqwest::Client,
    server: &str,
    token: &str,
    namespace: &str,
    log: Arc<Mutex<Log>>,
    vs: bool,
) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    let url = format!("{server}/v1/list?gvr=v1/configmaps&namespace={namespace}&watch=true");
    let response = http.get(&url).bearer_auth(token).send().await?.error_for_status()?;
    Ok(tokio::spawn(async move {
        let mut body = response.bytes_stream();
        let mut buffer: Vec<u8> = Vec::new();
        while let Some(Ok(chunk)) = body.next().await {
            let at = Instant::now();
            buffer.extend_from_slice(&chunk);
            while let Some(end) = buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = buffer.drain(..=end).collect();
                let Ok(event) = serde_json::from_slice::<Value>(&line) else { continue };
                let seq = event["object"]["data"]["seq"].as_str().unwrap_or("");
                let Some((c, n)) = parse_seq(seq) else { continue };
                if n > 0 {
                    let mut log = log.lock().await;
                    let seen = if vs { &mut log.vs } else { &mut log.seen };
                    seen.entry((c, n)).or_insert(at);
                }
            }
        }
    }))
}
