//! Content negotiation on the Kubernetes paths, as kube-apiserver does it: the media ranges of
//! `Accept` in order of preference (q-value, then how specific the range is, then the client's
//! order); the first that names a representation the endpoint serves wins, none answers 406.
//! Without `Accept` (or with `*/*`, `application/*`) the answer is JSON. Only JSON is served:
//! protobuf, CBOR and YAML are not.

use axum::http::{HeaderMap, header};

use crate::http::status::KubeError;

/// What an answer is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Representation {
    /// The objects themselves (a `List`, one object, or watch events of objects).
    Objects,
    /// A `meta.k8s.io/v1` `Table`.
    Table,
    /// `meta.k8s.io/v1` `PartialObjectMetadataList` (of a list) or `PartialObjectMetadata` (of
    /// one object): metadata only.
    Metadata,
    /// Aggregated discovery, `apidiscovery.k8s.io/v2` `APIGroupDiscoveryList`.
    Aggregated,
}

/// A representation an endpoint serves, as `Accept` names it: `application/json` with these
/// `as`, `g` and `v` parameters (none for [`Representation::Objects`]).
#[derive(Clone, Copy, Debug)]
pub struct Offer {
    what: Representation,
    target: Option<(&'static str, &'static str, &'static str)>,
}

const OBJECTS: Offer = Offer { what: Representation::Objects, target: None };
const TABLE: Offer = Offer { what: Representation::Table, target: Some(("Table", "meta.k8s.io", "v1")) };

/// A collection (`GET` of a list).
pub const LIST: &[Offer] = &[
    OBJECTS,
    TABLE,
    Offer {
        what: Representation::Metadata,
        target: Some(("PartialObjectMetadataList", "meta.k8s.io", "v1")),
    },
];

/// One object.
pub const OBJECT: &[Offer] = &[
    OBJECTS,
    TABLE,
    Offer { what: Representation::Metadata, target: Some(("PartialObjectMetadata", "meta.k8s.io", "v1")) },
];

/// A watch: its events carry objects or one-row Tables.
pub const WATCH: &[Offer] = &[OBJECTS, TABLE];

/// `/api` and `/apis`: the legacy documents or aggregated discovery.
pub const DISCOVERY_ROOT: &[Offer] = &[
    OBJECTS,
    Offer {
        what: Representation::Aggregated,
        target: Some(("APIGroupDiscoveryList", "apidiscovery.k8s.io", "v2")),
    },
];

/// `/api/v1`, `/apis/{group}/{version}`: one document.
pub const DISCOVERY: &[Offer] = &[OBJECTS];

/// One media range of `Accept`.
struct Range<'a> {
    kind: &'a str,
    subtype: &'a str,
    /// Thousandths, 0 to 1000.
    q: u16,
    target: (Option<&'a str>, Option<&'a str>, Option<&'a str>),
}

impl<'a> Range<'a> {
    fn parse(text: &'a str) -> Option<Self> {
        let mut parts = text.split(';').map(str::trim);
        let (kind, subtype) = parts.next()?.split_once('/')?;
        let mut range =
            Range { kind: kind.trim(), subtype: subtype.trim(), q: 1000, target: (None, None, None) };
        for param in parts {
            let Some((key, value)) = param.split_once('=') else { continue };
            let value = value.trim().trim_matches('"');
            match key.trim().to_ascii_lowercase().as_str() {
                "q" => range.q = quality(value),
                "as" => range.target.0 = Some(value),
                "g" => range.target.1 = Some(value),
                "v" => range.target.2 = Some(value),
                // `stream=watch`, `pretty`, `charset`, …: nothing to choose between.
                _ => {}
            }
        }
        Some(range)
    }

    /// 2 for `type/subtype`, 1 for `type/*`, 0 for `*/*`.
    fn specificity(&self) -> u8 {
        match (self.kind, self.subtype) {
            ("*", _) => 0,
            (_, "*") => 1,
            _ => 2,
        }
    }

    /// Whether this range takes JSON at all.
    fn takes_json(&self) -> bool {
        let (kind, subtype) = (self.kind.to_ascii_lowercase(), self.subtype.to_ascii_lowercase());
        (kind == "application" && (subtype == "json" || subtype == "*")) || (kind == "*" && subtype == "*")
    }

