//! Discovery: every listable and watchable resource type of a cluster, preferred versions only.

use std::collections::BTreeSet;

use kube::Client;
use mc_types::gvr::{DEFAULT_EXCLUDED_GROUPS, DEFAULT_EXCLUDED_RESOURCES, ResourceInfo};

/// Which resource types to sync, from the `sync` section and a cluster's `resources` allow-list.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Groups never synced (the default exclusions plus the config's `excludeGroups`).
    pub exclude_groups: BTreeSet<String>,
    /// Resources (plural, or `plural.group`) never synced.
    pub exclude_resources: BTreeSet<String>,
    /// When not empty, only these `group/version/resource` strings (the Go project's `rType`).
    pub allow: Vec<String>,
}

impl Filter {
    /// The default exclusions plus extra exclusions.
    pub fn new(extra_groups: &[String], extra_resources: &[String], allow: Vec<String>) -> Self {
        let mut exclude_groups: BTreeSet<String> =
            DEFAULT_EXCLUDED_GROUPS.iter().map(|s| s.to_string()).collect();
        exclude_groups.extend(extra_groups.iter().cloned());
        let mut exclude_resources: BTreeSet<String> =
            DEFAULT_EXCLUDED_RESOURCES.iter().map(|s| s.to_string()).collect();
        exclude_resources.extend(extra_resources.iter().cloned());
        Filter { exclude_groups, exclude_resources, allow }
    }

    /// Whether a discovered type is synced.
    pub fn admits(&self, info: &ResourceInfo) -> bool {
        if !info.is_syncable() || self.exclude_groups.contains(&info.group) {
            return false;
        }
        let dotted = format!("{}.{}", info.resource, info.group);
        if self.exclude_resources.contains(&info.resource) || self.exclude_resources.contains(&dotted) {
            return false;
        }
        if self.allow.is_empty() {
            return true;
        }
        let gvr = info.gvr();
        self.allow.iter().any(|a| matches_allow(a, &gvr))
    }
}

/// An allow-list entry in any explicit GVR form (`apps/v1/deployments`, `v1/pods`, `v1.pods`, …).
fn matches_allow(entry: &str, gvr: &mc_types::Gvr) -> bool {
    match mc_types::gvr::GvrSpec::parse(entry) {
        Ok(mc_types::gvr::GvrSpec::Explicit(g)) => &g == gvr,
        Ok(mc_types::gvr::GvrSpec::Name(name)) => name == gvr.resource,
        Err(_) => false,
    }
}

/// Every resource type the cluster serves, in the preferred version of each group, through
/// aggregated discovery (two requests).
pub async fn discover(client: &Client) -> kube::Result<Vec<ResourceInfo>> {
    let core = client.list_core_api_versions_aggregated().await?;
    let groups = client.list_api_groups_aggregated().await?;
    let preferred = |list| ResourceInfo::from_discovery(list).into_iter().filter_map(|(r, p)| p.then_some(r));
    Ok(preferred(core).chain(preferred(groups)).collect())
}
