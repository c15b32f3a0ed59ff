//! Group/version/resource: the name of one resource type.
//!
//! Three layers, parsed at the edge:
//! - [`Gvr`] is a fully qualified resource type, the key the store and the watchers use;
//! - [`GvrSpec`] is what a user typed (`apps/v1/deployments`, `deploy`, …), parsed but not yet
//!   checked against any cluster;
//! - [`ResourceCatalog`] holds discovery data and turns a [`GvrSpec`] into the [`ResourceInfo`] it
//!   names, or into an error that lists the candidates.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The resource metrics API group (metrics-server): never synced, read live from the members
/// that serve it.
pub const METRICS_GROUP: &str = "metrics.k8s.io";
/// The version of [`METRICS_GROUP`] that is served.
pub const METRICS_VERSION: &str = "v1beta1";

/// API groups never synced, whatever the configuration says: their resources are virtual
/// (metrics) or create-only reviews (authentication, authorization).
pub const DEFAULT_EXCLUDED_GROUPS: &[&str] =
    &["metrics.k8s.io", "authentication.k8s.io", "authorization.k8s.io"];

/// Resources never synced: `bindings` is create-only and `componentstatuses` is deprecated and
/// cannot be watched.
pub const DEFAULT_EXCLUDED_RESOURCES: &[&str] = &["bindings", "componentstatuses"];

/// How many candidates an [`GvrError::Unknown`] lists at most.
const MAX_CANDIDATES: usize = 5;

/// Why a resource type could not be parsed or resolved. No variant is retryable as such, except
/// that [`GvrError::Unknown`] may succeed later once discovery has seen a newly installed CRD.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GvrError {
    /// The resource type was the empty string.
    #[error("empty resource type: expected e.g. v1/pods, apps/v1/deployments or pods")]
    Empty,
    /// The input is not in any of the accepted forms (bad characters, empty segments, too many
    /// slashes, uppercase group, missing resource, …).
    #[error("invalid resource type {input:?}: {reason}")]
    Malformed {
        /// The input as given.
        input: String,
        /// What is wrong with it, in a few words.
        reason: String,
    },
    /// A fully qualified `group/version/resource` was required but a bare name was given.
    #[error(
        "resource type {input:?} has no API version: expected group/version/resource, e.g. apps/v1/deployments"
    )]
    NotExplicit {
        /// The input as given.
        input: String,
    },
    /// No known resource type matches. May succeed after the next discovery if a CRD is being
    /// installed.
    #[error("unknown resource type {name:?}{}", candidates_suffix("did you mean", .candidates))]
    Unknown {
        /// The name or GVR as given.
        name: String,
        /// Close matches in canonical GVR form (`apps/v1/deployments`), best first, at most 5.
        candidates: Vec<String>,
    },
    /// Several resource types match a bare name and none is preferred.
    #[error("resource type {name:?} is ambiguous{}", candidates_suffix("use one of", .candidates))]
    Ambiguous {
        /// The name as given.
        name: String,
        /// Every match in canonical GVR form, sorted.
        candidates: Vec<String>,
    },
}

impl GvrError {
    /// The candidates an error lists, empty for syntax errors.
    pub fn candidates(&self) -> &[String] {
        match self {
            Self::Unknown { candidates, .. } | Self::Ambiguous { candidates, .. } => candidates,
            Self::Empty | Self::Malformed { .. } | Self::NotExplicit { .. } => &[],
        }
    }

    fn malformed(input: &str, reason: impl Into<String>) -> Self {
        Self::Malformed { input: input.to_owned(), reason: reason.into() }
    }
}

fn candidates_suffix(lead: &str, candidates: &[String]) -> String {
    if candidates.is_empty() { String::new() } else { format!("; {lead}: {}", candidates.join(", ")) }
}

/// Result of GVR parsing and resolution.
pub type Result<T, E = GvrError> = std::result::Result<T, E>;

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

    /// Whether this is a type of the core (legacy, `""`) group.
    pub fn is_core(&self) -> bool {
        self.group.is_empty()
    }

    /// Parses any form of the type syntax. Forms with a recognisable version (`v1/pods`,
    /// `core/v1/pods`, `apps.v1.deployments`, `v1/apps/deployments`, …) become
    /// [`GvrSpec::Explicit`]; everything else that is well formed is a [`GvrSpec::Name`] to be
    /// resolved through discovery. Same as [`GvrSpec::parse`].
    pub fn parse_explicit(input: &str) -> Result<GvrSpec> {
        GvrSpec::parse(input)
    }
}

impl fmt::Display for Gvr {
    /// Canonical form `group/version/resource`, `v1/pods` for the core group.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.api_version(), self.resource)
    }
}

impl FromStr for Gvr {
    type Err = GvrError;

    /// Accepts only the explicit forms; a bare name is [`GvrError::NotExplicit`].
    fn from_str(input: &str) -> Result<Self> {
        match GvrSpec::parse(input)? {
            GvrSpec::Explicit(gvr) => Ok(gvr),
            GvrSpec::Name(_) => Err(GvrError::NotExplicit { input: input.to_owned() }),
        }
    }
}

