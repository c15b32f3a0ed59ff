//! `/openapi/v2`, `/openapi/v3` and `/openapi/v3/{api/v1 | apis/GROUP/VERSION | …}`, so that
//! `kubectl explain` works through mc-server: the master cluster's own documents (without a
//! master, the first cluster by name), with the CRDs of the other members that the master does
//! not have; under `/clusters/{cluster}/` that cluster's own documents.
//!
//! - v3: the index lists every document of the master and of the members; a document of a group
//!   version only members have is that member's (the first by name; later ones join it with
//!   kinds the earlier lack), a document the master has is the master's, joined by the member's
//!   when a member has kinds of that group version the master lacks (see [`index::plan`]). The
//!   `hash` of each URL names the document's content: a document asked for at its current hash
//!   is immutable (`Cache-Control: public, immutable`), at another hash it redirects (301) to
//!   the current one, as kube-apiserver does.
//! - v2: JSON only (kubectl asks for protobuf first and gets 406; kubectl's `explain` reads v3).
//!   The master's document with the definitions and paths of the members' kinds it lacks.
//! - Documents are kept as each member wrote them, paths included (every verb, not only the GETs
//!   mc-server serves): they describe the types, and `kubectl explain` reads only the schemas.
//! - A caller sees the documents of the group versions discovery offers it (Kubernetes' own
//!   groups always): the v3 index lists no other, their documents answer 404, and the v2
//!   document has no definition or path of them. Static tokens see everything.
//! - A cluster that cannot be read now: the copy read before, with a `Warning`; without one, a
//!   503 (the master's, or the cluster's under `/clusters/`) or, for a member that only adds
//!   kinds, the answer without them and a `Warning`.

mod access;
mod cache;
mod index;
mod merge;
#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use super::digest::hex;
pub use super::fetch::Limits;
use axum::Extension;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
pub use cache::{Documents, Timing};
use serde::Deserialize;

use self::access::Visible;
use self::index::{GroupVersion, Index, Part, Source};
use self::merge::Version;
use super::negotiate::{self, negotiate};
use super::scope::in_scope;
use crate::clusters::Cluster;
use crate::http::AppState;
use crate::http::status::{KubeError, KubeResult};
use crate::http::warnings::add_warnings;
use crate::identity::Caller;

impl From<cache::Unavailable> for KubeError {
    fn from(e: cache::Unavailable) -> Self {
        KubeError {
            code: StatusCode::SERVICE_UNAVAILABLE,
            reason: "ServiceUnavailable",
            message: e.to_string(),
        }
    }
}

/// Which clusters' documents a request reads, the primary first, and where its URLs point.
struct Scope {
    /// `""`, or `/clusters/{cluster}`.
    prefix: String,
    /// The cluster of a `/clusters/{cluster}/` path.
    cluster: Option<String>,
    clusters: Vec<Arc<Cluster>>,
}

fn scope(state: &AppState, path: Option<&HashMap<String, String>>) -> KubeResult<Scope> {
    in_scope(state, path)?;
    if let Some(name) = path.and_then(|p| p.get("cluster")) {
        let cluster = state.registry.get(name).ok_or_else(KubeError::no_such_resource)?;
        return Ok(Scope {
            prefix: format!("/clusters/{name}"),
            cluster: Some(name.clone()),
            clusters: vec![cluster],
        });
    }
    let mut clusters = state.registry.all();
    // The master first; the others by name (as the registry orders them).
    clusters.sort_by_key(|c| !c.spec.is_master);
    state.openapi.retain(&state.registry.names());
    if clusters.is_empty() {
        return Err(KubeError::no_such_resource());
    }
    Ok(Scope { prefix: String::new(), cluster: None, clusters })
}

/// The group versions `caller` may see (in the scope's cluster).
async fn visible(state: &AppState, caller: &Caller, scope: &Scope) -> KubeResult<Visible> {
    if caller.reads_everything() {
        return Ok(Visible::Everything);
    }
    let catalog = crate::http::rights::catalog(state, caller, scope.cluster.as_deref()).await?;
    Ok(Visible::Only(catalog.iter().map(|r| GroupVersion::new(&r.group, &r.version)).collect()))
}

/// The kinds of a cluster's discovery, by group version.
fn kinds(cluster: &Cluster) -> BTreeMap<GroupVersion, BTreeSet<String>> {
    let mut kinds: BTreeMap<GroupVersion, BTreeSet<String>> = BTreeMap::new();
    for r in cluster.catalog() {
        kinds.entry(GroupVersion::new(&r.group, &r.version)).or_default().insert(r.kind);
    }
    kinds
}

