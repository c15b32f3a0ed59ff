//! Benchmark helper: creates many ConfigMaps (or Deployment replicas) in one cluster quickly.
//!
//! `cargo run --release -p mc-server --example loadgen -- KUBECONFIG NAMESPACE COUNT [SIZE_BYTES]`
//!
//! The payload is one repeated letter (it compresses about 20×), or with `MC_LOADGEN_PAYLOAD=random`
//! random letters and digits that differ per object (about 1.3×, as keys and certificates do).

use std::time::Instant;

use futures::{StreamExt, stream};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::json;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, kubeconfig, namespace, count, rest @ ..] = args.as_slice() else {
        anyhow::bail!("usage: loadgen KUBECONFIG NAMESPACE COUNT [SIZE_BYTES]");
    };
    let count: usize = count.parse()?;
    let size: usize = rest.first().map(|s| s.parse()).transpose()?.unwrap_or(1024);
    let config = kube::Config::from_custom_kubeconfig(
        Kubeconfig::read_from(kubeconfig)?,
        &KubeConfigOptions::default(),
    )
    .await?;
    let client = kube::Client::try_from(config)?;
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": namespace}}))?;
    let _ = namespaces.create(&PostParams::default(), &ns).await;
    let api: Api<ConfigMap> = Api::namespaced(client, namespace);
    let random = std::env::var("MC_LOADGEN_PAYLOAD").is_ok_and(|v| v == "random");
    let payload_of = move |i: usize| -> String {
        let n = size.saturating_sub(200);
        if !random {
            return "x".repeat(n);
        }
        const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        // xorshift64*, seeded per object: the same objects on every run.
        let mut x = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x >> 12;
                x ^= x << 25;
                x ^= x >> 27;
                ALPHABET[(x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 58) as usize] as char
            })
            .collect()
    };
    let start = Instant::now();
    let failures = stream::iter(0..count)
        .map(|i| {
            let api = api.clone();
            let payload = payload_of(i);
            async move {
                let cm: ConfigMap = serde_json::from_value(json!({
                    "metadata": {"name": format!("load-{i:06}"), "labels": {"bench": "sync", "group": format!("g{}", i % 100)}},
                    "data": {"payload": payload}
                }))
                .ok()?;
                match api.create(&PostParams::default(), &cm).await {
                    Ok(_) => None,
                    Err(kube::Error::Api(s)) if s.code == 409 => None,
                    Err(e) => Some(e.to_string()),
                }
            }
        })
        .buffer_unordered(48)
        .filter_map(|r| async move { r })
        .collect::<Vec<_>>()
        .await;
    if let Some(first) = failures.first() {
        anyhow::bail!("{} creates failed, first: {first}", failures.len());
    }
    eprintln!("created {count} ConfigMaps in {:?}", start.elapsed());
    Ok(())
}
