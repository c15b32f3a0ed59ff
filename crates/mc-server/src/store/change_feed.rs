//! The change feed between replicas that sync only their share of the clusters
//! (`sync.maxClustersPerReplica`, see `crate::sync::replica_feed`).
//!
//! A store with an origin ([`Store::record_changes`]) adds one `changes` row per change it
//! writes, in the transaction that writes it; the other replicas read the rows after the last
//! one they saw ([`Store::changes_after`]). Ids follow commit order: each such transaction
//! updates the one `change_clock` row right before adding its rows and holds that row's lock
//! until it commits, so a reader never sees an id before a smaller one that is still to come.

use std::sync::Arc;

use mc_types::Gvr;

use super::dialect::Dialect;
use super::sql;
use super::statement::{Builder, Col, Stmt};
use super::{Change, RawObject, Result, Store, Tx};

/// A change another replica wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct FeedChange {
    /// Its place in the feed.
    pub id: i64,
    /// The cluster.
    pub cluster: String,
    /// The type.
    pub gvr: Gvr,
    /// Namespace (`""` for cluster-scoped objects).
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Uid.
    pub uid: String,
    /// `true` for a deletion.
    pub deleted: bool,
    /// The object as stored now, for an upsert; `None` for a deletion, or when the object (this
    /// incarnation of it) has gone since: its deletion follows in the feed.
    pub object: Option<RawObject>,
}

/// Columns per `changes` row written.
const ROW_ARGS: usize = 10;

impl Store {
    /// This store records every change it writes in the change feed, as written by `origin`
    /// (the replica's identity).
    pub fn record_changes(mut self, origin: &str) -> Self {
        self.origin = Some(Arc::from(origin));
        self
    }

    /// The changes written by replicas other than this one after `after`, oldest first, at most
    /// `limit`.
    pub async fn changes_after(&self, after: i64, limit: usize) -> Result<Vec<FeedChange>> {
        let mut tx = self.begin(false).await?;
        let d = tx.dialect;
        let mut b = Builder::new(
            d,
            "SELECT c.id, c.cluster, c.\"group\", c.version, c.resource, c.namespace, c.name, c.uid, c.deleted, ",
        );
        b.push_json_column("r.object");
        b.push(
            " FROM changes c LEFT JOIN resources r ON r.\"group\" = c.\"group\" AND r.version = c.version \
             AND r.resource = c.resource AND r.cluster = c.cluster AND r.namespace = c.namespace \
             AND r.name = c.name AND r.uid = c.uid AND NOT c.deleted WHERE c.id > ",
        );
        b.bind(after);
        if let Some(origin) = &self.origin {
            b.push(" AND c.origin <> ").bind(origin.as_ref());
        }
        b.push(" ORDER BY c.id LIMIT ").bind(limit as i64);
        let cols = [
            Col::Int,
            Col::Text,
            Col::Text,
            Col::Text,
            Col::Text,
            Col::Text,
            Col::Text,
            Col::Text,
            Col::Bool,
            Col::OptText,
        ];
        let rows = tx.fetch(b.finish(), &cols).await?;
        tx.commit().await?;
        rows.into_iter()
            .map(|mut r| {
                let object =
                    match r.opt_text(9) {
                        Some(text) => Some(RawObject::from_text(text).map_err(|e| {
                            super::Error::Corrupt(format!("object of change {}: {e}", r.int(0)))
                        })?),
                        None => None,
                    };
                Ok(FeedChange {
                    id: r.int(0),
                    cluster: r.text(1),
                    gvr: Gvr::new(r.text(2), r.text(3), r.text(4)),
                    namespace: r.text(5),
                    name: r.text(6),
                    uid: r.text(7),
                    deleted: r.int(8) != 0,
                    object,
                })
            })
            .collect()
    }

    /// The id of the newest change (0 when there is none): where a replica starts reading.
    pub async fn last_change_id(&self) -> Result<i64> {
        let mut tx = self.begin(false).await?;
        let rows = tx.fetch(sql::max_id(tx.dialect, "changes"), &[Col::Int]).await?;
        tx.commit().await?;
        Ok(rows.first().map_or(0, |r| r.int(0)))
    }

    /// Removes the changes recorded before `before_ms` (unix milliseconds); returns how many.
    pub async fn prune_changes(&self, before_ms: i64) -> Result<u64> {
        let mut tx = self.begin(true).await?;
        let mut b = Builder::new(tx.dialect, "DELETE FROM changes WHERE at < ");
        b.bind(before_ms);
        let n = tx.execute(b.finish()).await?;
        tx.commit().await?;
        Ok(n)
    }
}

/// Adds `changes` of `cluster` to the feed when the store records them (see the module), in the
/// caller's transaction; call it last, right before the commit.
pub(super) async fn record(
    tx: &mut Tx,
    origin: Option<&str>,
    cluster: &str,
    changes: &[Change],
) -> Result<()> {
    let Some(origin) = origin else { return Ok(()) };
    if changes.is_empty() {
        return Ok(());
    }
    let d = tx.dialect;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|t| t.as_millis() as i64)
        .unwrap_or_default();
    let mut clock = Builder::new(d, "UPDATE change_clock SET at = ");
    clock.bind(now).push(" WHERE id = 1");
    tx.execute(clock.finish()).await?;
    for chunk in changes.chunks(sql::CHUNK.min(30_000 / ROW_ARGS)) {
        tx.execute(insert(d, origin, cluster, now, chunk)).await?;
    }
    Ok(())
}

fn insert(d: Dialect, origin: &str, cluster: &str, now: i64, changes: &[Change]) -> Stmt {
    let mut b = Builder::new(
        d,
        "INSERT INTO changes (origin, cluster, \"group\", version, resource, namespace, name, uid, deleted, at) VALUES ",
    );
    for (i, change) in changes.iter().enumerate() {
        let (gvr, namespace, name, uid, deleted) = match change {
            Change::Upsert(o) => (&o.gvr, &o.namespace, &o.name, &o.uid, false),
            Change::Delete { gvr, namespace, name, uid } => (gvr, namespace, name, uid, true),
        };
        if i > 0 {
            b.push(", ");
        }
        b.push("(").bind(origin).push(", ").bind(cluster);
        b.push(", ").bind(gvr.group.as_str()).push(", ").bind(gvr.version.as_str());
        b.push(", ").bind(gvr.resource.as_str()).push(", ").bind(namespace.as_str());
        b.push(", ").bind(name.as_str()).push(", ").bind(uid.as_str());
        b.push(", ").bind(deleted).push(", ").bind(now).push(")");
    }
    b.finish()
}
