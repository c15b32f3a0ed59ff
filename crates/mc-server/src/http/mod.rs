//! HTTP API: one router over the shared state; every module brings its routes.
//!
//! The `/v1` paths keep the Go project's HTTP API, so its CLI and scripts work unchanged: the
//! paths, parameters and JSON shapes of [`list`] and [`join`]. Our plugin speaks the same API,
//! with what we added ([`list`]'s selectors, pages and watches, `/v1/clusters`,
//! `/v1/resources`, [`can_i`]); [`list`]'s module documentation names the parts our plugin does
//! not use, kept for the Go project's CLI and scripts. The Kubernetes API ([`kube`]) is ours
//! alone.

pub mod can_i;
pub mod clusters;
pub mod count;
pub mod error;
pub mod health;
mod history;
pub mod join;
pub mod kube;
pub mod list;
pub mod list_request;
pub mod list_types;
pub mod openapi;
pub mod owned;
pub mod params;
pub mod rights;
pub mod search;
pub mod status;
pub mod streamed;
#[cfg(test)]
pub(crate) mod testing;
pub mod tree;
pub mod warnings;
pub mod watch;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use mc_types::config::Role;

use crate::access::Refused;
use crate::access::{AccessControl, Mode};
use crate::auth::{Access, Auth, Denied};
use crate::authz::User;
use crate::clusters::Registry;
use crate::identity::impersonation::Impersonation;
use crate::identity::{Caller, OidcVerifier, PeerIdentity, Reviewed, TokenReviewer};
use crate::metrics::Metrics;
use crate::store::Store;
use crate::sync::SyncContext;
pub use error::{ApiError, ApiResult};

/// How long one store query may take before the request answers 503.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(30);
/// Store queries running at once; more wait (up to [`QUERY_TIMEOUT`]) for a turn.
pub const MAX_CONCURRENT_QUERIES: usize = 16;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// Clusters and their state.
    pub registry: Arc<Registry>,
    /// The object store.
    pub store: Store,
    /// Who may call what.
    pub auth: Arc<Auth>,
    /// Counters for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// Sync context, to start syncing clusters that join.
    pub sync: SyncContext,
    /// Runtime join and unjoin.
    pub membership: Arc<crate::membership::Membership>,
    /// Turns for expensive store queries.
    pub queries: Arc<tokio::sync::Semaphore>,
    /// Table rows kept between requests.
    pub rows: Arc<kube::rows::RowCache>,
    /// Bearer tokens reviewed by the master cluster.
    pub reviewer: Arc<TokenReviewer>,
    /// OIDC ID tokens checked here (`authentication.oidc`).
    pub oidc: Option<Arc<OidcVerifier>>,
    /// What each caller may read in each cluster.
    pub access: Arc<AccessControl>,
    /// The clusters' OpenAPI documents, kept between requests.
    pub openapi: Arc<kube::openapi::Documents>,
    /// The links declared between types in the config (`relations.links`), for trees.
    pub relation_links: Arc<Vec<mc_types::declared_links::DeclaredLink>>,
}

/// The whole API. Every path needs a token except `/livez`, `/healthz`, `/readyz`, `/openapi.json` and
/// (unless `server.metricsAuth`) `/metrics`; join and unjoin need the `admin` role.
pub fn router(state: AppState) -> Router {
    let admin = Router::new().merge(join::router()).route_layer(middleware::from_fn(require_admin));
    let routes = Router::new()
        .merge(list::router())
        .merge(clusters::router())
        .merge(count::router())
        .merge(can_i::router())
        .merge(tree::router())
        .merge(search::router())
        .merge(history::router())
        .merge(kube::router())
        .merge(admin)
        .merge(health::router())
        .merge(openapi::router())
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state.clone(), authenticate))
        .layer(middleware::from_fn_with_state(state.clone(), count_requests))
        .with_state(state);
    // Around the routes whole, not each route (as `Router::layer` puts them): a 405's `Allow`
    // header, which a route sets last, is there for `json_errors` to read, and a request too
    // large to look at is refused before it is routed.
    Router::new()
        .fallback_service(routes)
        .layer(middleware::from_fn(json_errors))
        .layer(middleware::from_fn(params::bounded))
}

/// Runs one store query in its turn and within [`QUERY_TIMEOUT`]; a busy or slow store answers
/// 503 instead of piling up requests.
pub async fn query(state: &AppState, query: &crate::store::Query) -> ApiResult<crate::store::Page> {
    bounded(&state.queries, QUERY_TIMEOUT, async { state.store.query(query).await.map_err(ApiError::from) })
        .await
}

