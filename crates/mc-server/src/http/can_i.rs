//! `GET /v1/auth/can-i`: may the caller do VERB to a type, cluster by cluster? The question
//! `kubectl auth can-i` asks one cluster, asked of every member at once and answered as each
//! member's RBAC authorizer would answer it, from the RBAC objects in the store (see
//! [`crate::authz`]); a static token's role answers for itself.
//!
//! It is a question, not a request: any verb may be asked about, also those mc-server never
//! serves. A caller that may impersonate (an admin token, or an identity the master lets) may
//! ask for another user and groups (`user=`, `group=`), as
//! `kubectl auth can-i --as` does; the user is then given the groups kube-apiserver gives an
//! impersonated user.

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use mc_types::ResourceInfo;
use mc_types::api::{CanIAnswer, paths};
use mc_types::config::Role;

use super::warnings::add_warnings;
use super::{ApiError, ApiResult, AppState, params};
use crate::access::Refused;
use crate::authz::{Request, User};
use crate::identity::impersonation::Impersonation;
use crate::identity::{Caller, Grant};

/// The verbs a `read` token may use.
pub(crate) const READ_VERBS: [&str; 3] = ["get", "list", "watch"];

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route(paths::CAN_I, get(can_i))
}

/// The query parameters as given, each once (`group` repeats).
#[derive(Debug, Default)]
struct Params {
    verb: Option<String>,
    gvr: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    subresource: Option<String>,
    cluster: Option<String>,
    user: Option<String>,
    groups: Vec<String>,
}

impl Params {
    /// Reads the pairs: unknown or repeated parameters are 400 (a typo must not change the
    /// question silently); an empty value is no value, except for `group`.
    fn from_pairs(pairs: Vec<(String, String)>) -> ApiResult<Params> {
        let mut p = Params::default();
        for (key, value) in pairs {
            params::check_len(&key, &value)?;
            let slot = match key.as_str() {
                "verb" => &mut p.verb,
                "gvr" => &mut p.gvr,
                "namespace" => &mut p.namespace,
                "name" => &mut p.name,
                "subresource" => &mut p.subresource,
                "cluster" => &mut p.cluster,
                "user" => &mut p.user,
                "group" => {
                    params::subject("group", &value)?;
                    p.groups.push(value);
                    continue;
                }
                _ => {
                    return Err(ApiError::bad_request(format!(
                        "unknown query parameter \"{}\" (known: verb, gvr, namespace, name, subresource, cluster, user, group)",
                        params::shown(&key)
                    )));
                }
            };
            if slot.is_some() {
                return Err(ApiError::bad_request(format!("parameter \"{key}\" is given more than once")));
            }
            *slot = (!value.is_empty()).then_some(value);
        }
        Ok(p)
    }

    /// Checks every name, without looking anything up.
    fn check(&self) -> ApiResult<()> {
        match &self.verb {
            Some(verb) => params::verb(verb)?,
            None => {
                return Err(ApiError::bad_request(
                    "missing parameter verb (e.g. verb=get, verb=list, verb=watch, verb=create)",
                ));
            }
        }
        if let Some(ns) = &self.namespace {
            params::namespace(ns)?;
        }
        if let Some(name) = &self.name {
            params::object_name(name)?;
        }
        if let Some(sub) = &self.subresource {
            params::subresource(sub)?;
        }
        if let Some(cluster) = &self.cluster {
            params::cluster(cluster)?;
        }
        if let Some(user) = &self.user {
            params::subject("user", user)?;
        }
        if self.user.is_none() && !self.groups.is_empty() {
            return Err(ApiError::bad_request(
                "group needs user: ask for a user and its groups (as kubectl's --as-group needs --as)",
            ));
        }
        Ok(())
    }
}

/// Whose rights are asked about.
#[derive(Debug)]
pub(crate) enum Subject {
    /// A static token's role.
    Role(Role),
    /// A user and groups, as each member's RBAC sees them.
    User(User),
}

impl Subject {
    /// The caller's own rights (a `SelfSubjectAccessReview`'s subject).
    pub(crate) fn caller(caller: &Caller) -> Subject {
        match caller.grant {
            Grant::Role(role) => Subject::Role(role),
            Grant::Rbac => Subject::User(caller.user.clone()),
        }
    }
}

