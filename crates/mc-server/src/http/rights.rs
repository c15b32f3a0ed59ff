//! A request's reads restricted to where its caller may read (see [`crate::access`]): the
//! clusters and namespaces go into the store query itself, and the clusters left out are said in
//! a `Warning`.
//!
//! A list across every namespace answers what the caller may see, as many clusters' partial
//! answers; a request in one namespace, or of one object, that no cluster allows is `403
//! Forbidden`, worded as kube-apiserver words it.

use std::sync::Arc;

use axum::http::StatusCode;
use mc_types::ResourceInfo;

use super::{ApiError, AppState};
use crate::authz::{RBAC_GROUP, Request};
use crate::identity::Caller;
use crate::store::{Allowed, Query as StoreQuery};
use crate::sync::notice::Notice;

/// What a watch needs to follow its caller's rights: who, doing what, to which type.
#[derive(Clone, Debug)]
pub struct Rights {
    /// The caller.
    pub caller: Caller,
    /// `watch`.
    pub verb: &'static str,
    /// The watched type.
    pub info: ResourceInfo,
}

impl Rights {
    /// After a change of a cluster's RBAC objects (`n`), the watch's query restricted anew to
    /// where the caller may now read: a watch stops sending what its caller may no longer see
    /// as soon as the change is synced.
    pub async fn recheck(
        &self,
        state: &AppState,
        n: &Notice,
        query: &mut Arc<StoreQuery>,
    ) -> Result<(), ApiError> {
        if n.gvr.group != RBAC_GROUP || self.caller.reads_everything() {
            return Ok(());
        }
        let mut q = StoreQuery { allowed: None, ..(**query).clone() };
        match restrict(state, &self.caller, self.verb, &self.info, &mut q).await {
            Ok(_) => {}
            // Allowed nowhere any more: nothing is sent.
            Err(e) if e.status == StatusCode::FORBIDDEN => q.allowed = Some(Default::default()),
            Err(e) => return Err(e),
        }
        *query = Arc::new(q);
        Ok(())
    }
}

/// Restricts `query` (of the type `info`) to where `caller` may `verb` it. Returns the
/// `Warning` naming the clusters left out, if any.
pub async fn restrict(
    state: &AppState,
    caller: &Caller,
    verb: &str,
    info: &ResourceInfo,
    query: &mut StoreQuery,
) -> Result<Option<String>, ApiError> {
    if caller.reads_everything() {
        return Ok(None);
    }
    let clusters: Vec<String> = match &query.cluster {
        Some(c) => vec![c.clone()],
        None => state.registry.names(),
    };
    let (allowed, warning) =
        restrict_in(state, caller, verb, info, &clusters, query.namespace.as_deref(), query.name.as_deref())
            .await?;
    query.allowed = allowed;
    Ok(warning)
}

/// Where among `clusters` `caller` may `verb` objects of `info` (in `namespace`, and the
/// object `name`, when given), as [`restrict`] decides it for a store query: `None` is
/// everywhere; with the `Warning` naming the clusters left out. One namespace or one object
/// allowed nowhere is 403.
pub async fn restrict_in(
    state: &AppState,
    caller: &Caller,
    verb: &str,
    info: &ResourceInfo,
    clusters: &[String],
    namespace: Option<&str>,
    name: Option<&str>,
) -> Result<(Option<Allowed>, Option<String>), ApiError> {
    if caller.reads_everything() {
        return Ok((None, None));
    }
    let namespace = if info.namespaced { namespace } else { Some("") };
    let reads = state
        .access
        .reads(caller, verb, info, clusters, namespace, name)
        .await
        .map_err(|e| ApiError::unavailable(format!("{e}; try again")))?;
    // One namespace or one object, allowed nowhere: as the member would answer.
    if reads.nothing() && (namespace.is_some() || name.is_some()) {
        return Err(forbidden(caller, verb, info, namespace, name, clusters));
    }
    let warning = reads.warning(&caller.user.name, verb, &what(info));
    Ok((reads.allowed, warning))
}

/// `group/resource`, or `resource` for the core group.
fn what(info: &ResourceInfo) -> String {
    if info.group.is_empty() { info.resource.clone() } else { format!("{}.{}", info.resource, info.group) }
}

/// kube-apiserver's wording: `pods "web" is forbidden: User "alice" cannot get resource "pods"
/// in API group "" in the namespace "c"`, and in which clusters.
fn forbidden(
    caller: &Caller,
    verb: &str,
    info: &ResourceInfo,
    namespace: Option<&str>,
    name: Option<&str>,
    clusters: &[String],
) -> ApiError {
    let req = Request {
        verb,
        api_group: &info.group,
        resource: &info.resource,
        subresource: "",
        namespace: namespace.unwrap_or_default(),
        name: name.unwrap_or_default(),
    };
    forbidden_request(caller, &req, clusters)
}

