//! An object's JSON as the store returns it: checked, but not parsed into a tree, so a list of
//! thousands of objects goes from the database to the HTTP response without being rebuilt.

use std::fmt;
use std::sync::{Mutex, OnceLock};

use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// One stored object's JSON text.
#[derive(Clone)]
pub struct RawObject {
    raw: Box<RawValue>,
    /// The digest of the text, computed on first use (see [`RawObject::hash`]).
    hash: OnceLock<u64>,
    /// The text compressed as the history stores it, computed on first use (see
    /// [`RawObject::compressed`]).
    compressed: OnceLock<Option<Box<[u8]>>>,
    /// What free-text search looks at, computed on first use (see [`RawObject::search_body`]).
    search: OnceLock<Box<str>>,
}

/// zstd's level for the history's revisions: level 1 compressed Kubernetes objects about as
/// well as level 3 (see docs/adr/0024-history-revisions.md).
const COMPRESSION_LEVEL: i32 = 1;

impl RawObject {
    /// Checks that `text` is JSON and keeps it as it is.
    pub fn from_text(text: String) -> serde_json::Result<Self> {
        RawValue::from_string(text).map(Self::from_raw)
    }

    /// JSON text that serde_json wrote or read (not checked again).
    pub fn from_raw(raw: Box<RawValue>) -> Self {
        RawObject { raw, hash: OnceLock::new(), compressed: OnceLock::new(), search: OnceLock::new() }
    }

    /// The JSON text of a tree.
    pub fn from_value(value: &Value) -> Self {
        // A tree always serializes to valid JSON.
        Self::from_raw(serde_json::value::to_raw_value(value).unwrap_or_default())
    }

    /// The JSON text.
    pub fn text(&self) -> &str {
        self.raw.get()
    }

    /// The 64-bit digest of the text (XXH3), as stored in the `hash` column; computed once. The sync
    /// computes it on the cluster's task that read the object, so the single writer does not.
    pub fn hash(&self) -> u64 {
        *self.hash.get_or_init(|| super::sql::digest(self.text().as_bytes()))
    }

    /// The text compressed with zstd, as a revision of the history stores it; computed once.
    /// The sync computes it on the cluster's task (with history on), so the single writer does
    /// not. `None` only when compressing failed (out of memory): the text is stored as it is.
    pub fn compressed(&self) -> Option<&[u8]> {
        self.compressed
            .get_or_init(|| {
                zstd::bulk::compress(self.text().as_bytes(), COMPRESSION_LEVEL)
                    .ok()
                    .map(Vec::into_boxed_slice)
            })
            .as_deref()
    }

    /// Whether [`RawObject::compressed`] was computed (for tests of who computes it).
    #[cfg(test)]
    pub(crate) fn compressed_yet(&self) -> bool {
        self.compressed.get().is_some()
    }

    /// What free-text search looks at in the object (see [`super::search`]), bounded; computed
    /// once. The sync computes it on the cluster's task (search on), so the single writer does
    /// not.
    pub fn search_body(&self) -> &str {
        self.search.get_or_init(|| super::search::body_of(self.text()).into_boxed_str())
    }

    /// The object as a JSON tree, for callers that look inside it.
    pub fn value(&self) -> Value {
        // The text was checked when it was read, so this cannot fail; `Null` keeps it total.
        serde_json::from_str(self.text()).unwrap_or(Value::Null)
    }
}

/// zstd contexts kept for compressing objects one after another: making a context (its tables
/// allocated and zeroed) cost more than compressing a small object with it, and was the largest
/// single cost of a change with history on. Shared by the clusters' tasks: each takes one for an
/// object and gives it back, so there are never more than tasks compressing at once.
#[derive(Default)]
pub struct Compressors(Mutex<Vec<zstd::bulk::Compressor<'static>>>);

impl Compressors {
    /// Compresses `object`'s text as [`RawObject::compressed`] does, with a kept context.
    pub fn compress(&self, object: &RawObject) {
        let kept = self.0.lock().ok().and_then(|mut free| free.pop());
        let Some(mut compressor) = kept.or_else(|| zstd::bulk::Compressor::new(COMPRESSION_LEVEL).ok())
        else {
            object.compressed();
            return;
        };
        object
            .compressed
            .get_or_init(|| compressor.compress(object.text().as_bytes()).ok().map(Vec::into_boxed_slice));
        if let Ok(mut free) = self.0.lock() {
            free.push(compressor);
        }
    }
}

impl fmt::Debug for Compressors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let free = self.0.lock().map_or(0, |free| free.len());
        f.debug_struct("Compressors").field("free", &free).finish()
    }
}

impl PartialEq for RawObject {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

impl fmt::Debug for RawObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

impl Serialize for RawObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn serializes_as_the_json_it_was_read_from() {
        let raw = RawObject::from_text(r#"{"kind":"Pod","metadata":{"name":"a"}}"#.into()).unwrap();
        assert_eq!(
            serde_json::to_string(&vec![&raw]).unwrap(),
            r#"[{"kind":"Pod","metadata":{"name":"a"}}]"#
        );
        assert_eq!(raw.value()["metadata"]["name"], "a");
    }

    #[test]
    fn the_hash_is_the_digest_of_the_text_and_follows_it() {
        let a = RawObject::from_text(r#"{"a":1}"#.into()).unwrap();
        assert_eq!(a.hash(), crate::store::sql::digest(br#"{"a":1}"#));
        assert_eq!(a.clone().hash(), a.hash());
        let b = RawObject::from_value(&serde_json::json!({"a": 2}));
        assert_ne!(a.hash(), b.hash());
        assert_eq!(b.hash(), crate::store::sql::digest(b.text().as_bytes()));
    }

    #[test]
    fn the_compressed_text_is_the_text() {
        let a = RawObject::from_text(format!(r#"{{"data":"{}"}}"#, "x".repeat(1000))).unwrap();
        let compressed = a.compressed().unwrap().to_vec();
        assert!(compressed.len() < 100, "{}", compressed.len());
        assert_eq!(zstd::bulk::decompress(&compressed, 1 << 20).unwrap(), a.text().as_bytes());
        assert_eq!(a.clone().compressed(), Some(&compressed[..]));
    }

    #[test]
    fn a_kept_context_compresses_as_a_new_one_does() {
        let compressors = Compressors::default();
        for text in
            [format!(r#"{{"data":"{}"}}"#, "x".repeat(1000)), r#"{"kind":"Pod","b":[1,2,3]}"#.to_string()]
        {
            let kept = RawObject::from_text(text.clone()).unwrap();
            compressors.compress(&kept);
            let fresh = RawObject::from_text(text).unwrap();
            assert_eq!(kept.compressed.get().unwrap().as_deref(), fresh.compressed());
            assert_eq!(
                zstd::bulk::decompress(kept.compressed().unwrap(), 1 << 20).unwrap(),
                kept.text().as_bytes()
            );
        }
        assert_eq!(compressors.0.lock().unwrap().len(), 1, "the one context is kept and used again");
    }

    #[test]
    fn text_that_is_not_json_is_refused() {
        assert!(RawObject::from_text("{not json".into()).is_err());
    }
}
