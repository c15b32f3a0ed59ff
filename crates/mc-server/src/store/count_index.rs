//! One field per type kept beside each object, so that a count by it reads an index instead of
//! every object (`count.indexedFields`; see docs/adr/0028-indexed-count-fields.md).
//!
//! The field's value is extracted where the object is parsed already, on its cluster's task
//! ([`IndexedFields::value_in_fields`] in `sync/prepare.rs`; [`IndexedFields::value_of`] for an
//! object built from a whole [`Value`]), and the writer stores it with the row: `count_field`
//! says which path `count_value` holds, so a row written under another configuration is never
//! taken for this one. A count uses the columns only where every row of the type holds the path
//! it counts by (see `store::count`); otherwise it reads the objects as before.
//! [`Store::fill_count_fields`] writes the columns of rows stored before a type's field was
//! configured (a store from an older version, a changed configuration); while it has not
//! succeeded, counts of those types stay exact (they read the objects) and
//! [`Store::count_fields_problem`] says why they are slow.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use mc_types::Gvr;
use mc_types::count::{FieldPath, KeyError, Segment};
use serde_json::Value;
use serde_json::value::RawValue;

use super::statement::Builder;
use super::{Result, Store};

/// Why the last fill of the kept fields failed; `None` when it did not (shared by a store's
/// clones).
pub(super) type FillProblem = Arc<std::sync::Mutex<Option<String>>>;

/// Longest JSON text of a value kept in the index. A longer value (or a path longer than
/// [`MAX_PATH_BYTES`]) leaves its row unindexed, and counts of its type read the objects.
pub const MAX_VALUE_BYTES: usize = 256;

/// Longest path text kept in `count_field` (MySQL/MariaDB's column holds 300 characters).
const MAX_PATH_BYTES: usize = 256;

/// The field kept beside an object: its path (as [`FieldPath`] prints it) and the JSON text of
/// its value (`None` when the object has nothing there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexedValue {
    /// The path, as written in `count_field`.
    pub path: Arc<str>,
    /// The value's JSON text, as written in `count_value`.
    pub value: Option<String>,
}

/// Which field each type keeps for counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexedFields {
    /// By (group, resource): the path parsed and as text.
    by_type: HashMap<(String, String), (FieldPath, Arc<str>)>,
}

impl IndexedFields {
    /// From the config's `count.indexedFields`: type (`plural` of the core group or
    /// `plural.group`) → field path.
    pub fn new(fields: &BTreeMap<String, String>) -> std::result::Result<Self, KeyError> {
        let mut by_type = HashMap::new();
        for (name, path) in fields {
            let (resource, group) = name.split_once('.').unwrap_or((name.as_str(), ""));
            let path = FieldPath::parse(path)?;
            let text: Arc<str> = path.to_string().into();
            by_type.insert((group.to_string(), resource.to_string()), (path, text));
        }
        Ok(Self { by_type })
    }

    /// The path kept for `gvr`, if any.
    pub fn path(&self, gvr: &Gvr) -> Option<&FieldPath> {
        self.entry(gvr).map(|(path, _)| path)
    }

    fn entry(&self, gvr: &Gvr) -> Option<&(FieldPath, Arc<str>)> {
        if self.by_type.is_empty() {
            return None;
        }
        self.by_type.get(&(gvr.group.clone(), gvr.resource.clone()))
    }

    /// The field kept for an object of `gvr`; `None` when the type keeps none (or the value is
    /// too long to keep).
    pub fn value_of(&self, gvr: &Gvr, object: &Value) -> Option<IndexedValue> {
        let (path, text) = self.entry(gvr)?;
        indexed(text, path.lookup(object).map(Value::to_string))
    }

    /// The same, from an object's top-level fields as the API server sent them (`metadata`
    /// apart): only the field the path starts in is parsed.
    pub fn value_in_fields(&self, gvr: &Gvr, fields: &[(String, Box<RawValue>)]) -> Option<IndexedValue> {
        let (path, text) = self.entry(gvr)?;
        let (Segment::Key(first), rest) = path.segments().split_first()? else {
            return indexed(text, None);
        };
        let Some((_, raw)) = fields.iter().find(|(k, _)| k == first) else {
            return indexed(text, None);
        };
        let value = if rest.is_empty() {
            // The field itself, in its canonical form (as `value_of` writes it).
            serde_json::from_str::<Value>(raw.get()).ok().map(|v| v.to_string())
        } else {
            let top: Value = serde_json::from_str(raw.get()).ok()?;
            let found = rest.iter().try_fold(&top, |v, s| match s {
                Segment::Key(k) => v.get(k.as_str()),
                Segment::Index(i) => v.get(*i as usize),
            });
            found.map(Value::to_string)
        };
        indexed(text, value)
    }

    /// The types, as the config names them, sorted.
    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .by_type
            .keys()
            .map(|(g, r)| if g.is_empty() { r.clone() } else { format!("{r}.{g}") })
            .collect();
        names.sort();
        names
    }

    /// The types and their paths, for [`Store::fill_count_fields`].
    fn each(&self) -> impl Iterator<Item = (&str, &str, &FieldPath, &str)> {
        self.by_type.iter().map(|((g, r), (p, t))| (g.as_str(), r.as_str(), p, &**t))
    }
}

fn indexed(path: &Arc<str>, value: Option<String>) -> Option<IndexedValue> {
    if path.len() > MAX_PATH_BYTES || value.as_ref().is_some_and(|v| v.len() > MAX_VALUE_BYTES) {
        return None;
    }
    Some(IndexedValue { path: Arc::clone(path), value })
}

