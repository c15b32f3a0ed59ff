//! Reading the history: one object's revisions, chosen revisions, deletions, Events, and
//! per-cluster stats (a type's state at a time is [`super::rewind`]). Every read of a type runs
//! per cluster, so that each statement scans a range of the object index (`cluster, group,
//! version, resource, namespace, name, id`, covering `at` and `change`).

use mc_types::Gvr;

use super::super::backend::Tx;
use super::super::statement::{Builder, Col, Row};
use super::super::{Error, Namespaces, Query, RawObject, Result, Store, sql};
use super::encoding::Decoder;
use super::record::{ADDED, DELETED, MODIFIED};

/// What a revision records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// The object came into the store.
    Added,
    /// The object changed.
    Modified,
    /// The object went (see [`Revision::unsynced`] for a type or cluster no longer synced).
    Deleted,
}

impl ChangeKind {
    fn from_column(change: i64) -> Result<Self> {
        match change {
            ADDED => Ok(ChangeKind::Added),
            MODIFIED => Ok(ChangeKind::Modified),
            DELETED => Ok(ChangeKind::Deleted),
            other => Err(Error::Corrupt(format!("a revision's change is {other}"))),
        }
    }
}

/// One kept change of one object.
#[derive(Clone, Debug, PartialEq)]
pub struct Revision {
    /// Its place in the history (never reused; one object's revisions increase with it).
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
    /// The object's `metadata.resourceVersion` (`""` when it had none).
    pub resource_version: String,
    /// When mc-server wrote it (unix ms).
    pub at_ms: i64,
    /// What changed.
    pub change: ChangeKind,
    /// Found by a list after a gap, not by the watch: the change happened after
    /// [`Revision::gap_from_ms`] and before [`Revision::at_ms`].
    pub seen_by_list: bool,
    /// For a change found by a list: when it happened at the earliest (`None`: not known, the
    /// objects a cluster's first list ever found).
    pub gap_from_ms: Option<i64>,
    /// Stored size of its object.
    pub bytes: i64,
    /// The object (its last state for a deletion); `None` when not asked for, or for a
    /// deletion of a type or cluster no longer synced ([`Revision::unsynced`]).
    pub object: Option<RawObject>,
    /// A DELETED revision written because the type or the cluster stopped being synced (the
    /// type went from discovery, the cluster was unjoined): the object was not deleted in its
    /// cluster, and no state is kept.
    pub unsynced: bool,
}

/// Per cluster: what its history holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HistoryStats {
    /// The cluster.
    pub cluster: String,
    /// Revisions kept.
    pub revisions: u64,
    /// Their objects' stored bytes.
    pub bytes: u64,
    /// When its oldest revision was written (unix ms); `None` when it has none.
    pub oldest_ms: Option<i64>,
    /// Since when its history (of every type but Events) is complete: the horizon before which
    /// pruning removed revisions that a state at that time would need, else the oldest
    /// revision (when history began).
    pub complete_since_ms: Option<i64>,
    /// The same for Events, which are kept on their own terms.
    pub events_complete_since_ms: Option<i64>,
}

/// The columns of a revision, `object` last.
pub(super) const COLUMNS: &str = "id, cluster, \"group\", version, resource, namespace, name, uid, resource_version, at, \
     \"change\", seen, gap_from, bytes, encoding";
pub(super) const COLS: [Col; 15] = [
    Col::Int,
    Col::Text,
    Col::Text,
    Col::Text,
    Col::Text,
    Col::Text,
    Col::Text,
    Col::Text,
    Col::Text,
    Col::Int,
    Col::Int,
    Col::Int,
    Col::OptInt,
    Col::Int,
    Col::Int,
];
const COLS_WITH_OBJECT: [Col; 16] = {
    let mut cols = [Col::OptBytes; 16];
    let mut i = 0;
    while i < 15 {
        cols[i] = COLS[i];
        i += 1;
    }
    cols
};

