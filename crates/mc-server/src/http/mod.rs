//! HTTP API (SPEC §6): one router over the shared state; every module brings its routes.

pub mod clusters;
pub mod error;
pub mod health;
pub mod join;
pub mod list;
pub mod openapi;
pub mod watch;

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};

use crate::clusters::Registry;
use crate::metrics::Metrics;
use crate::store::Store;
use crate::sync::SyncContext;
pub use error::{ApiError, ApiResult};

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// Clusters and their state.
    pub registry: Arc<Registry>,
    /// The object store.
    pub store: Store,
    /// Bearer token required on `/v1` when set.
    pub token: Option<String>,
    /// Counters for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// Sync context, to start syncing clusters that join.
    pub sync: SyncContext,
    /// Runtime join and unjoin.
    pub membership: Arc<crate::clusters::join::Membership>,
}

/// The whole API.
pub fn router(state: AppState) -> Router {
    let v1 = Router::new()
        .merge(list::router())
        .merge(clusters::router())
        .merge(join::router())
        .route_layer(middleware::from_fn_with_state(state.clone(), require_token));
    Router::new()
        .merge(v1)
        .merge(health::router())
        .merge(openapi::router())
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state.clone(), count_requests))
        .with_state(state)
}

async fn not_found(req: Request) -> ApiError {
    ApiError::not_found(format!(
        "no such endpoint: {} {} (see /openapi.json)",
        req.method(),
        req.uri().path()
    ))
}

/// Bearer-token check for `/v1` (constant-time comparison).
async fn require_token(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if let Some(token) = state.token.as_deref() {
        let given = req
            .headers()
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.strip_prefix("Bearer "));
        match given {
            None => {
                return ApiError::unauthorized("missing bearer token (Authorization: Bearer <token>)")
                    .into_response();
            }
            Some(g) if !constant_time_eq(g.as_bytes(), token.as_bytes()) => {
                return ApiError::unauthorized("invalid bearer token").into_response();
            }
            Some(_) => {}
        }
    }
    next.run(req).await
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn count_requests(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "unmatched".into());
    let resp = next.run(req).await;
    state.metrics.request(&route, resp.status().as_u16());
    resp
}
