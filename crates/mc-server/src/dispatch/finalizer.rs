//! The cleanup finalizer of a MultiClusterResource. It is added by the reconcile that applies,
//! so a new resource is dispatched in one pass (the generation-filtered watch does not wake the
//! controller for the finalizer's own update), and removed once every copy is gone.
//!
//! Both patches carry a JSON-Patch `test`, so a concurrent change of the finalizer list fails
//! the patch (and the reconcile is retried) instead of losing someone else's finalizer.

use kube::api::{Api, Patch, PatchParams};
use kube::{Resource, ResourceExt};
use mc_types::crd::{FINALIZER, MultiClusterResource};
use serde_json::json;

/// Whether the resource carries our finalizer.
pub fn present(mcr: &MultiClusterResource) -> bool {
    mcr.finalizers().iter().any(|f| f == FINALIZER)
}

/// Adds the finalizer unless it is there already.
pub async fn ensure(api: &Api<MultiClusterResource>, mcr: &MultiClusterResource) -> kube::Result<()> {
    if present(mcr) {
        return Ok(());
    }
    let patch = match &mcr.meta().finalizers {
        None => json!([
            {"op": "test", "path": "/metadata/finalizers", "value": null},
            {"op": "add", "path": "/metadata/finalizers", "value": [FINALIZER]},
        ]),
        Some(current) => json!([
            {"op": "test", "path": "/metadata/finalizers", "value": current},
            {"op": "add", "path": "/metadata/finalizers/-", "value": FINALIZER},
        ]),
    };
    send(api, mcr, patch).await
}

/// Removes the finalizer (the cleanup is done).
pub async fn remove(api: &Api<MultiClusterResource>, mcr: &MultiClusterResource) -> kube::Result<()> {
    let Some(index) = mcr.finalizers().iter().position(|f| f == FINALIZER) else { return Ok(()) };
    let path = format!("/metadata/finalizers/{index}");
    let patch = json!([
        {"op": "test", "path": path, "value": FINALIZER},
        {"op": "remove", "path": path},
    ]);
    match send(api, mcr, patch).await {
        // Already gone together with the object.
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
        other => other,
    }
}

async fn send(
    api: &Api<MultiClusterResource>,
    mcr: &MultiClusterResource,
    patch: serde_json::Value,
) -> kube::Result<()> {
    let patch: json_patch::Patch = serde_json::from_value(patch).map_err(kube::Error::SerdeError)?;
    api.patch::<MultiClusterResource>(&mcr.name_any(), &PatchParams::default(), &Patch::Json(patch)).await?;
    Ok(())
}
