//! What a caller may read, cluster by cluster: a static token's role reads everything; a
//! Kubernetes identity reads what each member cluster's own RBAC allows it, decided from that
//! cluster's Roles, ClusterRoles, RoleBindings and ClusterRoleBindings in the store (see
//! [`crate::authz`]) without asking the cluster.
//!
//! Each cluster's authorizer is built when first asked for and kept until one of its RBAC
//! objects changes (the writer counts those changes in [`History`]), so a change takes effect
//! as soon as it is synced.

mod hub;
mod impersonate;

pub use impersonate::Refused;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hub::Target;
use mc_types::ResourceInfo;

use crate::authz::{self, ClusterRbac, Request, Scope};
use crate::clusters::Registry;
use crate::identity::{Caller, Grant};
use crate::store::{Allowed, Namespaces, Store};
use crate::sync::history::History;

/// How callers that are Kubernetes identities are authorized (`authorization.mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Each member cluster's own RBAC decides, as that cluster would.
    #[default]
    Member,
    /// Only static tokens and their roles: other tokens are not reviewed.
    Roles,
    /// Identities as in `Member`, authorized in every cluster by the master's RBAC (see
    /// [`hub`]).
    Hub,
}

/// Where a request may read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// The clusters and namespaces it may read; `None`: everything.
    pub allowed: Option<Allowed>,
    /// The clusters asked for where it may read nothing of the type.
    pub denied: Vec<String>,
}

impl Reads {
    /// Everything, for a caller that reads everything.
    pub fn everything() -> Reads {
        Reads::default()
    }

    /// Whether it may read nothing at all.
    pub fn nothing(&self) -> bool {
        self.allowed.as_ref().is_some_and(|a| a.0.is_empty())
    }

    /// A `Warning` naming the clusters left out, if any.
    pub fn warning(&self, user: &str, verb: &str, what: &str) -> Option<String> {
        (!self.denied.is_empty()).then(|| {
            format!(
                "{user} may not {verb} {what} in cluster(s) {}: they are left out",
                self.denied.join(", ")
            )
        })
    }
}

/// The kept authorizers of the member clusters.
#[derive(Debug)]
pub struct AccessControl {
    store: Store,
    mode: Mode,
    /// Counts each cluster's RBAC changes as the writer writes them.
    history: Arc<History>,
    clusters: Mutex<HashMap<String, Slot>>,
    /// The clusters' roles and labels, for hub grants.
    registry: Option<Arc<Registry>>,
}

#[derive(Debug)]
struct Slot {
    /// The RBAC version of the cluster it was read from (the master's for hub grants) that it
    /// was built at (see [`History::rbac_version`]).
    version: u64,
    /// For hub grants: the cluster as it was selected.
    target: Option<Target>,
    rbac: Arc<ClusterRbac>,
}

/// Why a request's reads could not be decided (the store could not be read: 503).
#[derive(Debug, thiserror::Error)]
#[error("reading the RBAC of cluster {cluster}: {source}")]
pub struct Error {
    /// The cluster.
    pub cluster: String,
    /// What failed.
    #[source]
    pub source: authz::Error,
}

impl AccessControl {
    /// Authorizers of the clusters in `store`, in `mode`, rebuilt when `history` counts an RBAC
    /// change of their cluster.
    pub fn new(store: Store, mode: Mode, history: Arc<History>) -> Self {
        AccessControl { store, mode, history, clusters: Mutex::new(HashMap::new()), registry: None }
    }