pub(super) fn select(d: super::super::dialect::Dialect, objects: bool) -> Builder {
    let mut b = Builder::new(d, "SELECT ");
    b.push(COLUMNS).push(if objects { ", object FROM revisions WHERE " } else { " FROM revisions WHERE " });
    b
}

fn cols(objects: bool) -> &'static [Col] {
    if objects { &COLS_WITH_OBJECT } else { &COLS }
}

/// A revision from its row; its object decoded by `decoder` when `objects`.
pub(super) fn revision(mut r: Row, objects: bool, decoder: &mut Decoder) -> Result<Revision> {
    let id = r.int(0);
    let seen = r.int(11);
    let encoding = r.int(14);
    let object = match objects.then(|| r.opt_bytes(15)).flatten() {
        Some(bytes) => decoder.decode(id, encoding, bytes)?,
        None => None,
    };
    Ok(Revision {
        id,
        cluster: r.text(1),
        gvr: Gvr::new(r.text(2), r.text(3), r.text(4)),
        namespace: r.text(5),
        name: r.text(6),
        uid: r.text(7),
        resource_version: r.text(8),
        at_ms: r.int(9),
        change: ChangeKind::from_column(r.int(10))?,
        seen_by_list: seen == 1,
        gap_from_ms: r.opt_int(12),
        bytes: r.int(13),
        object,
        unsynced: seen == 2,
    })
}

/// The clusters a query of the history reads, each with the namespaces it may read there
/// (`None`: every one): q's cluster, else every cluster with history; only where `q.allowed`
/// admits.
pub(super) async fn clusters(tx: &mut Tx, q: &Query) -> Result<Vec<(String, Option<Vec<String>>)>> {
    let names = match &q.cluster {
        Some(c) => vec![c.clone()],
        None => {
            let b = Builder::new(tx.dialect, "SELECT cluster FROM history_totals ORDER BY cluster");
            tx.fetch(b.finish(), &[Col::Text]).await?.into_iter().map(|mut r| r.text(0)).collect()
        }
    };
    Ok(names
        .into_iter()
        .filter_map(|c| match &q.allowed {
            None => Some((c, None)),
            Some(allowed) => {
                let scopes: Vec<&Namespaces> =
                    allowed.0.iter().filter(|(name, _)| *name == c).map(|(_, ns)| ns).collect();
                if scopes.iter().any(|ns| matches!(ns, Namespaces::All)) {
                    return Some((c, None));
                }
                let names: Vec<String> = scopes
                    .into_iter()
                    .flat_map(|ns| match ns {
                        Namespaces::Some(names) => names.clone(),
                        Namespaces::All => Vec::new(),
                    })
                    .collect();
                (!names.is_empty()).then_some((c, Some(names)))
            }
        })
        .collect())
}

/// `cluster = ? AND` the type `AND` q's namespace and name, and the namespaces allowed.
pub(super) fn push_scope(
    b: &mut Builder,
    gvr: &Gvr,
    cluster: &str,
    namespaces: Option<&[String]>,
    q: &Query,
    t: &str,
) {
    b.push(t).push("cluster = ").bind(cluster).push(" AND ").push_gvr(t, gvr);
    if let Some(namespace) = &q.namespace {
        b.push(" AND ").push(t).push("namespace = ").bind(namespace.as_str());
    }
    if let Some(name) = &q.name {
        b.push(" AND ").push(t).push("name = ").bind(name.as_str());
    }
    if let Some(names) = namespaces {
        b.push(" AND ").push(t).push("namespace IN ").bind_list(names.iter().map(String::as_str));
    }
}

pub(super) fn needs_type(q: &Query) -> Result<&Gvr> {
    q.gvr.as_ref().ok_or_else(|| Error::BadHistoryQuery("a resource type is needed".into()))
}

/// Rows decoded on one blocking thread at a time: decompressing and checking objects is CPU
/// work, kept off the runtime's threads and spread over the cores for a large answer.
const DECODE_CHUNK: usize = 1000;

