//! Where a caller may list or watch a resource ([`Scope`]): what the server pushes into its
//! store queries, so that a list returns exactly the rows a `get` of each would be allowed.

use std::collections::BTreeSet;

use super::rbac::ClusterRbac;
use super::request::{Request, User};

/// Where a list or watch of a resource is allowed in one cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Everywhere: a ClusterRoleBinding allows it (every namespace, and cluster-wide).
    All,
    /// In these namespaces only (never empty): RoleBindings there allow it. Nothing
    /// cluster-scoped, and no list across all namespaces at once.
    Namespaces(BTreeSet<String>),
    /// Nowhere.
    None,
}

impl Scope {
    /// Whether the request is allowed in `namespace` (`""`: cluster-scoped, or across all
    /// namespaces, which only [`Scope::All`] allows).
    pub fn allows(&self, namespace: &str) -> bool {
        match self {
            Scope::All => true,
            Scope::Namespaces(set) => !namespace.is_empty() && set.contains(namespace),
            Scope::None => false,
        }
    }
}

impl ClusterRbac {
    /// Where `user` may `verb` (`list`, `watch`) the collection of a resource: the namespaces
    /// `N` for which [`ClusterRbac::authorize`] allows the request with namespace `N`, no
    /// subresource and no name, as one answer. For a cluster-scoped resource it is
    /// [`Scope::All`] or, when not allowed, anything else (see [`Scope::allows`] with `""`).
    pub fn scope(&self, user: &User, verb: &str, api_group: &str, resource: &str) -> Scope {
        if user.is_privileged() {
            return Scope::All;
        }
        let req = Request { verb, api_group, resource, ..Request::default() };
        let cluster_wide = self.postings(user).flat_map(|p| &p.cluster).any(|&i| self.allows_by(i, &req));
        if cluster_wide {
            return Scope::All;
        }
        let mut namespaces = BTreeSet::new();
        for postings in self.postings(user) {
            for (namespace, ids) in &postings.namespaced {
                if !namespaces.contains(namespace) && ids.iter().any(|&i| self.allows_by(i, &req)) {
                    namespaces.insert(namespace.clone());
                }
            }
        }
        if namespaces.is_empty() { Scope::None } else { Scope::Namespaces(namespaces) }
    }
}
