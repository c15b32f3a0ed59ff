//! `POST /v1/join` and `DELETE /v1/unjoin`: the Go project's request shapes.

use axum::Json;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Multipart, Query, State};
use axum::http::StatusCode;
use axum::routing::{delete, post};
use mc_types::api::{JOIN_KUBECONFIG_FIELD, ResResponse};
use serde_json::{Value, json};

use super::{ApiError, ApiResult, AppState};
use crate::membership::{Error, MAX_KUBECONFIG};

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        // The size check is ours (413 with a JSON body), so axum's own limit is lifted here.
        .route("/v1/join", post(join).layer(DefaultBodyLimit::disable()))
        .route("/v1/unjoin", delete(unjoin))
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        let status = match &e {
            Error::BadName(_) | Error::BadKubeconfig(_) | Error::Unreachable { .. } | Error::Master(_) => {
                StatusCode::BAD_REQUEST
            }
            Error::Taken(_) => StatusCode::CONFLICT,
            Error::Unknown { .. } => StatusCode::NOT_FOUND,
            Error::MasterUnavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        };
        ApiError::new(status, e.to_string())
    }
}

fn param(pairs: &[(String, String)], key: &str) -> Option<String> {
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()).filter(|v| !v.is_empty())
}

fn flag(pairs: &[(String, String)], key: &str) -> ApiResult<bool> {
    match param(pairs, key).as_deref() {
        None | Some("false") | Some("0") => Ok(false),
        Some("true") | Some("1") => Ok(true),
        Some(other) => Err(ApiError::bad_request(format!("{key} must be true or false, got \"{other}\""))),
    }
}

async fn join(
    State(state): State<AppState>,
    Query(pairs): Query<Vec<(String, String)>>,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> ApiResult<Json<ResResponse>> {
    let name = param(&pairs, "cluster").ok_or_else(|| ApiError::bad_request("missing parameter cluster"))?;
    let insecure = flag(&pairs, "insecure")?;
    let context = param(&pairs, "context");
    let mut multipart = multipart.map_err(|e| {
        ApiError::bad_request(format!(
            "expected a multipart/form-data body with field \"{JOIN_KUBECONFIG_FIELD}\": {e}"
        ))
    })?;
    let mut kubeconfig: Option<Vec<u8>> = None;
    while let Some(mut field) =
        multipart.next_field().await.map_err(|e| ApiError::bad_request(format!("reading the upload: {e}")))?
    {
        if field.name() != Some(JOIN_KUBECONFIG_FIELD) {
            continue;
        }
        let mut buf = Vec::new();
        while let Some(chunk) =
            field.chunk().await.map_err(|e| ApiError::bad_request(format!("reading the upload: {e}")))?
        {
            buf.extend_from_slice(&chunk);
            if buf.len() > MAX_KUBECONFIG {
                return Err(ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("kubeconfig larger than {MAX_KUBECONFIG} bytes"),
                ));
            }
        }
        kubeconfig = Some(buf);
    }
    let kubeconfig = kubeconfig.ok_or_else(|| {
        ApiError::bad_request(format!("missing multipart field \"{JOIN_KUBECONFIG_FIELD}\""))
    })?;
    state.membership.join(&name, &kubeconfig, context, insecure).await?;
    Ok(Json(ResResponse::joined()))
}

async fn unjoin(
    State(state): State<AppState>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> ApiResult<Json<Value>> {
    let name = param(&pairs, "cluster").ok_or_else(|| ApiError::bad_request("missing parameter cluster"))?;
    let done = state.membership.unjoin(&name).await?;
    let mut body = json!({
        "res": ResResponse::UNJOINED,
        "rowsRemoved": done.rows_removed,
        "objectsLeft": done.copies_left,
    });
    if done.copies_left > 0 {
        body["note"] = json!(format!(
            "{} dispatched objects were left in place in {name}; the cluster may still serve them",
            done.copies_left
        ));
    }
    if done.configured {
        body["configured"] =
            json!(format!("{name} is in the config file and returns when the server restarts"));
    }
    Ok(Json(body))
}
