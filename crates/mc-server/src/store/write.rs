//! Writing: a batch of changes in one transaction (the one entry point), deletions of what a
//! relist did not return, of a type or of a cluster, and the `clusters` table.

use std::collections::BTreeMap;

use mc_types::Gvr;

use super::backend::postgres::copy;
use super::dialect::NewRows;
use super::history::{self, Recorder};
use super::resource_columns::Prepared;
use super::{
    Batch, Change, ClusterRow, Col, Expect, HistoryRules, Pending, RelistKeys, Result, Row, Seen, Store, Tx,
    change_feed, each_key, resource_columns, sql, statement,
};

/// The ids of the rows of one type in one cluster whose uid `keep` did not list, and those rows
/// as deletions. Only ids and uids of every row are read, a page at a time: after a first list
/// every row is kept, and a type may hold a million.
pub(super) async fn not_kept(
    tx: &mut Tx,
    cluster: &str,
    gvr: &Gvr,
    keep: &RelistKeys,
) -> Result<(Vec<i64>, Vec<Change>)> {
    let mut ids = Vec::new();
    each_key(tx, cluster, gvr, |id, uid, _| {
        if !keep.was_listed(uid) {
            ids.push(id)
        }
    })
    .await?;
    let gone = identities(tx, gvr, &ids).await?;
    Ok((ids, gone))
}

/// The rows with these ids (of one type) as deletions of their objects.
pub(super) async fn identities(tx: &mut Tx, gvr: &Gvr, ids: &[i64]) -> Result<Vec<Change>> {
    let mut gone = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(sql::CHUNK) {
        let mut b =
            statement::Builder::new(tx.dialect, "SELECT uid, namespace, name FROM resources WHERE id IN ");
        b.bind_list(chunk.iter().copied());
        for mut r in tx.fetch(b.finish(), &[Col::Text; 3]).await? {
            gone.push(Change::Delete {
                gvr: gvr.clone(),
                namespace: r.text(1),
                name: r.text(2),
                uid: r.text(0),
            });
        }
    }
    Ok(gone)
}

/// One cluster's changes in `tx`, in order (see [`Store::apply_changes`]), with their
/// revisions when `history` says which to keep (written at `at`, unix ms), and their rows of
/// the search index when `search`.
pub(super) async fn apply_in(
    tx: &mut Tx,
    origin: Option<&str>,
    history: Option<&HistoryRules>,
    search: bool,
    at: i64,
    batch: &Batch<'_>,
) -> Result<()> {
    let &Batch { cluster, changes: events, expect, listed } = batch;
    let d = tx.dialect;
    // Built before any change is applied: a deletion's last state is read as stored.
    let mut revisions = Recorder::new(at);
    if let Some(rules) = history {
        history::record_batch(tx, rules, &mut revisions, cluster, events, listed).await?;
    }
    // Upserts are collected (see [`Pending`]) and written in multi-row chunks; deletions run at
    // once.
    let mut pending = Pending::default();
    // The type of the last upsert pending.
    let mut chunk_type: Option<&Gvr> = None;
    for change in events {
        match change {
            Change::Upsert(object) => {
                object.validate()?;
                // A first list's page among watch events of other types: the page's objects
                // go in chunks of their own, so an event's stored object sends no chunk of
                // new rows to the upsert (see docs/adr/0008-sqlite-bulk-writes.md).
                if expect == Expect::NewRows && chunk_type.is_some_and(|gvr| gvr != &object.gvr) {
                    write_pending(tx, cluster, &mut pending, expect).await?;
                }
                chunk_type = Some(&object.gvr);
                pending.upsert(cluster, object);
                if pending.len() >= sql::write_chunk(d).0 {
                    write_pending(tx, cluster, &mut pending, expect).await?;
                }
            }
            Change::Delete { gvr, namespace, name, uid } => {
                pending.delete(cluster, gvr, namespace, name, uid);
                tx.execute(sql::delete_object(d, cluster, gvr, namespace, name, uid)).await?;
            }
        }
    }
    write_pending(tx, cluster, &mut pending, expect).await?;
    // The batch's rows of the search index (see `store::search`), after its objects.
    if search {
        for stmt in super::search::statements(d, batch) {
            tx.execute(stmt).await?;
        }
    }
    if !revisions.is_empty() {
        revisions.write(tx).await?;
    }
    change_feed::record(tx, origin, cluster, events).await
}

