//! Benchmark helper for the history store's object encoding (docs/adr/0024-history-revisions.md):
//! a chain of revisions of a ConfigMap edited one key at a time and of a Deployment whose
//! status the controller updates, each stored as
//! - `zstd1` / `zstd3`: the JSON text compressed on its own (zstd level 1 or 3), or
//! - `delta1` / `delta3`: compressed with the previous revision's text as zstd's dictionary
//!   (a delta: writing needs the previous state, reading needs the chain before it).
//!
//! Prints one JSON line per object and encoding: raw bytes, stored bytes per revision, and CPU
//! per revision to encode and to decode (the previous text at hand).
//!
//! `cargo run --release -p mc-server --example history_codec [REVISIONS]`

use std::time::Instant;

use serde_json::{Value, json};

fn configmap() -> Value {
    let data: serde_json::Map<String, Value> = (0..24)
        .map(|i| {
            (format!("setting-{i:02}.properties"), json!(format!("key.{i}=value-{i}-{}", "x".repeat(40 + i))))
        })
        .collect();
    json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "app-config", "namespace": "team-a", "uid": "5f1c3e0a-8f7b-4d39-9d2f-1c0e7b8a9d41",
            "resourceVersion": "1000", "creationTimestamp": "2026-11-20T10:00:00Z",
            "labels": {"app.kubernetes.io/name": "shop", "app.kubernetes.io/component": "api", "team": "a"},
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}"}},
        "data": data,
    })
}

fn deployment() -> Value {
    let container = |name: &str| {
        json!({
            "name": name, "image": format!("registry.example.com/shop/{name}:1.42.0"), "imagePullPolicy": "IfNotPresent",
            "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
            "env": (0..8).map(|i| json!({"name": format!("ENV_{i}"), "value": format!("value-{i}")})).collect::<Vec<_>>(),
            "resources": {"limits": {"cpu": "1", "memory": "512Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
            "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080, "scheme": "HTTP"}, "periodSeconds": 10,
                "failureThreshold": 3, "successThreshold": 1, "timeoutSeconds": 1},
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
        })
    };
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "shop-api", "namespace": "team-a", "uid": "0b7e5f7c-2a51-4c5e-8d0a-9a4b3c2d1e0f",
            "resourceVersion": "2000", "generation": 7, "creationTimestamp": "2026-11-20T10:00:00Z",
            "labels": {"app.kubernetes.io/name": "shop", "app.kubernetes.io/component": "api"},
            "annotations": {"deployment.kubernetes.io/revision": "7"}},
        "spec": {"replicas": 6, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600,
            "selector": {"matchLabels": {"app.kubernetes.io/name": "shop", "app.kubernetes.io/component": "api"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "template": {"metadata": {"labels": {"app.kubernetes.io/name": "shop", "app.kubernetes.io/component": "api"}},
                "spec": {"containers": [container("api"), container("sidecar")], "restartPolicy": "Always",
                    "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler", "terminationGracePeriodSeconds": 30,
                    "securityContext": {}}}},
        "status": {"observedGeneration": 7, "replicas": 6, "updatedReplicas": 6, "readyReplicas": 6,
            "availableReplicas": 6, "conditions": [
                {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
                 "message": "Deployment has minimum availability.",
                 "lastUpdateTime": "2026-11-20T10:01:00Z", "lastTransitionTime": "2026-11-20T10:01:00Z"},
                {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable",
                 "message": "ReplicaSet \"shop-api-7d9f8c6b5\" has successfully progressed.",
                 "lastUpdateTime": "2026-11-20T10:01:00Z", "lastTransitionTime": "2026-11-20T10:00:00Z"}]},
    })
}

/// The chain: each revision one edit after the one before.
fn chain(start: Value, n: usize, edit: impl Fn(&mut Value, usize)) -> Vec<String> {
    let mut v = start;
    (0..n)
        .map(|i| {
            edit(&mut v, i);
            v["metadata"]["resourceVersion"] = json!((3000 + i).to_string());
            serde_json::to_string(&v).unwrap_or_default()
        })
        .collect()
}

fn main() -> anyhow::Result<()> {
    let n: usize = std::env::args().nth(1).map(|s| s.parse()).transpose()?.unwrap_or(2000);
    let configmaps = chain(configmap(), n, |v, i| {
        let key = format!("setting-{:02}.properties", (i * 7) % 24);
        v["data"][&key] = json!(format!("key.{i}=edited-{i}-{}", "y".repeat(40 + i % 11)));
    });
    let deployments = chain(deployment(), n, |v, i| {
        let ready = 4 + (i % 3) as i64;
        let time = format!("2026-11-21T{:02}:{:02}:{:02}Z", (i / 3600) % 24, (i / 60) % 60, i % 60);
        v["status"]["readyReplicas"] = json!(ready);
        v["status"]["availableReplicas"] = json!(ready);
        v["status"]["conditions"][0]["lastUpdateTime"] = json!(time);
        v["status"]["conditions"][0]["status"] = json!(if ready == 6 { "True" } else { "False" });
    });
    for (object, texts) in [("configmap_edit", &configmaps), ("deployment_status", &deployments)] {
        let raw = texts.iter().map(String::len).sum::<usize>() / texts.len();
        for (encoding, level, delta) in
            [("zstd1", 1, false), ("zstd3", 3, false), ("delta1", 1, true), ("delta3", 3, true)]
        {
            let mut stored = Vec::with_capacity(texts.len());
            let started = Instant::now();
            for (i, text) in texts.iter().enumerate() {
                let bytes = match (delta, i.checked_sub(1)) {
                    (true, Some(prev)) => {
                        zstd::bulk::Compressor::with_dictionary(level, texts[prev].as_bytes())?
                            .compress(text.as_bytes())?
                    }
                    _ => zstd::bulk::compress(text.as_bytes(), level)?,
                };
                stored.push(bytes);
            }
            let encode_us = started.elapsed().as_secs_f64() * 1e6 / texts.len() as f64;
            let started = Instant::now();
            for (i, bytes) in stored.iter().enumerate() {
                let text = match (delta, i.checked_sub(1)) {
                    (true, Some(prev)) => zstd::bulk::Decompressor::with_dictionary(texts[prev].as_bytes())?
                        .decompress(bytes, 4 << 20)?,
                    _ => zstd::bulk::decompress(bytes, 4 << 20)?,
                };
                anyhow::ensure!(text == texts[i].as_bytes(), "{encoding}: revision {i} did not come back");
            }
            let decode_us = started.elapsed().as_secs_f64() * 1e6 / texts.len() as f64;
            let bytes = stored.iter().map(Vec::len).sum::<usize>() as f64 / stored.len() as f64;
            println!(
                "{}",
                json!({
                    "benchmark": "history_codec", "object": object, "encoding": encoding, "revisions": texts.len(),
                    "raw_bytes": raw, "stored_bytes": (bytes * 10.0).round() / 10.0,
                    "ratio": ((raw as f64 / bytes) * 10.0).round() / 10.0,
                    "encode_us": (encode_us * 10.0).round() / 10.0, "decode_us": (decode_us * 10.0).round() / 10.0,
                })
            );
        }
    }
    Ok(())
}