    /// Knows the clusters (their roles and labels) from `registry`, which hub grants need.
    pub fn with_registry(mut self, registry: Arc<Registry>) -> Self {
        self.registry = Some(registry);
        self
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The authorizer of `cluster`: the kept one while no RBAC object it was built from
    /// changed since, else built anew from the store. With hub grants it is built from the
    /// master's RBAC objects, those that select `cluster`; a cluster unknown then (or no master)
    /// is granted nothing.
    pub async fn rbac(&self, cluster: &str) -> Result<Arc<ClusterRbac>, Error> {
        let (source, target) = match self.mode {
            Mode::Hub => match self.hub_target(cluster) {
                Some((master, target)) => (master, Some(target)),
                None => return Ok(Arc::default()),
            },
            _ => (cluster.to_string(), None),
        };
        let version = self.history.rbac_version(&source);
        {
            let clusters = self.clusters.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(slot) = clusters.get(cluster).filter(|s| s.version == version && s.target == target) {
                return Ok(Arc::clone(&slot.rbac));
            }
        }
        let built = match &target {
            Some(t) => authz::load_selected(&self.store, &source, |a| t.selects(a)).await,
            None => authz::load(&self.store, &source).await,
        }
        .map_err(|source| Error { cluster: cluster.to_string(), source })?;
        let built = Arc::new(built);
        // Built at `version` (read before the store): a change written meanwhile has a later
        // one, and the next call builds again.
        let mut clusters = self.clusters.lock().unwrap_or_else(|e| e.into_inner());
        clusters.insert(cluster.to_string(), Slot { version, target, rbac: Arc::clone(&built) });
        Ok(built)
    }

    /// For hub grants: the master's name, and `cluster` as its bindings select it.
    fn hub_target(&self, cluster: &str) -> Option<(String, Target)> {
        let registry = self.registry.as_ref()?;
        let master = registry.master()?;
        let target = registry.get(cluster)?;
        let selected = Target { is_master: target.spec.is_master, labels: target.spec.labels.clone() };
        Some((master.spec.name.clone(), selected))
    }

    /// The clusters among `clusters` where `caller` may list `info` somewhere (in some
    /// namespace, or cluster-wide).
    pub async fn lists_in(
        &self,
        caller: &Caller,
        info: &ResourceInfo,
        clusters: &[String],
    ) -> Result<Vec<String>, Error> {
        if caller.grant != Grant::Rbac {
            return Ok(clusters.to_vec());
        }
        let mut found = Vec::new();
        for cluster in clusters {
            let rbac = self.rbac(cluster).await?;
            if rbac.scope(&caller.user, "list", &info.group, &info.resource) != Scope::None {
                found.push(cluster.clone());
            }
        }
        Ok(found)
    }

    /// Where `caller` may `verb` objects of `info` in `clusters`: in `namespace` only when
    /// given, and the object `name` only when given (a get).
    pub async fn reads(
        &self,
        caller: &Caller,
        verb: &str,
        info: &ResourceInfo,
        clusters: &[String],
        namespace: Option<&str>,
        name: Option<&str>,
    ) -> Result<Reads, Error> {
        if caller.grant != Grant::Rbac {
            return Ok(Reads::everything());
        }
        let mut allowed = Vec::new();
        let mut denied = Vec::new();
        for cluster in clusters {
            let rbac = self.rbac(cluster).await?;
            // One namespace (or a cluster-scoped type): decided as the member decides that very
            // request, the object's name included when one is asked for (a get, or a list or
            // watch of `metadata.name=NAME`, which kube-apiserver authorizes with the name).
            // Across every namespace: where a list of the type is allowed.
            let one_namespace = if info.namespaced { namespace } else { Some("") };
            let namespaces = match one_namespace {
                Some(ns) => {
                    let req = Request {
                        verb,
                        api_group: &info.group,
                        resource: &info.resource,
                        subresource: "",
                        namespace: ns,
                        name: name.unwrap_or_default(),
                    };
                    rbac.authorize(&caller.user, &req).is_allowed().then_some(Namespaces::All)
                }
                None => match rbac.scope(&caller.user, verb, &info.group, &info.resource) {
                    Scope::All => Some(Namespaces::All),
                    Scope::Namespaces(names) => Some(Namespaces::Some(names.into_iter().collect())),
                    Scope::None => None,
                },
            };
            match namespaces {
                Some(ns) => allowed.push((cluster.clone(), ns)),
                None => denied.push(cluster.clone()),
            }
        }
        Ok(Reads { allowed: Some(Allowed(allowed)), denied })
    }
}

#[cfg(test)]
mod tests;
