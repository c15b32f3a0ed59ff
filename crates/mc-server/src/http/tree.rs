//! `/v1/tree`: an object and what is related to it (see [`crate::relations`]), one tree per
//! cluster where the object exists.
//!
//! Access follows the lists': the root needs `get` on its type where it is read; every other node
//! is kept only where its caller may `list` its type in its namespace, a node left out taking
//! what is below it along, and a `Warning` says how many were left out.

use std::collections::{BTreeMap, BTreeSet};

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use mc_types::ResourceInfo;
use mc_types::tree::{ClusterTree, PATH, TreeNode};

use super::list_request::resolve_type;
use super::warnings::add_warnings;
use super::{ApiError, ApiResult, AppState, QUERY_TIMEOUT, bounded, params};
use crate::identity::Caller;
use crate::relations::{self, Types};
use crate::store::Allowed;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route(PATH, get(tree))
}

/// The parameters, checked.
#[derive(Default)]
struct TreeRequest {
    gvr: Option<String>,
    name: Option<String>,
    namespace: Option<String>,
    cluster: Option<String>,
    /// Only what is one step away, with the root's owners.
    neighbours: bool,
}

impl TreeRequest {
    fn from_pairs(pairs: Vec<(String, String)>) -> ApiResult<Self> {
        let mut r = TreeRequest::default();
        for (k, v) in pairs {
            params::check_len(&k, &v)?;
            let v = (!v.is_empty()).then_some(v);
            match k.as_str() {
                "gvr" => r.gvr = v,
                "name" => r.name = v,
                "namespace" => r.namespace = v,
                "cluster" => r.cluster = v,
                "neighbours" => {
                    r.neighbours = match v.as_deref() {
                        Some("true" | "1") => true,
                        None | Some("false" | "0") => false,
                        Some(other) => {
                            return Err(ApiError::bad_request(format!(
                                "neighbours must be true or false, got \"{}\"",
                                params::shown(other)
                            )));
                        }
                    }
                }
                _ => {
                    return Err(ApiError::bad_request(format!(
                        "unknown query parameter \"{}\"",
                        params::shown(&k)
                    )));
                }
            }
        }
        Ok(r)
    }
}

fn relations_error(e: relations::Error) -> ApiError {
    match e {
        relations::Error::Store(e) => ApiError::from(e),
    }
}

