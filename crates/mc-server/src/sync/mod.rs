//! Sync: discovery, one list+watch per type, and the writer that keeps the store equal
//! to every cluster.

pub mod cluster;
pub mod discovery;
mod gaps;
pub mod history;
pub mod list_reader;
pub mod list_watch;
pub mod notice;
pub mod prepare;
pub mod replica_feed;
pub mod resilient;
pub mod shard;
pub mod type_health;
pub mod type_sync;
pub mod watched_object;
pub mod writer;

use crate::store::Store;

pub use cluster::spawn_cluster;
pub use discovery::Filter;
pub use list_watch::ListSizes;
pub use prepare::Prepare;

/// What every sync task shares.
#[derive(Clone, Debug)]
pub struct SyncContext {
    /// The store (read by watchers to skip unchanged objects).
    pub store: Store,
    /// The writer's queue.
    pub writer: writer::Sender,
    /// With a shared store and a master: the sharder, which decides which clusters this
    /// replica syncs (see [`shard`]). `None`: this replica syncs every cluster.
    pub shards: Option<shard::Shards>,
    /// Watch every cluster, also those another replica syncs (their changes reach this
    /// replica's watch streams without being written). Off only when a replica's clusters are
    /// limited (`sync.maxClustersPerReplica`): then a replica watches only its own, and the
    /// changes of the others reach its watch streams through the store's change feed
    /// ([`replica_feed`]).
    pub watch_all: bool,
    /// Changes written, for watch streams.
    pub notices: notice::Notices,
    /// The changes written, numbered, and the recent ones (Kubernetes resourceVersions).
    pub history: std::sync::Arc<history::History>,
    /// Names of clusters that just became ready (dispatch retries them at once).
    pub ready_tx: tokio::sync::broadcast::Sender<String>,
    /// Object preparation (redaction).
    pub prepare: Prepare,
    /// Global type exclusions (per-cluster allow-lists are added per cluster).
    pub exclude_groups: Vec<String>,
    /// Global resource exclusions.
    pub exclude_resources: Vec<String>,
    /// Whether the store accepts writes (for `/readyz`).
    pub health: std::sync::Arc<resilient::StoreHealth>,
    /// How lists are read: in pages, or in one answer read as it arrives.
    pub lists: ListSizes,
}

/// The message of a panic, if it has one (for reporting a bug that was caught).
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}