impl Store {
    /// Writes the kept field of every stored row of a configured type that does not hold it (it
    /// was stored before the field was configured): the database reads the value from the
    /// stored JSON, once. Returns how many rows were written. Rows whose value is longer than
    /// [`MAX_VALUE_BYTES`] stay unindexed, as the writer leaves them. A failure is kept for
    /// [`Store::count_fields_problem`] until a later call succeeds.
    pub async fn fill_count_fields(&self, fields: &IndexedFields) -> Result<u64> {
        let filled = self.fill(fields).await;
        if let Ok(mut p) = self.count_fill.lock() {
            *p = filled.as_ref().err().map(|e| {
                format!(
                    "writing the field kept for counts of stored objects failed ({e}); counts of {} read \
                     every object until it is written",
                    fields.names().join(", ")
                )
            });
        }
        filled
    }

    /// Why counts of a type with a kept field may read every object: the last
    /// [`Store::fill_count_fields`] failed. `None` when it did not.
    pub fn count_fields_problem(&self) -> Option<String> {
        self.count_fill.lock().map_or(None, |p| p.clone())
    }

    async fn fill(&self, fields: &IndexedFields) -> Result<u64> {
        let mut written = 0;
        for (group, resource, path, text) in fields.each() {
            let mut tx = self.begin(true).await?;
            let d = tx.dialect;
            let mut b = Builder::new(d, "UPDATE resources SET count_value = ");
            b.push_json_at("object", path);
            b.push(", count_field = ").bind(text);
            b.push(" WHERE \"group\" = ").bind(group).push(" AND resource = ").bind(resource);
            b.push(" AND count_field <> ").bind(text);
            written += tx.execute(b.finish()).await?;
            // Too long to keep: unindexed again.
            let mut b = Builder::new(
                d,
                "UPDATE resources SET count_field = '', count_value = NULL WHERE \"group\" = ",
            );
            b.bind(group).push(" AND resource = ").bind(resource).push(" AND count_field = ").bind(text);
            b.push(" AND LENGTH(count_value) > ").bind(MAX_VALUE_BYTES as i64);
            tx.execute(b.finish()).await?;
            tx.commit().await?;
        }
        Ok(written)
    }
}

#[cfg(test)]
impl Store {
    /// Tests: every later [`Store::fill_count_fields`] that has rows to write fails (`refuse`;
    /// SQLite only: a trigger refuses the update), or works again.
    pub(crate) async fn refuse_count_fills(&self, refuse: bool) -> Result<()> {
        let mut tx = self.begin(true).await?;
        let sql = if refuse {
            "CREATE TRIGGER refuse_count_fills BEFORE UPDATE OF count_field ON resources \
             BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
        } else {
            "DROP TRIGGER refuse_count_fills"
        };
        tx.execute(Builder::new(tx.dialect, sql).finish()).await?;
        tx.commit().await
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields() -> IndexedFields {
        IndexedFields::new(&BTreeMap::from([
            ("pods".to_string(), "status.phase".to_string()),
            ("deployments.apps".to_string(), "metadata.labels[\"app\"]".to_string()),
            ("nodes".to_string(), "spec".to_string()),
        ]))
        .unwrap()
    }

    fn top_level(object: &Value) -> Vec<(String, Box<RawValue>)> {
        object
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::value::to_raw_value(v).unwrap()))
            .collect()
    }

    #[test]
    fn the_value_is_the_same_from_a_value_and_from_raw_fields() {
        let f = fields();
        let pods = Gvr::new("", "v1", "pods");
        for (object, want) in [
            (json!({"status": {"phase": "Running"}}), Some("\"Running\"")),
            (json!({"status": {"phase": null}}), Some("null")),
            (json!({"status": {}}), None),
            (json!({}), None),
            (json!({"status": {"phase": {"b": 1,  "a": [1, 2]}}}), Some("{\"a\":[1,2],\"b\":1}")),
        ] {
            let v = f.value_of(&pods, &object).unwrap();
            assert_eq!(&*v.path, "status.phase");
            assert_eq!(v.value.as_deref(), want, "{object}");
            assert_eq!(f.value_in_fields(&pods, &top_level(&object)), Some(v));
        }
        let nodes = Gvr::new("", "v1", "nodes");
        let node = json!({"spec": {"podCIDR": "10.0.0.0/24"}});
        assert_eq!(
            f.value_in_fields(&nodes, &top_level(&node)).unwrap().value.as_deref(),
            Some("{\"podCIDR\":\"10.0.0.0/24\"}")
        );
        assert_eq!(f.value_of(&nodes, &node), f.value_in_fields(&nodes, &top_level(&node)));
        let labelled = json!({"metadata": {"labels": {"app": "web"}}});
        let deployments = Gvr::new("apps", "v1", "deployments");
        assert_eq!(f.value_of(&deployments, &labelled).unwrap().value.as_deref(), Some("\"web\""));
    }

    #[test]
    fn types_are_named_as_the_config_names_them() {
        let f = fields();
        assert!(f.path(&Gvr::new("", "v1", "pods")).is_some());
        assert!(f.path(&Gvr::new("metrics.k8s.io", "v1beta1", "pods")).is_none(), "another group's pods");
        assert!(f.path(&Gvr::new("apps", "v1", "deployments")).is_some());
        assert!(f.path(&Gvr::new("", "v1", "configmaps")).is_none());
        assert!(IndexedFields::new(&BTreeMap::from([("pods".into(), "status..phase".into())])).is_err());
    }

    #[test]
    fn a_long_value_is_not_kept() {
        let f = fields();
        let pods = Gvr::new("", "v1", "pods");
        let long = json!({"status": {"phase": "x".repeat(MAX_VALUE_BYTES)}});
        assert_eq!(f.value_of(&pods, &long), None);
        assert_eq!(f.value_in_fields(&pods, &top_level(&long)), None);
    }
}
