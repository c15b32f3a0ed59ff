//! Installs or updates the CRDs in the master cluster at start.

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, Patch, PatchParams};
use kube::{Client, ResourceExt};
use mc_types::crd::{FIELD_MANAGER, crds};
use tracing::info;

/// Applies every CRD and waits until each is Established.
pub async fn install(client: &Client) -> kube::Result<()> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for (_, crd) in crds() {
        let name = crd.name_any();
        api.patch(&name, &PatchParams::apply(FIELD_MANAGER).force(), &Patch::Apply(&crd)).await?;
        for _ in 0..100 {
            let current = api.get(&name).await?;
            let established = current
                .status
                .and_then(|s| s.conditions)
                .unwrap_or_default()
                .iter()
                .any(|c| c.type_ == "Established" && c.status == "True");
            if established {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        info!(crd = %name, "CRD installed");
    }
    Ok(())
}