/// [`query`] as digests ([`crate::store::Store::query_digests`]).
pub async fn query_digests(
    state: &AppState,
    query: &crate::store::Query,
    known: impl FnMut(i64, &str) -> bool,
) -> ApiResult<Option<crate::store::DigestPage>> {
    bounded(&state.queries, QUERY_TIMEOUT, async {
        state.store.query_digests(query, known).await.map_err(ApiError::from)
    })
    .await
}

/// `work` once it has one of `turns`, all of it (wait included) within `limit`, else 503.
pub(crate) async fn bounded<T>(
    turns: &tokio::sync::Semaphore,
    limit: std::time::Duration,
    work: impl std::future::Future<Output = ApiResult<T>>,
) -> ApiResult<T> {
    let in_turn = async {
        let _turn =
            turns.acquire().await.map_err(|_| ApiError::unavailable("the server is shutting down"))?;
        work.await
    };
    match tokio::time::timeout(limit, in_turn).await {
        Ok(result) => result,
        Err(_) => Err(ApiError::unavailable(format!(
            "the query did not finish within {}s; narrow it (namespace, labelSelector, limit) or try again",
            limit.as_secs()
        ))),
    }
}

async fn not_found(req: Request) -> Response {
    let path = req.uri().path();
    let message = format!("no such endpoint: {} {} (see /openapi.json)", req.method(), params::shown(path));
    params::answer(path, ApiError::not_found(message))
}

/// Paths anyone may call: probes and the API description. Not `/version`: kube-apiserver shows
/// it to anonymous callers only when anonymous requests are on, and the master's exact release is
/// worth hiding from strangers; any caller with a token reads it, and anyone does with
/// `server.anonymousRead`, as every other GET.
fn is_open(path: &str, auth: &Auth) -> bool {
    matches!(path, "/livez" | "/healthz" | "/readyz" | "/openapi.json")
        || (path == "/metrics" && !auth.metrics_auth())
}

/// Who is calling: a verified client certificate's user first (as kube-apiserver orders its
/// authenticators), else a static token's role, or a Kubernetes identity that the OIDC issuer
/// signed or the master cluster vouched for (any other bearer token, unless
/// `authorization.mode` is `roles`; see [`identify`]). The [`Caller`] (and a static token's
/// [`Role`]) go into the request's extensions. A closed `/metrics` needs a token even when other
/// reads go without one (`server.anonymousRead`): closing it is what `server.metricsAuth` asks
/// for. A review or keys that cannot be had answer 503: never an open door.
async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if is_open(path, &state.auth) {
        return next.run(req).await;
    }
    let access = if path == "/metrics" {
        Access::Token
    } else if matches!(*req.method(), Method::GET | Method::HEAD) {
        Access::Read
    } else {
        Access::Write
    };
    // As kube-apiserver orders its authenticators: a verified client certificate first.
    let identities = state.access.mode() != Mode::Roles;
    if let Some(peer) = req.extensions().get::<PeerIdentity>().filter(|_| identities) {
        let caller = Caller::member(peer.user().clone());
        return run_as(&state, caller, req, next).await;
    }
    let header = req.headers().get(header::AUTHORIZATION).map(HeaderValue::as_bytes);
    if let Some(user) = state.auth.user(header).filter(|_| identities) {
        return run_as(&state, Caller::member(user), req, next).await;
    }
    let denied = match state.auth.check(header, access) {
        Ok(role) => {
            req.extensions_mut().insert(role);
            return run_as(&state, Caller::with_role(role), req, next).await;
        }
        Err(denied) => denied,
    };
    let reviewable = header.and_then(crate::auth::reviewable).filter(|_| state.access.mode() != Mode::Roles);
    if let (Denied::Invalid, Some((token, digest))) = (denied, reviewable) {
        match identify(&state, token, digest).await {
            Ok(Some(user)) => return run_as(&state, Caller::member(user), req, next).await,
            Ok(None) => {}
            Err(e) => return params::answer(req.uri().path(), e),
        }
    }
    let message = match denied {
        Denied::Missing => "missing bearer token (Authorization: Bearer <token>)",
        Denied::Invalid => "invalid bearer token",
    };
    let mut resp = params::answer(req.uri().path(), ApiError::unauthorized(message));
    resp.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    resp
}

