//! Which table a type prints as: its built-in columns, its CRD's printer columns, or the generic
//! table.

use mc_types::api::ListWithClusterItem;
use mc_types::{ResourceCatalog, ResourceInfo};
use serde_json::Value;
use tracing::debug;

use crate::client::{Client, ListQuery};
use crate::print::{TableSpec, View};

/// Groups whose types are all built in (never CRDs), so no CRD lookup is needed for them.
const BUILTIN_GROUPS: &[&str] =
    &["", "apps", "batch", "autoscaling", "policy", "networking.k8s.io", "rbac.authorization.k8s.io"];

/// How a type prints: built-in table, CRD printer columns, or the generic table. The type is
/// resolved through the server's discovery data; without it, from an object's own
/// `apiVersion`/`kind`.
pub async fn table_spec(
    client: &Client,
    typed: &str,
    resources: Option<Vec<ResourceInfo>>,
    sample: Option<&ListWithClusterItem>,
    view: View,
) -> TableSpec {
    let info = resources.and_then(|r| ResourceCatalog::new(r).resolve_str(typed).ok().cloned());
    let (group, version, kind, namespaced) = match (&info, sample.map(|s| &s.object)) {
        (Some(i), _) => (i.group.clone(), i.version.clone(), i.kind.clone(), i.namespaced),
        (None, Some(obj)) => {
            let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
            let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
            let kind = obj.get("kind").and_then(Value::as_str).unwrap_or_default();
            let namespaced =
                obj.pointer("/metadata/namespace").and_then(Value::as_str).is_some_and(|n| !n.is_empty());
            (group.to_owned(), version.to_owned(), kind.to_owned(), namespaced)
        }
        (None, None) => return TableSpec::generic(true),
    };
    if let Some(spec) = TableSpec::builtin(&group, &kind, namespaced, view) {
        return spec;
    }
    let crd = match info.filter(|i| !BUILTIN_GROUPS.contains(&i.group.as_str())) {
        Some(info) => crd(client, &format!("{}.{}", info.resource, info.group)).await,
        None => None,
    };
    TableSpec::resolve(&group, &kind, &version, namespaced, crd.as_ref(), view)
}

/// The stored CustomResourceDefinition of that name, from any cluster.
async fn crd(client: &Client, name: &str) -> Option<Value> {
    let query = ListQuery {
        name: Some(name.to_owned()),
        ..ListQuery::all("apiextensions.k8s.io/v1/customresourcedefinitions")
    };
    match client.list(&query).await {
        Ok(crds) => crds.into_iter().next().map(|c| c.object),
        Err(e) => {
            debug!(crd = %name, error = %e, "no printer columns");
            None
        }
    }
}
