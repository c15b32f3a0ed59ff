//! A type's state at a time, rewound from the current rows: an object with no revision after
//! the time is its current row (read from `resources`, nothing decompressed), and only the
//! objects changed since need their newest revision at or before the time.
//!
//! Which objects changed since is read from the time index (`cluster, at, id`) when the
//! cluster wrote at most [`WALK`] revisions since (the common case: a recent time); else from
//! the object index, per object its newest revision at or before the time and its newest of all
//! in one scan of the type's range (an older time, where most objects changed anyway). Either
//! way the answer is the one the revisions alone give: per object (by namespace and name) its
//! newest revision at or before the time, unless that is a deletion (see
//! docs/adr/0026-history-state-by-rewind.md).

use std::collections::{HashMap, HashSet};

use mc_types::Gvr;

use super::super::backend::Tx;
use super::super::statement::{Builder, Col};
use super::super::{Error, Query, RawObject, Result, Store, sql};
use super::encoding::Decoder;
use super::read::{COLS, COLUMNS, Revision, by_ids, clusters, needs_type, push_scope, revision};
use super::record::DELETED;

/// Most revisions after the time read through the time index before the object index is
/// scanned instead.
const WALK: usize = 20_000;

/// An object's key in one cluster and type.
type Key = (String, String);

/// A current row whose newest revision is the state it stands in: that revision (without its
/// object) and the row's object.
struct Current {
    revision: Revision,
    /// The row holds this revision's state (same uid and resourceVersion): a row written while
    /// no revision was kept does not.
    same: bool,
    object: RawObject,
}

/// The current rows `scope` selects, each with its newest revision, by key. `scope` adds the
/// conditions on the table `r` (`resources`).
async fn current(tx: &mut Tx, scope: impl FnOnce(&mut Builder)) -> Result<HashMap<Key, Current>> {
    let mut b = Builder::new(tx.dialect, "SELECT ");
    let columns: Vec<String> = COLUMNS.split(", ").map(|c| format!("v.{}", c.trim())).collect();
    b.push(&columns.join(", ")).push(", r.uid, r.resource_version, ");
    b.push_json_column("r.object");
    b.push(
        " FROM resources r JOIN revisions v ON v.id = (SELECT MAX(x.id) FROM revisions x \
         WHERE x.cluster = r.cluster AND x.\"group\" = r.\"group\" AND x.version = r.version \
         AND x.resource = r.resource AND x.namespace = r.namespace AND x.name = r.name) WHERE ",
    );
    scope(&mut b);
    let mut cols = COLS.to_vec();
    cols.extend([Col::Text, Col::OptText, Col::Text]);
    let mut found = HashMap::new();
    for mut row in tx.fetch(b.finish(), &cols).await? {
        let uid = row.text(15);
        let resource_version = row.opt_text(16).unwrap_or_default();
        let text = row.text(17);
        let revision = revision(row, false, &mut Decoder::default())?;
        let object = RawObject::from_text(text).map_err(|e| {
            Error::Corrupt(format!(
                "object {}/{} of cluster {}: {e}",
                revision.namespace, revision.name, revision.cluster
            ))
        })?;
        let same = revision.uid == uid && revision.resource_version == resource_version;
        found.insert((revision.namespace.clone(), revision.name.clone()), Current { revision, same, object });
    }
    Ok(found)
}

/// `(namespace, name)` of q's objects (in `namespaces` when given) with a revision after
/// `at_ms` in `cluster`, read from the time index; `None` when the cluster wrote more than
/// `walk` revisions since.
async fn changed_since(
    tx: &mut Tx,
    gvr: &Gvr,
    cluster: &str,
    namespaces: Option<&[String]>,
    q: &Query,
    at_ms: i64,
    walk: usize,
) -> Result<Option<HashSet<Key>>> {
    let mut b = Builder::new(
        tx.dialect,
        "SELECT \"group\", version, resource, namespace, name FROM revisions WHERE cluster = ",
    );
    b.bind(cluster).push(" AND at > ").bind(at_ms).push(" ORDER BY at, id LIMIT ");
    b.bind(i64::try_from(walk.saturating_add(1)).unwrap_or(i64::MAX));
    let rows = tx.fetch(b.finish(), &[Col::Text; 5]).await?;
    if rows.len() > walk {
        return Ok(None);
    }
    Ok(Some(
        rows.into_iter()
            .filter(|r| r.str(0) == gvr.group && r.str(1) == gvr.version && r.str(2) == gvr.resource)
            .filter(|r| q.namespace.as_deref().is_none_or(|n| r.str(3) == n))
            .filter(|r| q.name.as_deref().is_none_or(|n| r.str(4) == n))
            .filter(|r| namespaces.is_none_or(|names| names.iter().any(|n| r.str(3) == n)))
            .map(|mut r| (r.text(3), r.text(4)))
            .collect(),
    ))
}

/// Keys grouped by namespace, the names in chunks of [`sql::CHUNK`].
fn chunks_by_namespace(keys: &HashSet<Key>) -> Vec<(&str, Vec<&str>)> {
    let mut by_namespace: HashMap<&str, Vec<&str>> = HashMap::new();
    for (namespace, name) in keys {
        by_namespace.entry(namespace).or_default().push(name);
    }
    by_namespace
        .into_iter()
        .flat_map(|(namespace, names)| {
            names.chunks(sql::CHUNK).map(|chunk| (namespace, chunk.to_vec())).collect::<Vec<_>>()
        })
        .collect()
}

