//! What of the OpenAPI documents a caller may see: the group versions discovery offers it (see
//! [`crate::http::rights::catalog`]), and Kubernetes' own groups always.

use std::collections::BTreeSet;

use super::index::{DocPath, GroupVersion};
use crate::http::rights::built_in_group;

/// The group versions a caller may see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Visible {
    /// Every one (a static token, or a caller that reads everything).
    Everything,
    /// Kubernetes' own groups, and these.
    Only(BTreeSet<GroupVersion>),
}

impl Visible {
    /// Whether nothing is hidden.
    pub fn is_everything(&self) -> bool {
        matches!(self, Visible::Everything)
    }

    /// Whether a group version is seen.
    pub fn group_version(&self, gv: &GroupVersion) -> bool {
        match self {
            Visible::Everything => true,
            Visible::Only(seen) => built_in_group(&gv.group) || seen.contains(gv),
        }
    }

    /// Whether some version of a group is seen.
    pub fn group(&self, group: &str) -> bool {
        match self {
            Visible::Everything => true,
            Visible::Only(seen) => built_in_group(group) || seen.iter().any(|gv| gv.group == group),
        }
    }

    /// Whether a document of the index is seen: documents that are not of a group are.
    pub fn path(&self, path: &str) -> bool {
        match DocPath::of(path) {
            DocPath::GroupVersion(gv) => self.group_version(&gv),
            DocPath::Group(group) => self.group(&group),
            DocPath::Other => true,
        }
    }

    /// A short key of what is hidden, for caching what differs by it.
    pub fn key(&self) -> String {
        match self {
            Visible::Everything => "*".into(),
            Visible::Only(seen) => seen.iter().map(|gv| format!("{}/{};", gv.group, gv.version)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_groups_are_always_seen_and_custom_ones_only_when_offered() {
        let visible = Visible::Only(BTreeSet::from([GroupVersion::new("seen.io", "v1")]));
        for path in
            ["api/v1", "apis/apps/v1", "apis/storage.k8s.io/v1", "apis/seen.io/v1", "apis/seen.io", "version"]
        {
            assert!(visible.path(path), "{path}");
        }
        for path in ["apis/seen.io/v2", "apis/hidden.io/v1", "apis/hidden.io"] {
            assert!(!visible.path(path), "{path}");
        }
        assert!(Visible::Everything.path("apis/hidden.io/v1"));
    }
}