/// The user of a token that is none of the static ones: checked here when it claims to come
/// from the OIDC issuer, else reviewed by the master cluster. `None`: refused (401). Keys or a
/// review that cannot be had answer 503.
async fn identify(state: &AppState, token: &str, digest: [u8; 32]) -> Result<Option<User>, ApiError> {
    if let Some(oidc) = state.oidc.as_ref().filter(|o| o.claims_issuer_of(token)) {
        return match oidc.verify(token, digest).await {
            Ok(Reviewed::User(user)) => Ok(Some(user)),
            Ok(Reviewed::Rejected) => Ok(None),
            // The issuer's own words stay in the log (`source`): the caller gets ours.
            Err(_) => Err(ApiError::unavailable("the OIDC issuer's keys cannot be fetched now; try again")),
        };
    }
    let master = state.registry.master().and_then(|c| c.client());
    match state.reviewer.review(master, token, digest).await {
        Ok(Reviewed::User(user)) => Ok(Some(user)),
        Ok(Reviewed::Rejected) | Err(crate::identity::ReviewError::NoMaster) => Ok(None),
        Err(e) => Err(ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("{e}; try again"))),
    }
}

/// Runs the request as `caller`, or as the user its `Impersonate-*` headers name when `caller`
/// may act as that user; the answer carries the caller too (for the audit line).
async fn run_as(state: &AppState, caller: Caller, mut req: Request, next: Next) -> Response {
    let caller = match Impersonation::from_headers(req.headers()) {
        Ok(None) => caller,
        Ok(Some(asked)) => {
            let master = state.registry.master().map(|c| c.spec.name.clone());
            match state.access.impersonate(&caller, &asked, master.as_deref()).await {
                Ok(acting) => acting,
                Err(refused) => {
                    let status = match refused {
                        Refused::Store(_) => StatusCode::SERVICE_UNAVAILABLE,
                        _ => StatusCode::FORBIDDEN,
                    };
                    let mut resp =
                        params::answer(req.uri().path(), ApiError::new(status, refused.to_string()));
                    resp.extensions_mut().insert(caller);
                    return resp;
                }
            }
        }
        Err(bad) => return params::answer(req.uri().path(), ApiError::bad_request(bad.to_string())),
    };
    req.extensions_mut().insert(caller.clone());
    let mut resp = next.run(req).await;
    resp.extensions_mut().insert(caller);
    resp
}

/// Join and unjoin change what the server trusts: `admin` only.
async fn require_admin(req: Request, next: Next) -> Response {
    match req.extensions().get::<Caller>() {
        Some(caller) if caller.is_admin() => next.run(req).await,
        Some(caller) => {
            let who = match caller.grant {
                crate::identity::Grant::Role(Role::Read) => "this token has the read role".to_string(),
                _ => format!("{} is not an mc-server admin", caller.user.name),
            };
            ApiError::new(StatusCode::FORBIDDEN, format!("{who}; joining and unjoining need an admin token"))
                .into_response()
        }
        None => ApiError::unauthorized("joining and unjoining need an admin token").into_response(),
    }
}

/// Every error answers with the JSON error shape of its API (see [`params::answer`]), also those
/// that axum makes itself (wrong method, malformed query string): clients decode one shape.
async fn json_errors(req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let resp = next.run(req).await;
    let status = resp.status();
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let detail =
        axum::body::to_bytes(body, 4096).await.map(|b| String::from_utf8_lossy(&b).trim().to_string());
    let message = match (status, detail) {
        (StatusCode::METHOD_NOT_ALLOWED, _) => {
            let allowed = parts.headers.get(header::ALLOW).and_then(|v| v.to_str().ok()).unwrap_or("");
            format!("method {method} is not allowed on {} (allowed: {allowed})", params::shown(&path))
        }
        (_, Ok(text)) if !text.is_empty() => text.lines().next().unwrap_or_default().to_string(),
        _ => status.canonical_reason().unwrap_or("error").to_string(),
    };
    let mut resp = params::answer(&path, ApiError::new(status, message));
    // The rest of what was said (`Allow`, `WWW-Authenticate`, …) stays.
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            resp.headers_mut().append(name, value.clone());
        }
    }
    resp
}