/// Longest resource type accepted (a DNS subdomain group, a version and a resource name fit).
pub const MAX_GVR_LEN: usize = 253;

/// A resource type as a user wrote it, syntactically valid but not yet resolved.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GvrSpec {
    /// Group, version and resource were all given (`apps/v1/deployments`, `v1.pods`, …).
    Explicit(Gvr),
    /// A bare name: plural, singular, short name or kind, possibly with a `.group` suffix
    /// (`pods`, `po`, `Deployment`, `deployments.apps`). Kept as typed.
    Name(String),
}

impl GvrSpec {
    /// Parses any form of the type syntax; see [`Gvr::parse_explicit`] for the forms.
    pub fn parse(input: &str) -> Result<Self> {
        if input.is_empty() {
            return Err(GvrError::Empty);
        }
        if input.len() > MAX_GVR_LEN {
            let shown: String = input.chars().take(40).collect();
            return Err(GvrError::malformed(
                &format!("{shown}…"),
                format!("{} characters long; at most {MAX_GVR_LEN} are allowed", input.len()),
            ));
        }
        if input.chars().any(char::is_whitespace) {
            return Err(GvrError::malformed(input, "contains whitespace"));
        }
        if let Some(c) = input.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '/')))
        {
            return Err(GvrError::malformed(input, format!("invalid character {c:?}")));
        }
        if input.contains('/') { parse_slashed(input) } else { parse_dotted(input) }
    }

    /// The GVR when it was given in full.
    pub fn as_explicit(&self) -> Option<&Gvr> {
        match self {
            Self::Explicit(gvr) => Some(gvr),
            Self::Name(_) => None,
        }
    }
}

impl FromStr for GvrSpec {
    type Err = GvrError;

    fn from_str(input: &str) -> Result<Self> {
        Self::parse(input)
    }
}

impl fmt::Display for GvrSpec {
    /// The canonical GVR for explicit specs, the name as typed otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Explicit(gvr) => gvr.fmt(f),
            Self::Name(name) => f.write_str(name),
        }
    }
}

/// `version/resource`, `group/version/resource`, the Go project's README's
/// `version/group/resource` or its CLI's `version.group/resource` (empty group: core).
fn parse_slashed(input: &str) -> Result<GvrSpec> {
    let segments: Vec<&str> = input.split('/').collect();
    if segments.len() > 3 {
        return Err(GvrError::malformed(input, "too many '/': expected group/version/resource"));
    }
    if segments.iter().any(|s| s.is_empty()) {
        return Err(GvrError::malformed(input, "empty segment"));
    }
    match segments.as_slice() {
        [version, resource] if is_version(version) => explicit(input, "", version, resource),
        // The Go project's CLI's `version.group/resource` (`v1./configmaps`,
        // `v1.apps/deployments`).
        [version_group, resource] if version_group.split_once('.').is_some_and(|(v, _)| is_version(v)) => {
            let (version, group) = version_group.split_once('.').unwrap_or_default();
            explicit(input, group, version, resource)
        }
        [_, last] if is_version(last) => {
            Err(GvrError::malformed(input, "missing resource after the version, e.g. apps/v1/deployments"))
        }
        [group, version, resource] if is_version(version) => explicit(input, group, version, resource),
        // The Go project's README's version-first form: v1/apps/deployments.
        [version, group, resource] if is_version(version) => explicit(input, group, version, resource),
        _ => Err(GvrError::malformed(
            input,
            "no API version (like v1 or v1beta1): expected group/version/resource or a bare name",
        )),
    }
}

/// `v1.pods`, `apps.v1.deployments`, `networking.k8s.io.v1.ingresses` (read from the right),
/// or a bare name such as `deployments.apps`.
fn parse_dotted(input: &str) -> Result<GvrSpec> {
    let segments: Vec<&str> = input.split('.').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err(GvrError::malformed(input, "empty segment"));
    }
    let n = segments.len();
    if n >= 2 && is_version(segments[n - 2]) {
        let group = segments[..n - 2].join(".");
        return explicit(input, &group, segments[n - 2], segments[n - 1]);
    }
    if is_version(segments[n - 1]) {
        return Err(GvrError::malformed(
            input,
            "ends with an API version: expected e.g. apps.v1.deployments",
        ));
    }
    Ok(GvrSpec::Name(input.to_owned()))
}

fn explicit(input: &str, group: &str, version: &str, resource: &str) -> Result<GvrSpec> {
    let group = if group == "core" { "" } else { group };
    if group.chars().any(|c| c.is_ascii_uppercase()) {
        return Err(GvrError::malformed(input, format!("group {group:?} must be lowercase")));
    }
    if group.split('.').any(str::is_empty) && !group.is_empty() {
        return Err(GvrError::malformed(input, "empty segment in group"));
    }
    if !resource.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') {
        return Err(GvrError::malformed(
            input,
            format!("resource {resource:?} must be a lowercase plural such as deployments"),
        ));
    }
    Ok(GvrSpec::Explicit(Gvr::new(group, version, resource)))
}

