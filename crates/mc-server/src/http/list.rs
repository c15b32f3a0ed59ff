//! `/v1/list` and `/v1/list_with_cluster`: the Go project's query endpoints, which our plugin
//! uses too, plus selectors, pagination and watches.
//!
//! What our plugin does not use, kept for the Go project's CLI and scripts: `/v1/list` itself
//! (bare objects; the plugin reads `/v1/list_with_cluster`), the `clusterName` spelling of
//! `cluster`, the `labels[key]=value` equality filter, the default page of
//! [`mc_types::api::DEFAULT_LIST_LIMIT`] objects, and `order=newest`, its newest-first answer.

use axum::Extension;
use axum::Router;
use axum::extract::{Query, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use mc_types::ResourceInfo;

use super::list_request::ListRequest;
use super::streamed::page_response;
use super::warnings::add_warnings;
use super::{ApiResult, AppState, streamed};
use crate::identity::Caller;
use crate::store::{Order, Query as StoreQuery, RawObject};

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route("/v1/list", get(list)).route("/v1/list_with_cluster", get(list_with_cluster))
}

/// Runs a list request: a watch stream as it is, a page with its continue token, or — without
/// a limit — every row, streamed when there is more than one page of them ([`streamed`]).
async fn run(
    state: &AppState,
    caller: &Caller,
    pairs: Vec<(String, String)>,
    write: streamed::WriteItem,
) -> ApiResult<Response> {
    let request = ListRequest::from_pairs(pairs)?;
    if let Some(owner) = request.owner() {
        return super::owned::run(state, caller, &request, owner, write).await;
    }
    if request.several() {
        return super::list_types::run(state, caller, &request, write).await;
    }
    let (mut query, info) = request.to_query(state)?;
    let verb = if request.watch { "watch" } else { "list" };
    let denied = super::rights::restrict(state, caller, verb, &info, &mut query).await?;
    let mut resp = answer(state, caller, request.watch, query, info, write).await?;
    add_warnings(&mut resp, denied.into_iter().collect());
    Ok(resp)
}

/// The answer of a list request whose query is restricted to where its caller may read.
async fn answer(
    state: &AppState,
    caller: &Caller,
    watch: bool,
    query: StoreQuery,
    info: ResourceInfo,
    write: streamed::WriteItem,
) -> ApiResult<Response> {
    if watch {
        let rights = super::rights::Rights { caller: caller.clone(), verb: "watch", info };
        return super::watch::stream(state, query, Some(rights)).await;
    }
    let unlimited = query.limit.is_none_or(|l| l == 0);
    // Newest first has no cursor to page on: it is read whole.
    if unlimited && query.order == Order::Name {
        let first = super::query(state, &StoreQuery { limit: Some(streamed::PAGE), ..query.clone() }).await?;
        if first.next.is_some() {
            let warnings = streamed::warnings(state, &query, &first);
            let body = streamed::body(state.clone(), query, first, write, b"[".to_vec(), b"]");
            let mut resp = ([(CONTENT_TYPE, "application/json")], body).into_response();
            add_warnings(&mut resp, warnings);
            return Ok(resp);
        }
        return Ok(page_response(state, &query, first, write));
    }
    let page = super::query(state, &query).await?;
    Ok(page_response(state, &query, page, write))
}

/// `GET /v1/list`: a JSON array of objects.
async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> ApiResult<Response> {
    run(&state, &caller, pairs, |out, _, object| out.extend_from_slice(object.text().as_bytes())).await
}

/// `GET /v1/list_with_cluster`: `[{"clusterName": ..., "Object": {...}}]`.
async fn list_with_cluster(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> ApiResult<Response> {
    run(&state, &caller, pairs, |out, cluster_name, object| {
        // Serializing a &str and a raw value into a Vec cannot fail.
        let _ = serde_json::to_writer(out, &Item { cluster_name, object });
    })
    .await
}

/// [`mc_types::api::ListWithClusterItem`] with the stored JSON passed through unparsed.
#[derive(serde::Serialize)]
struct Item<'a> {
    #[serde(rename = "clusterName")]
    cluster_name: &'a str,
    #[serde(rename = "Object")]
    object: &'a RawObject,
}
