//! Chaos helper: creates, updates and deletes ConfigMaps at a steady rate across clusters, with
//! poison objects among them (a NUL in a value, a 100-character owner uid, a 900 KiB value, a
//! deeply nested JSON string). Errors (a cluster that is down) are counted, not fatal.
//!
//! `cargo run -p mc-server --example churn -- --namespace NS --rate OPS_PER_S --seconds S
//!  [--poison] [--seed N] KUBECONFIG...`
//!
//! Prints one JSON line at the end: `{"ops": …, "errors": …, "poison": …}`.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::json;
use tokio::sync::Mutex;

/// Names each cluster cycles through.
const POOL: u64 = 150;

struct Args {
    namespace: String,
    rate: u64,
    seconds: u64,
    poison: bool,
    seed: u64,
    kubeconfigs: Vec<String>,
}

fn args() -> anyhow::Result<Args> {
    let mut a = Args {
        namespace: "churn".into(),
        rate: 50,
        seconds: 20,
        poison: false,
        seed: 1,
        kubeconfigs: vec![],
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or_else(|| anyhow::anyhow!("{arg} needs a value"));
        match arg.as_str() {
            "--namespace" => a.namespace = value()?,
            "--rate" => a.rate = value()?.parse()?,
            "--seconds" => a.seconds = value()?.parse()?,
            "--seed" => a.seed = value()?.parse()?,
            "--poison" => a.poison = true,
            _ if arg.starts_with("--") => anyhow::bail!("unknown option {arg}"),
            _ => a.kubeconfigs.push(arg),
        }
    }
    anyhow::ensure!(
        !a.kubeconfigs.is_empty() && a.rate > 0,
        "usage: churn [--namespace NS] [--rate N] [--seconds S] [--poison] KUBECONFIG..."
    );
    Ok(a)
}

/// xorshift64*: deterministic, dependency-free.
fn next(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

fn body(name: &str, generation: u64, poison: Option<u64>) -> ConfigMap {
    let mut cm = json!({
        "metadata": {"name": name, "labels": {"chaos": "churn"}},
        "data": {"generation": generation.to_string()}
    });
    match poison {
        Some(0) => cm["data"]["nul"] = json!("before\u{0}after"),
        Some(1) => {
            cm["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "absent-owner", "uid": "o".repeat(100)}])
        }
        Some(2) => cm["data"]["big"] = json!("x".repeat(900 * 1024)),
        Some(_) => cm["data"]["deep"] = json!(format!("{}{}", "[".repeat(2000), "]".repeat(2000))),
        None => {}
    }
    serde_json::from_value(cm).unwrap_or_default()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let a = args()?;
    let mut apis = Vec::new();
    for path in &a.kubeconfigs {
        let config =
            kube::Config::from_custom_kubeconfig(Kubeconfig::read_from(path)?, &KubeConfigOptions::default())
                .await?;
        let client = kube::Client::try_from(config)?;
        let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": a.namespace}}))?;
        let _ = Api::<Namespace>::all(client.clone()).create(&PostParams::default(), &ns).await;
        apis.push(Api::<ConfigMap>::namespaced(client, &a.namespace));
    }
    let present: Arc<Vec<Mutex<BTreeSet<u64>>>> =
        Arc::new(apis.iter().map(|_| Mutex::new(BTreeSet::new())).collect());
    let (ops, errors, poisoned) =
        (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let mut rng = a.seed.max(1);
    let mut tick = tokio::time::interval(Duration::from_micros(1_000_000 / a.rate));
    let end = Instant::now() + Duration::from_secs(a.seconds);
    let mut tasks = tokio::task::JoinSet::new();
    let mut n = 0u64;
    while Instant::now() < end {
        tick.tick().await;
        n += 1;
        let c = (next(&mut rng) % apis.len() as u64) as usize;
        let i = next(&mut rng) % POOL;
        let roll = next(&mut rng) % 100;
        let poison = (a.poison && next(&mut rng).is_multiple_of(15)).then(|| next(&mut rng) % 4);
        let api = apis[c].clone();
        let (present, ops, errors, poisoned) =
            (present.clone(), ops.clone(), errors.clone(), poisoned.clone());
        tasks.spawn(async move {
            let name = format!("churn-{i:03}");
            let exists = present[c].lock().await.contains(&i);
            let result = if !exists {
                api.create(&PostParams::default(), &body(&name, n, poison)).await.map(|_| true)
            } else if roll < 65 {
                let patch = json!({"data": {"generation": n.to_string()}});
                api.patch(&name, &PatchParams::default(), &Patch::Merge(&patch)).await.map(|_| true)
            } else {
                api.delete(&name, &DeleteParams::default()).await.map(|_| false)
            };
            ops.fetch_add(1, Ordering::Relaxed);
            match result {
                Ok(now_exists) => {
                    if poison.is_some() && !exists {
                        poisoned.fetch_add(1, Ordering::Relaxed);
                    }
                    let mut p = present[c].lock().await;
                    if now_exists {
                        p.insert(i)
                    } else {
                        p.remove(&i)
                    };
                }
                Err(kube::Error::Api(s)) if s.code == 409 => {
                    present[c].lock().await.insert(i);
                }
                Err(kube::Error::Api(s)) if s.code == 404 => {
                    present[c].lock().await.remove(&i);
                }
                Err(_) => {
                    errors.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        while tasks.try_join_next().is_some() {}
    }
    while tasks.join_next().await.is_some() {}
    println!(
        "{}",
        json!({"ops": ops.load(Ordering::Relaxed), "errors": errors.load(Ordering::Relaxed), "poison": poisoned.load(Ordering::Relaxed)})
    );
    Ok(())
}
