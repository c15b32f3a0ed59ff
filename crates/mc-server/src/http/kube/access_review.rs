//! `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews`: "may I?", as
//! `kubectl auth can-i` and k9s ask it (k9s asks before it lists or watches a type). It is a
//! question, not a write, so this read-only API answers it, from the same decision as
//! [`crate::http::can_i`]: a static token's role, or each member's RBAC for an identity.
//!
//! Over every cluster, a request is allowed when one cluster of the scope allows it (a list
//! then shows that cluster's objects); under `/clusters/NAME/` when that cluster does. Only
//! reads can be allowed here: every other verb is denied with the reason that mc-server serves
//! only `get`, `list` and `watch` (write to the member instead), so that a client hides what
//! would answer `405`.

use std::collections::HashMap;

use axum::Extension;
use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use k8s_openapi::api::authorization::v1::{SelfSubjectAccessReview, SubjectAccessReviewStatus};

use super::protobuf;
use super::scope::in_scope;
use crate::authz::Request;
use crate::http::AppState;
use crate::http::can_i::{Question, READ_VERBS, Subject, answer};
use crate::http::status::{KubeError, KubeResult};
use crate::identity::Caller;

/// Why a verb other than a read is denied.
pub const READ_ONLY: &str = "mc-server's Kubernetes API is read-only: it serves get, list and watch; \
                             write to the member cluster";

/// Creates (answers) a `SelfSubjectAccessReview`: `201` with its `status`.
pub async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    path: Option<Path<HashMap<String, String>>>,
    headers: HeaderMap,
    body: Bytes,
) -> KubeResult<Response> {
    let path = path.map(|p| p.0);
    in_scope(&state, path.as_ref())?;
    let mut review = parse(&headers, &body)?;
    let question = question(&review)?;
    let clusters = match path.as_ref().and_then(|p| p.get("cluster")) {
        Some(one) => vec![one.clone()],
        None => {
            let mut names = state.registry.names();
            names.sort();
            names
        }
    };
    review.status = Some(decide(&state, &Subject::caller(&caller), &clusters, &question.as_question()).await);
    Ok((StatusCode::CREATED, Json(review)).into_response())
}

/// The review as sent: JSON, or protobuf (what client-go's generated clients send).
fn parse(headers: &HeaderMap, body: &[u8]) -> KubeResult<SelfSubjectAccessReview> {
    let media = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("application/json");
    let essence = media.split(';').next().unwrap_or_default().trim();
    let not_a_review =
        |e: &dyn std::fmt::Display| KubeError::bad_request(format!("not a SelfSubjectAccessReview: {e}"));
    match essence {
        "application/json" => serde_json::from_slice(body).map_err(|e| not_a_review(&e)),
        protobuf::MEDIA_TYPE => protobuf::self_subject_access_review(body).map_err(|e| not_a_review(&e)),
        _ => Err(KubeError {
            code: StatusCode::UNSUPPORTED_MEDIA_TYPE,
            reason: "UnsupportedMediaType",
            message: format!(
                "the body is {}; this API reads application/json and {}",
                crate::http::params::shown(media),
                protobuf::MEDIA_TYPE
            ),
        }),
    }
}

/// The attributes of the review, owned.
enum Asked {
    Resource {
        verb: String,
        group: String,
        resource: String,
        subresource: String,
        namespace: String,
        name: String,
    },
    Path {
        verb: String,
        path: String,
    },
}

impl Asked {
    fn as_question(&self) -> Question<'_> {
        match self {
            Asked::Resource { verb, group, resource, subresource, namespace, name } => {
                Question::Resource(Request { verb, api_group: group, resource, subresource, namespace, name })
            }
            Asked::Path { verb, path } => Question::Path { verb, path },
        }
    }
}

/// What is asked: exactly one of `resourceAttributes` and `nonResourceAttributes` (`422`
/// otherwise, as kube-apiserver validates it).
fn question(review: &SelfSubjectAccessReview) -> KubeResult<Asked> {
    let spec = &review.spec;
    match (&spec.resource_attributes, &spec.non_resource_attributes) {
        (Some(r), None) => {
            let text = |v: &Option<String>| v.clone().unwrap_or_default();
            Ok(Asked::Resource {
                verb: text(&r.verb),
                group: text(&r.group),
                resource: text(&r.resource),
                subresource: text(&r.subresource),
                namespace: text(&r.namespace),
                name: text(&r.name),
            })
        }
        (None, Some(n)) => Ok(Asked::Path {
            verb: n.verb.clone().unwrap_or_default(),
            path: n.path.clone().unwrap_or_default(),
        }),
        _ => Err(KubeError::invalid(
            "spec: exactly one of nonResourceAttributes or resourceAttributes must be specified".into(),
        )),
    }
}

/// Allowed when a cluster of `clusters` allows it; a cluster whose RBAC cannot be read now is
/// an `evaluationError` (when no other allows it), as an authorizer's error is there.
async fn decide(
    state: &AppState,
    subject: &Subject,
    clusters: &[String],
    question: &Question<'_>,
) -> SubjectAccessReviewStatus {
    let served = match question {
        Question::Resource(request) => READ_VERBS.contains(&request.verb),
        Question::Path { verb, .. } => *verb == "get",
    };
    if !served {
        return SubjectAccessReviewStatus {
            allowed: false,
            denied: Some(true),
            reason: Some(READ_ONLY.into()),
            evaluation_error: None,
        };
    }
    let mut errors = Vec::new();
    for cluster in clusters {
        match answer(state, subject, cluster, question).await {
            Ok(a) if a.allowed => {
                return SubjectAccessReviewStatus {
                    allowed: true,
                    reason: Some(format!("allowed in cluster {cluster} by {}", a.reason)),
                    ..Default::default()
                };
            }
            Ok(_) => {}
            Err(e) => errors.push(format!("cluster {cluster}: {}", e.message)),
        }
    }
    SubjectAccessReviewStatus {
        allowed: false,
        evaluation_error: (!errors.is_empty()).then(|| errors.join("; ")),
        ..Default::default()
    }
}

/// `GET` and the rest on the review's path: only `create` is served, as on kube-apiserver.
pub async fn only_create(method: axum::http::Method) -> KubeError {
    KubeError::method_not_allowed(format!(
        "{method} is not allowed: a SelfSubjectAccessReview is only created (POST), and answered"
    ))
}
