//! One member cluster's RBAC authorizer ([`ClusterRbac`]): its bindings resolved to their
//! roles' rules once, indexed by subject, and decisions as the member's RBAC authorizer makes
//! them (`VisitRulesFor`: every ClusterRoleBinding, then the RoleBindings of the request's
//! namespace; the first rule that allows decides).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use serde::Deserializer;

use super::objects::{BindingObject, Parsed, RbacKind, Rule, SubjectObject};
use super::request::{PRIVILEGED_GROUP, Request, User};

/// The user name prefix of ServiceAccounts: `system:serviceaccount:NAMESPACE:NAME`.
const SERVICE_ACCOUNT_PREFIX: &str = "system:serviceaccount:";

/// Where a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BindingKind {
    /// A ClusterRoleBinding: every namespace and cluster-scoped resources.
    ClusterRoleBinding,
    /// A RoleBinding: its own namespace only.
    RoleBinding,
}

/// The role a binding grants, as its `roleRef` names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleRef {
    /// `Role` or `ClusterRole` (any other kind grants nothing).
    pub kind: String,
    /// The role's name.
    pub name: String,
}

/// A binding of the cluster, with the rules of the role it references (none when that role
/// does not exist, or a ClusterRoleBinding references a Role).
#[derive(Clone, Debug)]
pub struct Binding {
    kind: BindingKind,
    namespace: String,
    name: String,
    role_ref: RoleRef,
    rules: Arc<[Rule]>,
}

impl Binding {
    /// A ClusterRoleBinding or a RoleBinding.
    pub fn kind(&self) -> BindingKind {
        self.kind
    }

    /// The namespace of a RoleBinding; `""` for a ClusterRoleBinding.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The binding's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The role it references.
    pub fn role_ref(&self) -> &RoleRef {
        &self.role_ref
    }

    /// Whether one of its rules allows the request (wherever the binding applies).
    pub(super) fn allows(&self, req: &Request<'_>) -> bool {
        self.rules.iter().any(|r| r.allows(req))
    }
}

impl fmt::Display for Binding {
    /// `ClusterRoleBinding/NAME` or `RoleBinding/NAMESPACE/NAME`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            BindingKind::ClusterRoleBinding => write!(f, "ClusterRoleBinding/{}", self.name),
            BindingKind::RoleBinding => write!(f, "RoleBinding/{}/{}", self.namespace, self.name),
        }
    }
}

/// What the authorizer decides.
#[derive(Clone, Copy, Debug)]
pub enum Decision<'a> {
    /// A rule of this binding's role allows the request.
    Allowed {
        /// The binding (ClusterRoleBindings are tried first, then RoleBindings, each by name).
        by: &'a Binding,
    },
    /// The user is in [`PRIVILEGED_GROUP`]: allowed before RBAC is asked.
    Privileged,
    /// No rule allows it (the member's RBAC authorizer has "no opinion": denied).
    Denied,
}

impl Decision<'_> {
    /// Whether the request is allowed.
    pub fn is_allowed(&self) -> bool {
        matches!(self, Decision::Allowed { .. } | Decision::Privileged)
    }
}

impl fmt::Display for Decision<'_> {
    /// What allowed it (the binding, or the privileged group); empty when denied.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Allowed { by } => by.fmt(f),
            Decision::Privileged => write!(f, "Group/{PRIVILEGED_GROUP}"),
            Decision::Denied => Ok(()),
        }
    }
}

/// The bindings naming one subject (a user name or a group name), by binding index.
#[derive(Clone, Debug, Default)]
pub(super) struct Postings {
    /// ClusterRoleBindings.
    pub cluster: Vec<usize>,
    /// RoleBindings, by namespace.
    pub namespaced: BTreeMap<String, Vec<usize>>,
}

impl Postings {
    fn add(&mut self, binding: &Binding, index: usize) {
        let list = match binding.kind {
            BindingKind::ClusterRoleBinding => &mut self.cluster,
            BindingKind::RoleBinding => self.namespaced.entry(binding.namespace.clone()).or_default(),
        };
        // Two subjects of one binding may name the same user.
        if list.last() != Some(&index) {
            list.push(index);
        }
    }
}

