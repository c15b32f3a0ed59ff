//! The query parameters of a metrics list, checked and written anew for the members: the
//! selectors are parsed and sent in their canonical text; the parameters that only tune a real
//! API server are accepted and not passed on; a watch is refused, as kube-apiserver refuses it
//! for a type without the `watch` verb.

use mc_types::selector::{FieldSelector, LabelSelector};

use crate::http::params::check_len;
use crate::http::status::{KubeError, KubeResult};

/// A metrics request's parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MetricsParams {
    /// `labelSelector`, parsed.
    pub labels: Option<LabelSelector>,
    /// `fieldSelector`, parsed.
    pub fields: Option<FieldSelector>,
}

impl MetricsParams {
    /// Reads the query string's pairs: a selector that does not parse is 400, `watch` 405.
    pub fn parse(pairs: Vec<(String, String)>) -> KubeResult<Self> {
        let mut p = MetricsParams::default();
        for (key, value) in pairs {
            check_len(&key, &value)?;
            match key.as_str() {
                "labelSelector" if !value.is_empty() => {
                    p.labels = Some(
                        LabelSelector::parse(&value).map_err(|e| KubeError::bad_request(e.to_string()))?,
                    )
                }
                "fieldSelector" if !value.is_empty() => {
                    p.fields = Some(
                        FieldSelector::parse(&value).map_err(|e| KubeError::bad_request(e.to_string()))?,
                    )
                }
                "watch" if matches!(value.as_str(), "true" | "1") => {
                    return Err(KubeError::method_not_allowed(
                        "the server does not allow this method on the requested resource: metrics are \
                         read, not watched"
                            .into(),
                    ));
                }
                // Tuning of a real API server (and empty selectors): nothing to pass on.
                _ => {}
            }
        }
        Ok(p)
    }

    /// The query string for a member (without `?`), from the parsed selectors only.
    pub fn query(&self) -> String {
        let mut pairs = Vec::new();
        if let Some(l) = &self.labels {
            pairs.push(format!("labelSelector={}", encode(&l.to_string())));
        }
        if let Some(f) = &self.fields {
            pairs.push(format!("fieldSelector={}", encode(&f.to_string())));
        }
        pairs.join("&")
    }
}

/// A query value percent-encoded: RFC 3986's unreserved characters as they are.
fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> KubeResult<MetricsParams> {
        MetricsParams::parse(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    #[test]
    fn selectors_are_written_anew_and_tuning_is_not_passed_on() {
        let p = parse(&[
            ("labelSelector", "app = web,tier in (a, b),!canary"),
            ("fieldSelector", "metadata.name!=x"),
            ("resourceVersion", "0"),
            ("limit", "500"),
        ])
        .unwrap();
        assert_eq!(
            p.query(),
            "labelSelector=app%3Dweb%2C%21canary%2Ctier%20in%20%28a%2Cb%29&fieldSelector=metadata.name%21%3Dx"
        );
        assert_eq!(parse(&[("labelSelector", "")]).unwrap().query(), "");
    }

    #[test]
    fn a_bad_selector_is_400_and_a_watch_405() {
        let bad = parse(&[("labelSelector", "a=b&watch=true,(")]).unwrap_err();
        assert_eq!(bad.code, axum::http::StatusCode::BAD_REQUEST);
        let watch = parse(&[("watch", "true")]).unwrap_err();
        assert_eq!(watch.code, axum::http::StatusCode::METHOD_NOT_ALLOWED);
    }
}