    /// The offer this range names, if any.
    fn pick(&self, offers: &[Offer]) -> Option<Representation> {
        if self.q == 0 || !self.takes_json() {
            return None;
        }
        let wanted = match self.target {
            (None, None, None) => None,
            (Some(kind), Some(group), Some(version)) => Some((kind, group, version)),
            // A target without its group or version names nothing (kube-apiserver's rule).
            _ => return None,
        };
        offers.iter().find(|o| o.target == wanted).map(|o| o.what)
    }
}

/// `q=0.5` as 500; a value that is not a number counts as 1.
fn quality(text: &str) -> u16 {
    text.parse::<f32>().map_or(1000, |q| (q.clamp(0.0, 1.0) * 1000.0).round() as u16)
}

/// What to answer a request with these headers, of `offers` (the first is the default); 406
/// when `Accept` takes none of them.
pub fn negotiate(headers: &HeaderMap, offers: &[Offer]) -> Result<Representation, KubeError> {
    let accept: Vec<&str> = headers.get_all(header::ACCEPT).iter().filter_map(|v| v.to_str().ok()).collect();
    let accept = accept.join(",");
    let mut ranges: Vec<Range> =
        accept.split(',').filter(|r| !r.trim().is_empty()).filter_map(Range::parse).collect();
    if ranges.is_empty() {
        return Ok(offers.first().map_or(Representation::Objects, |o| o.what));
    }
    // Stable: among equals the client's order stands.
    ranges.sort_by_key(|r| std::cmp::Reverse((r.q, r.specificity())));
    ranges.iter().find_map(|r| r.pick(offers)).ok_or_else(|| {
        let served: Vec<String> = offers
            .iter()
            .map(|o| match o.target {
                None => "application/json".to_string(),
                Some((kind, group, version)) => format!("application/json;as={kind};g={group};v={version}"),
            })
            .collect();
        KubeError::not_acceptable(format!(
            "only the following media types are accepted: {}",
            served.join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderMap, HeaderValue, header};

    use super::*;

    fn pick(accept: &str, offers: &[Offer]) -> Option<Representation> {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_str(accept).unwrap_or(HeaderValue::from_static("")));
        negotiate(&headers, offers).ok()
    }

    #[test]
    fn kubectls_accept_header_gets_a_table_and_without_one_objects() {
        let kubectl = "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,\
                       application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
        assert_eq!(pick(kubectl, LIST), Some(Representation::Table));
        assert_eq!(pick(kubectl, WATCH), Some(Representation::Table));
        assert_eq!(pick("", LIST), Some(Representation::Objects));
        assert_eq!(pick("application/json, */*", OBJECT), Some(Representation::Objects));
        assert_eq!(pick("application/*", OBJECT), Some(Representation::Objects));
        assert_eq!(
            pick("application/vnd.kubernetes.protobuf, */*;q=0.1", LIST),
            Some(Representation::Objects)
        );
    }

    #[test]
    fn q_values_order_the_ranges_and_zero_refuses() {
        let table = "application/json;as=Table;v=v1;g=meta.k8s.io";
        assert_eq!(pick(&format!("application/json;q=0.5,{table}"), LIST), Some(Representation::Table));
        assert_eq!(pick(&format!("application/json,{table};q=0.9"), LIST), Some(Representation::Objects));
        assert_eq!(pick(&format!("{table};q=0"), LIST), None);
        assert_eq!(pick(&format!("{table};q=0,application/json;q=0.2"), LIST), Some(Representation::Objects));
        assert_eq!(
            pick("*/*;q=0.1,application/json;as=Table;v=v1;g=meta.k8s.io", LIST),
            Some(Representation::Table)
        );
    }

    #[test]
    fn what_is_not_served_is_not_acceptable() {
        for accept in [
            "application/vnd.kubernetes.protobuf",
            "application/cbor",
            "application/yaml",
            "text/html",
            "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
            "application/json;as=Table",
            "application/json;as=Pod;v=v1;g=",
        ] {
            assert_eq!(pick(accept, LIST), None, "{accept}");
        }
        let metadata = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
        assert_eq!(pick(metadata, LIST), Some(Representation::Metadata));
        assert_eq!(pick(metadata, OBJECT), None, "one object is not a list");
        assert_eq!(pick(metadata, WATCH), None);
    }
}
