//! The four RBAC kinds and their objects as the API server writes them (the JSON the store
//! holds), read into the few fields the authorizer needs.

use std::fmt;

use mc_types::Gvr;
use serde::{Deserialize, Deserializer};

/// The API group of the RBAC kinds.
pub const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// One of the four RBAC kinds an authorizer is built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RbacKind {
    /// `Role`: rules in one namespace.
    Role,
    /// `ClusterRole`: rules usable in every namespace and cluster-wide.
    ClusterRole,
    /// `RoleBinding`: grants a Role or ClusterRole in one namespace.
    RoleBinding,
    /// `ClusterRoleBinding`: grants a ClusterRole everywhere.
    ClusterRoleBinding,
}

impl RbacKind {
    /// Every RBAC kind.
    pub const ALL: [RbacKind; 4] =
        [RbacKind::Role, RbacKind::ClusterRole, RbacKind::RoleBinding, RbacKind::ClusterRoleBinding];

    /// The kind's name, e.g. `ClusterRoleBinding`.
    pub fn as_str(self) -> &'static str {
        match self {
            RbacKind::Role => "Role",
            RbacKind::ClusterRole => "ClusterRole",
            RbacKind::RoleBinding => "RoleBinding",
            RbacKind::ClusterRoleBinding => "ClusterRoleBinding",
        }
    }

    /// The plural resource, e.g. `clusterrolebindings`.
    pub fn resource(self) -> &'static str {
        match self {
            RbacKind::Role => "roles",
            RbacKind::ClusterRole => "clusterroles",
            RbacKind::RoleBinding => "rolebindings",
            RbacKind::ClusterRoleBinding => "clusterrolebindings",
        }
    }

    /// The type the store keeps the kind's objects as: `rbac.authorization.k8s.io/v1/…`.
    pub fn gvr(self) -> Gvr {
        Gvr::new(RBAC_GROUP, "v1", self.resource())
    }

    /// The RBAC kind of a type of the RBAC group, any version; `None` for any other type.
    pub fn from_gvr(gvr: &Gvr) -> Option<RbacKind> {
        if gvr.group != RBAC_GROUP {
            return None;
        }
        RbacKind::ALL.into_iter().find(|k| k.resource() == gvr.resource)
    }
}

impl fmt::Display for RbacKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Reads `null` as the type's default, as the member's JSON decoding does for lists.
pub(super) fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A `PolicyRule`. A field the object leaves out (or sets to `null`) is empty, and an empty
/// list matches nothing, as on the member.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Rule {
    #[serde(default, deserialize_with = "nullable")]
    pub verbs: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub api_groups: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub resources: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub resource_names: Vec<String>,
    #[serde(default, deserialize_with = "nullable", rename = "nonResourceURLs")]
    pub non_resource_urls: Vec<String>,
}

/// The metadata fields the authorizer reads.
#[derive(Debug, Deserialize)]
pub(super) struct Meta {
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub namespace: String,
    #[serde(default, deserialize_with = "nullable")]
    pub annotations: std::collections::BTreeMap<String, String>,
}

/// A Role or a ClusterRole. An aggregated ClusterRole's `rules` are those its member's
/// controller-manager wrote into it; its `aggregationRule` needs no reading.
#[derive(Debug, Deserialize)]
pub(super) struct RoleObject {
    pub metadata: Meta,
    #[serde(default, deserialize_with = "nullable")]
    pub rules: Vec<Rule>,
}

/// A RoleBinding or a ClusterRoleBinding.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BindingObject {
    pub metadata: Meta,
    pub role_ref: RoleRefObject,
    #[serde(default, deserialize_with = "nullable")]
    pub subjects: Vec<SubjectObject>,
}

/// A binding's `roleRef` (its `apiGroup` is not read: the member does not compare it).
#[derive(Debug, Deserialize)]
pub(super) struct RoleRefObject {
    #[serde(default, deserialize_with = "nullable")]
    pub kind: String,
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
}

