//! Group/version/resource: the name of one resource type (SPEC §3).

use std::fmt;

use serde::{Deserialize, Serialize};

/// A fully qualified resource type. The core group is the empty string.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Gvr {
    /// API group, `""` for the core group.
    pub group: String,
    /// API version, e.g. `v1`.
    pub version: String,
    /// Plural resource name, e.g. `deployments`.
    pub resource: String,
}

impl Gvr {
    /// Builds a GVR from its three parts.
    pub fn new(group: impl Into<String>, version: impl Into<String>, resource: impl Into<String>) -> Self {
        Self { group: group.into(), version: version.into(), resource: resource.into() }
    }

    /// `apiVersion` as written in objects: `v1` or `apps/v1`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() { self.version.clone() } else { format!("{}/{}", self.group, self.version) }
    }
}

impl fmt::Display for Gvr {
    /// Canonical form `group/version/resource`, `v1/pods` for the core group.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.api_version(), self.resource)
    }
}
