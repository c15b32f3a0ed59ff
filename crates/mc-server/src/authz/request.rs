//! Who asks ([`User`]) and what they ask for ([`Request`]), as a member cluster's authorizer
//! sees them.

/// The group kube-apiserver allows everything before it asks RBAC (its privileged-group
/// authorizer, first in the chain whenever RBAC is on).
pub const PRIVILEGED_GROUP: &str = "system:masters";

/// The caller as the member cluster sees it: its user name and every group it is in.
///
/// The groups are taken as given: the authorizer adds none (`system:authenticated`,
/// `system:serviceaccounts`, … are the authenticator's to add, as on the member).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct User {
    /// The user name, e.g. `alice` or `system:serviceaccount:ns:name`.
    pub name: String,
    /// The groups, e.g. `system:authenticated`.
    pub groups: Vec<String>,
}

impl User {
    /// A user with these groups.
    pub fn new(name: impl Into<String>, groups: impl IntoIterator<Item = impl Into<String>>) -> User {
        User { name: name.into(), groups: groups.into_iter().map(Into::into).collect() }
    }

    /// Whether it is in the group every member allows everything (`system:masters`).
    pub fn is_privileged(&self) -> bool {
        self.groups.iter().any(|g| g == PRIVILEGED_GROUP)
    }
}

/// One resource request: what a `SubjectAccessReview`'s `resourceAttributes` hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Request<'a> {
    /// The verb: `get`, `list`, `watch`, `create`, … (compared as given; `*` only matches a
    /// rule's `*`).
    pub verb: &'a str,
    /// The API group, `""` for the core group.
    pub api_group: &'a str,
    /// The plural resource, e.g. `pods`.
    pub resource: &'a str,
    /// The subresource, e.g. `log`; `""` for none.
    pub subresource: &'a str,
    /// The namespace; `""` for a cluster-scoped resource or a request across all namespaces.
    pub namespace: &'a str,
    /// The object's name; `""` for a request on a collection (list, watch, create, …).
    pub name: &'a str,
}
