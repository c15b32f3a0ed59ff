//! The read-only Kubernetes API, on the same port and token as the rest: `/version`, discovery,
//! the OpenAPI documents of the types ([`openapi`]), and list and get on the standard paths over
//! every cluster, or under `/clusters/{name}/` over one, and watch from a resourceVersion of ours
//! (see [`crate::sync::history`]). Objects carry their cluster in the annotation
//! `mulitcluster.practice.com/cluster`; errors are `Status` objects; every method but GET answers
//! 405 and says where to write, except the `SelfSubjectAccessReview`s it answers (a question, not
//! a write). Below an object, a pod's `log` is read from its member cluster ([`logs`]); `exec`,
//! `attach`, `portforward` and `proxy` are refused with the command that does them on the member
//! ([`subresources`]).

mod access_review;
mod annotate;
mod digest;
mod discovery;
#[cfg(test)]
pub(crate) mod fake_member;
pub(crate) mod fetch;
pub mod layout;
pub mod logs;
mod metrics;
mod negotiate;
mod objects;
pub mod openapi;
mod protobuf;
pub mod rows;
mod scope;
mod subresources;
mod table;
#[cfg(test)]
mod tests;
pub mod version;
mod watch;

use axum::Router;
use axum::handler::Handler;
use axum::routing::{MethodRouter, any, get, post};
use mc_types::api::paths;

use crate::http::AppState;
pub(crate) use objects::crd;

/// GET served by `handler`; every other method answers the read-only 405.
fn read<H, T>(handler: H) -> MethodRouter<AppState>
where
    H: Handler<T, AppState>,
    T: 'static,
{
    get(handler).fallback(crate::http::status::read_only)
}

/// Routes of this module, at the root and under `/clusters/{cluster}`.
pub fn router() -> Router<AppState> {
    let api = Router::new()
        .route(paths::VERSION, read(version::version))
        .route(
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            post(access_review::create).fallback(access_review::only_create),
        )
        .route("/api", read(discovery::api_versions))
        .route("/apis", read(discovery::api_groups))
        .route("/openapi/v2", read(openapi::v2))
        .route("/openapi/v3", read(openapi::v3_index))
        .route("/openapi/v3/{*path}", read(openapi::v3_document))
        .route("/api/{version}", read(discovery::resources))
        .route("/apis/{group}/{version}", read(discovery::resources))
        .route("/api/{version}/namespaces", read(objects::list))
        .route("/api/{version}/namespaces/{namespace}", read(objects::get_namespace))
        .route("/api/{version}/{resource}", read(objects::list))
        .route("/api/{version}/{resource}/{name}", read(objects::get))
        .route("/api/{version}/namespaces/{namespace}/{resource}", read(objects::list))
        .route("/api/{version}/namespaces/{namespace}/{resource}/{name}", read(objects::get))
        .route("/apis/{group}/{version}/{resource}", read(objects::list))
        .route("/apis/{group}/{version}/{resource}/{name}", read(objects::get))
        .route("/apis/{group}/{version}/namespaces/{namespace}/{resource}", read(objects::list))
        .route("/apis/{group}/{version}/namespaces/{namespace}/{resource}/{name}", read(objects::get))
        // Below an object: any method, each subresource answered as it is (see `subresources`).
        .route("/api/{version}/{resource}/{name}/{subresource}", any(subresources::serve))
        .route("/api/{version}/{resource}/{name}/{subresource}/{*rest}", any(subresources::serve))
        .route(
            "/api/{version}/namespaces/{namespace}/{resource}/{name}/{subresource}",
            any(subresources::serve),
        )
        .route(
            "/api/{version}/namespaces/{namespace}/{resource}/{name}/{subresource}/{*rest}",
            any(subresources::serve),
        )
        .route("/apis/{group}/{version}/{resource}/{name}/{subresource}", any(subresources::serve))
        .route(
            "/apis/{group}/{version}/namespaces/{namespace}/{resource}/{name}/{subresource}",
            any(subresources::serve),
        );
    Router::new().merge(api.clone()).nest("/clusters/{cluster}", api)
}

/// A protobuf `SelfSubjectAccessReview` of these resource attributes, as client-go sends it.
#[cfg(test)]
pub(crate) fn protobuf_review(attributes: &[(u8, &str)]) -> Vec<u8> {
    protobuf::tests::encoded("SelfSubjectAccessReview", attributes)
}
