//! The parameters of the history API, read and checked before any work.

use mc_types::moment;
use mc_types::selector::LabelSelector;

use super::super::{ApiError, ApiResult, params};

/// The parameters of every history request; which ones a path takes is checked by the path.
#[derive(Debug, Default)]
pub struct PastRequest {
    /// The type, in any form `/v1/list` takes.
    pub gvr: Option<String>,
    /// Only this cluster.
    pub cluster: Option<String>,
    /// Only this namespace.
    pub namespace: Option<String>,
    /// Only this name.
    pub name: Option<String>,
    /// Only objects whose labels match (at the time of the state answered).
    pub labels: Option<LabelSelector>,
    /// `since`, as unix milliseconds.
    pub since_ms: Option<i64>,
    /// `at`, as unix milliseconds.
    pub at_ms: Option<i64>,
    /// At most this many.
    pub limit: Option<u32>,
    /// With the objects.
    pub objects: bool,
    /// Only these revisions.
    pub revisions: Vec<i64>,
    /// Events: of this object (`KIND/NAME`, `TYPE/NAME` or `NAME`).
    pub for_object: Option<String>,
    /// Events: with this reason.
    pub reason: Option<String>,
    /// Events: of this type (`Normal`, `Warning`).
    pub event_type: Option<String>,
}

/// Most revisions asked for by number at once.
const MAX_REVISIONS: usize = 100;

/// The longest value of each parameter whose general bound (`params::check_len`) is wider, as
/// the OpenAPI document declares them.
fn max_len(key: &str) -> Option<usize> {
    match key {
        "since" | "at" => Some(64),
        "revisions" => Some(1024),
        "for" => Some(320),
        "reason" => Some(128),
        "type" => Some(32),
        _ => None,
    }
}

impl PastRequest {
    /// Reads the raw pairs; `allowed` names the parameters this path takes, any other is an
    /// error (a typo goes not unnoticed).
    pub fn from_pairs(pairs: Vec<(String, String)>, allowed: &[&str], now_ms: i64) -> ApiResult<Self> {
        let mut r = PastRequest::default();
        for (k, v) in pairs {
            params::check_len(&k, &v)?;
            if let Some(max) = max_len(&k)
                && v.len() > max
            {
                return Err(ApiError::bad_request(format!(
                    "parameter \"{k}\" is {} characters long; at most {max} are allowed",
                    v.len()
                )));
            }
            if !allowed.contains(&k.as_str()) {
                return Err(ApiError::bad_request(format!(
                    "unknown query parameter \"{}\" (this path takes: {})",
                    params::shown(&k),
                    allowed.join(", ")
                )));
            }
            let non_empty = |v: String| (!v.is_empty()).then_some(v);
            match k.as_str() {
                "gvr" => r.gvr = non_empty(v),
                "cluster" => r.cluster = non_empty(v),
                "namespace" => r.namespace = non_empty(v),
                "name" => r.name = non_empty(v),
                "labelSelector" if !v.is_empty() => {
                    r.labels =
                        Some(LabelSelector::parse(&v).map_err(|e| ApiError::bad_request(e.to_string()))?)
                }
                "since" if !v.is_empty() => r.since_ms = Some(moment_param("since", &v, now_ms)?),
                "at" if !v.is_empty() => r.at_ms = Some(moment_param("at", &v, now_ms)?),
                "limit" if !v.is_empty() => r.limit = Some(limit(&v)?),
                "objects" => r.objects = flag("objects", &v)?,
                "revisions" if !v.is_empty() => r.revisions = revisions(&v)?,
                "for" => r.for_object = non_empty(v),
                "reason" => r.reason = non_empty(v),
                "type" => r.event_type = non_empty(v).map(event_type).transpose()?,
                _ => {}
            }
        }
        if let Some(ns) = &r.namespace {
            params::namespace(ns)?;
        }
        if let Some(name) = &r.name {
            params::object_name(name)?;
        }
        if let Some(c) = &r.cluster {
            params::cluster(c)?;
        }
        if let Some(at) = r.at_ms
            && at > now_ms + 60_000
        {
            return Err(ApiError::bad_request("at is in the future: history answers only the past"));
        }
        Ok(r)
    }
}