/// Per key, `id * 4 + change` of its newest revision at or before `at_ms` (ids are unique, so
/// the largest value is the newest revision's), for these keys.
async fn winners_of(
    tx: &mut Tx,
    gvr: &Gvr,
    cluster: &str,
    keys: &HashSet<Key>,
    at_ms: i64,
) -> Result<Vec<i64>> {
    let mut found = Vec::new();
    for (namespace, names) in chunks_by_namespace(keys) {
        let mut b =
            Builder::new(tx.dialect, "SELECT MAX(id * 4 + \"change\") FROM revisions WHERE cluster = ");
        b.bind(cluster).push(" AND ").push_gvr("", gvr).push(" AND namespace = ").bind(namespace);
        b.push(" AND name IN ").bind_list(names).push(" AND at <= ").bind(at_ms);
        b.push(" GROUP BY name");
        found.extend(tx.fetch(b.finish(), &[Col::Int]).await?.iter().map(|r| r.int(0)));
    }
    Ok(found)
}

/// Per object of q's type in the cluster: its key, `id * 4 + change` of its newest revision
/// at or before `at_ms`, and the id of its newest of all, from one scan of the object index.
async fn winners_scanned(
    tx: &mut Tx,
    gvr: &Gvr,
    cluster: &str,
    namespaces: Option<&[String]>,
    q: &Query,
    at_ms: i64,
) -> Result<Vec<(Key, i64, i64)>> {
    let mut b = Builder::new(tx.dialect, "SELECT namespace, name, MAX(CASE WHEN at <= ");
    b.bind(at_ms).push(" THEN id * 4 + \"change\" END), MAX(id) FROM revisions WHERE ");
    push_scope(&mut b, gvr, cluster, namespaces, q, "");
    b.push(" GROUP BY namespace, name");
    let rows = tx.fetch(b.finish(), &[Col::Text, Col::Text, Col::OptInt, Col::Int]).await?;
    Ok(rows.into_iter().filter_map(|mut r| Some(((r.text(0), r.text(1)), r.opt_int(2)?, r.int(3)))).collect())
}

impl Store {
    /// The objects of q's type as they stood at `at_ms`: per object its newest revision at or
    /// before it, unless that is a deletion; in the stable order (cluster, namespace, name);
    /// with objects. Objects unchanged since are their current rows; the rest are decoded from
    /// their revisions, a chunk at a time.
    pub async fn state_at(&self, q: &Query, at_ms: i64) -> Result<Vec<Revision>> {
        self.state_at_walking(q, at_ms, WALK).await
    }

    /// [`Store::state_at`], reading at most `walk` revisions through the time index before
    /// scanning the object index instead (0: always scan): the same answer either way, for
    /// tests and benchmarks of both paths.
    pub async fn state_at_walking(&self, q: &Query, at_ms: i64, walk: usize) -> Result<Vec<Revision>> {
        let gvr = needs_type(q)?;
        self.settle_history().await?;
        let mut tx = self.begin(false).await?;
        let mut found = Vec::new();
        for (cluster, namespaces) in clusters(&mut tx, q).await? {
            let namespaces = namespaces.as_deref();
            let mut kept = Vec::new();
            let mut decode = Vec::new();
            match changed_since(&mut tx, gvr, &cluster, namespaces, q, at_ms, walk).await? {
                Some(mut changed) => {
                    let rows =
                        current(&mut tx, |b| push_scope(b, gvr, &cluster, namespaces, q, "r.")).await?;
                    for (key, row) in rows {
                        if row.same && row.revision.at_ms <= at_ms {
                            if row.revision.change != super::read::ChangeKind::Deleted {
                                kept.push(Revision { object: Some(row.object), ..row.revision });
                            }
                        } else {
                            changed.insert(key);
                        }
                    }
                    decode = winners_of(&mut tx, gvr, &cluster, &changed, at_ms)
                        .await?
                        .into_iter()
                        .filter(|w| w % 4 != DELETED)
                        .map(|w| w / 4)
                        .collect();
                }
                None => {
                    let winners = winners_scanned(&mut tx, gvr, &cluster, namespaces, q, at_ms).await?;
                    let winners: Vec<(Key, i64, i64)> =
                        winners.into_iter().filter(|(_, w, _)| w % 4 != DELETED).collect();
                    let unchanged: HashSet<Key> = winners
                        .iter()
                        .filter(|(_, w, newest)| w / 4 == *newest)
                        .map(|(k, _, _)| k.clone())
                        .collect();
                    let mut rows = HashMap::new();
                    for (namespace, names) in chunks_by_namespace(&unchanged) {
                        rows.extend(
                            current(&mut tx, |b| {
                                push_scope(b, gvr, &cluster, namespaces, q, "r.");
                                b.push(" AND r.namespace = ").bind(namespace);
                                b.push(" AND r.name IN ").bind_list(names);
                            })
                            .await?,
                        );
                    }
                    for (key, w, _) in winners {
                        match rows.remove(&key) {
                            Some(row) if row.same => {
                                kept.push(Revision { object: Some(row.object), ..row.revision })
                            }
                            _ => decode.push(w / 4),
                        }
                    }
                }
            }
            kept.extend(by_ids(&mut tx, &decode).await?);
            kept.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
            found.extend(kept);
        }
        tx.commit().await?;
        Ok(found)
    }
}
