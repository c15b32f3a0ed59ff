//! `/v1/search`: free-text search over every object (see [`crate::store::search`]).
//!
//! Access follows the lists': a type appears only where its caller may `list` it, and only in
//! the namespaces it may read there, each type's rule going into the store query itself. Without
//! `kind`, the types the caller may not list anywhere are left out silently (as discovery leaves
//! them out); with it, a type allowed nowhere in the namespace asked is 403, as its list would be.

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use mc_types::ResourceInfo;
use mc_types::search::{DEFAULT_LIMIT, MAX_KINDS, MAX_LIMIT, PATH, SearchItem};

use super::list_request::resolve_type;
use super::warnings::add_warnings;
use super::{ApiError, ApiResult, AppState, QUERY_TIMEOUT, bounded, params};
use crate::identity::Caller;
use crate::store::Store;
use crate::store::search::{Building, SearchError, SearchQuery, TypeScope, check_text};

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route(PATH, get(search))
}

/// The parameters, checked.
#[derive(Default)]
struct SearchRequest {
    q: Option<String>,
    namespace: Option<String>,
    cluster: Option<String>,
    kinds: Vec<String>,
    limit: usize,
}

impl SearchRequest {
    fn from_pairs(pairs: Vec<(String, String)>) -> ApiResult<Self> {
        let mut r = SearchRequest { limit: DEFAULT_LIMIT, ..Default::default() };
        for (k, v) in pairs {
            params::check_len(&k, &v)?;
            match k.as_str() {
                "q" => r.q = Some(v),
                "namespace" => {
                    if !v.is_empty() {
                        params::namespace(&v)?;
                        r.namespace = Some(v);
                    }
                }
                "cluster" => {
                    if !v.is_empty() {
                        params::cluster(&v)?;
                        r.cluster = Some(v);
                    }
                }
                "kind" => {
                    for kind in v.split(',').map(str::trim).filter(|k| !k.is_empty()) {
                        if !r.kinds.iter().any(|k| k == kind) {
                            r.kinds.push(kind.to_string());
                        }
                    }
                    if r.kinds.len() > MAX_KINDS {
                        return Err(ApiError::bad_request(format!("kind names at most {MAX_KINDS} types")));
                    }
                }
                "limit" => {
                    r.limit =
                        v.parse::<usize>().ok().filter(|n| (1..=MAX_LIMIT).contains(n)).ok_or_else(|| {
                            ApiError::bad_request(format!(
                                "limit {:?} is not a number from 1 to {MAX_LIMIT}",
                                params::shown(&v)
                            ))
                        })?;
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

/// `GET /v1/search?q=[&namespace=][&cluster=][&kind=a,b][&limit=]`.
async fn search(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> ApiResult<Response> {
    let r = SearchRequest::from_pairs(pairs)?;
    if !state.store.keeps_search_index() {
        return Err(ApiError::new(
            StatusCode::NOT_IMPLEMENTED,
            "search is switched off on this server (search.enabled: false in its config)",
        ));
    }
    let text = r.q.ok_or_else(|| ApiError::bad_request("missing parameter q (the text to search for)"))?;
    check_text(&text).map_err(ApiError::bad_request)?;
    if let Some(c) = &r.cluster {
        params::known_cluster(&state.registry, c)?;
    }
    let clusters = match &r.cluster {
        Some(c) => vec![c.clone()],
        None => state.registry.names(),
    };
    let mut warnings = Vec::new();
    let named = !r.kinds.is_empty();
    let infos: Option<Vec<ResourceInfo>> = if named {
        let mut infos: Vec<ResourceInfo> = Vec::new();
        for kind in &r.kinds {
            let info = resolve_type(&state, Some(kind))?;
            if !infos.iter().any(|i| i.gvr() == info.gvr()) {
                infos.push(info);
            }
        }
        Some(infos)
    } else if caller.reads_everything() {
        None
    } else {
        Some(state.registry.catalog())
    };
    let types = match infos {
        None => None,
        Some(infos) => {
            let mut types = Vec::new();
            let mut refused = None;
            for info in infos {
                let allowed = if caller.reads_everything() {
                    None
                } else {
                    match super::rights::restrict_in(
                        &state,
                        &caller,
                        "list",
                        &info,
                        &clusters,
                        r.namespace.as_deref(),
                        None,
                    )
                    .await
                    {
                        Ok((allowed, denied)) => {
                            if named {
                                warnings.extend(denied);
                            }
                            allowed
                        }
                        Err(e) if e.status == StatusCode::FORBIDDEN => {
                            refused.get_or_insert(e);
                            continue;
                        }
                        Err(e) => return Err(e),
                    }
                };
                if allowed.as_ref().is_some_and(|a| a.0.is_empty()) {
                    continue;
                }
                types.push(TypeScope { gvr: info.gvr(), allowed });
            }
            // Every type named is allowed nowhere in that namespace: as its list would answer.
            if named
                && types.is_empty()
                && let Some(e) = refused
            {
                return Err(e);
            }
            Some(types)
        }
    };
    let query = SearchQuery { text, cluster: r.cluster, namespace: r.namespace, types, limit: r.limit };
    let answer = bounded(&state.queries, QUERY_TIMEOUT, async {
        state.store.search(&query).await.map_err(|e| match e {
            SearchError::Text(m) => ApiError::bad_request(m),
            SearchError::Store(e) => ApiError::from(e),
        })
    })
    .await?;
    warnings.extend(answer.warnings);
    if answer.cut {
        warnings.push(format!(
            "more objects match than the {} shown (the best first): narrow the search or raise limit (at most {MAX_LIMIT})",
            r.limit
        ));
    }
    let items: Vec<SearchItem> = answer
        .hits
        .into_iter()
        .map(|h| SearchItem {
            cluster: h.cluster,
            group: h.gvr.group,
            version: h.gvr.version,
            resource: h.gvr.resource,
            kind: h.kind,
            namespace: h.namespace,
            name: h.name,
            matched: h.matched,
        })
        .collect();
    let mut resp = Json(items).into_response();
    add_warnings(&mut resp, warnings);
    Ok(resp)
}

/// The search index's lines of `/metrics` (none with search off): whether it waits for the first
/// sync, is being built or retries a failed build, and the rows the build wrote so far.
pub(super) fn metrics(store: &Store) -> String {
    if !store.keeps_search_index() {
        return String::new();
    }
    let building = store.search_index_building();
    let mut out = String::from(
        "# HELP mc_search_index_building 1 in the state the search index's build is in: deferred (waiting for the first sync), sweeping (writing every object's row) or failed (retrying); all 0 once built.\n\
         # TYPE mc_search_index_building gauge\n",
    );
    for (state, on) in [
        ("deferred", matches!(building, Some(Building::Deferred))),
        ("sweeping", matches!(building, Some(Building::Sweeping(_)))),
        ("failed", matches!(building, Some(Building::Failed(_)))),
    ] {
        out.push_str(&format!("mc_search_index_building{{state=\"{state}\"}} {}\n", u8::from(on)));
    }
    let written = match building {
        Some(Building::Sweeping(n)) => n,
        _ => 0,
    };
    out.push_str(&format!(
        "# HELP mc_search_index_rows_written Rows of the search index written by the build under way.\n\
         # TYPE mc_search_index_rows_written gauge\nmc_search_index_rows_written {written}\n"
    ));
    out
}