/// One subject of a binding (its `apiGroup` is not read: the member does not compare it).
#[derive(Debug, Deserialize)]
pub(super) struct SubjectObject {
    #[serde(default, deserialize_with = "nullable")]
    pub kind: String,
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub namespace: String,
}

/// An object of one of the four kinds, read and checked.
#[derive(Debug)]
pub(super) enum Parsed {
    /// A Role (with its namespace) or a ClusterRole.
    Role(RbacKind, RoleObject),
    /// A RoleBinding (with its namespace) or a ClusterRoleBinding.
    Binding(RbacKind, BindingObject),
}

/// Why an object was skipped.
#[derive(Debug, thiserror::Error)]
pub(super) enum Malformed {
    /// Not the JSON shape of the kind.
    #[error("not a {kind}: {source}")]
    Shape {
        kind: RbacKind,
        #[source]
        source: serde_json::Error,
    },
    /// No `metadata.name`, or a namespaced kind without `metadata.namespace`.
    #[error("a {kind} without a {field}")]
    Missing { kind: RbacKind, field: &'static str },
}

impl Parsed {
    /// Reads an object of `kind` from anything serde_json reads (a tree or a text).
    pub fn read<'de, D>(kind: RbacKind, object: D) -> Result<Parsed, Malformed>
    where
        D: Deserializer<'de, Error = serde_json::Error>,
    {
        let shape = |source| Malformed::Shape { kind, source };
        let parsed = match kind {
            RbacKind::Role | RbacKind::ClusterRole => {
                Parsed::Role(kind, RoleObject::deserialize(object).map_err(shape)?)
            }
            RbacKind::RoleBinding | RbacKind::ClusterRoleBinding => {
                Parsed::Binding(kind, BindingObject::deserialize(object).map_err(shape)?)
            }
        };
        let meta = match &parsed {
            Parsed::Role(_, r) => &r.metadata,
            Parsed::Binding(_, b) => &b.metadata,
        };
        if meta.name.is_empty() {
            return Err(Malformed::Missing { kind, field: "metadata.name" });
        }
        let namespaced = matches!(kind, RbacKind::Role | RbacKind::RoleBinding);
        if namespaced && meta.namespace.is_empty() {
            return Err(Malformed::Missing { kind, field: "metadata.namespace" });
        }
        Ok(parsed)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_kind_is_known_by_its_type_in_any_version_and_no_other_type() {
        for kind in RbacKind::ALL {
            assert_eq!(RbacKind::from_gvr(&kind.gvr()), Some(kind));
            assert_eq!(RbacKind::from_gvr(&Gvr::new(RBAC_GROUP, "v1beta1", kind.resource())), Some(kind));
        }
        assert_eq!(RbacKind::from_gvr(&Gvr::new("", "v1", "roles")), None);
        assert_eq!(RbacKind::from_gvr(&Gvr::new(RBAC_GROUP, "v1", "bindings")), None);
        assert_eq!(
            RbacKind::ClusterRoleBinding.gvr().to_string(),
            "rbac.authorization.k8s.io/v1/clusterrolebindings"
        );
    }

    #[test]
    fn objects_without_a_name_or_a_namespaced_kind_without_a_namespace_are_malformed() {
        let role = json!({"metadata": {"name": "r"}, "rules": []});
        assert!(Parsed::read(RbacKind::ClusterRole, &role).is_ok());
        assert!(matches!(
            Parsed::read(RbacKind::Role, &role),
            Err(Malformed::Missing { field: "metadata.namespace", .. })
        ));
        let nameless = json!({"metadata": {"namespace": "a"}});
        assert!(matches!(Parsed::read(RbacKind::Role, &nameless), Err(Malformed::Missing { .. })));
        let binding = json!({"metadata": {"name": "b"}, "subjects": null});
        assert!(matches!(Parsed::read(RbacKind::ClusterRoleBinding, &binding), Err(Malformed::Shape { .. })));
        assert!(Parsed::read(RbacKind::Role, json!("text")).is_err());
    }
}
