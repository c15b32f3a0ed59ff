//! The query parameters of `pods/{name}/log`, checked one by one and written anew for the
//! member: nothing the caller sent reaches a member cluster unchecked.

use std::fmt::Write as _;

use crate::http::params::shown;
use crate::http::status::{KubeError, KubeResult};

/// The longest `container` value: a container's name is a DNS-1123 label.
const MAX_CONTAINER: usize = 63;

/// `PodLogOptions` as kube-apiserver reads them from a query string.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogParams {
    /// `container`: one container of the pod; `None`: the member picks (the only one).
    pub container: Option<String>,
    /// `follow`: stream new lines until the caller leaves.
    pub follow: bool,
    /// `previous`: the previous instance of the container.
    pub previous: bool,
    /// `timestamps`: each line begins with its RFC 3339 time.
    pub timestamps: bool,
    /// `tailLines`: only the last lines.
    pub tail_lines: Option<u64>,
    /// `sinceSeconds`: only lines newer than this many seconds.
    pub since_seconds: Option<u64>,
    /// `sinceTime`: only lines newer than this time (RFC 3339, as written anew).
    pub since_time: Option<String>,
    /// `limitBytes`: at most this many bytes.
    pub limit_bytes: Option<u64>,
}

impl LogParams {
    /// Reads the query string's pairs: an unknown parameter, a value of the wrong kind and
    /// parameters that do not go together are 400s (422 for the latter, as kube-apiserver).
    pub fn parse(pairs: Vec<(String, String)>) -> KubeResult<Self> {
        let mut p = LogParams::default();
        for (key, value) in pairs {
            match key.as_str() {
                "container" => p.container = (!value.is_empty()).then(|| container(&value)).transpose()?,
                "follow" => p.follow = boolean(&key, &value)?,
                "previous" => p.previous = boolean(&key, &value)?,
                "timestamps" => p.timestamps = boolean(&key, &value)?,
                "tailLines" => p.tail_lines = Some(count(&key, &value, 0)?),
                "sinceSeconds" => p.since_seconds = Some(count(&key, &value, 1)?),
                "limitBytes" => p.limit_bytes = Some(count(&key, &value, 1)?),
                "sinceTime" => p.since_time = Some(time(&value)?),
                // kubectl sends it only when asked to (`--insecure-skip-tls-verify-backend`):
                // the member's kubelet is its own to trust.
                "insecureSkipTLSVerifyBackend" if !boolean(&key, &value)? => {}
                "insecureSkipTLSVerifyBackend" => {
                    return Err(KubeError::bad_request(
                        "insecureSkipTLSVerifyBackend is not passed on by mc-server: ask the member \
                         cluster directly (kubectl --context <the member> logs …)"
                            .into(),
                    ));
                }
                _ => {
                    return Err(KubeError::bad_request(format!(
                        "unknown query parameter \"{}\" for pods/log; known: container, follow, previous, \
                         timestamps, tailLines, sinceSeconds, sinceTime, limitBytes",
                        shown(&key)
                    )));
                }
            }
        }
        if p.since_seconds.is_some() && p.since_time.is_some() {
            return Err(KubeError::invalid(
                "PodLogOptions \"\" is invalid: []: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"
                    .into(),
            ));
        }
        Ok(p)
    }

    /// The query string for the member (without `?`), from the checked values only.
    pub fn query(&self) -> String {
        let mut q = String::new();
        let mut add = |k: &str, v: &dyn std::fmt::Display| {
            let sep = if q.is_empty() { "" } else { "&" };
            let _ = write!(q, "{sep}{k}={v}");
        };
        // A container name is a DNS-1123 label and a time is RFC 3339 with `:` and `.`
        // only: neither needs escaping.
        if let Some(c) = &self.container {
            add("container", c);
        }
        if self.follow {
            add("follow", &true);
        }
        if self.previous {
            add("previous", &true);
        }
        if self.timestamps {
            add("timestamps", &true);
        }
        if let Some(n) = self.tail_lines {
            add("tailLines", &n);
        }
        if let Some(n) = self.since_seconds {
            add("sinceSeconds", &n);
        }
        if let Some(t) = &self.since_time {
            add("sinceTime", t);
        }
        if let Some(n) = self.limit_bytes {
            add("limitBytes", &n);
        }
        q
    }
}

/// A container's name: a DNS-1123 label.
fn container(value: &str) -> KubeResult<String> {
    let ok = value.len() <= MAX_CONTAINER
        && value.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !value.starts_with('-')
        && !value.ends_with('-');
    if ok {
        return Ok(value.to_string());
    }
    Err(KubeError::bad_request(format!(
        "container \"{}\" is invalid: a container's name is a lowercase RFC 1123 label (lowercase \
         letters, digits and '-', at most {MAX_CONTAINER} characters)",
        shown(value)
    )))
}

/// A boolean as Go's `strconv.ParseBool` reads it (kube-apiserver's query conversion).
fn boolean(key: &str, value: &str) -> KubeResult<bool> {
    match value {
        "" | "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        _ => Err(KubeError::bad_request(format!("{key} must be true or false, got \"{}\"", shown(value)))),
    }
}

/// A whole number of at least `min`.
fn count(key: &str, value: &str, min: u64) -> KubeResult<u64> {
    match value.parse::<u64>() {
        Ok(n) if n >= min => Ok(n),
        _ => Err(KubeError::bad_request(format!(
            "{key} must be a whole number of at least {min}, got \"{}\"",
            shown(value)
        ))),
    }
}

/// An RFC 3339 time, written anew in UTC.
fn time(value: &str) -> KubeResult<String> {
    value.parse::<jiff::Timestamp>().map(|t| t.to_string()).map_err(|_| {
        KubeError::bad_request(format!(
            "sinceTime must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got \"{}\"",
            shown(value)
        ))
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> KubeResult<LogParams> {
        LogParams::parse(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    #[test]
    fn checked_values_are_written_anew_for_the_member() {
        let p = parse(&[
            ("container", "app"),
            ("follow", "1"),
            ("timestamps", "True"),
            ("tailLines", "10"),
            ("sinceTime", "2026-01-02T16:04:05+01:00"),
            ("limitBytes", "100"),
            ("previous", "false"),
        ])
        .unwrap();
        assert_eq!(
            p.query(),
            "container=app&follow=true&timestamps=true&tailLines=10&sinceTime=2026-01-02T15:04:05Z&limitBytes=100"
        );
        assert_eq!(parse(&[]).unwrap().query(), "");
    }

    #[test]
    fn unknown_parameters_and_bad_values_are_refused() {
        for pairs in [
            &[("command", "sh")][..],
            &[("container", "App")],
            &[("container", "a&follow=true")],
            &[("follow", "yes")],
            &[("tailLines", "-1")],
            &[("tailLines", "ten")],
            &[("sinceSeconds", "0")],
            &[("limitBytes", "0")],
            &[("sinceTime", "yesterday")],
            &[("insecureSkipTLSVerifyBackend", "true")],
        ] {
            let e = parse(pairs).unwrap_err();
            assert_eq!(e.code, axum::http::StatusCode::BAD_REQUEST, "{pairs:?}: {}", e.message);
        }
        let both = parse(&[("sinceSeconds", "5"), ("sinceTime", "2026-01-02T15:04:05Z")]).unwrap_err();
        assert_eq!(both.code, axum::http::StatusCode::UNPROCESSABLE_ENTITY);
    }
}
