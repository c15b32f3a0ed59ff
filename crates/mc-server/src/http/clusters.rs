//! `GET /v1/clusters` and `GET /v1/resources` (the discovery data, for clients resolving names).

use axum::extract::State;
use axum::routing::get;
use axum::{Extension, Json, Router};
use mc_types::api::ClusterInfo;
use mc_types::gvr::ResourceInfo;

use super::{ApiResult, AppState};
use crate::identity::Caller;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route("/v1/clusters", get(clusters)).route("/v1/resources", get(resources))
}

/// The clusters, each with its state: for a Kubernetes identity, those where it may read
/// something.
async fn clusters(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> ApiResult<Json<Vec<ClusterInfo>>> {
    let behind = state.sync.health.failing_since();
    let visible = super::rights::clusters(&state, &caller).await?;
    let infos = state.registry.infos(behind).into_iter().filter(|i| visible.contains(&i.name)).collect();
    Ok(Json(infos))
}

/// The synced types: for a Kubernetes identity, those it may list somewhere.
async fn resources(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> ApiResult<Json<Vec<ResourceInfo>>> {
    Ok(Json(super::rights::catalog(&state, &caller, None).await?))
}
