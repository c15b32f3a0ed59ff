//! Discovery: `/api`, `/apis`, `/api/v1` and `/apis/{group}/{version}`, built from the union of
//! every cluster's synced types (CRDs included). `/api` and `/apis` answer in the aggregated form
//! (`apidiscovery.k8s.io/v2`, every type in one answer) when the client asks for it, as kubectl
//! does, else in the legacy form client-go and kube-rs also read (see [`negotiate`]). Every type is served
//! read-only: `get`, `list`, `watch`; the resource metrics API, read live, `get` and `list`
//! (see [`super::metrics`]).

use std::collections::{BTreeMap, HashMap};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use kube::core::Version;
use mc_types::ResourceInfo;
use serde_json::{Value, json};

use super::negotiate::{self, Representation, negotiate};
use super::scope::in_scope;
use crate::http::status::{KubeError, KubeResult};
use crate::http::{AppState, params};
use crate::identity::Caller;

/// The verbs every served type has.
const VERBS: [&str; 3] = ["get", "list", "watch"];

/// The media type of aggregated discovery.
const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// The aggregated discovery of the core group (`core`) or of the named groups, when the client
/// asks for it (kubectl does), once the path's cluster is known to exist.
async fn aggregated_if_asked(
    state: &AppState,
    caller: &Caller,
    path: Option<&Path<HashMap<String, String>>>,
    headers: &HeaderMap,
    core: bool,
) -> KubeResult<Option<Response>> {
    in_scope(state, path.map(|p| &p.0))?;
    let asked = negotiate(headers, negotiate::DISCOVERY_ROOT)? == Representation::Aggregated;
    if !asked {
        return Ok(None);
    }
    Ok(Some(aggregated(catalog(state, caller, path.map(|p| &p.0)).await?, core)))
}

/// The types the caller may list (in the cluster of a `/clusters/{cluster}/` path, if any).
async fn catalog(
    state: &AppState,
    caller: &Caller,
    path: Option<&HashMap<String, String>>,
) -> KubeResult<Vec<ResourceInfo>> {
    let cluster = path.and_then(|p| p.get("cluster")).map(String::as_str);
    let mut types = crate::http::rights::catalog(state, caller, cluster).await?;
    // Read live, not stored: offered while some cluster in scope serves it (see `metrics`).
    if super::metrics::offered(state, cluster) {
        types.extend(super::metrics::types());
    }
    Ok(types)
}

/// The verbs of a type: those of the stored types, or the live type's own (`get`, `list`).
fn verbs(r: &ResourceInfo) -> Vec<&str> {
    if r.group == mc_types::gvr::METRICS_GROUP {
        r.verbs.iter().map(String::as_str).collect()
    } else {
        VERBS.to_vec()
    }
}

/// `/api`: the core group's versions.
pub async fn api_versions(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    path: Option<Path<HashMap<String, String>>>,
    headers: HeaderMap,
) -> KubeResult<Response> {
    if let Some(answer) = aggregated_if_asked(&state, &caller, path.as_ref(), &headers, true).await? {
        return Ok(answer);
    }
    Ok(Json(json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}))
        .into_response())
}

/// `/apis`: every named group with the versions its types are synced in, preferred first.
pub async fn api_groups(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    path: Option<Path<HashMap<String, String>>>,
    headers: HeaderMap,
) -> KubeResult<Response> {
    if let Some(answer) = aggregated_if_asked(&state, &caller, path.as_ref(), &headers, false).await? {
        return Ok(answer);
    }
    let groups: Vec<Value> = groups(catalog(&state, &caller, path.as_ref().map(|p| &p.0)).await?, false)
        .into_iter()
        .map(|(name, versions)| {
            let versions: Vec<Value> = versions
                .iter()
                .map(|(v, _)| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
                .collect();
            let preferred = versions.first().cloned().unwrap_or(Value::Null);
            json!({"name": name, "versions": versions, "preferredVersion": preferred})
        })
        .collect();
    Ok(Json(json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})).into_response())
}

