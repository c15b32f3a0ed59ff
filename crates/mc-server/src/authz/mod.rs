//! Per-caller authorization: each member cluster's own RBAC authorizer, computed from the RBAC
//! objects the store holds for it, deciding as that cluster's kube-apiserver would.
//!
//! - [`ClusterRbac`] is built once per cluster ([`ClusterRbac::from_objects`], [`load`]) and
//!   answers [`ClusterRbac::authorize`] (one request) and [`ClusterRbac::scope`] (where a list
//!   is allowed, for store queries).
//! - The rules are the member's, comparison for comparison: a ClusterRoleBinding applies
//!   everywhere, a RoleBinding in its namespace only (with a Role of that namespace or a
//!   ClusterRole); a binding to a missing role grants nothing; `*` in verbs, API groups and
//!   resources, `resource/subresource` and `*/subresource`; rules with resource names never
//!   allow a request without a name. Aggregated ClusterRoles need nothing more: the member's
//!   controller-manager writes the aggregated rules into the ClusterRole object.
//! - Before RBAC, as the member's authorizer chain: the `system:masters` group is allowed
//!   everything ([`Decision::Privileged`]). Not modelled: the member's other authorizers (the
//!   Node authorizer decides for `system:node:*` users in `system:nodes` first; webhooks).

mod error;
mod load;
mod objects;
mod rbac;
mod request;
mod rule;
mod scope;

#[cfg(test)]
mod tests;

pub use error::{Error, Result};
pub use load::{load, load_selected};
pub use objects::{RBAC_GROUP, RbacKind};
pub use rbac::{Binding, BindingKind, ClusterRbac, Decision, RoleRef};
pub use request::{PRIVILEGED_GROUP, Request, User};
pub use scope::Scope;
