//! The history API: one object's revisions (`/v1/history`), a type's objects as they stood at
//! a time (`/v1/history/at`) or as they were when deleted (`/v1/history/deleted`), and Events
//! of every cluster kept past their expiry (`/v1/events`).
//!
//! Every path reads through the same rights as lists ([`super::rights::restrict`]): a caller
//! sees the past only where it may read the present.

mod events;
mod items;
mod request;

use axum::extract::{Query, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use mc_types::ResourceInfo;
use mc_types::history::{DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT, PastObject, paths};
use mc_types::moment;

use super::warnings::add_warnings;
use super::{ApiError, ApiResult, AppState, QUERY_TIMEOUT, bounded, list_request::resolve_type};
use crate::identity::Caller;
use crate::store::Query as StoreQuery;
use request::PastRequest;

/// Most objects one answer of `at`, `deleted` or `events` holds; more are left out, with a
/// `Warning`.
const MAX_OBJECTS: usize = 50_000;

/// How far back `deleted` and `events` look unless asked.
const DEFAULT_SINCE_MS: i64 = 3_600_000;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route(paths::HISTORY, get(history))
        .route(paths::DELETED, get(deleted))
        .route(paths::AT, get(at))
        .route(paths::EVENTS, get(events::events))
}

/// 404 when history is switched off, with how to switch it on.
fn history_on(state: &AppState) -> ApiResult<()> {
    if state.store.records_history() {
        Ok(())
    } else {
        Err(ApiError::not_found("history is switched off on this server (history.enabled: false)"))
    }
}

/// The store query of a request (type, cluster, namespace, name), restricted to where `caller`
/// may `verb` it, and the `Warning` naming the clusters left out.
async fn restricted(
    state: &AppState,
    caller: &Caller,
    verb: &str,
    info: &ResourceInfo,
    r: &PastRequest,
) -> ApiResult<(StoreQuery, Option<String>)> {
    if let Some(c) = &r.cluster {
        super::params::known_cluster(&state.registry, c)?;
    }
    let mut q = StoreQuery {
        gvr: Some(info.gvr()),
        cluster: r.cluster.clone(),
        namespace: r.namespace.clone(),
        name: r.name.clone(),
        ..Default::default()
    };
    let denied = super::rights::restrict(state, caller, verb, info, &mut q).await?;
    Ok((q, denied))
}

/// `Warning`s for clusters in the query's scope whose history does not reach back to `from_ms`
/// (pruned, or kept only since it was switched on).
async fn horizon_warnings(state: &AppState, q: &StoreQuery, from_ms: i64) -> Vec<String> {
    let Ok(stats) = state.store.history_stats().await else {
        return vec!["the history's extent could not be read; older states may be missing".into()];
    };
    stats
        .into_iter()
        .filter(|s| q.cluster.as_deref().is_none_or(|c| c == s.cluster))
        .filter_map(|s| {
            let since = s.complete_since_ms.filter(|since| *since > from_ms)?;
            Some(format!(
                "the history of cluster {} is complete only since {}: older states were pruned",
                s.cluster,
                moment::rfc3339(since)
            ))
        })
        .collect()
}