/// `GET /v1/tree?gvr=&name=[&namespace=][&cluster=][&neighbours=]`.
async fn tree(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> ApiResult<Response> {
    let r = TreeRequest::from_pairs(pairs)?;
    let info = resolve_type(&state, r.gvr.as_deref())?;
    let name =
        r.name.ok_or_else(|| ApiError::bad_request("missing parameter name (the root object's name)"))?;
    params::object_name(&name)?;
    if let Some(ns) = &r.namespace {
        params::namespace(ns)?;
    }
    let clusters = match &r.cluster {
        Some(c) => {
            params::cluster(c)?;
            params::known_cluster(&state.registry, c)?;
            vec![c.clone()]
        }
        None => state.registry.names(),
    };
    let namespace =
        if info.namespaced { r.namespace.unwrap_or_else(|| "default".into()) } else { String::new() };
    let ns_arg = info.namespaced.then_some(namespace.as_str());
    let (allowed, denied) =
        super::rights::restrict_in(&state, &caller, "get", &info, &clusters, ns_arg, Some(&name)).await?;
    let catalog = state.registry.catalog();
    let types = Types::new(&catalog).with_links(&state.relation_links);
    let gvr = info.gvr();
    let mut trees = Vec::new();
    for cluster in clusters.iter().filter(|c| allowed.as_ref().is_none_or(|a| a.admits(c, &namespace))) {
        let found = bounded(&state.queries, QUERY_TIMEOUT, async {
            let roots =
                state.store.objects_named(cluster, &gvr, &namespace, std::slice::from_ref(&name)).await?;
            match roots.into_iter().next() {
                Some(root) => {
                    let owners = if r.neighbours {
                        relations::owners(&state.store, &types, cluster, &root)
                            .await
                            .map_err(relations_error)?
                    } else {
                        Vec::new()
                    };
                    let depth = r.neighbours.then_some(1);
                    let mut t = relations::tree(&state.store, &types, cluster, root, depth)
                        .await
                        .map_err(relations_error)?;
                    t.root.children.splice(0..0, owners);
                    Ok(Some(t))
                }
                None => Ok(None),
            }
        })
        .await?;
        trees.extend(found);
    }
    if trees.is_empty() {
        let what = if info.group.is_empty() {
            info.resource.clone()
        } else {
            format!("{}.{}", info.resource, info.group)
        };
        return Err(ApiError::not_found(format!("{what} \"{name}\" not found in any cluster")));
    }
    let mut warnings: Vec<String> = denied.into_iter().collect();
    if !caller.reads_everything() {
        for t in &mut trees {
            prune(&state, &caller, &catalog, t).await?;
            if t.hidden > 0 {
                warnings.push(format!(
                    "{} object(s) of the tree in cluster {} left out: user \"{}\" may not list their types there",
                    t.hidden, t.cluster, caller.user.name
                ));
            }
        }
    }
    for t in trees.iter().filter(|t| t.truncated) {
        warnings.push(format!(
            "the tree in cluster {} was cut at {} objects or {} levels",
            t.cluster,
            mc_types::tree::MAX_NODES,
            mc_types::tree::MAX_DEPTH
        ));
    }
    let mut resp = Json(trees).into_response();
    add_warnings(&mut resp, warnings);
    Ok(resp)
}

/// Removes the nodes below the root that `caller` may not list (their subtrees with them),
/// counting them in `hidden`.
async fn prune(
    state: &AppState,
    caller: &Caller,
    catalog: &[ResourceInfo],
    t: &mut ClusterTree,
) -> ApiResult<()> {
    // Each (cluster, type) asked once.
    let mut kinds = BTreeSet::new();
    for (depth, n) in t.root.walk() {
        if depth > 0 {
            kinds.insert((
                n.cluster.clone().unwrap_or_else(|| t.cluster.clone()),
                n.api_version.clone(),
                n.kind.clone(),
            ));
        }
    }
    let mut rights: BTreeMap<(String, String, String), Option<Option<Allowed>>> = BTreeMap::new();
    for (cluster, api_version, kind) in kinds {
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        let info = catalog.iter().find(|i| i.group == group && i.kind == kind);
        let allowed = match info {
            Some(info) => {
                let clusters = [cluster.clone()];
                match super::rights::restrict_in(state, caller, "list", info, &clusters, None, None).await {
                    Ok((allowed, _)) => Some(allowed),
                    Err(e) if e.status == axum::http::StatusCode::FORBIDDEN => None,
                    Err(e) => return Err(e),
                }
            }
            None => None,
        };
        rights.insert((cluster, api_version, kind), allowed);
    }
    let tree_cluster = t.cluster.clone();
    let mut hidden = 0;
    prune_children(&mut t.root, &tree_cluster, &rights, &mut hidden);
    t.hidden = hidden;
    Ok(())
}

fn prune_children(
    node: &mut TreeNode,
    cluster: &str,
    rights: &BTreeMap<(String, String, String), Option<Option<Allowed>>>,
    hidden: &mut usize,
) {
    node.children.retain(|c| {
        let c_cluster = c.cluster.as_deref().unwrap_or(cluster);
        let key = (c_cluster.to_string(), c.api_version.clone(), c.kind.clone());
        let visible = match rights.get(&key) {
            Some(Some(None)) => true,
            Some(Some(Some(allowed))) => allowed.admits(c_cluster, &c.namespace),
            _ => false,
        };
        if !visible {
            *hidden += c.walk().len();
        }
        visible
    });
    for c in &mut node.children {
        let c_cluster = c.cluster.clone().unwrap_or_else(|| cluster.to_string());
        prune_children(c, &c_cluster, rights, hidden);
    }
}