/// Writes the upserts [`Store::apply_changes`] collected (those of one cluster) and forgets them.
pub(super) async fn write_pending(
    tx: &mut Tx,
    cluster: &str,
    pending: &mut Pending<'_>,
    expect: Expect,
) -> Result<()> {
    let prepared: Vec<Prepared<'_>> = pending.take().map(|(_, o)| Prepared::new(o)).collect();
    if prepared.is_empty() {
        return Ok(());
    }
    write_objects(tx, cluster, &prepared, expect).await
}

/// Upserts prepared objects (distinct natural keys) in chunks and replaces their labels. Each
/// statement is built while the one before it runs (see [`overlapped`]).
///
/// On SQLite, objects expected to be new (a first list's pages, [`Expect::NewRows`]) are first
/// inserted as new rows, with ids chosen here above the table's largest: where every row of a
/// chunk is new, their label rows are written with those ids, without reading ids back or
/// deleting labels. A chunk with an object already stored is then upserted as any other. Other
/// writes (watch events, a relist's changes: mostly stored objects) are upserted at once; a
/// chunk of a few of them (a watch batch's) with its label rows in one text, one round trip to
/// SQLite's thread (its dialect's `upsert_with_labels`).
///
/// On MySQL/MariaDB, such objects are inserted by a plain `INSERT`, which answers the first id
/// it gave: when the row of the last id is the chunk's last object ([`consecutive`]), the ids
/// are known without reading them back by uid, and there are no label rows to delete. A chunk
/// with an object already stored fails with a duplicate key (only that statement is rolled
/// back) and is upserted.
///
/// On PostgreSQL, they are copied ([`copy::write_new_rows`]) with their label rows, ids drawn
/// from the table's sequence; if one is stored, the copy is rolled back and all are upserted.
pub(super) async fn write_objects(
    tx: &mut Tx,
    cluster: &str,
    objects: &[Prepared<'_>],
    expect: Expect,
) -> Result<()> {
    let d = tx.dialect;
    let new_rows = (expect == Expect::NewRows && !objects.is_empty()).then_some(d.new_rows);
    // Copied (PostgreSQL); where one is stored, they are upserted.
    if let Some(NewRows::Copy) = new_rows {
        match copy::write_new_rows(tx, cluster, objects).await {
            Err(e) if e.is_duplicate() => {}
            done => return done,
        }
    }
    // Labels of every chunk, inserted at the end in as few statements as the limits allow.
    let mut labels: Vec<(i64, &str, &str)> = Vec::new();
    let label_chunk = sql::write_chunk(d).1;
    // Read after any delete of this transaction, so no id it freed is taken back while a label
    // row of it could remain; the writer holds the only write transaction.
    let first_id = match new_rows {
        Some(NewRows::IdsAboveLargest(insert)) => {
            let max =
                tx.fetch(sql::max_id(d, "resources"), &[Col::Int]).await?.first().map_or(0, |r| r.int(0));
            max.checked_add(1)
                .filter(|first| first.checked_add(objects.len() as i64).is_some())
                .map(|f| (f, insert))
        }
        _ => None,
    };
    // Plain inserts, whose first id the database answers (MySQL/MariaDB).
    let inserts = match new_rows {
        Some(NewRows::InsertAnswersFirstId(insert)) => Some(insert),
        _ => None,
    };
    let mut offset = 0;
    let mut chunks = sql::write_chunks(d, objects).map(|chunk| {
        let with_labels = d.upsert_with_labels.filter(|_| sql::upserts_with_labels(d, chunk.len()));
        let step = match (first_id.map(|(first, insert)| (first + offset, insert)), inserts, with_labels) {
            (Some((first, insert)), _, _) => (Write::NewIds(first), insert(cluster, chunk, first)),
            (None, Some(insert), _) => (Write::Insert, insert(cluster, chunk)),
            (None, None, Some(upsert)) => {
                let rows: Vec<(&str, &Prepared<'_>)> = chunk.iter().map(|p| (cluster, p)).collect();
                (Write::WithLabels, upsert(&rows))
            }
            (None, None, None) => (Write::Upsert, sql::upsert_resources(d, cluster, chunk)),
        };
        offset += chunk.len() as i64;
        (chunk, step)
    });
    let mut next = chunks.next();
    while let Some((chunk, (write, stmt))) = next.take() {
        let rows = match write {
            Write::WithLabels => {
                let (done, following) = overlapped(tx.execute(stmt), || chunks.next()).await;
                next = following;
                done?;
                continue;
            }
            Write::NewIds(first) => {
                let (inserted, following) = overlapped(tx.execute(stmt), || chunks.next()).await;
                next = following;
                let inserted = inserted?;
                if inserted == chunk.len() as u64 {
                    labels.extend(sql::label_rows(with_ids(chunk, first)));
                    continue;
                }
                // Some were stored already: all are there now, and the upsert writes and answers them.
                tx.fetch(sql::upsert_resources(d, cluster, chunk), sql::upsert_cols(d)).await?
            }
            Write::Insert => {
                let (inserted, following) = overlapped(tx.insert(stmt), || chunks.next()).await;
                next = following;
                match inserted {
                    Ok((n, first)) => {
                        if n == chunk.len() as u64 && consecutive(tx, cluster, chunk, first).await? {
                            labels.extend(sql::label_rows(with_ids(chunk, first)));
                            continue;
                        }
                        // Ids given out of order (another `innodb_autoinc_lock_mode`): read back.
                    }
                    // Only this statement was rolled back; the upsert writes the chunk.
                    Err(e) if e.is_duplicate() => {
                        tx.execute(sql::upsert_resources(d, cluster, chunk)).await.map(drop)?
                    }
                    Err(e) => return Err(e),
                }
                ids_by_uid(tx, cluster, chunk).await?
            }
            Write::Upsert if sql::upsert_returns_ids(d) => {
                let (rows, following) =
                    overlapped(tx.fetch(stmt, sql::upsert_cols(d)), || chunks.next()).await;
                next = following;
                rows?
            }
            Write::Upsert => {
                let (done, following) = overlapped(tx.execute(stmt), || chunks.next()).await;
                next = following;
                done?;
                ids_by_uid(tx, cluster, chunk).await?
            }
        };
        // (id, created by this upsert) by (group, version, resource, uid), borrowed from the rows:
        // only PostgreSQL tells the second, others answer `false`.
        let ids: foldhash::HashMap<(&str, &str, &str, &str), (i64, bool)> =
            rows.iter().map(|r| ((r.str(1), r.str(2), r.str(3), r.str(4)), (r.int(0), r.bool(5)))).collect();
        let mut stale: Vec<i64> = Vec::new();
        let with_ids: Vec<(i64, &BTreeMap<String, String>)> = chunk
            .iter()
            .filter_map(|p| {
                let o = p.object;
                let key =
                    (o.gvr.group.as_str(), o.gvr.version.as_str(), o.gvr.resource.as_str(), o.uid.as_str());
                let &(id, created) = ids.get(&key)?;
                if !created {
                    stale.push(id);
                }
                Some((id, &o.labels))
            })
            .collect();
        // A created row has no label rows yet. Skipping their delete also spares PostgreSQL a
        // plan made while the table was nearly empty: on some connections it scanned the whole
        // label table, and a first sync's batches slowed as it filled (see
        // docs/adr/0010-postgresql-arrays-and-copy.md).
        if !stale.is_empty() {
            let delete = sql::delete_labels(d, &stale);
            overlapped(tx.execute(delete), || labels.extend(sql::label_rows(with_ids))).await.0?;
        } else {
            labels.extend(sql::label_rows(with_ids));
        }
    }
    let mut inserts = sql::pieces(d, &labels, label_chunk).map(|rows| sql::insert_labels(d, rows));
    let mut next = inserts.next();
    while let Some(insert) = next.take() {
        let (done, following) = overlapped(tx.execute(insert), || inserts.next()).await;
        next = following;
        done?;
    }
    Ok(())
}

/// The objects of a chunk inserted as new rows from `first` on, with their ids, for their label
/// rows.
pub(super) fn with_ids<'a>(
    chunk: &'a [Prepared<'_>],
    first: i64,
) -> impl Iterator<Item = (i64, &'a BTreeMap<String, String>)> {
    chunk.iter().zip(first..).map(|(p, id)| (id, &p.object.labels))
}

