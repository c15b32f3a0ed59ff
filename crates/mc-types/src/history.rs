//! The wire types of the history API: one object's revisions (`/v1/history`), objects as they
//! stood in the past or when they were deleted (`/v1/history/at`, `/v1/history/deleted`) and
//! Events kept past their expiry (`/v1/events`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Paths of the history API.
pub mod paths {
    /// One object's revisions, oldest first.
    pub const HISTORY: &str = "/v1/history";
    /// Objects of a type deleted since a time.
    pub const DELETED: &str = "/v1/history/deleted";
    /// Objects of a type as they stood at a time.
    pub const AT: &str = "/v1/history/at";
    /// Events of every cluster, kept past their expiry.
    pub const EVENTS: &str = "/v1/events";
}

/// Most revisions `/v1/history` answers unless asked for fewer: the newest ones.
pub const DEFAULT_HISTORY_LIMIT: u32 = 100;
/// Most revisions `/v1/history` answers at all.
pub const MAX_HISTORY_LIMIT: u32 = 1000;

/// What a revision did to its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ChangeType {
    /// The object appeared (created, or first seen).
    Added,
    /// The object changed.
    Modified,
    /// The object went away.
    Deleted,
}

impl ChangeType {
    /// As the watch API spells it: `ADDED`, `MODIFIED`, `DELETED`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeType::Added => "ADDED",
            ChangeType::Modified => "MODIFIED",
            ChangeType::Deleted => "DELETED",
        }
    }
}

/// One revision of one object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RevisionItem {
    /// Its number: increasing with every change mc-server stores, across objects.
    pub revision: i64,
    /// The cluster.
    pub cluster_name: String,
    /// The namespace (`""` for a cluster-scoped object).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// The name.
    pub name: String,
    /// The uid of this incarnation of the object.
    pub uid: String,
    /// The member cluster's resourceVersion of this state (`""` for a deletion mc-server found
    /// by listing).
    #[serde(default)]
    pub resource_version: String,
    /// When mc-server stored the change (RFC 3339, milliseconds).
    pub time: String,
    /// What the change did.
    pub change: ChangeType,
    /// `true` when a list found the change after a time mc-server did not watch (an outage, a
    /// restart): it happened after `gapFrom` (when known) and at most at `time`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub after_gap: bool,
    /// For a deletion: mc-server stopped syncing the object's type (it left discovery) or its
    /// cluster (unjoined); the object was not deleted in its cluster, and no state is kept.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsynced: bool,
    /// With `afterGap`: since when mc-server had not watched (RFC 3339); absent when unknown
    /// (the object was first seen by the first list of its cluster).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap_from: Option<String>,
    /// The fields that differ from the object's previous revision (JSON paths), at most 20; for
    /// the first revision of an answer whose previous revision is not in it, empty.
    #[serde(default)]
    pub fields: Vec<String>,
    /// How many fields differ in all (more than `fields` holds when over 20).
    #[serde(default)]
    pub fields_changed: usize,
    /// The object in this state (asked with `objects=true`); for a deletion, its last state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
}

/// An object as it stood in the past: at a time, when it was deleted, or an Event as last seen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PastObject {
    /// The cluster.
    #[serde(rename = "clusterName")]
    pub cluster_name: String,
    /// The object (for a deletion, its last state).
    #[serde(rename = "Object")]
    pub object: Value,
    /// The revision this state is.
    pub revision: i64,
    /// When mc-server stored this state (RFC 3339, milliseconds); for a deletion, when it was
    /// deleted.
    pub time: String,
    /// For a deletion: `true` when a list found it gone after a time mc-server did not watch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not", rename = "afterGap")]
    pub after_gap: bool,
}
