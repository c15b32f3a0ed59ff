//! Retention: revisions older than the age limit, and the oldest beyond the size limit, removed
//! in small steps so that the single writer never waits long (SQLite has one writer).
//!
//! The rule keeps a type's state at any time inside the window exact: a revision older than
//! the cutoff goes only once it is superseded (the object's next revision is older than the
//! cutoff too), and a deleted object's revisions go once its DELETED revision is older than the
//! cutoff; the newest revision of a live object stays however old. `maxBytes` then removes the
//! oldest superseded (or deleted) revisions first. Each cluster's horizon records the time
//! before which a state read may be wrong because of what was removed.
//!
//! A step reads at most [`PruneRules::step_rows`] revisions of one cluster, oldest first, along
//! the `(cluster, at, id)` index, each with the time of the object's next revision (one seek in
//! the object index), in a read transaction; then deletes the removable ones by id and updates
//! the cluster's totals and horizons in a short write transaction.

use super::super::statement::{Builder, Col};
use super::super::{Result, Store, sql};
use super::record::{DELETED, add_totals};
use super::{EVENT_TYPES, now_ms};

/// How revisions are pruned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PruneRules {
    /// Revisions of every type but Events older than this (ms) go once superseded.
    pub max_age_ms: i64,
    /// The same for Events (`events` and `events.events.k8s.io`).
    pub events_max_age_ms: i64,
    /// Most bytes of stored objects kept in all; `None`: no limit.
    pub max_bytes: Option<u64>,
    /// Revisions read per step, and so deleted at most per write transaction.
    pub step_rows: usize,
}

impl Default for PruneRules {
    fn default() -> Self {
        Self { max_age_ms: 7 * 86_400_000, events_max_age_ms: 86_400_000, max_bytes: None, step_rows: 5000 }
    }
}

/// What a prune removed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pruned {
    /// Revisions removed.
    pub revisions: u64,
    /// Their stored bytes.
    pub bytes: u64,
    /// Steps taken (write transactions and reads).
    pub steps: u64,
    /// The longest write transaction of a step (ms): how long the writer may have waited.
    pub longest_write_ms: f64,
}

/// One revision a step read.
#[derive(Debug)]
struct Candidate {
    id: i64,
    at: i64,
    deleted: bool,
    bytes: i64,
    event: bool,
    /// When the object's next revision was written, if it has one.
    next_at: Option<i64>,
}

impl Candidate {
    /// Whether it goes with `cutoff` (unix ms; revisions at or after it stay).
    fn removable(&self, cutoff: i64) -> bool {
        self.at < cutoff && (self.deleted || self.next_at.is_some_and(|n| n < cutoff))
    }

    /// The time before which a state read is wrong once it is removed: a deletion's own time
    /// (the object existed before it), else its successor's.
    fn horizon(&self) -> i64 {
        if self.deleted { self.at } else { self.next_at.unwrap_or(self.at) }
    }
}

/// Where a cluster's scan is: after this `(at, id)`.
type Cursor = Option<(i64, i64)>;

impl Store {
    /// Prunes the history of `clusters` (every cluster with history when `None`) by `rules`,
    /// step by step, until nothing more goes.
    pub async fn prune_history(&self, rules: &PruneRules, clusters: Option<&[String]>) -> Result<Pruned> {
        self.prune_history_as_of(rules, clusters, now_ms()).await
    }