/// The versions of a group, preferred first (Kubernetes' order: GA, then beta, then alpha,
/// newer first), each with its types.
type Versions = Vec<(String, Vec<ResourceInfo>)>;

/// Named groups (or only the core group), each with its [`Versions`].
fn groups(catalog: Vec<ResourceInfo>, core: bool) -> BTreeMap<String, Versions> {
    let mut groups: BTreeMap<String, BTreeMap<String, Vec<ResourceInfo>>> = BTreeMap::new();
    for r in catalog.into_iter().filter(|r| r.group.is_empty() == core) {
        groups.entry(r.group.clone()).or_default().entry(r.version.clone()).or_default().push(r);
    }
    groups
        .into_iter()
        .map(|(name, versions)| {
            let mut versions: Versions = versions.into_iter().collect();
            versions.sort_by_cached_key(|(v, _)| std::cmp::Reverse(Version::parse(v).priority()));
            (name, versions)
        })
        .collect()
}

/// `APIGroupDiscoveryList` of the core group (`/api`) or the named groups (`/apis`).
fn aggregated(catalog: Vec<ResourceInfo>, core: bool) -> Response {
    let items: Vec<Value> = groups(catalog, core)
        .into_iter()
        .map(|(name, versions)| {
            let versions: Vec<Value> = versions
                .iter()
                .map(|(version, types)| {
                    let resources: Vec<Value> = types.iter().map(resource_discovery).collect();
                    json!({"version": version, "resources": resources, "freshness": "Current"})
                })
                .collect();
            json!({"metadata": {"name": name}, "versions": versions})
        })
        .collect();
    let body = json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items,
    });
    let mut resp = Json(body).into_response();
    resp.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(AGGREGATED));
    resp.headers_mut().insert(header::VARY, HeaderValue::from_static("Accept"));
    resp
}

/// One type in aggregated discovery (`APIResourceDiscovery`).
fn resource_discovery(r: &ResourceInfo) -> Value {
    let mut entry = json!({
        "resource": r.resource,
        "responseKind": {"group": r.group, "version": r.version, "kind": r.kind},
        "scope": if r.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": r.singular,
        "verbs": verbs(r),
    });
    if !r.short_names.is_empty() {
        entry["shortNames"] = json!(r.short_names);
    }
    if !r.categories.is_empty() {
        entry["categories"] = json!(r.categories);
    }
    entry
}

/// `/api/{version}` (core) and `/apis/{group}/{version}`: one group version's types. The path
/// may also hold `{cluster}` (under `/clusters/{cluster}/`): discovery is the same union there.
pub async fn resources(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(path): Path<HashMap<String, String>>,
    headers: HeaderMap,
) -> KubeResult<Json<Value>> {
    in_scope(&state, Some(&path))?;
    if let Some(group) = path.get("group") {
        params::group(group)?;
    }
    negotiate(&headers, negotiate::DISCOVERY)?;
    let group = path.get("group").map(String::as_str).unwrap_or_default();
    let version = path.get("version").map(String::as_str).unwrap_or_default();
    resource_list(catalog(&state, &caller, Some(&path)).await?, group, version)
}

fn resource_list(catalog: Vec<ResourceInfo>, group: &str, version: &str) -> KubeResult<Json<Value>> {
    let types: Vec<ResourceInfo> =
        catalog.into_iter().filter(|r| r.group == group && r.version == version).collect();
    if types.is_empty() {
        return Err(KubeError::no_such_resource());
    }
    let resources: Vec<Value> = types
        .iter()
        .map(|r| {
            let mut entry = json!({
                "name": r.resource,
                "singularName": r.singular,
                "namespaced": r.namespaced,
                "kind": r.kind,
                "verbs": verbs(r),
            });
            if !r.short_names.is_empty() {
                entry["shortNames"] = json!(r.short_names);
            }
            if !r.categories.is_empty() {
                entry["categories"] = json!(r.categories);
            }
            entry
        })
        .collect();
    let group_version = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    Ok(Json(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources,
    })))
}
