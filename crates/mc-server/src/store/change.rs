//! What the store is given to write: one object of one cluster, and the changes of a batch.

use std::collections::BTreeMap;

use mc_types::Gvr;
use serde_json::Value;

use super::{Error, IndexedFields, IndexedValue, Listed, RawObject, Result};

/// One Kubernetes object as the store keeps it: the JSON plus the columns extracted from it.
///
/// The extracted fields are expected to agree with `object` ([`StoredObject::from_json`]
/// guarantees it): the store skips rewriting a row whose object JSON and resource version are
/// unchanged.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredObject {
    /// The resource type the object was listed as.
    pub gvr: Gvr,
    /// `kind`, e.g. `Deployment`.
    pub kind: String,
    /// `metadata.namespace`; `""` for cluster-scoped objects.
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.uid`.
    pub uid: String,
    /// `metadata.resourceVersion`.
    pub resource_version: String,
    /// The uid of the controlling owner (or of the first owner when none controls).
    pub owner_uid: Option<String>,
    /// `metadata.labels`.
    pub labels: BTreeMap<String, String>,
    /// The whole object as JSON text, already stripped (managed fields) and redacted (secrets)
    /// by the caller.
    pub object: RawObject,
    /// `metadata.creationTimestamp` in unix seconds; `None` (none, or not RFC 3339 as Kubernetes
    /// writes it, e.g. `2024-02-29T12:34:56Z`) stores the time of writing.
    pub created_at: Option<i64>,
    /// This change brings the object into the store (the member's watch said `ADDED`, or a
    /// list found a uid the store did not hold): a watch resumed from a resourceVersion tells
    /// it as `ADDED`, any other upsert as `MODIFIED`.
    pub created: bool,
    /// The field its type keeps for counts, extracted where the object was parsed (see
    /// [`IndexedFields`]); `None`: the type keeps none.
    pub indexed: Option<Box<IndexedValue>>,
}

impl StoredObject {
    /// Extracts the columns from an object's JSON. `apiVersion` and `kind` are filled in when
    /// missing (list items often lack them), so stored objects are always complete.
    ///
    /// Fails with [`Error::InvalidObject`] when `metadata.name` or `metadata.uid` is missing.
    pub fn from_json(gvr: Gvr, kind: impl Into<String>, mut object: Value) -> Result<Self> {
        let kind = kind.into();
        let Some(map) = object.as_object_mut() else {
            return Err(Error::InvalidObject(format!("a {gvr} object is not a JSON object")));
        };
        map.entry("apiVersion").or_insert_with(|| Value::String(gvr.api_version()));
        map.entry("kind").or_insert_with(|| Value::String(kind.clone()));
        let meta = object.get("metadata").cloned().unwrap_or(Value::Null);
        let text = |field: &str| meta.get(field).and_then(Value::as_str).map(str::to_string);
        let name = text("name")
            .filter(|n| !n.is_empty())
            .ok_or_else(|| Error::InvalidObject(format!("a {gvr} object has no metadata.name")))?;
        let uid = text("uid")
            .filter(|u| !u.is_empty())
            .ok_or_else(|| Error::InvalidObject(format!("{gvr} {name:?} has no metadata.uid")))?;
        let labels = meta
            .get("labels")
            .and_then(Value::as_object)
            .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
            .unwrap_or_default();
        let owners = meta.get("ownerReferences").and_then(Value::as_array);
        let owner_uid = owners.and_then(|refs| {
            let controller = refs.iter().find(|r| r.get("controller").and_then(Value::as_bool) == Some(true));
            controller.or(refs.first())?.get("uid")?.as_str().map(str::to_string)
        });
        let object = RawObject::from_value(&object);
        Ok(Self {
            kind,
            namespace: text("namespace").unwrap_or_default(),
            resource_version: text("resourceVersion").unwrap_or_default(),
            created_at: text("creationTimestamp").as_deref().and_then(parse_rfc3339),
            owner_uid,
            labels,
            name,
            uid,
            gvr,
            object,
            created: false,
            indexed: None,
        })
    }

    /// The same object with the field its type keeps for counts (read from the object's JSON).
    pub fn indexed_by(mut self, fields: &IndexedFields) -> Self {
        self.indexed = fields.value_of(&self.gvr, &self.object.value()).map(Box::new);
        self
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if self.name.is_empty() || self.uid.is_empty() {
            return Err(Error::InvalidObject(format!(
                "{} {:?} needs a name and a uid to be stored",
                self.gvr, self.name
            )));
        }
        Ok(())
    }
}

/// One change of a batch, in watch order.
#[derive(Clone, Debug, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "almost every change is an upsert: boxing it would allocate once more per object"
)]
pub enum Change {
    /// Insert or replace the object (and its labels).
    Upsert(StoredObject),
    /// Remove the object. With a non-empty `uid` only a row with that uid is removed, so a late
    /// delete of an old incarnation never removes a recreated object of the same name.
    Delete {
        /// The resource type.
        gvr: Gvr,
        /// The namespace; `""` for cluster-scoped objects.
        namespace: String,
        /// The name.
        name: String,
        /// The uid of the deleted object; empty to delete whatever has that name.
        uid: String,
    },
}

/// What the upserts of a batch are expected to be. Only how they are written depends on it: the
/// outcome is the same either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Expect {
    /// Objects not stored yet: the pages of a type's first list (the store held none of its
    /// rows when the list began). They are then inserted as new rows first (SQLite and
    /// MySQL/MariaDB by plain inserts, PostgreSQL by `COPY`; see `write_objects`), and a chunk
    /// is upserted only where an object turns out to be stored.
    NewRows,
    /// Anything: watch events (mostly modifications), the changed objects of a relist.
    #[default]
    Any,
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)` into unix seconds (Kubernetes' `Time`).
pub(crate) fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = s.get(from..from + len)?;
        if !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && matches!(rest.as_bytes()[0], b'+' | b'-') && rest.as_bytes()[3] == b':' => {
            let hours: i64 = rest.get(1..3)?.parse().ok()?;
            let minutes: i64 = rest.get(4..6)?.parse().ok()?;
            let secs = hours * 3600 + minutes * 60;
            if rest.starts_with('-') { -secs } else { secs }
        }
        _ => return None,
    };
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_kubernetes_timestamps() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_rfc3339("2024-02-29T12:34:56Z"), Some(1_709_210_096));
        assert_eq!(parse_rfc3339("2024-02-29T12:34:56.123456Z"), Some(1_709_210_096));
        assert_eq!(parse_rfc3339("2024-02-29T14:34:56+02:00"), Some(1_709_210_096));
        assert_eq!(parse_rfc3339("1969-12-31T23:59:59Z"), Some(-1));
        for bad in ["", "2024-02-29", "2024-13-01T00:00:00Z", "2024-02-29T12:34:56", "x024-02-29T12:34:56Z"] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn from_json_extracts_the_columns() {
        let obj = json!({
            "metadata": {
                "name": "web-1", "namespace": "default", "uid": "u-1", "resourceVersion": "42",
                "creationTimestamp": "2024-02-29T12:34:56Z",
                "labels": {"app": "web"},
                "ownerReferences": [{"uid": "first"}, {"uid": "rs-1", "controller": true}]
            }
        });
        let o = StoredObject::from_json(Gvr::new("", "v1", "pods"), "Pod", obj).unwrap();
        assert_eq!((o.name.as_str(), o.namespace.as_str(), o.uid.as_str()), ("web-1", "default", "u-1"));
        assert_eq!(o.resource_version, "42");
        assert_eq!(o.owner_uid.as_deref(), Some("rs-1"));
        assert_eq!(o.labels.get("app").map(String::as_str), Some("web"));
        assert_eq!(o.created_at, Some(1_709_210_096));
        assert_eq!(o.object.value()["apiVersion"], "v1");
        assert_eq!(o.object.value()["kind"], "Pod");
    }

    #[test]
    fn from_json_requires_name_and_uid() {
        let gvr = Gvr::new("", "v1", "nodes");
        assert!(StoredObject::from_json(gvr.clone(), "Node", json!({"metadata": {"uid": "u"}})).is_err());
        assert!(StoredObject::from_json(gvr.clone(), "Node", json!({"metadata": {"name": "n"}})).is_err());
        assert!(StoredObject::from_json(gvr.clone(), "Node", json!([])).is_err());
        let o = StoredObject::from_json(gvr, "Node", json!({"metadata": {"name": "n", "uid": "u"}})).unwrap();
        assert_eq!(o.namespace, "");
        assert_eq!(o.owner_uid, None);
    }
}

/// The changes of one cluster in a write (see [`Store::apply`]).
#[derive(Clone, Copy, Debug)]
pub struct Batch<'a> {
    /// The cluster they are of.
    pub cluster: &'a str,
    /// The changes, in order.
    pub changes: &'a [Change],
    /// What its upserts are likely to be: a first list's pages are written faster as new rows.
    pub expect: Expect,
    /// The types whose upserts a list found (its pages), for their revisions; every other
    /// change is a watch event's.
    pub listed: &'a Listed,
}

/// No type listed: every change of a batch is a watch event's.
static WATCHED: Listed = Listed(Vec::new());

impl<'a> Batch<'a> {
    /// The changes of `cluster`, expected to be `expect`, seen by watches.
    pub fn new(cluster: &'a str, changes: &'a [Change], expect: Expect) -> Self {
        Batch { cluster, changes, expect, listed: &WATCHED }
    }

    /// The same, with the upserts of these types found by a list.
    pub fn listed(self, listed: &'a Listed) -> Self {
        Batch { listed, ..self }
    }
}
