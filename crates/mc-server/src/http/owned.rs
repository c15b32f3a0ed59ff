//! `owner=TYPE/NAME` on `/v1/list` and `/v1/list_with_cluster`: the objects of the type asked
//! for that the named object owns at any depth in each cluster (a Deployment's Pods through its
//! ReplicaSets), read with [`crate::relations::owned`].
//!
//! The owner is looked up where the caller may `get` its type, in the request's namespace (every
//! namespace without one); what it owns is answered where the caller may `list` the type asked
//! for, filtered by the request's namespace, name and selectors, in the stable order, as one page
//! of at most `limit` objects (no `continue`, no `watch`): the walk below an owner is bounded by
//! [`MAX_NODES`] objects. An owner found in no cluster answers an empty list with a `Warning`.

use std::collections::BTreeMap;

use axum::response::Response;
use mc_types::tree::{MAX_DEPTH, MAX_NODES};

use super::list_request::{ListRequest, resolve_type};
use super::streamed::{WriteItem, page_response};
use super::warnings::add_warnings;
use super::{ApiError, ApiResult, AppState, QUERY_TIMEOUT, bounded, params};
use crate::identity::Caller;
use crate::relations;
use crate::store::{Page, Query as StoreQuery, RawObject};

/// At most this many objects of the owner's type and name (one per namespace and cluster).
const MAX_OWNERS: u32 = 1000;

/// Answers a list request with `owner`.
pub async fn run(
    state: &AppState,
    caller: &Caller,
    request: &ListRequest,
    owner: &str,
    write: WriteItem,
) -> ApiResult<Response> {
    if request.several() {
        return Err(ApiError::bad_request("owner takes one type in gvr, not several"));
    }
    if request.watch {
        return Err(ApiError::bad_request("owner lists what is owned now; it takes no watch"));
    }
    if request.continue_token().is_some() {
        return Err(ApiError::bad_request("owner answers one page; it takes no continue"));
    }
    let (owner_type, owner_name) =
        owner.rsplit_once('/').filter(|(t, n)| !t.is_empty() && !n.is_empty()).ok_or_else(|| {
            ApiError::bad_request(format!(
                "owner must be TYPE/NAME (deploy/web), got \"{}\"",
                params::shown(owner)
            ))
        })?;
    params::object_name(owner_name)?;
    let (mut query, info) = request.to_query(state)?;
    let owner_info = resolve_type(state, Some(owner_type))?;
    let mut warnings: Vec<String> = Vec::new();
    warnings.extend(super::rights::restrict(state, caller, "list", &info, &mut query).await?);
    let mut owners_query = StoreQuery {
        gvr: Some(owner_info.gvr()),
        cluster: query.cluster.clone(),
        namespace: if owner_info.namespaced { query.namespace.clone() } else { Some(String::new()) },
        name: Some(owner_name.to_string()),
        limit: Some(MAX_OWNERS),
        ..StoreQuery::default()
    };
    warnings.extend(super::rights::restrict(state, caller, "get", &owner_info, &mut owners_query).await?);
    let owners = super::query(state, &owners_query).await?;
    // Each cluster's owners, by uid.
    let mut by_cluster: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (cluster, object) in &owners.items {
        if let Some(uid) = object.value()["metadata"]["uid"].as_str() {
            by_cluster.entry(cluster.clone()).or_default().push(uid.to_string());
        }
    }
    let gvr = info.gvr();
    let mut items: Vec<((String, String, String), RawObject)> = Vec::new();
    for (cluster, uids) in by_cluster {
        let (found, cut) = bounded(&state.queries, QUERY_TIMEOUT, async {
            relations::owned(&state.store, &cluster, uids, &gvr).await.map_err(|e| match e {
                relations::Error::Store(e) => ApiError::from(e),
            })
        })
        .await?;
        if cut {
            warnings.push(format!(
                "what {owner} owns in cluster {cluster} was read up to {MAX_NODES} objects or {MAX_DEPTH} levels"
            ));
        }
        for o in found {
            let value = o.object.value();
            if admits(&query, &cluster, &o.namespace, &o.name, &value) {
                items.push(((cluster.clone(), o.namespace, o.name), o.object));
            }
        }
    }
    if owners.items.is_empty() {
        let what = if owner_info.group.is_empty() {
            owner_info.resource.clone()
        } else {
            format!("{}.{}", owner_info.resource, owner_info.group)
        };
        let namespace = match &owners_query.namespace {
            Some(ns) if !ns.is_empty() => format!(" in namespace {ns}"),
            _ => String::new(),
        };
        let clusters = match &query.cluster {
            Some(c) => format!("cluster {c}"),
            None => "any cluster".into(),
        };
        warnings.push(format!("owner {what} \"{owner_name}\" not found{namespace} in {clusters}"));
    }
    items.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some(limit) = query.limit.filter(|&l| l > 0) {
        items.truncate(limit as usize);
    }
    let page =
        Page { items: items.into_iter().map(|((cluster, _, _), o)| (cluster, o)).collect(), next: None };
    let mut resp = page_response(state, &query, page, write);
    add_warnings(&mut resp, warnings);
    Ok(resp)
}

/// Whether an owned object passes the request's filters and rights.
fn admits(query: &StoreQuery, cluster: &str, namespace: &str, name: &str, value: &serde_json::Value) -> bool {
    if query.namespace.as_deref().is_some_and(|ns| ns != namespace)
        || query.name.as_deref().is_some_and(|n| n != name)
        || query.allowed.as_ref().is_some_and(|a| !a.admits(cluster, namespace))
    {
        return false;
    }
    if let Some(fields) = &query.fields
        && !fields.matches(value)
    {
        return false;
    }
    match &query.labels {
        Some(selector) => {
            let labels: BTreeMap<String, String> = value["metadata"]["labels"]
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect();
            selector.matches(&labels)
        }
        None => true,
    }
}