    /// [`Store::prune_history`] with the ages counted back from `now` (unix ms) rather than
    /// from the clock: what a test needs whose window must not move while it runs.
    pub async fn prune_history_as_of(
        &self,
        rules: &PruneRules,
        clusters: Option<&[String]>,
        now: i64,
    ) -> Result<Pruned> {
        self.settle_history().await?;
        let mut pruned = Pruned::default();
        let all = self.history_clusters().await?;
        let clusters: Vec<String> =
            all.into_iter().filter(|c| clusters.is_none_or(|only| only.contains(c))).collect();
        let cutoff = now.saturating_sub(rules.max_age_ms);
        let events_cutoff = now.saturating_sub(rules.events_max_age_ms);
        let step_rows = rules.step_rows.max(1);
        for cluster in &clusters {
            let mut cursor: Cursor = None;
            loop {
                let scanned = self.prune_scan(cluster, cursor, cutoff.max(events_cutoff), step_rows).await?;
                let Some(last) = scanned.last() else { break };
                cursor = Some((last.at, last.id));
                let gone: Vec<&Candidate> = scanned
                    .iter()
                    .filter(|c| c.removable(if c.event { events_cutoff } else { cutoff }))
                    .collect();
                self.prune_remove(cluster, &gone, &mut pruned).await?;
                if scanned.len() < step_rows {
                    break;
                }
            }
        }
        if let Some(max_bytes) = rules.max_bytes {
            self.prune_bytes(&clusters, max_bytes, step_rows, &mut pruned).await?;
        }
        Ok(pruned)
    }

    /// Removes the oldest revisions that are superseded or deleted until the stored bytes of
    /// every cluster are at most `max_bytes`: each step in the cluster whose scan is furthest
    /// behind, so the oldest go first across clusters (to a step's grain).
    async fn prune_bytes(
        &self,
        clusters: &[String],
        max_bytes: u64,
        step_rows: usize,
        pruned: &mut Pruned,
    ) -> Result<()> {
        let stats = self.history_stats().await?;
        let total: u64 = stats.iter().map(|s| s.bytes).sum();
        let mut excess = i64::try_from(total.saturating_sub(max_bytes)).unwrap_or(i64::MAX);
        // Per cluster: where its scan is, and the time it is at (for choosing the oldest).
        let mut scans: Vec<(String, Cursor, i64)> = stats
            .iter()
            .filter(|s| clusters.contains(&s.cluster))
            .filter_map(|s| Some((s.cluster.clone(), None, s.oldest_ms?)))
            .collect();
        while excess > 0 && !scans.is_empty() {
            let Some(i) = scans.iter().enumerate().min_by_key(|(_, s)| s.2).map(|(i, _)| i) else { break };
            let (cluster, cursor, _) = scans[i].clone();
            let scanned = self.prune_scan(&cluster, cursor, i64::MAX, step_rows).await?;
            let mut gone = Vec::new();
            for c in scanned.iter().filter(|c| c.removable(i64::MAX)) {
                if excess <= 0 {
                    break;
                }
                excess -= c.bytes.max(1);
                gone.push(c);
            }
            self.prune_remove(&cluster, &gone, pruned).await?;
            match scanned.last() {
                Some(last) if scanned.len() >= step_rows => {
                    scans[i] = (cluster, Some((last.at, last.id)), last.at)
                }
                _ => {
                    scans.swap_remove(i);
                }
            }
        }
        Ok(())
    }

    /// Clusters with history, by name.
    async fn history_clusters(&self) -> Result<Vec<String>> {
        let mut tx = self.begin(false).await?;
        let b = Builder::new(tx.dialect, "SELECT cluster FROM history_totals ORDER BY cluster");
        let rows = tx.fetch(b.finish(), &[Col::Text]).await?;
        tx.commit().await?;
        Ok(rows.into_iter().map(|mut r| r.text(0)).collect())
    }

