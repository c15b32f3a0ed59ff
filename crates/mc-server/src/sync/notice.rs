//! The changes the writer has written, as watch streams and the kept history receive them.

use std::collections::BTreeMap;
use std::sync::Arc;

use mc_types::Gvr;
use tokio::sync::broadcast;

use crate::store::RawObject;

/// A change that reached the store, for watch streams.
#[derive(Debug)]
pub struct Notice {
    /// Its number in the order of writes (see [`super::history::History`]).
    pub seq: u64,
    /// The cluster.
    pub cluster: String,
    /// The type.
    pub gvr: Gvr,
    /// Namespace (`""` for cluster-scoped objects).
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `true` for a deletion.
    pub deleted: bool,
    /// Labels of the object (empty for deletions).
    pub labels: BTreeMap<String, String>,
    /// The object as stored; for deletions only its identity.
    pub object: RawObject,
    /// The change brought the object into the store (see [`crate::store::StoredObject::created`]).
    pub created: bool,
}

/// Subscribers to the changes written (watch streams).
pub type Notices = broadcast::Sender<Arc<Notice>>;

/// What a deletion's event carries: the object's identity (its last state is not kept).
pub fn identity(gvr: &Gvr, namespace: &str, name: &str, uid: &str) -> RawObject {
    let mut meta = serde_json::Map::new();
    meta.insert("name".into(), name.into());
    if !namespace.is_empty() {
        meta.insert("namespace".into(), namespace.into());
    }
    meta.insert("uid".into(), uid.into());
    RawObject::from_value(&serde_json::json!({"apiVersion": gvr.api_version(), "metadata": meta}))
}
