//! Errors of the Kubernetes API as Kubernetes answers them: a `meta.k8s.io/v1` `Status` object
//! with the HTTP code, a reason kubectl and client libraries understand, and one line of text.

use axum::Json;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::ApiError;

/// A failed Kubernetes API call.
#[derive(Debug)]
pub struct KubeError {
    /// HTTP status.
    pub code: StatusCode,
    /// `NotFound`, `BadRequest`, `MethodNotAllowed`, …
    pub reason: &'static str,
    /// What went wrong, in one line.
    pub message: String,
}

/// Result of a Kubernetes API handler.
pub type KubeResult<T> = Result<T, KubeError>;

impl KubeError {
    /// 404 with kubectl's own wording for a type or path that does not exist.
    pub fn no_such_resource() -> Self {
        Self::not_found("the server could not find the requested resource".into())
    }

    /// 404 for something named.
    pub fn not_found(message: String) -> Self {
        KubeError { code: StatusCode::NOT_FOUND, reason: "NotFound", message }
    }

    /// 400 for a malformed parameter.
    pub fn bad_request(message: String) -> Self {
        KubeError { code: StatusCode::BAD_REQUEST, reason: "BadRequest", message }
    }

    /// Any status, with Kubernetes' reason for it.
    pub fn new(code: StatusCode, message: String) -> Self {
        ApiError::new(code, message).into()
    }

    /// 405 for what this read-only API does not do.
    pub fn method_not_allowed(message: String) -> Self {
        KubeError { code: StatusCode::METHOD_NOT_ALLOWED, reason: "MethodNotAllowed", message }
    }

    /// 406 when no representation the client accepts is one this API serves.
    pub fn not_acceptable(message: String) -> Self {
        KubeError { code: StatusCode::NOT_ACCEPTABLE, reason: "NotAcceptable", message }
    }

    /// 422 for parameters that are well-formed but do not go together.
    pub fn invalid(message: String) -> Self {
        KubeError { code: StatusCode::UNPROCESSABLE_ENTITY, reason: "Invalid", message }
    }
}

impl From<ApiError> for KubeError {
    fn from(e: ApiError) -> Self {
        // Kubernetes' reasons (`metav1.StatusReason`); 414 and 431 have none there.
        let reason = match e.status {
            StatusCode::BAD_REQUEST => "BadRequest",
            StatusCode::UNAUTHORIZED => "Unauthorized",
            StatusCode::FORBIDDEN => "Forbidden",
            StatusCode::NOT_FOUND => "NotFound",
            StatusCode::METHOD_NOT_ALLOWED => "MethodNotAllowed",
            StatusCode::NOT_ACCEPTABLE => "NotAcceptable",
            StatusCode::CONFLICT => "Conflict",
            StatusCode::GONE => "Expired",
            StatusCode::URI_TOO_LONG => "RequestURITooLong",
            StatusCode::UNPROCESSABLE_ENTITY => "Invalid",
            StatusCode::TOO_MANY_REQUESTS => "TooManyRequests",
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => "RequestHeaderFieldsTooLarge",
            StatusCode::SERVICE_UNAVAILABLE => "ServiceUnavailable",
            StatusCode::GATEWAY_TIMEOUT => "Timeout",
            _ => "InternalError",
        };
        KubeError { code: e.status, reason, message: e.message }
    }
}

impl IntoResponse for KubeError {
    fn into_response(self) -> Response {
        let body = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code.as_u16(),
        });
        (self.code, Json(body)).into_response()
    }
}

/// Every method but GET on the Kubernetes paths: this API is read-only, and says where to write.
pub async fn read_only(method: Method) -> KubeError {
    KubeError::method_not_allowed(format!(
        "{method} is not allowed: mc-server's Kubernetes API is read-only. Write to a member \
         cluster directly, or dispatch to several with a MultiClusterResource in the master \
         (kubectl multicluster apply -f …)"
    ))
}