/// Every index of the scope: the primary's, or 503; each member's, or a warning.
async fn indexes(
    state: &AppState,
    scope: &Scope,
    warnings: &mut Vec<String>,
) -> KubeResult<Vec<(Arc<Cluster>, Arc<Index>)>> {
    let read = scope.clusters.iter().map(|c| state.openapi.index(c));
    let mut indexes = Vec::new();
    for (i, (cluster, had)) in scope.clusters.iter().zip(futures::future::join_all(read).await).enumerate() {
        match had {
            Ok(had) => {
                warnings.extend(had.warning);
                indexes.push((cluster.clone(), had.value));
            }
            Err(e) if i == 0 => return Err(e.into()),
            Err(e) => warnings.push(format!("{e}: its kinds are left out")),
        }
    }
    Ok(indexes)
}

/// Plans every path of `indexes`.
fn plans(indexes: &[(Arc<Cluster>, Arc<Index>)]) -> BTreeMap<String, Vec<Part>> {
    let kinds: Vec<_> = indexes.iter().map(|(c, _)| kinds(c)).collect();
    let sources: Vec<Source<'_>> = indexes
        .iter()
        .zip(&kinds)
        .map(|((c, index), kinds)| Source { cluster: c.name(), index, kinds })
        .collect();
    let paths: BTreeSet<&String> = indexes.iter().flat_map(|(_, i)| i.paths.keys()).collect();
    paths.into_iter().map(|p| (p.clone(), index::plan(p, &sources))).collect()
}

/// `GET /openapi/v3`: the index of the documents the caller may see.
pub async fn v3_index(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    path: Option<Path<HashMap<String, String>>>,
    headers: HeaderMap,
) -> KubeResult<Response> {
    negotiate(&headers, negotiate::DISCOVERY)?;
    let scope = scope(&state, path.as_ref().map(|p| &p.0))?;
    let mut warnings = Vec::new();
    let indexes = indexes(&state, &scope, &mut warnings).await?;
    let visible = visible(&state, &caller, &scope).await?;
    let merged = Index {
        paths: plans(&indexes)
            .into_iter()
            .filter(|(path, parts)| !parts.is_empty() && visible.path(path))
            .map(|(path, parts)| (path, index::hash(&parts)))
            .collect(),
    };
    let body = Bytes::from(merged.to_json(&scope.prefix).to_string());
    Ok(answer(body, None, false, warnings))
}

/// The query of a v3 document.
#[derive(Debug, Deserialize)]
pub struct DocumentQuery {
    /// The hash the index named.
    hash: Option<String>,
}

/// `GET /openapi/v3/{path}`: one document.
pub async fn v3_document(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(path): Path<HashMap<String, String>>,
    Query(query): Query<DocumentQuery>,
    headers: HeaderMap,
) -> KubeResult<Response> {
    let doc = path.get("path").cloned().unwrap_or_default();
    let scope = scope(&state, Some(&path))?;
    if !index::well_formed(&doc) {
        return Err(KubeError::no_such_resource());
    }
    negotiate(&headers, negotiate::DISCOVERY)?;
    let visible = visible(&state, &caller, &scope).await?;
    if !visible.path(&doc) {
        return Err(KubeError::no_such_resource());
    }
    let mut warnings = Vec::new();
    let indexes = indexes(&state, &scope, &mut warnings).await?;
    let parts = plans(&indexes).remove(&doc).unwrap_or_default();
    if parts.is_empty() {
        return Err(KubeError::no_such_resource());
    }
    let hash = index::hash(&parts);
    if query.hash.as_ref().is_some_and(|h| *h != hash) {
        let location = index::url(&scope.prefix, &doc, &hash);
        return Ok(redirect(&location));
    }
    if let Some(early) = not_modified(&headers, &hash) {
        return Ok(early);
    }
    let mut bodies = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let Some((cluster, _)) = indexes.iter().find(|(c, _)| c.name() == part.cluster) else { continue };
        match state.openapi.v3(cluster, &doc, &part.hash).await {
            Ok(had) => {
                warnings.extend(had.warning);
                bodies.push((part.cluster.as_str(), had.value));
            }
            Err(e) if i == 0 => return Err(e.into()),
            Err(e) => warnings.push(format!("{e}: its kinds are left out")),
        }
    }
    let body = match bodies.as_slice() {
        [(_, one)] => one.clone(),
        _ => {
            let key: String = bodies.iter().map(|(c, _)| format!("{c};")).collect();
            state.openapi.made(&format!("v3 {doc} {hash} {key}"), || merged(&bodies, Version::V3))
        }
    };
    let immutable = query.hash.is_some() && warnings.is_empty();
    Ok(answer(body, Some(&hash), immutable, warnings))
}

