//! Keeps one `MultiCluster` object per cluster in the master, in the server's namespace (where the
//! Go project kept them), with the config's labels and a status that follows the cluster's health.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use kube::{Client, ResourceExt};
use mc_types::crd::{FIELD_MANAGER, MANAGED_LABEL, MultiCluster};
use serde_json::json;
use tracing::{info, warn};

use crate::clusters::{Cluster, Registry};

/// How often the objects are brought up to date.
const EVERY: Duration = Duration::from_secs(5);

/// Runs until aborted (only on the leader).
pub async fn maintain(
    client: Client,
    namespace: String,
    registry: Arc<Registry>,
    mut ready: tokio::sync::broadcast::Receiver<String>,
    mut crds_installed: tokio::sync::watch::Receiver<bool>,
) {
    // Writing before the MultiCluster CRD is served answers `404 page not found` (a leader
    // elected at start runs ahead of the install).
    if crds_installed.wait_for(|installed| *installed).await.is_err() {
        return;
    }
    let api: Api<MultiCluster> = Api::namespaced(client, &namespace);
    // What was last written, per cluster object: an unjoin followed by a join within one period
    // is a new `Cluster` (another Arc), so its MultiCluster object is written again.
    let mut written: BTreeMap<String, (std::time::Instant, serde_json::Value)> = BTreeMap::new();
    loop {
        // Every pass, not only at the start: an unjoin racing with a write of that cluster's
        // object would otherwise leave it behind, and selector placement would still choose it.
        remove_stale(&api, &registry).await;
        for cluster in registry.all() {
            let (spec, status) = desired(&cluster);
            let key = (cluster.created(), json!([spec, status]));
            if written.get(cluster.name()) == Some(&key) {
                continue;
            }
            match write(&api, &cluster, &spec, &status).await {
                Ok(()) => {
                    written.insert(cluster.name().to_string(), key);
                }
                Err(e) => {
                    warn!(cluster = cluster.name(), error = %e, "updating the MultiCluster object failed")
                }
            }
        }
        written.retain(|name, _| registry.get(name).is_some());
        tokio::select! {
            _ = tokio::time::sleep(EVERY) => {}
            _ = ready.recv() => {}
        }
    }
}

fn desired(cluster: &Cluster) -> (serde_json::Value, serde_json::Value) {
    let state = cluster.state();
    // Every spec field is a string, as the Go project wrote them (its CLI decodes strings).
    let spec = json!({
        "name": cluster.name(),
        "host": cluster.spec.host,
        "version": state.version,
        "platform": state.platform,
        "isMaster": cluster.spec.is_master.to_string(),
    });
    (spec, status(&cluster.info(None)))
}

/// The status of a MultiCluster: the same words as `/v1/clusters` and `list clusters` in the
/// Go project's `status` field (it wrote `Healthy`), then how fresh the cluster's objects are.
fn status(info: &mc_types::api::ClusterInfo) -> serde_json::Value {
    let synced = info.status.is_synced();
    let since = info.since.clone().unwrap_or_default();
    let ready = json!({
        "type": "Ready",
        "status": if synced { "True" } else { "False" },
        "reason": info.status.to_string(),
        "message": info.message.clone().unwrap_or_else(|| format!("cluster is {}", info.status)),
        "lastTransitionTime": if since.is_empty() { k8s_openapi::jiff::Timestamp::now().to_string() } else { since.clone() },
    });
    let mut status = json!({
        "status": info.status.to_string(),
        "typesListed": info.types_listed,
        "typesTotal": info.resource_types,
        "objects": info.objects,
        "conditions": [ready],
    });
    let extra = [
        ("message", info.message.clone().map(serde_json::Value::from)),
        ("since", info.since.clone().map(serde_json::Value::from)),
        ("lastError", info.last_error.clone().map(serde_json::Value::from)),
        ("unlistedTypes", (!info.unlisted_types.is_empty()).then(|| json!(info.unlisted_types))),
        ("unwatchedTypes", (!info.unwatched_types.is_empty()).then(|| json!(info.unwatched_types))),
        // Whole seconds, so a status is not rewritten for every fraction of lag.
        ("lagSeconds", info.lag_seconds.map(|l| serde_json::Value::from(l.max(0.0).round() as u64))),
    ];
    for (key, value) in extra {
        status[key] = value.unwrap_or(serde_json::Value::Null);
    }
    status
}

async fn write(
    api: &Api<MultiCluster>,
    cluster: &Cluster,
    spec: &serde_json::Value,
    status: &serde_json::Value,
) -> kube::Result<()> {
    let mut labels = cluster.spec.labels.clone();
    labels.insert(MANAGED_LABEL.into(), FIELD_MANAGER.into());
    let body = json!({
        "apiVersion": "mulitcluster.practice.com/v1alpha1",
        "kind": "MultiCluster",
        "metadata": {"name": cluster.name(), "labels": labels},
        "spec": spec,
    });
    let params = PatchParams::apply(FIELD_MANAGER).force();
    api.patch(cluster.name(), &params, &Patch::Apply(&body)).await?;
    api.patch_status(cluster.name(), &PatchParams::default(), &Patch::Merge(json!({"status": status})))
        .await?;
    Ok(())
}

/// Removes MultiCluster objects we made for clusters that are no longer configured or joined.
async fn remove_stale(api: &Api<MultiCluster>, registry: &Registry) {
    let Ok(list) = api.list(&ListParams::default().labels(&format!("{MANAGED_LABEL}={FIELD_MANAGER}"))).await
    else {
        return;
    };
    for mc in list {
        let name = mc.name_any();
        if registry.get(&name).is_none() {
            info!(cluster = %name, "removing the MultiCluster object of a cluster no longer known");
            let _ = api.delete(&name, &DeleteParams::default()).await;
        }
    }
}

/// Deletes one cluster's MultiCluster object (unjoin).
pub async fn forget(client: Client, namespace: &str, name: &str) -> kube::Result<()> {
    let api: Api<MultiCluster> = Api::namespaced(client, namespace);
    match api.delete(name, &DeleteParams::default()).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
        Err(e) => Err(e),
    }
}