/// Kubernetes API version: `v\d+((alpha|beta)\d+)?`.
fn is_version(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else { return false };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let rest = &rest[digits..];
    if rest.is_empty() {
        return true;
    }
    match rest.strip_prefix("alpha").or_else(|| rest.strip_prefix("beta")) {
        Some(tail) => !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()),
        None => false,
    }
}

/// Discovery data for one resource type (preferred version of its group).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    /// API group, `""` for the core group.
    pub group: String,
    /// The group's preferred version.
    pub version: String,
    /// Plural resource name, e.g. `deployments`.
    pub resource: String,
    /// Singular name, e.g. `deployment`; may be empty in older discovery documents.
    #[serde(default)]
    pub singular: String,
    /// Kind of the objects, e.g. `Deployment`.
    pub kind: String,
    /// Short names, e.g. `deploy`.
    #[serde(default)]
    pub short_names: Vec<String>,
    /// Whether objects live in namespaces.
    pub namespaced: bool,
    /// Supported verbs, e.g. `list`, `watch`.
    #[serde(default)]
    pub verbs: Vec<String>,
    /// The categories the type belongs to, e.g. `all` (what `kubectl get all` lists).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
}

impl ResourceInfo {
    /// Every resource of an aggregated discovery document (`/api` or `/apis`), each with whether
    /// its version is the group's preferred one (versions come sorted by preference).
    pub fn from_discovery(
        list: kube::core::discovery::v2::APIGroupDiscoveryList,
    ) -> Vec<(ResourceInfo, bool)> {
        let mut out = Vec::new();
        for group in list.items {
            let group_name = group.metadata.and_then(|m| m.name).unwrap_or_default();
            for (rank, version) in group.versions.into_iter().enumerate() {
                let version_name = version.version.unwrap_or_default();
                for r in version.resources {
                    let Some(resource) = r.resource else { continue };
                    let kind = r.response_kind.and_then(|k| k.kind).unwrap_or_default();
                    let info = ResourceInfo {
                        group: group_name.clone(),
                        version: version_name.clone(),
                        singular: r.singular_resource.unwrap_or_else(|| kind.to_ascii_lowercase()),
                        resource,
                        kind,
                        short_names: r.short_names,
                        namespaced: r.scope.as_deref() == Some("Namespaced"),
                        verbs: r.verbs,
                        categories: r.categories,
                    };
                    out.push((info, rank == 0));
                }
            }
        }
        out
    }

    /// The fully qualified type.
    pub fn gvr(&self) -> Gvr {
        Gvr::new(&self.group, &self.version, &self.resource)
    }

    /// Whether the type can be synced: it supports both `list` and `watch`.
    pub fn is_syncable(&self) -> bool {
        self.has_verb("list") && self.has_verb("watch")
    }

    /// Whether the type is excluded from syncing, by the defaults
    /// ([`DEFAULT_EXCLUDED_GROUPS`], [`DEFAULT_EXCLUDED_RESOURCES`]) or by the extra lists given.
    /// A resource entry is either a plural (`bindings`, any group) or `plural.group`
    /// (`events.events.k8s.io`).
    pub fn is_excluded<S: AsRef<str>>(&self, extra_groups: &[S], extra_resources: &[S]) -> bool {
        let group_hit = |g: &str| g == self.group;
        let resource_hit = |r: &str| {
            r == self.resource
                || (!self.group.is_empty()
                    && r.strip_prefix(self.resource.as_str())
                        .and_then(|rest| rest.strip_prefix('.'))
                        .is_some_and(|g| g == self.group))
        };
        DEFAULT_EXCLUDED_GROUPS.iter().any(|g| group_hit(g))
            || extra_groups.iter().any(|g| group_hit(g.as_ref()))
            || DEFAULT_EXCLUDED_RESOURCES.iter().any(|r| resource_hit(r))
            || extra_resources.iter().any(|r| resource_hit(r.as_ref()))
    }

    /// Whether the type belongs to `category` (`all`), as its discovery says.
    pub fn in_category(&self, category: &str) -> bool {
        self.categories.iter().any(|c| c == category)
    }

    fn has_verb(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }

    /// Names this type answers to, lowercase: plural, singular, kind, short names.
    fn names(&self) -> impl Iterator<Item = String> + '_ {
        [self.resource.clone(), self.singular.clone(), self.kind.to_ascii_lowercase()]
            .into_iter()
            .chain(self.short_names.iter().map(|s| s.to_ascii_lowercase()))
            .filter(|s| !s.is_empty())
    }
}

/// Discovery data of one cluster (or the union of several): one [`ResourceInfo`] per resource
/// type, in the preferred version of its group. Serialized as a plain JSON array.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ResourceCatalog {
    resources: Vec<ResourceInfo>,
}

impl ResourceCatalog {
    /// Builds a catalog from discovery data.
    pub fn new(resources: Vec<ResourceInfo>) -> Self {
        Self { resources }
    }

