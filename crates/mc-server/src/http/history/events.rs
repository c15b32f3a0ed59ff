//! `GET /v1/events`: the Events of every cluster, kept past the hour their cluster keeps them,
//! newest last, as `kubectl events` lists them.

use axum::Extension;
use axum::extract::{Query, State};
use axum::response::Response;
use mc_types::gvr::{GvrSpec, ResourceCatalog};
use mc_types::history::PastObject;
use mc_types::moment;
use serde_json::Value;

use super::request::PastRequest;
use super::{DEFAULT_SINCE_MS, answer, history_on, horizon_warnings, items, restricted};
use crate::http::list_request::resolve_type;
use crate::http::{ApiError, ApiResult, AppState, QUERY_TIMEOUT, bounded};
use crate::identity::Caller;

/// The object an Event must be about (`for=`): a kind, when a type was named, and a name.
#[derive(Debug, PartialEq)]
struct About {
    kind: Option<String>,
    name: String,
}

impl About {
    fn matches(&self, event: &Value) -> bool {
        let involved = event.get("involvedObject").or_else(|| event.get("regarding"));
        let field = |f: &str| involved.and_then(|i| i.get(f)).and_then(Value::as_str).unwrap_or("");
        field("name") == self.name
            && self.kind.as_deref().is_none_or(|k| k.eq_ignore_ascii_case(field("kind")))
    }
}

/// `for=TYPE/NAME` (any form of a type: `deploy/web`, `Deployment/web`, `pod/x`) or `for=NAME`.
fn about(state: &AppState, text: &str) -> ApiResult<About> {
    let Some((kind, name)) = text.split_once('/') else {
        crate::http::params::object_name(text)?;
        return Ok(About { kind: None, name: text.to_string() });
    };
    crate::http::params::object_name(name)?;
    let spec = GvrSpec::parse(kind).map_err(|e| ApiError::bad_request(format!("for: {e}")))?;
    let catalog = ResourceCatalog::new(state.registry.catalog());
    let kind = match catalog.resolve(&spec) {
        Ok(info) => info.kind.clone(),
        // A kind no cluster serves now (its objects may be gone): matched as written.
        Err(_) => kind.to_string(),
    };
    Ok(About { kind: Some(kind), name: name.to_string() })
}

/// When an Event last happened: its `lastTimestamp`, `eventTime` or `series.lastObservedTime`,
/// else its creation, in unix milliseconds (0 when none is readable).
fn last_seen(event: &Value) -> i64 {
    ["/lastTimestamp", "/series/lastObservedTime", "/eventTime", "/metadata/creationTimestamp"]
        .iter()
        .filter_map(|p| event.pointer(p)?.as_str())
        .filter_map(|t| t.parse::<k8s_openapi::jiff::Timestamp>().ok())
        .map(|t| t.as_millisecond())
        .max()
        .unwrap_or(0)
}

/// `GET /v1/events`.
pub(super) async fn events(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> ApiResult<Response> {
    const TAKES: &[&str] = &["cluster", "namespace", "since", "for", "reason", "type", "limit"];
    let now = moment::now_ms();
    let r = PastRequest::from_pairs(pairs, TAKES, now)?;
    history_on(&state)?;
    let info = resolve_type(&state, Some("v1/events"))?;
    let about = r.for_object.as_deref().map(|text| about(&state, text)).transpose()?;
    let since = r.since_ms.unwrap_or(now - DEFAULT_SINCE_MS);
    let (q, denied) = restricted(&state, &caller, "list", &info, &r).await?;
    let store = state.store.clone();
    let found = bounded(&state.queries, QUERY_TIMEOUT, async {
        store.events(&q, since).await.map_err(ApiError::from)
    })
    .await?;
    let text = |o: &PastObject, f: &str| o.object.get(f).and_then(Value::as_str).unwrap_or("").to_string();
    let mut kept: Vec<(i64, PastObject)> = found
        .into_iter()
        .filter_map(items::past_object)
        .filter(|o| r.reason.as_deref().is_none_or(|want| text(o, "reason") == want))
        .filter(|o| r.event_type.as_deref().is_none_or(|want| text(o, "type").eq_ignore_ascii_case(want)))
        .filter(|o| about.as_ref().is_none_or(|a| a.matches(&o.object)))
        .map(|o| (last_seen(&o.object), o))
        .collect();
    kept.sort_by_key(|(t, o)| (*t, o.revision));
    let mut warnings: Vec<String> = denied.into_iter().collect();
    warnings.extend(horizon_warnings(&state, &q, since).await);
    Ok(answer(kept.into_iter().map(|(_, o)| o), &r, warnings, true))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_event_is_about_a_kind_and_a_name() {
        let e = json!({"involvedObject": {"kind": "Deployment", "name": "web"}, "reason": "ScalingReplicaSet",
                       "lastTimestamp": "2026-11-28T10:00:00Z", "metadata": {"creationTimestamp": "2026-11-28T09:00:00Z"}});
        assert!(About { kind: Some("Deployment".into()), name: "web".into() }.matches(&e));
        assert!(About { kind: None, name: "web".into() }.matches(&e));
        assert!(!About { kind: Some("Pod".into()), name: "web".into() }.matches(&e));
        assert!(!About { kind: None, name: "db".into() }.matches(&e));
        assert_eq!(last_seen(&e), 1_795_860_000_000);
        assert_eq!(last_seen(&json!({})), 0);
    }
}