/// The rows of a chunk just written, read back by uid (MySQL/MariaDB, which answer no
/// `RETURNING`), as [`resource_columns::IDS_BY_UID_COLS`].
pub(super) async fn ids_by_uid(tx: &mut Tx, cluster: &str, chunk: &[Prepared<'_>]) -> Result<Vec<Row>> {
    let uids = chunk.iter().map(|p| p.object.uid.as_str());
    tx.fetch(sql::select_ids_by_uid(tx.dialect, cluster, uids), &resource_columns::IDS_BY_UID_COLS).await
}

/// How [`write_objects`] writes a chunk first.
pub(super) enum Write {
    /// SQLite: as new rows with these ids and the ones after, skipping stored ones.
    NewIds(i64),
    /// MySQL/MariaDB: as new rows, by a plain insert that fails if one is stored.
    Insert,
    /// Inserted or updated.
    Upsert,
    /// SQLite: inserted or updated, with its label rows, by one text (a watch batch's few
    /// objects, its dialect's `upsert_with_labels`).
    WithLabels,
}

/// Whether the rows a plain insert of `chunk` (of `cluster`) just wrote have the ids `first`,
/// `first + 1`, … in its order: the row of the last id is the chunk's last object. An insert's
/// ids increase row by row, so its rows are then exactly the ids between. InnoDB gives a plain
/// multi-row insert consecutive ids with `innodb_autoinc_lock_mode` 0 or 1 (MariaDB's default)
/// and `auto_increment_increment` 1; with others, this says no and the ids are read back.
pub(super) async fn consecutive(
    tx: &mut Tx,
    cluster: &str,
    chunk: &[Prepared<'_>],
    first: i64,
) -> Result<bool> {
    let (Some(last), Some(at)) = (chunk.last(), first.checked_add(chunk.len() as i64 - 1)) else {
        return Ok(false);
    };
    if first <= 0 {
        return Ok(false);
    }
    let rows = tx.fetch(sql::select_key_by_id(tx.dialect, at), &sql::KEY_BY_ID_COLS).await?;
    let o = last.object;
    Ok(rows.first().is_some_and(|r| {
        (r.str(1), r.str(2), r.str(3), r.str(4))
            == (o.gvr.group.as_str(), o.gvr.version.as_str(), o.gvr.resource.as_str(), o.uid.as_str())
            && r.str(5) == cluster
    }))
}

/// Runs `work` on this task while `step`, a statement of a [`Tx`], is under way in the
/// database (SQLite's connection thread, or the server): the step is polled once, and this task
/// yields once so that the step's task hands its statement over, then `work` runs. The writer's
/// statement building and the database's work then use two cores instead of taking turns.
pub(super) async fn overlapped<T, U>(step: impl Future<Output = T>, work: impl FnOnce() -> U) -> (T, U) {
    let mut step = std::pin::pin!(step);
    if let std::task::Poll::Ready(done) = futures::poll!(step.as_mut()) {
        return (done, work());
    }
    tokio::task::yield_now().await;
    let u = work();
    (step.await, u)
}
impl Store {
    /// Writes the changes of one or more clusters in one transaction, each cluster's in order;
    /// an upsert replaces the object's labels. The one way objects are written: the single
    /// writer's watch batches (several clusters at once on SQLite, whose writes are serial
    /// anyway: one `BEGIN` and one `COMMIT` for all), list pages and retries of a part.
    pub async fn apply(&self, batches: &[Batch<'_>]) -> Result<()> {
        if batches.iter().all(|b| b.changes.is_empty()) {
            return Ok(());
        }
        let revisions = || match self.history.as_deref() {
            Some(rules) => {
                let mut revisions = Recorder::new(history::now_ms());
                for b in batches {
                    history::record_upserts(rules, &mut revisions, b.cluster, b.changes, b.listed);
                }
                revisions.statements(self.dialect())
            }
            None => Vec::new(),
        };
        if let Some(text) = self.one_text(batches, revisions)? {
            return self.write_one_text(text).await;
        }
        let deletes = batches.iter().any(|b| b.changes.iter().any(|c| matches!(c, Change::Delete { .. })));
        let mut tx = if deletes { self.begin(true).await? } else { self.begin_upserts().await? };
        let at = history::now_ms();
        for b in batches {
            apply_in(
                &mut tx,
                self.origin.as_deref(),
                self.history.as_deref(),
                self.writes_search_rows(),
                at,
                b,
            )
            .await?;
        }
        tx.commit().await
    }

    /// After a fresh list whose unchanged objects were skipped (see [`Store::relist_keys`]):
    /// removes the rows of one type in one cluster whose uid `keep` did not list (a row written
    /// after the keys were read too). Returns them as deletions,
    /// for the watch streams (a list after a gap is how a deletion the watch missed is found).
    pub async fn delete_missing(&self, cluster: &str, gvr: &Gvr, keep: &RelistKeys) -> Result<Vec<Change>> {
        self.delete_missing_since(cluster, gvr, keep, None).await
    }

    /// [`Store::delete_missing`], the deletions' revisions telling that they happened after
    /// `gap_from_ms` (unix ms; `None`: not known), the last time the type was known current.
    pub async fn delete_missing_since(
        &self,
        cluster: &str,
        gvr: &Gvr,
        keep: &RelistKeys,
        gap_from_ms: Option<i64>,
    ) -> Result<Vec<Change>> {
        let mut tx = self.begin(true).await?;
        let (ids, deleted) = not_kept(&mut tx, cluster, gvr, keep).await?;
        if self.history.as_deref().is_some_and(|r| r.records(gvr)) && !ids.is_empty() {
            let mut revisions = Recorder::new(history::now_ms());
            for (gvr, last) in history::stored_states_by_id(&mut tx, &ids).await? {
                revisions.deleted(cluster, &gvr, &last, Seen::List { gap_from_ms });
            }
            revisions.write(&mut tx).await?;
        }
        for chunk in ids.chunks(sql::CHUNK) {
            tx.execute(sql::delete_objects(tx.dialect, chunk)).await?;
        }
        change_feed::record(&mut tx, self.origin.as_deref(), cluster, &deleted).await?;
        tx.commit().await?;
        Ok(deleted)
    }

    /// The rows [`Store::delete_missing`] would remove, as deletions, without removing them: a
    /// replica that watches a cluster another replica writes tells its own watch streams. An
    /// object that replica wrote after this replica's list was read is among them too; this
    /// replica's watch brings it back as `ADDED` right after (a blip, never a lasting loss).
    pub async fn missing(&self, cluster: &str, gvr: &Gvr, keep: &RelistKeys) -> Result<Vec<Change>> {
        let mut tx = self.begin(false).await?;
        let (_, missing) = not_kept(&mut tx, cluster, gvr, keep).await?;
        tx.commit().await?;
        Ok(missing)
    }

    /// Removes every object of one type in one cluster (the type went away): a relist that
    /// listed nothing, its rows read a page at a time. Returns them as deletions, for the watch
    /// streams. Their revisions say so ([`Seen::Unsynced`], no object): the objects were not deleted in
    /// the cluster.
    pub async fn delete_gvr(&self, cluster: &str, gvr: &Gvr) -> Result<Vec<Change>> {
        let mut tx = self.begin(true).await?;
        let (ids, deleted) = not_kept(&mut tx, cluster, gvr, &RelistKeys::default()).await?;
        if let Some(rules) = self.history.as_deref().filter(|_| !ids.is_empty()) {
            history::record_unsynced(&mut tx, rules, cluster, Some(gvr), history::now_ms()).await?;
        }
        for chunk in ids.chunks(sql::CHUNK) {
            tx.execute(sql::delete_objects(tx.dialect, chunk)).await?;
        }
        change_feed::record(&mut tx, self.origin.as_deref(), cluster, &deleted).await?;
        tx.commit().await?;
        Ok(deleted)
    }

    /// Removes every object of a cluster, their labels and the cluster's row (unjoin). Returns
    /// the objects removed as deletions, for the watch streams. Their revisions say so
    /// ([`Seen::Unsynced`], no object); the cluster's history stays until pruned.
    pub async fn delete_cluster(&self, cluster: &str) -> Result<Vec<Change>> {
        let mut tx = self.begin(true).await?;
        let d = tx.dialect;
        let mut b = statement::Builder::new(
            d,
            "SELECT \"group\", version, resource, namespace, name, uid FROM resources WHERE cluster = ",
        );
        b.bind(cluster);
        let rows = tx.fetch(b.finish(), &[Col::Text; 6]).await?;
        let gone: Vec<Change> = rows
            .into_iter()
            .map(|mut r| Change::Delete {
                gvr: Gvr::new(r.text(0), r.text(1), r.text(2)),
                namespace: r.text(3),
                name: r.text(4),
                uid: r.text(5),
            })
            .collect();
        if let Some(rules) = self.history.as_deref().filter(|_| !gone.is_empty()) {
            history::record_unsynced(&mut tx, rules, cluster, None, history::now_ms()).await?;
        }
        tx.execute(sql::delete_cluster_objects(d, cluster)).await?;
        let mut b = statement::Builder::new(d, "DELETE FROM clusters WHERE name = ");
        b.bind(cluster);
        tx.execute(b.finish()).await?;
        change_feed::record(&mut tx, self.origin.as_deref(), cluster, &gone).await?;
        tx.commit().await?;
        Ok(gone)
    }

    /// Inserts or replaces a cluster's row.
    pub async fn upsert_cluster(&self, cluster: &ClusterRow) -> Result<()> {
        let mut tx = self.begin(true).await?;
        tx.execute(sql::upsert_cluster(tx.dialect, cluster)).await?;
        tx.commit().await
    }
}

/// Writing one cluster's changes, as the tests do most.
#[cfg(test)]
pub(crate) trait ApplyOne {
    /// Watch events of one cluster.
    async fn apply_batch(&self, cluster: &str, changes: Vec<Change>) -> Result<()>;
    /// One cluster's changes, expected to be `expect`.
    async fn apply_changes(&self, cluster: &str, changes: &[Change], expect: Expect) -> Result<()>;
}

#[cfg(test)]
impl ApplyOne for Store {
    async fn apply_batch(&self, cluster: &str, changes: Vec<Change>) -> Result<()> {
        self.apply(&[Batch::new(cluster, &changes, Expect::Any)]).await
    }

    async fn apply_changes(&self, cluster: &str, changes: &[Change], expect: Expect) -> Result<()> {
        self.apply(&[Batch::new(cluster, changes, expect)]).await
    }
}