/// `GET /openapi/v2`: JSON, the master's document with the kinds the members add.
pub async fn v2(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    path: Option<Path<HashMap<String, String>>>,
    headers: HeaderMap,
) -> KubeResult<Response> {
    negotiate(&headers, negotiate::DISCOVERY)?;
    let scope = scope(&state, path.as_ref().map(|p| &p.0))?;
    let visible = visible(&state, &caller, &scope).await?;
    let mut warnings = Vec::new();
    let (primary, members) = scope.clusters.split_first().ok_or_else(KubeError::no_such_resource)?;
    let first = state.openapi.v2(primary).await?;
    warnings.extend(first.warning);
    let mut parts = vec![(primary.name(), first.value)];
    let mut known: BTreeSet<(GroupVersion, String)> = gvks(primary);
    for member in members {
        let theirs = gvks(member);
        if theirs.is_subset(&known) {
            continue;
        }
        match state.openapi.v2(member).await {
            Ok(had) => {
                warnings.extend(had.warning);
                parts.push((member.name(), had.value));
                known.extend(theirs);
            }
            Err(e) => warnings.push(format!("{e}: its kinds are left out")),
        }
    }
    if parts.len() == 1 && visible.is_everything() {
        let etag = parts[0].1.etag.clone();
        if let Some(early) = not_modified(&headers, &etag) {
            return Ok(early);
        }
        return Ok(answer(parts[0].1.body.clone(), Some(&etag), false, warnings));
    }
    let key: String = parts.iter().map(|(c, d)| format!("{c}={};", d.etag)).collect();
    let etag = hex(&format!("v2 {key} {}", visible.key()));
    if let Some(early) = not_modified(&headers, &etag) {
        return Ok(early);
    }
    let body = state.openapi.made(&etag, || {
        let bodies: Vec<(&str, Bytes)> = parts.iter().map(|(c, d)| (*c, d.body.clone())).collect();
        let mut doc = merged_value(&bodies, Version::V2);
        merge::hide_v2(&mut doc, &visible);
        Bytes::from(doc.to_string())
    });
    Ok(answer(body, Some(&etag), false, warnings))
}

/// The kinds of a cluster's discovery.
fn gvks(cluster: &Cluster) -> BTreeSet<(GroupVersion, String)> {
    cluster.catalog().into_iter().map(|r| (GroupVersion::new(&r.group, &r.version), r.kind)).collect()
}

/// The documents of `bodies` in one, the first's word standing.
fn merged(bodies: &[(&str, Bytes)], version: Version) -> Bytes {
    Bytes::from(merged_value(bodies, version).to_string())
}

fn merged_value(bodies: &[(&str, Bytes)], version: Version) -> serde_json::Value {
    // Each body was read as JSON when it was fetched.
    let mut docs = bodies.iter().map(|(_, b)| serde_json::from_slice(b).unwrap_or_default());
    let mut doc: serde_json::Value = docs.next().unwrap_or_default();
    merge::merge(&mut doc, docs.collect(), version);
    doc
}

/// A JSON document, its `ETag` (hash without quotes) and caching, as kube-apiserver answers.
fn answer(body: Bytes, etag: Option<&str>, immutable: bool, warnings: Vec<String>) -> Response {
    let mut resp = Response::new(Body::from(body));
    let headers = resp.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(header::VARY, HeaderValue::from_static("Accept"));
    if let Some(etag) = etag.and_then(|e| HeaderValue::from_str(&format!("\"{e}\"")).ok()) {
        headers.insert(header::ETAG, etag);
    }
    if immutable {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, immutable"));
        let expires = k8s_openapi::jiff::Timestamp::now() + std::time::Duration::from_secs(365 * 24 * 3600);
        let expires = expires.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string();
        if let Ok(v) = HeaderValue::from_str(&expires) {
            headers.insert(header::EXPIRES, v);
        }
    } else {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache, private"));
    }
    add_warnings(&mut resp, warnings);
    resp
}

/// `304` when the client holds the document of `etag` already.
fn not_modified(headers: &HeaderMap, etag: &str) -> Option<Response> {
    let held = headers.get(header::IF_NONE_MATCH)?.to_str().ok()?;
    let matches = held.split(',').any(|t| t.trim().trim_start_matches("W/").trim_matches('"') == etag);
    matches.then(|| {
        let mut resp = StatusCode::NOT_MODIFIED.into_response();
        if let Ok(v) = HeaderValue::from_str(&format!("\"{etag}\"")) {
            resp.headers_mut().insert(header::ETAG, v);
        }
        resp
    })
}

/// `301` to the document at its current hash.
fn redirect(location: &str) -> Response {
    let mut resp = StatusCode::MOVED_PERMANENTLY.into_response();
    if let Ok(v) = HeaderValue::from_str(location) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    resp.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache, private"));
    resp
}