/// The revisions with these ids, with their objects, in id order.
pub(super) async fn by_ids(tx: &mut Tx, ids: &[i64]) -> Result<Vec<Revision>> {
    let mut rows = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(sql::CHUNK) {
        let mut b = select(tx.dialect, true);
        b.push("id IN ").bind_list(chunk.iter().copied());
        rows.extend(tx.fetch(b.finish(), &COLS_WITH_OBJECT).await?);
    }
    let mut found = Vec::with_capacity(rows.len());
    if rows.len() <= DECODE_CHUNK {
        let mut decoder = Decoder::default();
        for r in rows {
            found.push(revision(r, true, &mut decoder)?);
        }
    } else {
        let mut parts = Vec::new();
        while !rows.is_empty() {
            let part: Vec<Row> = rows.drain(..rows.len().min(DECODE_CHUNK)).collect();
            parts.push(tokio::task::spawn_blocking(move || {
                let mut decoder = Decoder::default();
                part.into_iter().map(|r| revision(r, true, &mut decoder)).collect::<Result<Vec<_>>>()
            }));
        }
        for part in parts {
            let decoded = part.await.map_err(|e| Error::Corrupt(format!("decoding revisions: {e}")))??;
            found.extend(decoded);
        }
    }
    found.sort_by_key(|r| r.id);
    Ok(found)
}

impl Store {
    /// Revisions of the objects `q` selects (`q.gvr` required; `q.cluster`, `q.namespace`,
    /// `q.name`, `q.allowed` honoured): the newest `limit`, oldest first (by id); with objects
    /// when `objects`.
    pub async fn history(&self, q: &Query, objects: bool, limit: usize) -> Result<Vec<Revision>> {
        let gvr = needs_type(q)?;
        self.settle_history().await?;
        let mut tx = self.begin(false).await?;
        let mut found = Vec::new();
        for (cluster, namespaces) in clusters(&mut tx, q).await? {
            let mut b = select(tx.dialect, objects);
            push_scope(&mut b, gvr, &cluster, namespaces.as_deref(), q, "");
            b.push(" ORDER BY id DESC LIMIT ").bind(i64::try_from(limit).unwrap_or(i64::MAX));
            let mut decoder = Decoder::default();
            for r in tx.fetch(b.finish(), cols(objects)).await? {
                found.push(revision(r, objects, &mut decoder)?);
            }
        }
        tx.commit().await?;
        found.sort_by_key(|r| std::cmp::Reverse(r.id));
        found.truncate(limit);
        found.reverse();
        Ok(found)
    }

    /// These revisions (by id), with objects, where `q` admits them (`q.gvr`, `q.cluster`,
    /// `q.namespace`, `q.name`, `q.allowed`), in id order. An id not kept is absent.
    pub async fn revisions(&self, q: &Query, ids: &[i64]) -> Result<Vec<Revision>> {
        self.settle_history().await?;
        let mut tx = self.begin(false).await?;
        let found = by_ids(&mut tx, ids).await?;
        tx.commit().await?;
        Ok(found
            .into_iter()
            .filter(|r| {
                q.gvr.as_ref().is_none_or(|g| g == &r.gvr)
                    && q.cluster.as_ref().is_none_or(|c| c == &r.cluster)
                    && q.namespace.as_ref().is_none_or(|n| n == &r.namespace)
                    && q.name.as_ref().is_none_or(|n| n == &r.name)
                    && q.allowed.as_ref().is_none_or(|a| a.admits(&r.cluster, &r.namespace))
            })
            .collect())
    }