/// The RBAC authorizer of one member cluster, built once from its Roles, ClusterRoles,
/// RoleBindings and ClusterRoleBindings; deciding needs no further reading.
#[derive(Clone, Debug, Default)]
pub struct ClusterRbac {
    /// ClusterRoleBindings by name, then RoleBindings by namespace and name: the order in which
    /// bindings are tried, so that decisions name the same binding every time.
    pub(super) bindings: Vec<Binding>,
    /// Bindings by user name (`User` subjects, and `ServiceAccount` subjects as their user name).
    pub(super) by_user: HashMap<String, Postings>,
    /// Bindings by group name (`Group` subjects).
    pub(super) by_group: HashMap<String, Postings>,
    roles: usize,
    malformed: usize,
}

impl ClusterRbac {
    /// Builds the authorizer from a cluster's RBAC objects as the API server writes them.
    /// Objects that cannot be read (not the kind's shape, no name, a namespaced kind without a
    /// namespace) are skipped and counted ([`ClusterRbac::malformed`]); a later object of the
    /// same kind, namespace and name replaces an earlier one.
    pub fn from_objects(objects: impl IntoIterator<Item = (RbacKind, serde_json::Value)>) -> ClusterRbac {
        let mut builder = Builder::default();
        for (kind, object) in objects {
            builder.add(kind, &object);
        }
        builder.build()
    }

    /// Decides a resource request as the member's authorizer chain would: its privileged group
    /// first, then RBAC.
    pub fn authorize(&self, user: &User, req: &Request<'_>) -> Decision<'_> {
        if user.is_privileged() {
            return Decision::Privileged;
        }
        let mut candidates: Vec<usize> = Vec::new();
        for postings in self.postings(user) {
            candidates.extend_from_slice(&postings.cluster);
            // RoleBindings count only in their own namespace, so never cluster-wide.
            if !req.namespace.is_empty()
                && let Some(ids) = postings.namespaced.get(req.namespace)
            {
                candidates.extend_from_slice(ids);
            }
        }
        self.first_allowing(candidates, |b| b.allows(req))
    }

    /// Decides a non-resource request (`verb` on a URL path such as `/healthz`) as the
    /// member's RBAC authorizer would: such requests have no namespace, so only
    /// ClusterRoleBindings count.
    pub fn authorize_path(&self, user: &User, verb: &str, path: &str) -> Decision<'_> {
        if user.is_privileged() {
            return Decision::Privileged;
        }
        let candidates = self.postings(user).flat_map(|p| p.cluster.iter().copied()).collect();
        self.first_allowing(candidates, |b| b.rules.iter().any(|r| r.allows_path(verb, path)))
    }

    /// How many bindings the cluster has.
    pub fn bindings(&self) -> usize {
        self.bindings.len()
    }

    /// How many Roles and ClusterRoles the cluster has.
    pub fn roles(&self) -> usize {
        self.roles
    }

    /// How many objects were skipped because they could not be read.
    pub fn malformed(&self) -> usize {
        self.malformed
    }

    /// The postings of the user's name and of each of its groups.
    pub(super) fn postings<'s>(&'s self, user: &'s User) -> impl Iterator<Item = &'s Postings> + 's {
        let by_user = self.by_user.get(&user.name);
        by_user.into_iter().chain(user.groups.iter().filter_map(|g| self.by_group.get(g)))
    }

    /// Whether the binding at `index` allows the request (wherever it applies).
    pub(super) fn allows_by(&self, index: usize, req: &Request<'_>) -> bool {
        self.bindings.get(index).is_some_and(|b| b.allows(req))
    }

    /// The first binding, in binding order, among `candidates` that `allows`.
    fn first_allowing(&self, mut candidates: Vec<usize>, allows: impl Fn(&Binding) -> bool) -> Decision<'_> {
        candidates.sort_unstable();
        candidates.dedup();
        candidates
            .into_iter()
            .filter_map(|i| self.bindings.get(i))
            .find(|b| allows(b))
            .map_or(Decision::Denied, |by| Decision::Allowed { by })
    }
}

/// Collects objects, then resolves and indexes them ([`ClusterRbac::from_objects`], `load`).
#[derive(Debug, Default)]
pub(super) struct Builder {
    roles: HashMap<(String, String), Arc<[Rule]>>,
    cluster_roles: HashMap<String, Arc<[Rule]>>,
    /// By (kind, namespace, name): the binding order, one binding per key.
    bindings: BTreeMap<(BindingKind, String, String), BindingObject>,
    malformed: usize,
}

