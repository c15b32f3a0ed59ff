//! `/v1/count`: how many objects of one type have each combination of some keys' values
//! (`by=cluster,status.phase`), with the filters of `/v1/list` and its access rules.
//!
//! Keys that SQL reads (the cluster, the namespace, field paths) are grouped in the store. A
//! printed column (`STATUS` of pods, which kubectl computes from the containers' states) is
//! computed here with the same cell function as the type's tables, over the objects read a page
//! at a time: slower, as a list of the same objects is.

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use mc_types::ResourceInfo;
use mc_types::api::{CountAnswer, CountItem, paths};
use mc_types::count::{CountKey, NONE};
use mc_types::printers::{Column, Ctx, TableSpec, View};

use super::list_request::ListRequest;
use super::warnings::{add_warnings, answer_warnings};
use super::{ApiError, ApiResult, AppState, QUERY_TIMEOUT, params};
use crate::identity::Caller;
use crate::store::{Count, GroupKey, Query as StoreQuery};

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route(paths::COUNT, get(count))
}

/// Parameters of `/v1/list` that mean nothing to a count.
const LIST_ONLY: [&str; 5] = ["limit", "continue", "order", "watch", "labels"];

/// `GET /v1/count?gvr=&by=`: a [`CountAnswer`].
async fn count(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> ApiResult<Response> {
    let mut by: Option<String> = None;
    let mut rest = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        params::check_len(&k, &v)?;
        if k == "by" {
            if by.replace(v).is_some() {
                return Err(ApiError::bad_request(
                    "by is given twice; give the keys once, separated by commas",
                ));
            }
        } else if LIST_ONLY.contains(&k.as_str()) || k.starts_with("labels[") {
            return Err(ApiError::bad_request(format!("unknown query parameter \"{}\"", params::shown(&k))));
        } else {
            rest.push((k, v));
        }
    }
    let by = by.filter(|b| !b.trim().is_empty()).ok_or_else(|| {
        ApiError::bad_request("missing parameter by: the keys to count by (e.g. by=cluster,status.phase)")
    })?;
    let keys = CountKey::parse_list(&by).map_err(|e| ApiError::bad_request(e.to_string()))?;
    let (mut query, info) = ListRequest::from_pairs(rest)?.to_query(&state)?;
    query.limit = None;
    let plan = plan(&state, &info, &keys).await?;
    let denied = super::rights::restrict(&state, &caller, "list", &info, &mut query).await?;
    let counts = run(&state, &query, plan).await?;
    let answer = CountAnswer {
        by: keys.iter().map(ToString::to_string).collect(),
        total: counts.iter().map(|c| c.count).sum(),
        items: counts.into_iter().map(|c| CountItem { values: c.values, count: c.count }).collect(),
    };
    let scope: Vec<String> = state
        .registry
        .names()
        .into_iter()
        .filter(|c| query.cluster.as_deref().is_none_or(|q| q == c))
        .collect();
    let mut warnings = answer_warnings(&state, &query, scope.iter().map(String::as_str));
    warnings.extend(denied);
    if keys.iter().any(|k| matches!(k, CountKey::Field(_))) {
        warnings.extend(state.store.count_fields_problem());
    }
    let mut resp = Json(answer).into_response();
    add_warnings(&mut resp, warnings);
    Ok(resp)
}

/// The store's key for `key`, or the header of the printed column it names.
fn stored(key: &CountKey) -> Result<GroupKey, &String> {
    match key {
        CountKey::Cluster => Ok(GroupKey::Cluster),
        CountKey::Namespace => Ok(GroupKey::Namespace),
        CountKey::Field(path) => Ok(GroupKey::Field(path.clone())),
        CountKey::Column(header) => Err(header),
    }
}

/// How a count is made.
enum Plan {
    /// Every key in SQL.
    Store(Vec<GroupKey>),
    /// Some printed column: every key here, object by object.
    Here(Vec<HereKey>),
}

/// A key computed here.
enum HereKey {
    Store(GroupKey),
    Column(Column),
}

/// The plan of `keys` for the type `info`: a printed column is found among the type's columns
/// (kubectl's, or its CRD's printer columns), else 400 naming them.
async fn plan(state: &AppState, info: &ResourceInfo, keys: &[CountKey]) -> ApiResult<Plan> {
    if let Ok(all) = keys.iter().map(stored).collect::<Result<Vec<_>, _>>() {
        return Ok(Plan::Store(all));
    }
    let crd = super::kube::crd(state, info).await;
    let spec = TableSpec::resolve(
        &info.group,
        &info.kind,
        &info.version,
        info.namespaced,
        crd.as_ref(),
        View::Kubectl,
    );
    let mut here = Vec::with_capacity(keys.len());
    for key in keys {
        here.push(match stored(key) {
            Ok(k) => HereKey::Store(k),
            Err(header) => {
                let column = spec.columns.iter().find(|c| c.header.to_uppercase() == *header).ok_or_else(|| {
                    let known: Vec<&str> = spec.columns.iter().map(|c| c.header.as_str()).collect();
                    ApiError::bad_request(format!(
                        "{} have no printed column {header} (columns: {}); count by a field path instead, such as status.phase",
                        info.resource,
                        known.join(", ")
                    ))
                })?;
                HereKey::Column(column.clone())
            }
        });
    }
    Ok(Plan::Here(here))
}

/// Runs the count in its turn and within [`QUERY_TIMEOUT`].
async fn run(state: &AppState, query: &StoreQuery, plan: Plan) -> ApiResult<Vec<Count>> {
    let store = &state.store;
    super::bounded(&state.queries, QUERY_TIMEOUT, async {
        let counts = match plan {
            Plan::Store(keys) => store.count_by(query, &keys).await,
            Plan::Here(keys) => {
                let ctx = Ctx::now();
                store
                    .count_each(query, |cluster, object| {
                        let value = object.value();
                        keys.iter()
                            .map(|k| match k {
                                HereKey::Store(k) => k.value_of(cluster, &value),
                                HereKey::Column(c) => match c.cell(&value, &ctx) {
                                    cell if cell.is_empty() => NONE.to_string(),
                                    cell => cell,
                                },
                            })
                            .collect()
                    })
                    .await
            }
        };
        counts.map_err(ApiError::from)
    })
    .await
}
