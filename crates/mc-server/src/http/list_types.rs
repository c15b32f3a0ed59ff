//! `/v1/list` and `/v1/list_with_cluster` of several types in one request: `gvr=a,b` or
//! `gvr=a&gvr=b` (a request of one type is answered as it always was, by `super::list`).
//!
//! The answer holds each type's objects in the order the types are given, each type in the
//! stable order (cluster, namespace, name); a type named twice is listed once. Every type is
//! resolved as a request of it alone would resolve it (the first unknown one is that request's
//! 404) and restricted to where the caller may read it by the same rules ([`super::rights`]).
//! `limit` counts the whole answer (the default page of the Go project's server too), and
//! without one (`limit=0`) the answer is streamed a page at a time, type after type; the
//! `continue` token of a cut answer is the token of the type it stopped in, so the next page
//! continues that type and then lists the types after it. There is no watch and no
//! newest-first order of several types.

use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use mc_types::ResourceInfo;
use serde_json::Value;

use super::list_request::ListRequest;
use super::streamed::page_response;
use super::warnings::{add_warnings, answer_warnings};
use super::{ApiError, ApiResult, AppState, params, streamed};
use crate::identity::Caller;
use crate::store::{Cursor, Page, Query as StoreQuery, RawObject};

/// Answers a list request of several types.
pub(super) async fn run(
    state: &AppState,
    caller: &Caller,
    request: &ListRequest,
    write: streamed::WriteItem,
) -> ApiResult<Response> {
    if request.watch {
        return Err(ApiError::bad_request("watch takes one type: watch each type in a request of its own"));
    }
    if request.newest_first() {
        return Err(ApiError::bad_request("order=newest takes one type: list several types in order=name"));
    }
    let mut queries: Vec<(StoreQuery, ResourceInfo)> = Vec::new();
    for gvr in request.types() {
        let (query, info) = request.query_without_token(state, Some(gvr))?;
        if !queries.iter().any(|(q, _)| q.gvr == query.gvr) {
            queries.push((query, info));
        }
    }
    let start = match request.continue_token() {
        Some(token) => continued_type(state, token, &mut queries)?,
        None => 0,
    };
    let mut denied = Vec::new();
    for (query, info) in &mut queries {
        denied.extend(super::rights::restrict(state, caller, "list", info, query).await?);
    }
    let Some(limit) = queries.first().and_then(|(q, _)| q.limit).filter(|&n| n > 0) else {
        let rest = queries.into_iter().skip(start).map(|(q, _)| q).collect();
        return Ok(unlimited(state, rest, write, denied));
    };
    let mut items: Vec<(String, RawObject)> = Vec::new();
    let mut stopped: Option<(StoreQuery, Cursor)> = None;
    let count = queries.len();
    for (index, (query, _)) in queries.iter().enumerate().skip(start) {
        let room = limit.saturating_sub(u32::try_from(items.len()).unwrap_or(u32::MAX));
        let Page { items: rows, next } =
            super::query(state, &StoreQuery { limit: Some(room), ..query.clone() }).await?;
        items.extend(rows);
        if let Some(cursor) = next {
            stopped = Some((query.clone(), cursor));
            break;
        }
        if items.len() >= limit as usize && index + 1 < count {
            // Filled at the end of this type: the next page continues after its last object.
            stopped = last_cursor(query, &items).map(|cursor| (query.clone(), cursor));
            break;
        }
    }
    // The token is the stopped type's; every other type adds the warnings of its own.
    let (token_query, next) = match stopped {
        Some((query, cursor)) => (query, Some(cursor)),
        None => (queries.first().map(|(q, _)| q.clone()).unwrap_or_default(), None),
    };
    for (query, _) in queries.iter().filter(|(q, _)| q.gvr != token_query.gvr) {
        denied.extend(answer_warnings(state, query, std::iter::empty()));
    }
    let mut resp = page_response(state, &token_query, Page { items, next }, write);
    add_warnings(&mut resp, denied);
    Ok(resp)
}

/// Every row of every type, streamed a page at a time (the server holds about one page whatever
/// the size of the answer); the `Warning`s of every cluster in each type's scope.
fn unlimited(
    state: &AppState,
    queries: Vec<StoreQuery>,
    write: streamed::WriteItem,
    mut warnings: Vec<String>,
) -> Response {
    let scope: Vec<String> = state.registry.all().iter().map(|c| c.name().to_owned()).collect();
    for query in &queries {
        let in_scope =
            scope.iter().map(String::as_str).filter(|c| query.cluster.as_deref().is_none_or(|q| q == *c));
        warnings.extend(answer_warnings(state, query, in_scope));
    }
    let mut seen = std::collections::BTreeSet::new();
    warnings.retain(|w| seen.insert(w.clone()));
    let pages = streamed::pages_of_each(state.clone(), queries);
    let body = streamed::body_of(pages, write, b"[".to_vec(), b"]");
    let mut resp = ([(CONTENT_TYPE, "application/json")], body).into_response();
    add_warnings(&mut resp, warnings);
    resp
}

/// Which type a continue token continues (the one whose query made it), with its position set;
/// 400 when no type's query made it, 410 when its cluster is gone.
fn continued_type(
    state: &AppState,
    token: &str,
    queries: &mut [(StoreQuery, ResourceInfo)],
) -> ApiResult<usize> {
    let mut refused = None;
    for (index, (query, _)) in queries.iter_mut().enumerate() {
        match params::continue_after(token, query, &state.registry) {
            Ok(cursor) => {
                query.continue_after = Some(cursor);
                return Ok(index);
            }
            Err(e) if e.status == axum::http::StatusCode::GONE => return Err(e),
            Err(e) => refused = Some(e),
        }
    }
    Err(refused.unwrap_or_else(|| ApiError::bad_request("invalid continue token")))
}

/// The position of the last object listed, in `query`'s type.
fn last_cursor(query: &StoreQuery, items: &[(String, RawObject)]) -> Option<Cursor> {
    let (cluster, object) = items.last()?;
    let gvr = query.gvr.as_ref()?;
    let meta = object.value().get("metadata").cloned().unwrap_or(Value::Null);
    let text = |key: &str| meta.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    Some(Cursor {
        cluster: cluster.clone(),
        namespace: text("namespace"),
        name: text("name"),
        group: gvr.group.clone(),
        version: gvr.version.clone(),
        resource: gvr.resource.clone(),
    })
}
