//! Building a cluster's authorizer from the RBAC objects the store holds for it.

use std::collections::BTreeMap;

use crate::store::{Query, Store};

use super::error::{Error, Result};
use super::objects::RbacKind;
use super::rbac::{Builder, ClusterRbac};

/// Objects read per store query: a page of a few hundred kilobytes.
const PAGE: u32 = if cfg!(test) { 3 } else { 500 };

/// Reads `cluster`'s Roles, ClusterRoles, RoleBindings and ClusterRoleBindings
/// (`rbac.authorization.k8s.io/v1`) from the store, a page at a time, and builds its
/// authorizer. The objects are read straight from their stored text; those that cannot be read
/// are skipped and counted ([`ClusterRbac::malformed`]).
///
/// A cluster whose RBAC types are not stored (not synced yet, or excluded by configuration)
/// has no bindings: every request is denied.
pub async fn load(store: &Store, cluster: &str) -> Result<ClusterRbac> {
    load_selected(store, cluster, |_| true).await
}

/// [`load`] with only the bindings whose annotations `keep` accepts.
pub async fn load_selected(
    store: &Store,
    cluster: &str,
    keep: impl Fn(&BTreeMap<String, String>) -> bool,
) -> Result<ClusterRbac> {
    let mut builder = Builder::default();
    for kind in RbacKind::ALL {
        let gvr = kind.gvr();
        let mut query = Query {
            gvr: Some(gvr.clone()),
            cluster: Some(cluster.to_string()),
            limit: Some(PAGE),
            ..Query::default()
        };
        loop {
            let page = store.query(&query).await.map_err(|source| Error::Store {
                cluster: cluster.to_string(),
                gvr: gvr.clone(),
                source,
            })?;
            for (_, object) in &page.items {
                builder.add(kind, &mut serde_json::Deserializer::from_str(object.text()));
            }
            match page.next {
                Some(next) => query.continue_after = Some(next),
                None => break,
            }
        }
    }
    builder.retain_bindings(keep);
    let rbac = builder.build();
    if rbac.malformed() > 0 {
        tracing::warn!(
            cluster,
            malformed = rbac.malformed(),
            "RBAC objects of the cluster skipped: they cannot be read"
        );
    }
    Ok(rbac)
}
