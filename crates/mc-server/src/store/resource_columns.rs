//! The `resources` table's columns, and an object prepared for writing into them.

use super::StoredObject;
use super::statement::Col;

/// Columns written by an upsert, in bind order.
pub(crate) const RESOURCE_COLUMNS: &str = "namespace, name, cluster, \"group\", version, resource, kind, \
     resource_version, owner, uid, hash, object, create_at, update_at, delete_at, count_field, count_value";

/// The unique natural key, as declared by `uq_resources_key`.
pub(crate) const RESOURCE_KEY: &str = "\"group\", version, resource, cluster, namespace, name";

/// Columns replaced when the natural key already exists.
pub(crate) const RESOURCE_UPDATED: [&str; 11] = [
    "kind",
    "resource_version",
    "owner",
    "uid",
    "hash",
    "object",
    "create_at",
    "update_at",
    "delete_at",
    "count_field",
    "count_value",
];

/// An object prepared for writing: its hash computed once.
pub(crate) struct Prepared<'a> {
    pub(crate) object: &'a StoredObject,
    pub(crate) hash: String,
}

impl<'a> Prepared<'a> {
    pub(crate) fn new(object: &'a StoredObject) -> Self {
        let hash = hex(object.object.hash());
        Self { object, hash }
    }

    /// `count_field` and `count_value`: the path and value of the field its type keeps for
    /// counts, `''` and `NULL` for none (see `store::count_index`).
    pub(crate) fn count_columns(&self) -> (&'a str, Option<&'a str>) {
        match &self.object.indexed {
            Some(i) => (&i.path, i.value.as_deref()),
            None => ("", None),
        }
    }
}

pub(crate) const IDS_BY_UID_COLS: [Col; 5] = [Col::Int, Col::Text, Col::Text, Col::Text, Col::Text];

/// A [`digest`] as 16 hex digits, as the `hash` column holds it.
pub(crate) fn hex(hash: u64) -> String {
    format!("{hash:016x}")
}