impl Builder {
    /// Adds an object of `kind` read from anything serde_json reads (a tree, a text).
    pub fn add<'de, D>(&mut self, kind: RbacKind, object: D)
    where
        D: Deserializer<'de, Error = serde_json::Error>,
    {
        match Parsed::read(kind, object) {
            Ok(Parsed::Role(RbacKind::Role, r)) => {
                self.roles.insert((r.metadata.namespace, r.metadata.name), r.rules.into());
            }
            Ok(Parsed::Role(_, r)) => {
                self.cluster_roles.insert(r.metadata.name, r.rules.into());
            }
            Ok(Parsed::Binding(kind, b)) => {
                let (kind, namespace) = match kind {
                    RbacKind::RoleBinding => (BindingKind::RoleBinding, b.metadata.namespace.clone()),
                    _ => (BindingKind::ClusterRoleBinding, String::new()),
                };
                self.bindings.insert((kind, namespace, b.metadata.name.clone()), b);
            }
            Err(error) => {
                tracing::debug!(%kind, %error, "skipping an RBAC object that cannot be read");
                self.malformed += 1;
            }
        }
    }

    /// Keeps only the bindings whose annotations `keep` accepts.
    pub fn retain_bindings(&mut self, keep: impl Fn(&BTreeMap<String, String>) -> bool) {
        self.bindings.retain(|_, b| keep(&b.metadata.annotations));
    }

    /// Resolves every binding's role and indexes the bindings by subject.
    pub fn build(self) -> ClusterRbac {
        let none: Arc<[Rule]> = Arc::from(Vec::new());
        let mut rbac = ClusterRbac {
            roles: self.roles.len() + self.cluster_roles.len(),
            malformed: self.malformed,
            ..ClusterRbac::default()
        };
        for ((kind, namespace, name), object) in self.bindings {
            let role_ref = RoleRef { kind: object.role_ref.kind, name: object.role_ref.name };
            // As `GetRoleReferenceRules`: a Role of the binding's own namespace (never one of a
            // ClusterRoleBinding, whose namespace is empty), a ClusterRole, or nothing.
            let rules = match (role_ref.kind.as_str(), kind) {
                ("Role", BindingKind::RoleBinding) => {
                    self.roles.get(&(namespace.clone(), role_ref.name.clone())).cloned()
                }
                ("ClusterRole", _) => self.cluster_roles.get(&role_ref.name).cloned(),
                _ => None,
            };
            let binding =
                Binding { kind, namespace, name, role_ref, rules: rules.unwrap_or_else(|| none.clone()) };
            let index = rbac.bindings.len();
            for subject in &object.subjects {
                let postings = match subject_key(subject, &binding) {
                    Some(SubjectKey::User(user)) => rbac.by_user.entry(user).or_default(),
                    Some(SubjectKey::Group(group)) => rbac.by_group.entry(group.to_string()).or_default(),
                    None => continue,
                };
                postings.add(&binding, index);
            }
            rbac.bindings.push(binding);
        }
        rbac
    }
}

/// What a subject matches a caller by.
enum SubjectKey<'a> {
    /// The caller's user name.
    User(String),
    /// One of the caller's groups.
    Group(&'a str),
}

/// As `appliesToUser`: a `User` by name, a `Group` by membership, a `ServiceAccount` by its
/// user name, its namespace defaulting to the RoleBinding's (a ClusterRoleBinding's
/// ServiceAccount without a namespace matches nobody); any other kind matches nobody.
fn subject_key<'a>(subject: &'a SubjectObject, binding: &Binding) -> Option<SubjectKey<'a>> {
    match subject.kind.as_str() {
        "User" => Some(SubjectKey::User(subject.name.clone())),
        "Group" => Some(SubjectKey::Group(&subject.name)),
        "ServiceAccount" => {
            let namespace =
                if subject.namespace.is_empty() { &binding.namespace } else { &subject.namespace };
            (!namespace.is_empty())
                .then(|| SubjectKey::User(format!("{SERVICE_ACCOUNT_PREFIX}{namespace}:{}", subject.name)))
        }
        _ => None,
    }
}