/// `GET /v1/history`: the revisions of the objects a name selects (in every cluster, or one),
/// oldest first; the newest `limit` of them.
async fn history(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> ApiResult<Response> {
    const TAKES: &[&str] = &["gvr", "cluster", "namespace", "name", "limit", "objects", "revisions"];
    let r = PastRequest::from_pairs(pairs, TAKES, moment::now_ms())?;
    history_on(&state)?;
    let info = resolve_type(&state, r.gvr.as_deref())?;
    if r.name.is_none() {
        return Err(ApiError::bad_request("missing parameter name: history is of one object (name=web)"));
    }
    let limit = r.limit.unwrap_or(DEFAULT_HISTORY_LIMIT).min(MAX_HISTORY_LIMIT) as usize;
    let (q, denied) = restricted(&state, &caller, "get", &info, &r).await?;
    let store = state.store.clone();
    let revisions = bounded(&state.queries, QUERY_TIMEOUT, async {
        if r.revisions.is_empty() {
            store.history(&q, true, limit).await.map_err(ApiError::from)
        } else {
            store.revisions(&q, &r.revisions).await.map_err(ApiError::from)
        }
    })
    .await?;
    let items = items::revision_items(revisions, r.objects);
    let mut resp = Json(items).into_response();
    add_warnings(&mut resp, denied.into_iter().collect());
    Ok(resp)
}

/// `GET /v1/history/deleted`: objects of a type deleted since `since` (default an hour ago),
/// each as it last was, the latest deletion last.
async fn deleted(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> ApiResult<Response> {
    const TAKES: &[&str] = &["gvr", "cluster", "namespace", "name", "labelSelector", "since", "limit"];
    let now = moment::now_ms();
    let r = PastRequest::from_pairs(pairs, TAKES, now)?;
    history_on(&state)?;
    let info = resolve_type(&state, r.gvr.as_deref())?;
    let since = r.since_ms.unwrap_or(now - DEFAULT_SINCE_MS);
    let (q, denied) = restricted(&state, &caller, "list", &info, &r).await?;
    let store = state.store.clone();
    let found = bounded(&state.queries, QUERY_TIMEOUT, async {
        store.deleted(&q, since).await.map_err(ApiError::from)
    })
    .await?;
    let objects = found.into_iter().filter_map(items::past_object);
    let mut warnings: Vec<String> = denied.into_iter().collect();
    warnings.extend(horizon_warnings(&state, &q, since).await);
    Ok(answer(objects, &r, warnings, true))
}

/// `GET /v1/history/at`: the objects of a type as they stood at `at`, in the order of lists.
async fn at(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> ApiResult<Response> {
    const TAKES: &[&str] = &["gvr", "cluster", "namespace", "name", "labelSelector", "at", "limit"];
    let r = PastRequest::from_pairs(pairs, TAKES, moment::now_ms())?;
    history_on(&state)?;
    let info = resolve_type(&state, r.gvr.as_deref())?;
    let at_ms = r.at_ms.ok_or_else(|| {
        ApiError::bad_request("missing parameter at: a time (2026-11-28T10:00:00Z) or a duration ago (30m)")
    })?;
    let (q, denied) = restricted(&state, &caller, "list", &info, &r).await?;
    let store = state.store.clone();
    let found = bounded(&state.queries, QUERY_TIMEOUT, async {
        store.state_at(&q, at_ms).await.map_err(ApiError::from)
    })
    .await?;
    let objects = found.into_iter().filter_map(items::past_object);
    let mut warnings: Vec<String> = denied.into_iter().collect();
    warnings.extend(horizon_warnings(&state, &q, at_ms).await);
    Ok(answer(objects, &r, warnings, false))
}

/// Objects in the past as a JSON array, filtered by the request's labels, at most its limit
/// (and [`MAX_OBJECTS`]): the last ones when `newest_last` (the order is by time), else the
/// first; with `warnings`.
fn answer(
    objects: impl Iterator<Item = PastObject>,
    r: &PastRequest,
    mut warnings: Vec<String>,
    newest_last: bool,
) -> Response {
    let max = r.limit.map_or(MAX_OBJECTS, |l| (l as usize).min(MAX_OBJECTS));
    let mut kept: std::collections::VecDeque<PastObject> = Default::default();
    let mut left_out = 0usize;
    for o in objects.filter(|o| r.labels.as_ref().is_none_or(|l| l.matches(&labels(&o.object)))) {
        if kept.len() < max {
            kept.push_back(o);
        } else if newest_last {
            kept.pop_front();
            kept.push_back(o);
            left_out += 1;
        } else {
            left_out += 1;
        }
    }
    if left_out > 0 {
        warnings.push(format!(
            "{left_out} more objects were left out (at most {max} per answer); narrow the query"
        ));
    }
    let body = serde_json::to_vec(&kept).unwrap_or_else(|_| b"[]".to_vec());
    let mut resp = ([(CONTENT_TYPE, "application/json")], body).into_response();
    add_warnings(&mut resp, warnings);
    resp
}

/// An object's labels.
fn labels(object: &serde_json::Value) -> std::collections::BTreeMap<String, String> {
    object
        .pointer("/metadata/labels")
        .and_then(|l| l.as_object())
        .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
        .unwrap_or_default()
}
