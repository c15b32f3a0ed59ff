//! Installs or updates the CRDs in the master cluster at start. Installing over the Go project's
//! CRDs (same names, same scope) is an update. A CRD that cannot be installed is reported (in
//! `/readyz` and on the master in `/v1/clusters`) and retried; it stops neither sync nor leader
//! election.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use kube::{Client, ResourceExt};
use mc_types::crd::{FIELD_MANAGER, crds};
use thiserror::Error;
use tokio::sync::watch;
use tracing::{info, warn};

use crate::clusters::Registry;

/// Why a CRD could not be installed.
#[derive(Debug, Error)]
pub enum Error {
    /// The API server refused or could not be reached; retryable.
    #[error("CRD {name}: {source}")]
    Api {
        /// The CRD's name.
        name: String,
        /// What the API server said.
        #[source]
        source: kube::Error,
    },
    /// A CRD of that name exists with another scope, which Kubernetes never changes, and it is
    /// not one we installed; retried in case an operator deletes it.
    #[error(
        "CRD {name} exists with scope {have}, ours is {want} and a CRD's scope cannot change; \
         delete it (kubectl delete crd {name}) to let mc-server install its own"
    )]
    Scope {
        /// The CRD's name.
        name: String,
        /// The installed CRD's scope.
        have: String,
        /// Our CRD's scope.
        want: String,
    },
    /// The CRD is still being deleted (by us, replacing an earlier version, or by someone
    /// else); applying now would only touch the object on its way out. Retried.
    #[error("CRD {name} is still being deleted; it is installed once it is gone")]
    Terminating {
        /// The CRD's name.
        name: String,
    },
    /// The API server accepted the CRD but has not served it yet. Retried.
    #[error("CRD {name} is not Established yet")]
    NotEstablished {
        /// The CRD's name.
        name: String,
    },
}

/// The master's problem until the first installation succeeds: a client told "ready" may
/// create a MultiClusterResource at once.
pub const PENDING: &str = "CRDs are being installed in the master cluster";

/// Result of an installation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Installs every CRD, retrying with backoff until all are in place; meanwhile the reason is
/// shown as the master's problem (`/readyz` 503, `/v1/clusters`), cleared once they are. The
/// caller marks them pending (see [`PENDING`]) before it connects. `installed` turns true once
/// they are, before the master's discovery has caught up.
pub async fn install_until_done(client: Client, registry: Arc<Registry>, installed: watch::Sender<bool>) {
    let mut backoff = Duration::from_secs(1);
    loop {
        match install(&client).await {
            Ok(()) => {
                installed.send_replace(true);
                discovered(&registry).await;
                registry.set_master_problem(None);
                return;
            }
            Err(e) => {
                warn!(error = %e, "installing CRDs in the master cluster failed; retrying");
                registry.set_master_problem(Some(format!("CRDs not installed in the master cluster: {e}")));
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(30));
    }
}

/// Waits until the master's discovery knows our types, asking for it at once rather than at
/// the next probe: a server that says it is ready lists MultiClusterResources (a fresh master
/// learnt of the CRDs only up to one probe later, and `list multiclusterresources` answered
/// "unknown resource type" meanwhile). At most 30 s: a master not connected yet discovers them
/// when it connects.
async fn discovered(registry: &Registry) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let masters: Vec<_> = registry.all().into_iter().filter(|c| c.spec.is_master).collect();
    for master in &masters {
        master.request_rediscovery();
    }
    let ours = |c: &crate::clusters::Cluster| {
        c.catalog().iter().any(|r| r.group == mc_types::crd::GROUP && r.resource == "multiclusterresources")
    };
    while tokio::time::Instant::now() < deadline && !masters.iter().all(|m| ours(m)) {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Applies every CRD and waits until each is Established.
pub async fn install(client: &Client) -> Result<()> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for (_, crd) in crds() {
        let name = crd.name_any();
        let api_err = |source| Error::Api { name: name.clone(), source };
        replace_if_ours_with_another_scope(&api, &crd).await?;
        api.patch(&name, &PatchParams::apply(FIELD_MANAGER).force(), &Patch::Apply(&crd))
            .await
            .map_err(api_err)?;
        let mut established = false;
        for _ in 0..100 {
            let current = api.get(&name).await.map_err(api_err)?;
            if current.metadata.deletion_timestamp.is_some() {
                return Err(Error::Terminating { name });
            }
            established = current
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
        if !established {
            return Err(Error::NotEstablished { name });
        }
        info!(crd = %name, "CRD installed");
    }
    Ok(())
}

/// Earlier versions of this server installed `MultiCluster` cluster-scoped. A scope cannot
/// change, so such a CRD — ours, by its field manager — is deleted (its objects are the
/// server's own registry, written again by the leader) before ours is applied. Someone else's
/// CRD of another scope is never deleted: that is [`Error::Scope`].
async fn replace_if_ours_with_another_scope(
    api: &Api<CustomResourceDefinition>,
    crd: &CustomResourceDefinition,
) -> Result<()> {
    let name = crd.name_any();
    let api_err = |source| Error::Api { name: name.clone(), source };
    let Some(current) = api.get_opt(&name).await.map_err(api_err)? else { return Ok(()) };
    if current.metadata.deletion_timestamp.is_some() {
        return Err(Error::Terminating { name });
    }
    if current.spec.scope == crd.spec.scope {
        return Ok(());
    }
    let ours = current.managed_fields().iter().any(|m| m.manager.as_deref() == Some(FIELD_MANAGER));
    if !ours {
        return Err(Error::Scope { name, have: current.spec.scope.clone(), want: crd.spec.scope.clone() });
    }
    warn!(crd = %name, from = %current.spec.scope, to = %crd.spec.scope,
        "replacing our CRD of an earlier version: its scope changed (its objects are written again)");
    match api.delete(&name, &DeleteParams::foreground()).await {
        Ok(_) => {}
        Err(kube::Error::Api(s)) if s.code == 404 => return Ok(()),
        Err(e) => return Err(api_err(e)),
    }
    for _ in 0..150 {
        if api.get_opt(&name).await.map_err(api_err)?.is_none() {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Err(Error::Terminating { name })
}