/// `Normal` or `Warning`, in any case, as `kubectl events --types` takes them.
fn event_type(text: String) -> ApiResult<String> {
    match text.to_ascii_lowercase().as_str() {
        "normal" => Ok("Normal".into()),
        "warning" => Ok("Warning".into()),
        _ => Err(ApiError::bad_request(format!(
            "type must be Normal or Warning, got \"{}\"",
            params::shown(&text)
        ))),
    }
}

fn moment_param(name: &str, text: &str, now_ms: i64) -> ApiResult<i64> {
    moment::parse(text, now_ms).map_err(|e| ApiError::bad_request(format!("{name}: {e}")))
}

fn flag(name: &str, text: &str) -> ApiResult<bool> {
    match text {
        "true" | "1" => Ok(true),
        "false" | "0" | "" => Ok(false),
        _ => Err(ApiError::bad_request(format!(
            "{name} must be true or false, got \"{}\"",
            params::shown(text)
        ))),
    }
}

fn limit(text: &str) -> ApiResult<u32> {
    match text.parse::<i64>() {
        Ok(n) if n > 0 => Ok(u32::try_from(n).unwrap_or(u32::MAX)),
        _ => Err(ApiError::bad_request(format!(
            "limit must be a positive number, got \"{}\"",
            params::shown(text)
        ))),
    }
}

/// `12,15` or `12..15`: revision numbers (both ends of a range).
fn revisions(text: &str) -> ApiResult<Vec<i64>> {
    let bad = || {
        ApiError::bad_request(format!(
            "revisions must be revision numbers separated by commas (12,15), got \"{}\"",
            params::shown(text)
        ))
    };
    let ids: Vec<i64> = text
        .split([',', '.'])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<i64>().ok().filter(|n| *n > 0).ok_or_else(bad))
        .collect::<ApiResult<_>>()?;
    if ids.is_empty() || ids.len() > MAX_REVISIONS {
        return Err(bad());
    }
    Ok(ids)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const NOW: i64 = 1_795_000_000_000;
    const ALL: &[&str] = &[
        "gvr",
        "cluster",
        "namespace",
        "name",
        "labelSelector",
        "since",
        "at",
        "limit",
        "objects",
        "revisions",
    ];

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn moments_and_numbers_are_read() {
        let r = PastRequest::from_pairs(
            pairs(&[
                ("gvr", "deploy"),
                ("since", "2h"),
                ("at", "30m"),
                ("revisions", "12..15"),
                ("objects", "true"),
            ]),
            ALL,
            NOW,
        )
        .unwrap();
        assert_eq!(r.since_ms, Some(NOW - 7_200_000));
        assert_eq!(r.at_ms, Some(NOW - 1_800_000));
        assert_eq!(r.revisions, [12, 15]);
        assert!(r.objects);
    }

    #[test]
    fn bad_input_is_a_400_with_one_line() {
        for (k, v) in [
            ("since", "yesterday"),
            ("at", "2999-01-01T00:00:00Z"),
            ("limit", "0"),
            ("limit", "-3"),
            ("revisions", "a,b"),
            ("revisions", ",,"),
            ("objects", "yes"),
            ("namespace", "Bad_NS"),
            ("nope", "1"),
            ("type", "Sometimes"),
            ("type", &"0".repeat(33)),
            ("reason", &"R".repeat(129)),
            ("for", &"x".repeat(321)),
            ("revisions", &"1,".repeat(513)),
        ] {
            let e = PastRequest::from_pairs(pairs(&[(k, v)]), ALL, NOW).unwrap_err();
            assert_eq!(e.status, axum::http::StatusCode::BAD_REQUEST, "{k}={v}");
            assert!(!e.message.contains('\n'), "{k}={v}: {}", e.message);
        }
        let many = (1..=101).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
        assert!(PastRequest::from_pairs(pairs(&[("revisions", &many)]), ALL, NOW).is_err());
    }
}