    /// Every resource type, in discovery order.
    pub fn resources(&self) -> &[ResourceInfo] {
        &self.resources
    }

    /// Iterates over every resource type.
    pub fn iter(&self) -> std::slice::Iter<'_, ResourceInfo> {
        self.resources.iter()
    }

    /// Number of resource types.
    pub fn len(&self) -> usize {
        self.resources.len()
    }

    /// Whether the catalog holds no resource type.
    pub fn is_empty(&self) -> bool {
        self.resources.is_empty()
    }

    /// The resource type with exactly this group, version and resource.
    pub fn get(&self, gvr: &Gvr) -> Option<&ResourceInfo> {
        self.resources
            .iter()
            .find(|r| r.group == gvr.group && r.version == gvr.version && r.resource == gvr.resource)
    }

    /// Parses and resolves in one step.
    pub fn resolve_str(&self, input: &str) -> Result<&ResourceInfo> {
        self.resolve(&GvrSpec::parse(input)?)
    }

    /// Resolves a spec to the resource type it names.
    ///
    /// An explicit GVR must be in the catalog as given. A bare name is matched, case-insensitively,
    /// in three tiers, the first tier with a match deciding: (1) plural or `plural.group`;
    /// (2) singular, kind, `singular.group` or `kind.group`; (3) short names. Within a tier a single
    /// match wins; among several, a single match in the core group wins (kubectl's choice for
    /// `events`); otherwise the name is [`GvrError::Ambiguous`].
    pub fn resolve(&self, spec: &GvrSpec) -> Result<&ResourceInfo> {
        match spec {
            GvrSpec::Explicit(gvr) => self.get(gvr).ok_or_else(|| GvrError::Unknown {
                name: gvr.to_string(),
                candidates: self.suggest(&gvr.resource, Some(gvr)),
            }),
            GvrSpec::Name(name) => self.resolve_name(name),
        }
    }

    fn resolve_name(&self, name: &str) -> Result<&ResourceInfo> {
        let wanted = name.to_ascii_lowercase();
        // `plural.group`, `kind.group`, …: the group must match exactly.
        let qualified = |base: &str, r: &ResourceInfo| {
            !r.group.is_empty()
                && !base.is_empty()
                && wanted
                    .strip_prefix(base)
                    .and_then(|rest| rest.strip_prefix('.'))
                    .is_some_and(|g| g == r.group)
        };
        let tiers: [&dyn Fn(&ResourceInfo) -> bool; 3] = [
            &|r| r.resource == wanted || qualified(&r.resource, r),
            &|r| {
                let kind = r.kind.to_ascii_lowercase();
                (!r.singular.is_empty() && r.singular == wanted)
                    || kind == wanted
                    || qualified(&r.singular, r)
                    || qualified(&kind, r)
            },
            &|r| r.short_names.iter().any(|s| s.eq_ignore_ascii_case(&wanted)),
        ];
        for matches_tier in tiers {
            let matches: Vec<&ResourceInfo> = self.resources.iter().filter(|r| matches_tier(r)).collect();
            match matches.as_slice() {
                [] => continue,
                [only] => return Ok(*only),
                several => {
                    let core: Vec<&&ResourceInfo> = several.iter().filter(|r| r.group.is_empty()).collect();
                    if let [only] = core.as_slice() {
                        return Ok(**only);
                    }
                    let mut candidates: Vec<String> = several.iter().map(|r| r.gvr().to_string()).collect();
                    candidates.sort();
                    candidates.dedup();
                    return Err(GvrError::Ambiguous { name: name.to_owned(), candidates });
                }
            }
        }
        let needle = wanted.split('.').next().unwrap_or_default();
        Err(GvrError::Unknown { name: name.to_owned(), candidates: self.suggest(needle, None) })
    }

    /// Up to [`MAX_CANDIDATES`] close names: same group and resource in another version first, then
    /// names within edit distance 2, then names that start with or contain the needle.
    fn suggest(&self, needle: &str, explicit: Option<&Gvr>) -> Vec<String> {
        let needle = needle.to_ascii_lowercase();
        let mut scored: Vec<(usize, bool, String)> = self
            .resources
            .iter()
            .filter_map(|r| {
                let same_type = explicit.is_some_and(|g| g.group == r.group && g.resource == r.resource);
                let score = if same_type {
                    Some(0)
                } else {
                    r.names().filter_map(|name| closeness(&needle, &name)).min()
                };
                score.map(|s| (s, !r.group.is_empty(), r.gvr().to_string()))
            })
            .collect();
        scored.sort();
        let mut out: Vec<String> = Vec::new();
        for (_, _, gvr) in scored {
            if !out.contains(&gvr) {
                out.push(gvr);
            }
            if out.len() == MAX_CANDIDATES {
                break;
            }
        }
        out
    }
}