/// kube-apiserver's wording of a refused `req` (a subresource as `pods/log`), and in which
/// clusters.
pub fn forbidden_request(caller: &Caller, req: &Request<'_>, clusters: &[String]) -> ApiError {
    let what = if req.api_group.is_empty() {
        req.resource.to_string()
    } else {
        format!("{}.{}", req.resource, req.api_group)
    };
    let subject = match req.name {
        "" => what,
        name => format!("{what} \"{name}\""),
    };
    let place = match req.namespace {
        "" => "at the cluster scope".to_string(),
        ns => format!("in the namespace \"{ns}\""),
    };
    let clusters = match clusters {
        [one] => format!("of cluster \"{one}\""),
        _ => "of any cluster".to_string(),
    };
    let resource = match req.subresource {
        "" => req.resource.to_string(),
        sub => format!("{}/{sub}", req.resource),
    };
    ApiError::new(
        StatusCode::FORBIDDEN,
        format!(
            "{subject} is forbidden: User \"{}\" cannot {} resource \"{resource}\" in API group \"{}\" {place} {clusters}",
            caller.user.name, req.verb, req.api_group
        ),
    )
}

/// The clusters among `clusters` where `caller` may make `req` (one request of one object or
/// subresource, such as `get pods/log`), as each cluster's RBAC decides; every one for a caller
/// that reads everything.
pub async fn allowed_in(
    state: &AppState,
    caller: &Caller,
    req: &Request<'_>,
    clusters: Vec<String>,
) -> Result<Vec<String>, ApiError> {
    if caller.reads_everything() {
        return Ok(clusters);
    }
    let mut allowed = Vec::new();
    for cluster in clusters {
        let rbac = state
            .access
            .rbac(&cluster)
            .await
            .map_err(|e| ApiError::unavailable(format!("{e}; try again")))?;
        if rbac.authorize(&caller.user, req).is_allowed() {
            allowed.push(cluster);
        }
    }
    Ok(allowed)
}

/// The types discovery offers `caller` (of `cluster` only, when given): every built-in
/// Kubernetes type, and each other type (CRDs, aggregated APIs) only where it may list it in
/// some cluster. A built-in type's existence says nothing, and kubectl must know it to answer
/// "No resources found" for `get secrets -A` rather than "the server doesn't have a resource
/// type"; a custom type's name may say more than its caller should learn.
pub async fn catalog(
    state: &AppState,
    caller: &Caller,
    cluster: Option<&str>,
) -> Result<Vec<ResourceInfo>, ApiError> {
    let all = state.registry.catalog();
    if caller.reads_everything() {
        return Ok(all);
    }
    let clusters: Vec<String> = match cluster {
        Some(c) => vec![c.to_string()],
        None => state.registry.names(),
    };
    let mut visible = Vec::new();
    for info in all {
        if built_in(&info) || !lists_in(state, caller, &info, &clusters).await?.is_empty() {
            visible.push(info);
        }
    }
    Ok(visible)
}

/// Whether a type is one of Kubernetes' own (see [`built_in_group`]).
fn built_in(info: &ResourceInfo) -> bool {
    built_in_group(&info.group)
}

/// Whether a group is one of Kubernetes' own: the core group, a group without a dot (`apps`,
/// `batch`, …) or under `k8s.io`, names a CRD may not take without the API reviewers' approval.
pub fn built_in_group(group: &str) -> bool {
    !group.contains('.') || group.ends_with(".k8s.io")
}

/// The clusters where `caller` may list some type.
pub async fn clusters(state: &AppState, caller: &Caller) -> Result<Vec<String>, ApiError> {
    let names = state.registry.names();
    if caller.reads_everything() {
        return Ok(names);
    }
    let mut visible = std::collections::BTreeSet::new();
    for info in state.registry.catalog() {
        visible.extend(lists_in(state, caller, &info, &names).await?);
        if visible.len() == names.len() {
            break;
        }
    }
    Ok(names.into_iter().filter(|n| visible.contains(n)).collect())
}

async fn lists_in(
    state: &AppState,
    caller: &Caller,
    info: &ResourceInfo,
    clusters: &[String],
) -> Result<Vec<String>, ApiError> {
    state
        .access
        .lists_in(caller, info, clusters)
        .await
        .map_err(|e| ApiError::unavailable(format!("{e}; try again")))
}