/// `GET /v1/auth/can-i`: a JSON array of [`CanIAnswer`], one per cluster asked, in name order.
async fn can_i(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> ApiResult<Response> {
    let p = Params::from_pairs(pairs)?;
    p.check()?;
    let subject = subject(&state, &caller, p.user.clone(), p.groups.clone()).await?;
    let info = super::list_request::resolve_type(&state, p.gvr.as_deref())?;
    let clusters = match &p.cluster {
        Some(c) => {
            super::params::known_cluster(&state.registry, c)?;
            vec![c.clone()]
        }
        None => {
            let mut names = state.registry.names();
            names.sort();
            names
        }
    };
    let verb = p.verb.as_deref().unwrap_or_default();
    // A cluster-scoped type is never asked for in a namespace: the member would not be either.
    let namespace = if info.namespaced { p.namespace.as_deref().unwrap_or_default() } else { "" };
    let request = Request {
        verb,
        api_group: &info.group,
        resource: &info.resource,
        subresource: p.subresource.as_deref().unwrap_or_default(),
        namespace,
        name: p.name.as_deref().unwrap_or_default(),
    };
    let mut answers = Vec::with_capacity(clusters.len());
    for cluster in &clusters {
        answers.push(answer(&state, &subject, cluster, &Question::Resource(request)).await?);
    }
    let mut resp = Json(answers).into_response();
    add_warnings(&mut resp, warnings(&state, &clusters, &info, p.namespace.as_deref()));
    Ok(resp)
}

/// Whose rights the question is about: the caller's own, or the user and groups it names when
/// it may act as them (an admin token, or an identity the master lets impersonate them, as for
/// `Impersonate-*` headers).
async fn subject(
    state: &AppState,
    caller: &Caller,
    user: Option<String>,
    groups: Vec<String>,
) -> ApiResult<Subject> {
    match (user, caller.grant) {
        (Some(user), _) => {
            let asked = Impersonation { user, groups, uid: None, extra: Vec::new() };
            let master = state.registry.master().map(|c| c.spec.name.clone());
            match state.access.impersonate(caller, &asked, master.as_deref()).await {
                Ok(acting) => Ok(Subject::User(acting.user)),
                Err(Refused::Store(e)) => Err(ApiError::unavailable(format!("{e}; try again"))),
                Err(refused) => Err(ApiError::new(
                    StatusCode::FORBIDDEN,
                    format!(
                        "{refused}; asking for another user (user=, group=) needs the right to impersonate it"
                    ),
                )),
            }
        }
        (None, _) => Ok(Subject::caller(caller)),
    }
}

/// What is asked: a verb on a resource, or on a URL path (`/version`, `/healthz`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Question<'a> {
    /// A resource request, as a `SubjectAccessReview`'s `resourceAttributes`.
    Resource(Request<'a>),
    /// A non-resource request, as its `nonResourceAttributes`.
    Path {
        /// `get`, `post`, … (HTTP's verb in lower case).
        verb: &'a str,
        /// The URL path.
        path: &'a str,
    },
}

impl Question<'_> {
    fn verb(&self) -> &str {
        match self {
            Question::Resource(request) => request.verb,
            Question::Path { verb, .. } => verb,
        }
    }
}

/// One cluster's answer: the role's, or what the cluster's RBAC objects in the store decide.
pub(crate) async fn answer(
    state: &AppState,
    subject: &Subject,
    cluster: &str,
    question: &Question<'_>,
) -> ApiResult<CanIAnswer> {
    let (allowed, reason) = match subject {
        Subject::Role(Role::Admin) => (true, "static token: admin role".to_string()),
        Subject::Role(Role::Read) if READ_VERBS.contains(&question.verb()) => {
            (true, "static token: read role".to_string())
        }
        Subject::Role(Role::Read) => (false, String::new()),
        Subject::User(user) => {
            let rbac = state
                .access
                .rbac(cluster)
                .await
                .map_err(|e| ApiError::unavailable(format!("{e}; try again")))?;
            let decision = match question {
                Question::Resource(request) => rbac.authorize(user, request),
                Question::Path { verb, path } => rbac.authorize_path(user, verb, path),
            };
            (decision.is_allowed(), decision.to_string())
        }
    };
    Ok(CanIAnswer { cluster: cluster.to_string(), allowed, reason })
}

/// The `Warning`s of an answer: clusters whose RBAC objects may be stale or incomplete (not
/// `Synced`), and a namespace given for a cluster-scoped type (it was left out).
fn warnings(
    state: &AppState,
    clusters: &[String],
    info: &ResourceInfo,
    namespace: Option<&str>,
) -> Vec<String> {
    let behind = state.sync.health.failing_since();
    let mut warnings: Vec<String> = state
        .registry
        .all()
        .into_iter()
        .filter(|c| clusters.iter().any(|name| name == c.name()))
        .filter_map(|c| c.info(behind).staleness_warning())
        .collect();
    if let Some(ns) = namespace.filter(|_| !info.namespaced) {
        warnings
            .push(format!("{} is not namespaced: namespace {ns} is left out of the question", info.resource));
    }
    warnings
}