/// Lower is closer; `None` is not a candidate.
fn closeness(needle: &str, name: &str) -> Option<usize> {
    // Lengths that differ by more than 2 cannot be within distance 2: no quadratic work for a
    // long or hostile input.
    let distance = if needle.chars().count().abs_diff(name.chars().count()) <= 2 {
        edit_distance(needle, name)
    } else {
        3
    };
    if distance <= 2 {
        Some(distance + 1)
    } else if name.starts_with(needle) {
        Some(4)
    } else if needle.len() >= 2 && name.contains(needle) {
        Some(5)
    } else {
        None
    }
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = Vec::with_capacity(b.len() + 1);
        current.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

impl<'a> IntoIterator for &'a ResourceCatalog {
    type Item = &'a ResourceInfo;
    type IntoIter = std::slice::Iter<'a, ResourceInfo>;

    fn into_iter(self) -> Self::IntoIter {
        self.resources.iter()
    }
}

impl FromIterator<ResourceInfo> for ResourceCatalog {
    fn from_iter<I: IntoIterator<Item = ResourceInfo>>(iter: I) -> Self {
        Self::new(iter.into_iter().collect())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn explicit(input: &str) -> Gvr {
        match GvrSpec::parse(input) {
            Ok(GvrSpec::Explicit(gvr)) => gvr,
            other => panic!("{input}: expected an explicit GVR, got {other:?}"),
        }
    }

    fn name(input: &str) -> String {
        match GvrSpec::parse(input) {
            Ok(GvrSpec::Name(name)) => name,
            other => panic!("{input}: expected a bare name, got {other:?}"),
        }
    }

    fn malformed_reason(input: &str) -> String {
        match GvrSpec::parse(input) {
            Err(GvrError::Malformed { reason, .. }) => reason,
            other => panic!("{input}: expected Malformed, got {other:?}"),
        }
    }

    fn info(group: &str, version: &str, resource: &str, kind: &str, short: &[&str]) -> ResourceInfo {
        ResourceInfo {
            group: group.into(),
            version: version.into(),
            resource: resource.into(),
            singular: kind.to_ascii_lowercase(),
            kind: kind.into(),
            short_names: short.iter().map(|s| s.to_string()).collect(),
            namespaced: true,
            verbs: ["create", "delete", "get", "list", "patch", "update", "watch"].map(String::from).to_vec(),
            categories: Vec::new(),
        }
    }

    fn catalog() -> ResourceCatalog {
        ResourceCatalog::new(vec![
            info("", "v1", "pods", "Pod", &["po"]),
            info("", "v1", "podtemplates", "PodTemplate", &[]),
            info("", "v1", "services", "Service", &["svc"]),
            info("", "v1", "configmaps", "ConfigMap", &["cm"]),
            info("", "v1", "events", "Event", &["ev"]),
            info("", "v1", "nodes", "Node", &["no"]),
            info("apps", "v1", "deployments", "Deployment", &["deploy"]),
            info("apps", "v1", "daemonsets", "DaemonSet", &["ds"]),
            info("batch", "v1", "jobs", "Job", &[]),
            info("events.k8s.io", "v1", "events", "Event", &["ev"]),
            info("networking.k8s.io", "v1", "ingresses", "Ingress", &["ing"]),
            info("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", &["hpa"]),
            info("example.com", "v1", "widgets", "Widget", &["wd"]),
            info("other.example.org", "v1beta1", "widgets", "Widget", &[]),
        ])
    }

    #[test]
    fn version_slash_resource_is_a_core_gvr() {
        assert_eq!(explicit("v1/pods"), Gvr::new("", "v1", "pods"));
    }

    #[test]
    fn core_prefix_means_the_empty_group() {
        assert_eq!(explicit("core/v1/pods"), Gvr::new("", "v1", "pods"));
        assert_eq!(explicit("core.v1.pods"), Gvr::new("", "v1", "pods"));
    }

    #[test]
    fn group_version_resource_forms_parse() {
        assert_eq!(explicit("apps/v1/deployments"), Gvr::new("apps", "v1", "deployments"));
        assert_eq!(explicit("batch/v1/jobs"), Gvr::new("batch", "v1", "jobs"));
        assert_eq!(
            explicit("networking.k8s.io/v1/ingresses"),
            Gvr::new("networking.k8s.io", "v1", "ingresses")
        );
    }

    #[test]
    fn dot_forms_are_parsed_from_the_right() {
        assert_eq!(explicit("v1.pods"), Gvr::new("", "v1", "pods"));
        assert_eq!(explicit("apps.v1.deployments"), Gvr::new("apps", "v1", "deployments"));
        assert_eq!(
            explicit("networking.k8s.io.v1.ingresses"),
            Gvr::new("networking.k8s.io", "v1", "ingresses")
        );
    }

    #[test]
    fn the_go_projects_version_first_form_parses() {
        assert_eq!(explicit("v1/apps/deployments"), Gvr::new("apps", "v1", "deployments"));
        assert_eq!(explicit("v1/core/pods"), Gvr::new("", "v1", "pods"));
    }

    #[test]
    fn the_go_projects_cli_version_dot_group_form_parses() {
        assert_eq!(explicit("v1./configmaps"), Gvr::new("", "v1", "configmaps"));
        assert_eq!(explicit("v1.apps/deployments"), Gvr::new("apps", "v1", "deployments"));
        assert_eq!(
            explicit("v1.networking.k8s.io/ingresses"),
            Gvr::new("networking.k8s.io", "v1", "ingresses")
        );
        assert_eq!(explicit("v1beta1.core/pods"), Gvr::new("", "v1beta1", "pods"));
        assert!(GvrSpec::parse("v1.apps/").is_err());
        assert!(GvrSpec::parse("x1./configmaps").is_err());
    }

    #[test]
    fn alpha_and_beta_versions_are_recognised() {
        assert_eq!(
            explicit("mulitcluster.practice.com/v1alpha1/multiclusterresources"),
            Gvr::new("mulitcluster.practice.com", "v1alpha1", "multiclusterresources")
        );
        assert_eq!(explicit("example.com.v2beta3.widgets"), Gvr::new("example.com", "v2beta3", "widgets"));
    }

    #[test]
    fn version_lookalikes_are_not_versions() {
        for s in ["v", "v1alpha", "v1beta", "v1gamma1", "vx", "V1", "1", "v1alpha1x"] {
            assert!(!is_version(s), "{s}");
        }
        for s in ["v1", "v2", "v10", "v1alpha1", "v2beta12"] {
            assert!(is_version(s), "{s}");
        }
    }

    #[test]
    fn names_without_a_version_are_bare_names() {
        for n in
            ["pods", "po", "deploy", "Deployment", "deployments.apps", "pod", "ingresses.networking.k8s.io"]
        {
            assert_eq!(name(n), n);
        }
    }

    #[test]
    fn a_group_that_contains_a_version_like_label_stays_a_name_when_not_second_to_last() {
        assert_eq!(name("widgets.v1.example.com"), "widgets.v1.example.com");
    }

    #[test]
    fn empty_input_is_its_own_error() {
        assert_eq!(GvrSpec::parse(""), Err(GvrError::Empty));
    }

    #[test]
    fn whitespace_is_rejected() {
        assert_eq!(malformed_reason("v1/ pods"), "contains whitespace");
        assert_eq!(malformed_reason(" pods"), "contains whitespace");
    }

    #[test]
    fn empty_segments_are_rejected() {
        assert_eq!(malformed_reason("apps//deployments"), "empty segment");
        assert_eq!(malformed_reason("/v1/pods"), "empty segment");
        assert_eq!(malformed_reason("v1/pods/"), "empty segment");
        assert_eq!(malformed_reason("apps..v1.deployments"), "empty segment");
        assert_eq!(malformed_reason(".pods"), "empty segment");
    }

    #[test]
    fn too_many_slashes_are_rejected() {
        assert!(malformed_reason("a/b/v1/pods").contains("too many '/'"));
    }

    #[test]
    fn uppercase_in_an_explicit_group_is_rejected() {
        assert!(malformed_reason("Apps/v1/deployments").contains("must be lowercase"));
        assert!(malformed_reason("Apps.v1.deployments").contains("must be lowercase"));
    }

    #[test]
    fn explicit_resource_must_be_a_lowercase_plural() {
        assert!(malformed_reason("apps/v1/Deployment").contains("lowercase plural"));
    }

    #[test]
    fn invalid_characters_are_named() {
        assert_eq!(malformed_reason("pods!"), "invalid character '!'");
        assert_eq!(malformed_reason("v1/po_ds"), "invalid character '_'");
    }

    #[test]
    fn a_group_version_without_resource_is_rejected() {
        assert!(malformed_reason("apps/v1").contains("missing resource"));
        assert!(malformed_reason("apps.v1").contains("ends with an API version"));
        assert!(malformed_reason("v1").contains("ends with an API version"));
    }

    #[test]
    fn slashed_input_without_a_version_is_rejected() {
        assert!(malformed_reason("apps/deployments").contains("no API version"));
        assert!(malformed_reason("a/b/c").contains("no API version"));
    }

    #[test]
    fn errors_are_one_line_and_quote_the_input() {
        let err = GvrSpec::parse("apps//deployments").unwrap_err();
        assert_eq!(err.to_string(), "invalid resource type \"apps//deployments\": empty segment");
        let err = GvrSpec::parse("a\nb").unwrap_err();
        assert!(!err.to_string().contains('\n'));
    }

    #[test]
    fn display_gives_the_canonical_form() {
        assert_eq!(explicit("core.v1.pods").to_string(), "v1/pods");
        assert_eq!(explicit("v1/apps/deployments").to_string(), "apps/v1/deployments");
        assert_eq!(GvrSpec::parse("deploy").unwrap().to_string(), "deploy");
    }

    #[test]
    fn gvr_from_str_requires_a_version() {
        assert_eq!("apps/v1/deployments".parse::<Gvr>().unwrap(), Gvr::new("apps", "v1", "deployments"));
        assert_eq!("pods".parse::<Gvr>(), Err(GvrError::NotExplicit { input: "pods".into() }));
    }

    #[test]
    fn parse_explicit_accepts_every_form() {
        assert_eq!(Gvr::parse_explicit("v1/pods").unwrap().as_explicit(), Some(&Gvr::new("", "v1", "pods")));
        assert_eq!(Gvr::parse_explicit("po").unwrap(), GvrSpec::Name("po".into()));
    }

    #[test]
    fn api_version_omits_the_core_group() {
        assert_eq!(Gvr::new("", "v1", "pods").api_version(), "v1");
        assert_eq!(Gvr::new("apps", "v1", "deployments").api_version(), "apps/v1");
        assert!(Gvr::new("", "v1", "pods").is_core());
    }

    fn resolved(input: &str) -> String {
        catalog().resolve_str(input).map(|r| r.gvr().to_string()).unwrap()
    }

    #[test]
    fn explicit_gvrs_resolve_when_in_the_catalog() {
        assert_eq!(resolved("v1/pods"), "v1/pods");
        assert_eq!(resolved("v1/apps/deployments"), "apps/v1/deployments");
        assert_eq!(resolved("networking.k8s.io.v1.ingresses"), "networking.k8s.io/v1/ingresses");
    }

    #[test]
    fn an_explicit_gvr_in_another_version_suggests_the_preferred_one() {
        let err = catalog().resolve_str("autoscaling/v1/horizontalpodautoscalers").unwrap_err();
        assert_eq!(err.candidates()[0], "autoscaling/v2/horizontalpodautoscalers");
        assert!(
            matches!(err, GvrError::Unknown { ref name, .. } if name == "autoscaling/v1/horizontalpodautoscalers")
        );
    }

    #[test]
    fn an_explicit_gvr_in_a_retired_group_suggests_the_same_resource_elsewhere() {
        let err = catalog().resolve_str("extensions/v1beta1/ingresses").unwrap_err();
        assert_eq!(err.candidates()[0], "networking.k8s.io/v1/ingresses");
    }

    #[test]
    fn bare_names_resolve_by_plural_singular_short_name_and_kind() {
        assert_eq!(resolved("pods"), "v1/pods");
        assert_eq!(resolved("pod"), "v1/pods");
        assert_eq!(resolved("po"), "v1/pods");
        assert_eq!(resolved("deploy"), "apps/v1/deployments");
        assert_eq!(resolved("Deployment"), "apps/v1/deployments");
        assert_eq!(resolved("deployment"), "apps/v1/deployments");
        assert_eq!(resolved("HPA"), "autoscaling/v2/horizontalpodautoscalers");
    }

    #[test]
    fn bare_names_resolve_with_a_group_suffix() {
        assert_eq!(resolved("deployments.apps"), "apps/v1/deployments");
        assert_eq!(resolved("Deployment.apps"), "apps/v1/deployments");
        assert_eq!(resolved("ingresses.networking.k8s.io"), "networking.k8s.io/v1/ingresses");
        assert_eq!(resolved("events.events.k8s.io"), "events.k8s.io/v1/events");
        assert_eq!(resolved("widgets.other.example.org"), "other.example.org/v1beta1/widgets");
    }

    #[test]
    fn singular_without_discovery_singular_falls_back_to_kind() {
        let mut pods = info("", "v1", "pods", "Pod", &[]);
        pods.singular.clear();
        let catalog = ResourceCatalog::new(vec![pods]);
        assert_eq!(catalog.resolve_str("pod").unwrap().resource, "pods");
    }

    #[test]
    fn a_name_with_a_partial_group_suffix_does_not_match() {
        assert!(matches!(catalog().resolve_str("deployments.app"), Err(GvrError::Unknown { .. })));
        assert!(matches!(catalog().resolve_str("ingresses.k8s.io"), Err(GvrError::Unknown { .. })));
    }

    #[test]
    fn non_ascii_names_built_by_hand_do_not_panic() {
        let spec = GvrSpec::Name("pödß.äpps".into());
        assert!(matches!(catalog().resolve(&spec), Err(GvrError::Unknown { .. })));
    }

    #[test]
    fn a_name_in_core_and_another_group_prefers_core() {
        assert_eq!(resolved("events"), "v1/events");
        assert_eq!(resolved("ev"), "v1/events");
        assert_eq!(resolved("Event"), "v1/events");
    }

    #[test]
    fn a_name_in_two_non_core_groups_is_ambiguous_and_lists_both() {
        let err = catalog().resolve_str("widgets").unwrap_err();
        assert_eq!(
            err,
            GvrError::Ambiguous {
                name: "widgets".into(),
                candidates: vec!["example.com/v1/widgets".into(), "other.example.org/v1beta1/widgets".into()],
            }
        );
        assert_eq!(
            err.to_string(),
            "resource type \"widgets\" is ambiguous; use one of: example.com/v1/widgets, other.example.org/v1beta1/widgets"
        );
    }

    #[test]
    fn a_plural_match_beats_a_short_name_elsewhere() {
        let mut catalog = catalog();
        catalog.resources.push(info("example.com", "v1", "gadgets", "Gadget", &["pods"]));
        assert_eq!(catalog.resolve_str("pods").unwrap().gvr().to_string(), "v1/pods");
    }

    #[test]
    fn unknown_names_list_close_candidates() {
        let err = catalog().resolve_str("podz").unwrap_err();
        assert!(matches!(err, GvrError::Unknown { .. }));
        assert_eq!(err.candidates()[0], "v1/pods");
        assert!(err.to_string().starts_with("unknown resource type \"podz\"; did you mean: v1/pods"));
    }

    #[test]
    fn unknown_names_find_candidates_by_prefix_and_substring() {
        let err = catalog().resolve_str("deployment-x").unwrap_err();
        assert_eq!(err.candidates(), ["apps/v1/deployments"]);
        let err = catalog().resolve_str("autoscaler").unwrap_err();
        assert_eq!(err.candidates(), ["autoscaling/v2/horizontalpodautoscalers"]);
        let err = catalog().resolve_str("config").unwrap_err();
        assert_eq!(err.candidates(), ["v1/configmaps"]);
    }

    #[test]
    fn unknown_candidates_are_capped_at_five() {
        let err = catalog().resolve_str("s").unwrap_err();
        assert!(err.candidates().len() <= MAX_CANDIDATES);
    }

    #[test]
    fn an_unknown_name_without_any_close_match_has_a_plain_message() {
        let err = catalog().resolve_str("zzzzzzzz").unwrap_err();
        assert_eq!(err.to_string(), "unknown resource type \"zzzzzzzz\"");
    }

    #[test]
    fn syncable_needs_both_list_and_watch() {
        let mut r = info("", "v1", "pods", "Pod", &[]);
        assert!(r.is_syncable());
        r.verbs = vec!["list".into(), "get".into()];
        assert!(!r.is_syncable());
        r.verbs = vec!["create".into()];
        assert!(!r.is_syncable());
    }

    #[test]
    fn default_exclusions_cover_the_spec_groups_and_resources() {
        let none: &[&str] = &[];
        assert!(info("metrics.k8s.io", "v1beta1", "pods", "PodMetrics", &[]).is_excluded(none, none));
        assert!(info("authorization.k8s.io", "v1", "subjectaccessreviews", "X", &[]).is_excluded(none, none));
        assert!(info("authentication.k8s.io", "v1", "tokenreviews", "X", &[]).is_excluded(none, none));
        assert!(info("", "v1", "bindings", "Binding", &[]).is_excluded(none, none));
        assert!(info("", "v1", "componentstatuses", "ComponentStatus", &["cs"]).is_excluded(none, none));
        assert!(!info("", "v1", "pods", "Pod", &[]).is_excluded(none, none));
    }

    #[test]
    fn configured_exclusions_add_to_the_defaults() {
        let groups = ["example.com".to_string()];
        let resources = ["events.events.k8s.io".to_string(), "leases".to_string()];
        assert!(info("example.com", "v1", "widgets", "Widget", &[]).is_excluded(&groups, &resources));
        assert!(info("events.k8s.io", "v1", "events", "Event", &[]).is_excluded(&groups, &resources));
        assert!(!info("", "v1", "events", "Event", &[]).is_excluded(&groups, &resources));
        assert!(info("coordination.k8s.io", "v1", "leases", "Lease", &[]).is_excluded(&groups, &resources));
        assert!(info("", "v1", "bindings", "Binding", &[]).is_excluded(&groups, &resources));
    }

    #[test]
    fn resource_info_uses_camel_case_json() {
        let json =
            serde_json::to_value(info("apps", "v1", "deployments", "Deployment", &["deploy"])).unwrap();
        assert_eq!(json["shortNames"], serde_json::json!(["deploy"]));
        assert_eq!(json["namespaced"], true);
        let back: ResourceInfo = serde_json::from_value(json).unwrap();
        assert_eq!(back.gvr(), Gvr::new("apps", "v1", "deployments"));
    }

    #[test]
    fn a_catalog_serializes_as_a_plain_array() {
        let catalog: ResourceCatalog = [info("", "v1", "pods", "Pod", &[])].into_iter().collect();
        let json = serde_json::to_value(&catalog).unwrap();
        assert!(json.is_array());
        let back: ResourceCatalog = serde_json::from_value(json).unwrap();
        assert_eq!(back, catalog);
        assert_eq!(back.len(), 1);
        assert!(!back.is_empty());
    }

    #[test]
    fn oversize_types_are_refused_before_any_work_and_not_echoed() {
        let long = "x".repeat(64 * 1024);
        let e = GvrSpec::parse(&long).unwrap_err().to_string();
        assert!(e.contains("at most 253") && e.len() < 200, "{e}");
        assert!(GvrSpec::parse(&"x".repeat(253)).is_ok());
        // An unknown long name finds no candidates, cheaply.
        let catalog = ResourceCatalog::new(vec![]);
        assert!(catalog.resolve_str(&"q".repeat(253)).is_err());
    }

    #[test]
    fn edit_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("pods", "pods"), 0);
        assert_eq!(edit_distance("podz", "pods"), 1);
        assert_eq!(edit_distance("pds", "pods"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
