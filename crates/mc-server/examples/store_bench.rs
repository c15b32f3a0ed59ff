//! Benchmark helper: the store's write path alone, without clusters. Writes N ConfigMap-like
//! objects of ~1 KB (two labels each) for each of 3 clusters in batches of 2,000, as the sync
//! writer does, and prints one JSON line of figures.
//!
//! `cargo run --release -p mc-server --example store_bench -- STORAGE_URL [N per cluster]`

use std::time::Instant;

use mc_server::store::{Change, Store, StoredObject};
use mc_types::Gvr;
use serde_json::json;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, url, rest @ ..] = args.as_slice() else {
        anyhow::bail!("usage: store_bench STORAGE_URL [N per cluster]");
    };
    let n: usize = rest.first().map(|s| s.parse()).transpose()?.unwrap_or(30_000);
    let store = Store::connect(url).await?;
    let gvr = Gvr::new("", "v1", "configmaps");
    let payload = "x".repeat(1024);
    let clusters = ["bench1", "bench2", "bench3"];
    let mut busy = std::time::Duration::ZERO;
    let mut written = 0usize;
    for first in (0..n).step_by(2000) {
        for cluster in clusters {
            let batch = (first..(first + 2000).min(n))
                .map(|i| {
                    let object = json!({
                        "metadata": {
                            "name": format!("load-{i:06}"), "namespace": "bench",
                            "uid": uid(cluster, i),
                            "resourceVersion": format!("{}", 1000 + i),
                            "creationTimestamp": "2026-11-23T12:00:00Z",
                            "labels": {"bench": "sync", "group": format!("g{}", i % 100)},
                        },
                        "data": {"payload": payload},
                    });
                    StoredObject::from_json(gvr.clone(), "ConfigMap", object).map(Change::Upsert)
                })
                .collect::<Result<Vec<_>, _>>()?;
            written += batch.len();
            let started = Instant::now();
            store.apply_batch(cluster, batch).await?;
            busy += started.elapsed();
        }
    }
    // Only the time inside the store counts, not building the objects.
    let seconds = busy.as_secs_f64();
    println!(
        "{}",
        json!({
            "benchmark": "store", "backend": format!("{:?}", store.backend()), "objects": written,
            "seconds": (seconds * 1000.0).round() / 1000.0,
            "us_per_object": (seconds * 1e6 / written as f64 * 10.0).round() / 10.0,
        })
    );
    store.close().await;
    Ok(())
}

/// A uid as scattered as the API server's random ones (index inserts land all over the tree).
fn uid(cluster: &str, i: usize) -> String {
    let seed = cluster.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    let mut x = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed;
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