    /// Objects of q's type deleted at or after `since_ms`: their DELETED revision with the
    /// last state as `object`, oldest first (newest last).
    pub async fn deleted(&self, q: &Query, since_ms: i64) -> Result<Vec<Revision>> {
        let gvr = needs_type(q)?;
        self.settle_history().await?;
        let mut tx = self.begin(false).await?;
        let mut found = Vec::new();
        for (cluster, namespaces) in clusters(&mut tx, q).await? {
            let mut b = select(tx.dialect, true);
            push_scope(&mut b, gvr, &cluster, namespaces.as_deref(), q, "");
            b.push(" AND \"change\" = ").bind(DELETED).push(" AND at >= ").bind(since_ms);
            b.push(" ORDER BY id");
            let mut decoder = Decoder::default();
            for r in tx.fetch(b.finish(), &COLS_WITH_OBJECT).await? {
                found.push(revision(r, true, &mut decoder)?);
            }
        }
        tx.commit().await?;
        found.sort_by_key(|r| (r.at_ms, r.id));
        Ok(found)
    }

    /// For q's Event type: each Event (by uid) with a revision at or after `since_ms`, as its
    /// newest state that is not a deletion (an Event its cluster expired keeps its last state),
    /// oldest first (newest last).
    pub async fn events(&self, q: &Query, since_ms: i64) -> Result<Vec<Revision>> {
        let gvr = needs_type(q)?;
        self.settle_history().await?;
        let mut tx = self.begin(false).await?;
        let mut found = Vec::new();
        for (cluster, namespaces) in clusters(&mut tx, q).await? {
            let mut b = Builder::new(tx.dialect, "SELECT MAX(CASE WHEN \"change\" <> ");
            b.bind(DELETED).push(" THEN id END) FROM revisions WHERE ");
            push_scope(&mut b, gvr, &cluster, namespaces.as_deref(), q, "");
            b.push(" GROUP BY uid HAVING MAX(at) >= ").bind(since_ms);
            let ids: Vec<i64> =
                tx.fetch(b.finish(), &[Col::OptInt]).await?.iter().filter_map(|r| r.opt_int(0)).collect();
            found.extend(by_ids(&mut tx, &ids).await?);
        }
        tx.commit().await?;
        found.sort_by_key(|r| (r.at_ms, r.id));
        Ok(found)
    }

    /// Per cluster: revisions, bytes, oldest `at`, and since when its history is complete.
    pub async fn history_stats(&self) -> Result<Vec<HistoryStats>> {
        self.settle_history().await?;
        let mut tx = self.begin(false).await?;
        let b = Builder::new(
            tx.dialect,
            "SELECT t.cluster, t.revisions, t.bytes, (SELECT MIN(r.at) FROM revisions r WHERE r.cluster = t.cluster), \
             t.complete_since, t.events_complete_since FROM history_totals t ORDER BY t.cluster",
        );
        let rows = tx
            .fetch(b.finish(), &[Col::Text, Col::Int, Col::Int, Col::OptInt, Col::OptInt, Col::OptInt])
            .await?;
        tx.commit().await?;
        Ok(rows
            .into_iter()
            .map(|mut r| {
                let oldest_ms = r.opt_int(3);
                HistoryStats {
                    cluster: r.text(0),
                    revisions: u64::try_from(r.int(1)).unwrap_or(0),
                    bytes: u64::try_from(r.int(2)).unwrap_or(0),
                    oldest_ms,
                    complete_since_ms: r.opt_int(4).or(oldest_ms),
                    events_complete_since_ms: r.opt_int(5).or(oldest_ms),
                }
            })
            .collect())
    }

    /// When `cluster`'s newest revision was written (unix ms), `None` when it has none: after a
    /// restart, the last time the writer is known to have had the cluster current.
    pub async fn newest_revision_ms(&self, cluster: &str) -> Result<Option<i64>> {
        self.settle_history().await?;
        let mut tx = self.begin(false).await?;
        let mut b = Builder::new(tx.dialect, "SELECT MAX(at) FROM revisions WHERE cluster = ");
        b.bind(cluster);
        let rows = tx.fetch(b.finish(), &[Col::OptInt]).await?;
        tx.commit().await?;
        Ok(rows.first().and_then(|r| r.opt_int(0)))
    }
}