    /// At most `limit` revisions of `cluster` written before `below`, after `cursor`, oldest
    /// first, each with the time of its object's next revision.
    async fn prune_scan(
        &self,
        cluster: &str,
        cursor: Cursor,
        below: i64,
        limit: usize,
    ) -> Result<Vec<Candidate>> {
        let mut tx = self.begin(false).await?;
        let mut b = Builder::new(
            tx.dialect,
            "SELECT r.id, r.at, r.\"change\", r.bytes, r.\"group\", r.resource, (SELECT s.at FROM revisions s \
             WHERE s.cluster = r.cluster AND s.\"group\" = r.\"group\" AND s.version = r.version \
             AND s.resource = r.resource AND s.namespace = r.namespace AND s.name = r.name AND s.id > r.id \
             ORDER BY s.id LIMIT 1) FROM revisions r WHERE r.cluster = ",
        );
        b.bind(cluster).push(" AND r.at < ").bind(below);
        if let Some((at, id)) = cursor {
            b.push(" AND (r.at > ").bind(at).push(" OR (r.at = ").bind(at).push(" AND r.id > ").bind(id);
            b.push("))");
        }
        b.push(" ORDER BY r.at, r.id LIMIT ").bind(i64::try_from(limit).unwrap_or(i64::MAX));
        let cols = [Col::Int, Col::Int, Col::Int, Col::Int, Col::Text, Col::Text, Col::OptInt];
        let rows = tx.fetch(b.finish(), &cols).await?;
        tx.commit().await?;
        Ok(rows
            .into_iter()
            .map(|r| Candidate {
                id: r.int(0),
                at: r.int(1),
                deleted: r.int(2) == DELETED,
                bytes: r.int(3),
                event: EVENT_TYPES.iter().any(|(g, res)| r.str(4) == *g && r.str(5) == *res),
                next_at: r.opt_int(6),
            })
            .collect())
    }

    /// Deletes `gone` (revisions of `cluster`) in one short write transaction, with the
    /// cluster's totals and horizons.
    async fn prune_remove(&self, cluster: &str, gone: &[&Candidate], pruned: &mut Pruned) -> Result<()> {
        pruned.steps += 1;
        if gone.is_empty() {
            return Ok(());
        }
        let ids: Vec<i64> = gone.iter().map(|c| c.id).collect();
        let bytes: i64 = gone.iter().map(|c| c.bytes).sum();
        let horizon = gone.iter().filter(|c| !c.event).map(|c| c.horizon()).max();
        let events_horizon = gone.iter().filter(|c| c.event).map(|c| c.horizon()).max();
        let started = std::time::Instant::now();
        let mut tx = self.begin(true).await?;
        let d = tx.dialect;
        let mut removed = 0;
        for chunk in ids.chunks(sql::CHUNK) {
            let mut b = Builder::new(d, "DELETE FROM revisions WHERE id IN ");
            b.bind_list(chunk.iter().copied());
            removed += tx.execute(b.finish()).await?;
        }
        tx.execute(add_totals(d, cluster, -(removed as i64), -bytes)).await?;
        for (column, at) in [("complete_since", horizon), ("events_complete_since", events_horizon)] {
            let Some(at) = at else { continue };
            let mut b = Builder::new(d, "UPDATE history_totals SET ");
            b.push(column).push(" = ").bind(at).push(" WHERE cluster = ").bind(cluster);
            b.push(" AND (").push(column).push(" IS NULL OR ").push(column).push(" < ").bind(at).push(")");
            tx.execute(b.finish()).await?;
        }
        tx.commit().await?;
        pruned.longest_write_ms = pruned.longest_write_ms.max(started.elapsed().as_secs_f64() * 1000.0);
        pruned.revisions += removed;
        pruned.bytes += u64::try_from(bytes).unwrap_or(0);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(at: i64, deleted: bool, next_at: Option<i64>) -> Candidate {
        Candidate { id: 1, at, deleted, bytes: 10, event: false, next_at }
    }

    #[test]
    fn only_superseded_or_deleted_revisions_older_than_the_cutoff_go() {
        // The newest revision of a live object stays, however old.
        assert!(!candidate(10, false, None).removable(100));
        // Superseded by a revision also older than the cutoff: goes.
        assert!(candidate(10, false, Some(50)).removable(100));
        // Superseded by one inside the window: stays, a state inside the window needs it.
        assert!(!candidate(10, false, Some(150)).removable(100));
        // A deletion older than the cutoff goes; one inside the window stays.
        assert!(candidate(10, true, None).removable(100));
        assert!(!candidate(110, true, None).removable(100));
    }

    #[test]
    fn the_horizon_is_when_a_state_read_becomes_right_again() {
        assert_eq!(candidate(10, false, Some(50)).horizon(), 50);
        assert_eq!(candidate(10, true, Some(50)).horizon(), 10);
    }
}
