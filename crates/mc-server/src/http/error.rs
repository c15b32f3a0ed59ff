//! One error type for every handler: JSON `{"error": "..."}` with a fitting status code.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use mc_types::api::ApiErrorBody;
use tracing::error;

/// An HTTP error.
#[derive(Debug)]
pub struct ApiError {
    /// Status code.
    pub status: StatusCode,
    /// One-line message shown to the client.
    pub message: String,
    /// Suggestions (e.g. resource names close to an unknown one).
    pub candidates: Option<Vec<String>>,
}

impl ApiError {
    /// 400: the request is malformed.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404: an unknown cluster or resource type.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    /// 401: missing or wrong bearer token.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, message)
    }

    /// 503: not ready to answer.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, message)
    }

    /// Any status.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError { status, message: message.into(), candidates: None }
    }

    /// Adds suggestions.
    pub fn with_candidates(mut self, candidates: Vec<String>) -> Self {
        self.candidates = (!candidates.is_empty()).then_some(candidates);
        self
    }

    /// 500 for an internal failure: logged in full, shown without internals.
    pub fn internal(context: &str, err: &dyn std::error::Error) -> Self {
        error!(error = %err, "{context}");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, format!("{context}; see the server log"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(ApiErrorBody { error: self.message, candidates: self.candidates })).into_response()
    }
}

impl From<crate::store::Error> for ApiError {
    fn from(e: crate::store::Error) -> Self {
        match e {
            crate::store::Error::BadCursor(_) => {
                ApiError::bad_request(format!("invalid continue token: {e}"))
            }
            crate::store::Error::TooManyGroups(_) => ApiError::bad_request(e.to_string()),
            other => ApiError::internal("storage error", &other),
        }
    }
}

/// Result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;
