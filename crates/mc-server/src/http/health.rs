//! `/livez`, `/healthz`, `/readyz` and `/metrics`.
//!
//! As kube-apiserver's: `/livez` and `/healthz` say that the process answers (restart it when
//! they do not) and ask no cluster; `/readyz` says whether its answers are complete.

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use mc_types::api::paths;
use serde_json::json;

use super::{ApiError, AppState};

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route(paths::LIVEZ, get(healthz))
        .route(paths::HEALTHZ, get(healthz))
        .route(paths::READYZ, get(readyz))
        .route(paths::METRICS, get(metrics))
}

/// `/livez` and `/healthz`: the process is alive, whatever the clusters and the store do.
async fn healthz() -> Json<serde_json::Value> {
    Json(json!({"status": "ok"}))
}

/// 200 only when every cluster was tried and every Ready one finished its initial sync (and the
/// indexes deferred for a first sync are built). The search index being built (or failing to)
/// leaves it ready, saying so in `search_index`: lists and gets are complete, and searches carry
/// a Warning meanwhile. `warnings` says when answers are exact but slower than they should be
/// (the field kept for counts could not be written).
async fn readyz(State(state): State<AppState>) -> Result<Json<serde_json::Value>, ApiError> {
    if !state.membership.restore_tried() {
        return Err(ApiError::unavailable(match state.membership.restore_error() {
            Some(why) => {
                format!("not ready: restoring joined clusters from the master failed ({why}); retrying")
            }
            None => "not ready: restoring joined clusters".into(),
        }));
    }
    if let Some((why, since)) = state.sync.health.problem() {
        return Err(ApiError::unavailable(format!(
            "not ready: the store refuses writes since {since} ({why}); changes wait and are written when it returns"
        )));
    }
    if let Some(problem) = state.registry.master_problem() {
        return Err(ApiError::unavailable(format!("not ready: {problem}")));
    }
    state.registry.readiness().map_err(|why| ApiError::unavailable(format!("not ready: {why}")))?;
    if let Some(why) = state.store.pending_indexes() {
        return Err(ApiError::unavailable(format!("not ready: {why}")));
    }
    let mut ready = json!({"status": "ready"});
    if let Some(building) = state.store.search_index_building() {
        ready["search_index"] = json!(building.to_string());
    }
    // Answers stay exact, only slower: ready, with the reason.
    if let Some(why) = state.store.count_fields_problem() {
        ready["warnings"] = json!([why]);
    }
    Ok(Json(ready))
}

async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let mut body = state.metrics.render(&state.registry);
    body.push_str(&format!(
        "# HELP mc_token_reviews_total TokenReviews sent to the master cluster (kept answers are not counted).\n\
         # TYPE mc_token_reviews_total counter\nmc_token_reviews_total {}\n",
        state.reviewer.reviews_sent()
    ));
    body.push_str(&super::search::metrics(&state.store));
    body.push_str(&format!(
        "# HELP mc_count_fields_fill_failing 1 while writing the field kept for counts of stored objects fails (counts of their types read every object meanwhile).\n\
         # TYPE mc_count_fields_fill_failing gauge\nmc_count_fields_fill_failing {}\n",
        u8::from(state.store.count_fields_problem().is_some())
    ));
    if let Some(oidc) = &state.oidc {
        body.push_str(&oidc.metrics());
    }
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], body)
}
