//! `GET /v1/clusters` and `GET /v1/resources` (the discovery data, for clients resolving names).

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::routing::get;
use mc_types::api::ClusterInfo;
use mc_types::gvr::ResourceInfo;

use super::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route("/v1/clusters", get(clusters)).route("/v1/resources", get(resources))
}

async fn clusters(State(state): State<AppState>) -> Json<Vec<ClusterInfo>> {
    let behind = state.sync.health.failing_since();
    Json(state.registry.infos(behind))
}

async fn resources(State(state): State<AppState>) -> Json<Vec<ResourceInfo>> {
    Json(state.registry.catalog())
}
