//! The history store: every change the single writer applies is kept as a revision, in the
//! same transaction as the object's row, and pruned by age and size.
//!
//! Tables (`migrations/<backend>/*_revisions.sql`): `revisions`, one row per change (its object
//! compressed by [`encoding`]), indexed by object (`cluster, group, version, resource,
//! namespace, name, id`, covering `at` and `change`) and by time (`cluster, at, id`); and
//! `history_totals`, per cluster the rows and bytes kept and the horizons before which pruning
//! made history incomplete. SQLite stages the writer's revisions in `revisions_log`, without
//! indexes, and moves them into `revisions` before every read ([`settle`]).
//!
//! - [`record`]: what the writer's transactions add ([`Store::record_history`] switches it on).
//! - [`settle`]: staged revisions moved into `revisions`.
//! - [`read`]: one object's history, deletions, Events, stats.
//! - [`rewind`]: a type's state at a time, from the current rows and what changed since.
//! - [`prune`]: retention in small steps.
//!
//! How a change was seen: a watch event ([`Seen::Watch`]); found by a list after a gap
//! ([`Seen::List`], the change happened between `gap_from` and `at`); or the type or cluster
//! stopped being synced ([`Seen::Unsynced`]: the object was not deleted in its cluster, and its
//! revision keeps no object).

mod encoding;
mod prune;
mod read;
mod record;
mod rewind;
mod settle;

use std::sync::Arc;

use mc_types::Gvr;

pub use prune::{PruneRules, Pruned};
pub use read::{ChangeKind, HistoryStats, Revision};
pub(super) use record::{Recorder, record_batch, record_unsynced, record_upserts, stored_states_by_id};

use super::Store;

/// The event types, kept on their own terms (`history.events.maxAge`).
pub const EVENT_TYPES: [(&str, &str); 2] = [("", "events"), ("events.k8s.io", "events")];

/// Whether `gvr` is one of the [`EVENT_TYPES`].
pub fn is_event_type(gvr: &Gvr) -> bool {
    EVENT_TYPES.iter().any(|(g, r)| gvr.group == *g && gvr.resource == *r)
}

/// Which types get revisions. Types are named as the rest of the configuration names them:
/// `plural` (any group) or `plural.group`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryRules {
    /// Only these types (empty: every type).
    pub include_types: Vec<String>,
    /// Never these types.
    pub exclude_types: Vec<String>,
}

impl Default for HistoryRules {
    /// Every type but Leases, whose heartbeats are pure churn.
    fn default() -> Self {
        Self { include_types: Vec::new(), exclude_types: vec!["leases.coordination.k8s.io".into()] }
    }
}

impl HistoryRules {
    /// Whether changes of `gvr` are kept.
    pub fn records(&self, gvr: &Gvr) -> bool {
        let names = |name: &String| {
            name == &gvr.resource
                || (name.strip_prefix(gvr.resource.as_str()).and_then(|rest| rest.strip_prefix('.'))
                    == Some(gvr.group.as_str())
                    && !gvr.group.is_empty())
        };
        (self.include_types.is_empty() || self.include_types.iter().any(names))
            && !self.exclude_types.iter().any(names)
    }
}

/// How a change came to be known (the `seen` column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// A watch event.
    Watch,
    /// Found by a list: it happened after `gap_from` (unix ms; `None`: not known, e.g. the
    /// first list of a cluster ever) and before it was written.
    List {
        /// The lower bound of when it happened.
        gap_from_ms: Option<i64>,
    },
    /// The type or the cluster stopped being synced: not a deletion in the cluster.
    Unsynced,
}

impl Seen {
    pub(super) fn column(self) -> i64 {
        match self {
            Seen::Watch => 0,
            Seen::List { .. } => 1,
            Seen::Unsynced => 2,
        }
    }

    pub(super) fn gap_from(self) -> Option<i64> {
        match self {
            Seen::List { gap_from_ms } => gap_from_ms,
            _ => None,
        }
    }
}

/// The types of a [`super::Batch`] whose upserts a list found (its pages), each with the lower
/// bound of when their changes happened; every other change of the batch is a watch event's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listed(pub Vec<(Gvr, Option<i64>)>);

impl Listed {
    /// How an upsert of `gvr` of this batch was seen.
    pub fn seen(&self, gvr: &Gvr) -> Seen {
        match self.0.iter().find(|(g, _)| g == gvr) {
            Some((_, gap_from_ms)) => Seen::List { gap_from_ms: *gap_from_ms },
            None => Seen::Watch,
        }
    }
}

/// Now, in unix milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|t| t.as_millis() as i64)
        .unwrap_or_default()
}

/// A monotonic instant in the past, in unix milliseconds.
pub fn now_ms_at(at: std::time::Instant) -> i64 {
    now_ms() - i64::try_from(at.elapsed().as_millis()).unwrap_or(i64::MAX / 2)
}

impl Store {
    /// This store keeps a revision of every change it writes of a type `rules` include (see
    /// the module); a store without it writes none (`history.enabled: false`).
    pub fn record_history(mut self, rules: HistoryRules) -> Self {
        self.history = Some(Arc::new(rules));
        self
    }

    /// Whether this store keeps revisions.
    pub fn records_history(&self) -> bool {
        self.history.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_name_types_as_the_config_does() {
        let rules = HistoryRules::default();
        assert!(!rules.records(&Gvr::new("coordination.k8s.io", "v1", "leases")));
        assert!(rules.records(&Gvr::new("", "v1", "configmaps")));
        let only = HistoryRules {
            include_types: vec!["deployments.apps".into(), "pods".into()],
            exclude_types: vec!["pods".into()],
        };
        assert!(only.records(&Gvr::new("apps", "v1", "deployments")));
        assert!(!only.records(&Gvr::new("example.com", "v1", "deployments")));
        assert!(!only.records(&Gvr::new("", "v1", "pods")));
        assert!(!only.records(&Gvr::new("", "v1", "configmaps")));
    }

    #[test]
    fn a_type_listed_in_a_batch_is_seen_by_its_list() {
        let pods = Gvr::new("", "v1", "pods");
        let listed = Listed(vec![(pods.clone(), Some(5))]);
        assert_eq!(listed.seen(&pods), Seen::List { gap_from_ms: Some(5) });
        assert_eq!(listed.seen(&Gvr::new("", "v1", "configmaps")), Seen::Watch);
    }
}