async fn count_requests(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "unmatched".into());
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    let started = std::time::Instant::now();
    let resp = next.run(req).await;
    let status = resp.status().as_u16();
    state.metrics.request(&route, status);
    // The audit line: who asked what, and the answer (a streamed answer's status; its rows go on).
    let caller = resp.extensions().get::<Caller>();
    if let Some(caller) = caller {
        state.metrics.identity_request(&caller.user.name);
    }
    tracing::info!(
        target: "audit",
        user = caller.map_or("-", |c| c.user.name.as_str()),
        impersonator = caller.and_then(|c| c.impersonator.as_deref()),
        groups = ?caller.map(|c| &c.user.groups),
        %method,
        path = %params::shown(&path),
        route,
        status,
        ms = started.elapsed().as_millis() as u64,
        "request"
    );
    resp
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::time::Duration;

    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    use tokio::sync::Semaphore;

    use super::{ApiResult, bounded};

    async fn status<T>(r: ApiResult<T>) -> StatusCode {
        match r {
            Ok(_) => StatusCode::OK,
            Err(e) => e.into_response().status(),
        }
    }

    #[tokio::test]
    async fn a_query_in_its_turn_and_in_time_answers() {
        let turns = Semaphore::new(1);
        assert_eq!(
            status(bounded(&turns, Duration::from_secs(1), async { Ok(1) }).await).await,
            StatusCode::OK
        );
    }

    #[tokio::test]
    async fn a_query_slower_than_the_limit_answers_503() {
        let turns = Semaphore::new(1);
        let slow = async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok(1)
        };
        let r = bounded(&turns, Duration::from_millis(50), slow).await;
        assert_eq!(status(r).await, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(turns.available_permits(), 1, "the turn is given back");
    }

    #[tokio::test]
    async fn metrics_auth_closes_metrics_even_with_anonymous_reads() {
        use crate::http::testing::{Setup, TestApi};
        let get = |path: &str| axum::http::Request::get(path).body(axum::body::Body::empty()).unwrap();
        let api = TestApi::with(Setup { anonymous_read: true, metrics_auth: true, ..Setup::default() }).await;
        let answer = api.send(get("/metrics")).await;
        answer.error(StatusCode::UNAUTHORIZED);
        assert_eq!(answer.header("www-authenticate"), Some("Bearer"));
        assert_eq!(api.get("/metrics").await.status, StatusCode::OK, "with the token");
        assert_eq!(api.send(get("/v1/clusters")).await.status, StatusCode::OK, "other reads stay anonymous");
        let open =
            TestApi::with(Setup { anonymous_read: true, metrics_auth: false, ..Setup::default() }).await;
        assert_eq!(open.send(get("/metrics")).await.status, StatusCode::OK);
    }

    #[tokio::test]
    async fn a_405_names_the_allowed_methods() {
        use axum::http::Method;

        use crate::http::testing::TestApi;
        let api = TestApi::new().await;
        let put = |path: &str| TestApi::request(Method::PUT, path).body(axum::body::Body::empty()).unwrap();
        let answer = api.send(put("/v1/list?gvr=v1/pods")).await;
        let message = answer.error(StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(answer.header("allow"), Some("GET,HEAD"));
        assert!(message.contains("(allowed: GET,HEAD)"), "{message}");
        let answer = api.send(put("/api/v1/namespaces/default/configmaps/cm-a1")).await;
        let message = answer.status_object(StatusCode::METHOD_NOT_ALLOWED, "MethodNotAllowed");
        assert!(message.contains("read-only"), "{message}");
        assert_eq!(answer.header("allow"), Some("GET,HEAD"));
    }

    #[tokio::test]
    async fn errors_on_kubernetes_paths_are_status_objects() {
        use crate::http::testing::TestApi;
        let api = TestApi::new().await;
        let anonymous =
            axum::http::Request::get("/api/v1/configmaps").body(axum::body::Body::empty()).unwrap();
        let answer = api.send(anonymous).await;
        answer.status_object(StatusCode::UNAUTHORIZED, "Unauthorized");
        assert_eq!(answer.header("www-authenticate"), Some("Bearer"));
        // Malformed in a way axum refuses before any handler.
        api.get("/api/v1/configmaps?limit=%FF%FE&x=%")
            .await
            .status_object(StatusCode::BAD_REQUEST, "BadRequest");
        api.get("/v1/list?gvr=%FF%FE&x=%").await.error(StatusCode::BAD_REQUEST);
        api.get("/clusters/alpha/nope").await.status_object(StatusCode::NOT_FOUND, "NotFound");
        api.get("/v1/nope").await.error(StatusCode::NOT_FOUND);
    }

    #[tokio::test]
    async fn when_every_turn_is_taken_a_query_waits_and_then_answers_503() {
        let turns = Semaphore::new(2);
        let _a = turns.acquire().await.unwrap();
        let _b = turns.acquire().await.unwrap();
        let ran = std::sync::atomic::AtomicBool::new(false);
        let work = async {
            ran.store(true, std::sync::atomic::Ordering::SeqCst);
            Ok(1)
        };
        let r = bounded(&turns, Duration::from_millis(50), work).await;
        assert_eq!(status(r).await, StatusCode::SERVICE_UNAVAILABLE);
        assert!(!ran.load(std::sync::atomic::Ordering::SeqCst), "no query runs beyond the limit of turns");
    }
}
