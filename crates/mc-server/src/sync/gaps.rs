//! When the writer last knew each type of each cluster current: the lower bound of when a
//! change a list finds after a gap happened (a revision's `gap_from`, see
//! `crate::store::Seen::List`).
//!
//! A type is known current up to each of its watch events (when the watcher read it) and up to
//! its list (when its first page was read; a list's objects are the state of that moment).
//! A change a later list finds happened after that: the watch would have told it otherwise.
//! After a restart nothing is known of a type until its list: the cluster's newest revision in
//! the store stands in (the writer had the cluster current up to then), and a cluster without
//! one has no bound (`None`: its objects are first seen). The times are when the watcher read
//! what it queued, so the bound is exact to the watcher's read latency (milliseconds).

use std::collections::HashMap;
use std::time::Instant;

use mc_types::Gvr;

use crate::store::Store;

/// Per (cluster, type): the last time it was known current (see the module).
#[derive(Debug, Default)]
pub(super) struct Gaps {
    /// Known current up to (unix ms).
    current: HashMap<(String, Gvr), i64>,
    /// A list under way: when its first page was read (unix ms).
    listing: HashMap<(String, Gvr), i64>,
    /// Per cluster: its newest revision when this process first needed it.
    restarted: HashMap<String, Option<i64>>,
}

/// `at` (a monotonic instant in the past) in unix ms.
pub(super) fn unix_ms(at: Instant) -> i64 {
    crate::store::now_ms_at(at)
}

impl Gaps {
    /// A watch event of the type, read at `at`.
    pub(super) fn watched(&mut self, cluster: &str, gvr: &Gvr, at: Instant) {
        let at = unix_ms(at);
        let known = self.current.entry((cluster.to_string(), gvr.clone())).or_insert(at);
        *known = (*known).max(at);
    }

    /// A page of the type's list, read at `at`: the lower bound for its changes.
    pub(super) async fn page(&mut self, store: &Store, cluster: &str, gvr: &Gvr, at: Instant) -> Option<i64> {
        self.listing.entry((cluster.to_string(), gvr.clone())).or_insert_with(|| unix_ms(at));
        self.bound(store, cluster, gvr).await
    }

    /// The lower bound of when a change a list of the type finds happened.
    pub(super) async fn bound(&mut self, store: &Store, cluster: &str, gvr: &Gvr) -> Option<i64> {
        if let Some(&at) = self.current.get(&(cluster.to_string(), gvr.clone())) {
            return Some(at);
        }
        if let Some(&at) = self.restarted.get(cluster) {
            return at;
        }
        // Read once per cluster; a store that does not answer leaves the bound unknown.
        let at = store.newest_revision_ms(cluster).await.ok().flatten();
        self.restarted.insert(cluster.to_string(), at);
        at
    }

    /// The type's list was written: known current as of its first page (an empty list leaves
    /// the bound where it was, a lower one).
    pub(super) fn listed(&mut self, cluster: &str, gvr: &Gvr) {
        let key = (cluster.to_string(), gvr.clone());
        if let Some(at) = self.listing.remove(&key) {
            let known = self.current.entry(key).or_insert(at);
            *known = (*known).max(at);
        }
    }

    /// The cluster is gone: nothing of it is known any more.
    pub(super) fn forget(&mut self, cluster: &str) {
        self.current.retain(|(c, _), _| c != cluster);
        self.listing.retain(|(c, _), _| c != cluster);
        self.restarted.remove(cluster);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_list_is_bounded_by_what_was_last_known_current() {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        let gvr = Gvr::new("", "v1", "configmaps");
        let mut gaps = Gaps::default();
        // Nothing known and no history: no bound.
        let first = Instant::now();
        assert_eq!(gaps.page(&store, "a", &gvr, first).await, None);
        gaps.listed("a", &gvr);
        // (An instant read as unix ms twice may differ by the millisecond it is rounded to.)
        let listed = gaps.bound(&store, "a", &gvr).await.unwrap();
        assert!(listed.abs_diff(unix_ms(first)) <= 1, "{listed}");
        // A later watch event moves it on; an older one does not move it back.
        tokio::time::sleep(Duration::from_millis(5)).await;
        let event = Instant::now();
        gaps.watched("a", &gvr, event);
        gaps.watched("a", &gvr, first);
        let bound = gaps.bound(&store, "a", &gvr).await.unwrap();
        assert!(bound >= listed + 5, "{bound} {listed}");
        // The next list's pages are bounded by it, not by their own time.
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert_eq!(gaps.page(&store, "a", &gvr, Instant::now()).await, Some(bound));
        gaps.forget("a");
        assert_eq!(gaps.bound(&store, "a", &gvr).await, None);
    }
}
