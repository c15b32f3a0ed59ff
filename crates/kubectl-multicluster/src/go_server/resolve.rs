//! Turning a typed resource type into `group/version/resource` here instead of on the server, for
//! a server that cannot resolve names (the Go project's server, see [`super`]).
//!
//! Explicit forms (`v1.pods`, `apps.v1.deployments`, `core/v1/pods`, `v1/apps/deployments`) are
//! only parsed. Names go to the [built-in table](crate::builtin_types), then — for what it lacks,
//! CRDs — to the discovery of the master cluster named by `masterClusterKubeConfigPath`.

use std::path::PathBuf;

use mc_types::gvr::GvrError;
use mc_types::{Gvr, GvrSpec, ResourceInfo};
use tracing::debug;

use crate::builtin_types;
use crate::config::{self, Origin};
use crate::master::Master;

/// Why a typed resource type could not be resolved here.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Malformed, or unknown to the built-in table and the master cluster alike. Not retryable,
    /// except that an unknown type may appear once its CRD is installed.
    #[error(transparent)]
    Gvr(#[from] GvrError),
    /// The name is not built in and the master cluster's discovery could not be read (no
    /// kubeconfig configured, unreadable, cluster unreachable). Retryable once the master
    /// cluster is reachable; naming the type as `group/version/resource` avoids the lookup.
    #[error(
        "resource type {name:?} is not a built-in type, and the server (an earlier mc-server) cannot resolve names; give it as group/version/resource, or fix the master cluster's discovery"
    )]
    Discovery {
        /// The name as typed.
        name: String,
        /// Why the master cluster could not be asked.
        #[source]
        source: anyhow::Error,
    },
}

/// Result of local resolution.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A resource type resolved here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The type, sent to the server as `group/version/resource` (`v1/pods` for the core group).
    pub gvr: Gvr,
    /// Its discovery data, when known (always for names; for explicit forms when built in).
    pub info: Option<ResourceInfo>,
}

/// Resolves typed resource types without the server.
#[derive(Debug)]
pub struct Resolver {
    /// The master cluster's kubeconfig, or why there is none; read only for names the built-in
    /// table lacks.
    master_kubeconfig: config::Result<(PathBuf, Origin)>,
}

impl Resolver {
    /// A resolver that asks the master cluster of this kubeconfig about names it does not know.
    pub fn new(master_kubeconfig: config::Result<(PathBuf, Origin)>) -> Self {
        Resolver { master_kubeconfig }
    }

    /// The type `typed` names: explicit forms as written, names through the built-in table, then
    /// through the master cluster's discovery.
    pub async fn resolve(self, typed: &str) -> Result<Resolved> {
        let builtin = builtin_types::catalog();
        let spec = GvrSpec::parse(typed)?;
        if let GvrSpec::Explicit(gvr) = spec {
            let info = builtin.get(&gvr).cloned();
            return Ok(Resolved { gvr, info });
        }
        let unknown = match builtin.resolve(&spec) {
            Ok(info) => return Ok(Resolved { gvr: info.gvr(), info: Some(info.clone()) }),
            Err(unknown @ GvrError::Unknown { .. }) => unknown,
            Err(other) => return Err(other.into()),
        };
        debug!(name = %typed, "not a built-in type; asking the master cluster");
        let discovery_failed = |source: anyhow::Error| Error::Discovery { name: typed.to_owned(), source };
        let (path, origin) = self.master_kubeconfig.map_err(|e| discovery_failed(e.into()))?;
        let master = Master::connect_with(&path, &origin, None).await.map_err(discovery_failed)?;
        match master.catalog().resolve(&spec) {
            Ok(info) => Ok(Resolved { gvr: info.gvr(), info: Some(info.clone()) }),
            // The built-in table's suggestions are as good when the master has no close match.
            Err(GvrError::Unknown { candidates, .. }) if candidates.is_empty() => Err(unknown.into()),
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn without_master() -> Resolver {
        Resolver::new(Err(config::Error::NoKubeconfig(PathBuf::from(
            "/home/u/.multi-cluster-operator/config",
        ))))
    }

    fn resolved(typed: &str) -> String {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(without_master().resolve(typed)).unwrap().gvr.to_string()
    }

    #[test]
    fn explicit_forms_need_no_lookup() {
        assert_eq!(resolved("v1.configmaps"), "v1/configmaps");
        assert_eq!(resolved("apps.v1.deployments"), "apps/v1/deployments");
        assert_eq!(resolved("core/v1/pods"), "v1/pods");
        assert_eq!(resolved("v1/apps/deployments"), "apps/v1/deployments");
        // Not built in, still explicit: sent as written.
        assert_eq!(resolved("example.com/v1/widgets"), "example.com/v1/widgets");
    }

    #[test]
    fn names_resolve_through_the_builtin_table() {
        assert_eq!(resolved("pods"), "v1/pods");
        assert_eq!(resolved("deploy"), "apps/v1/deployments");
        assert_eq!(resolved("mcr"), "mulitcluster.practice.com/v1alpha1/multiclusterresources");
    }

    #[test]
    fn a_name_neither_built_in_nor_discoverable_says_why_in_one_line() {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let err = runtime.block_on(without_master().resolve("widgets")).unwrap_err();
        let text = format!("{:#}", anyhow::Error::from(err));
        assert!(text.starts_with("resource type \"widgets\" is not a built-in type"), "{text}");
        assert!(text.contains("no kubeconfig for the master cluster"), "{text}");
        assert_eq!(text.lines().count(), 1, "{text}");
    }

    #[test]
    fn malformed_types_fail_before_any_lookup() {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let err = runtime.block_on(without_master().resolve("apps/v1/")).unwrap_err();
        assert!(matches!(err, Error::Gvr(GvrError::Malformed { .. })), "{err:?}");
    }
}
