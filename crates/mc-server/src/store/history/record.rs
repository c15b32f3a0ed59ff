//! Writing revisions: in the transaction that applies the changes, built in Rust (objects
//! compressed by the sync before) and inserted in multi-row chunks after the batch's writes, in
//! the order of its changes; the clusters' totals follow. Where the backend stages them (see
//! [`super::settle`]) they go to `revisions_log` instead, and their totals are added when they
//! are moved. A deletion carries the object's last state: the batch's own upsert of it when
//! there is one, else its row as stored before the batch (read first, in the same transaction).

use std::collections::{BTreeMap, HashMap};

use mc_types::Gvr;

use super::super::backend::Tx;
use super::super::dialect::Dialect;
use super::super::sql;
use super::super::statement::{Arg, Builder, Col, Stmt, Upsert};
use super::super::{Change, RawObject, Result};
use super::encoding::{self, NONE};
use super::{HistoryRules, Listed, Seen};

/// The `revisions` columns an insert writes, in bind order (`revisions_log` has them too).
pub(super) const COLUMNS: &str = "cluster, \"group\", version, resource, namespace, name, uid, resource_version, at, \
     \"change\", seen, gap_from, bytes, encoding, object";
/// Bound values per revision.
const ARGS: usize = 15;
/// Revisions per insert: far below every backend's parameter limit.
const CHUNK: usize = 500;
/// Most bytes of stored objects in one insert (one revision more when a single one is larger).
const CHUNK_BYTES: usize = 8 << 20;

/// `change` column values.
pub(super) const ADDED: i64 = 1;
pub(super) const MODIFIED: i64 = 2;
pub(super) const DELETED: i64 = 3;

/// One revision to insert.
#[derive(Debug)]
pub(in crate::store) struct NewRevision {
    cluster: String,
    gvr: Gvr,
    namespace: String,
    name: String,
    uid: String,
    resource_version: String,
    change: i64,
    seen: Seen,
    object: Option<(Vec<u8>, i64)>,
}

impl NewRevision {
    fn bytes(&self) -> i64 {
        self.object.as_ref().map_or(0, |(b, _)| b.len() as i64)
    }
}

/// The revisions of one write and when it happened, in change order.
#[derive(Debug)]
pub(in crate::store) struct Recorder {
    at: i64,
    rows: Vec<NewRevision>,
}

impl Recorder {
    pub(in crate::store) fn new(at: i64) -> Self {
        Self { at, rows: Vec::new() }
    }

    /// Nothing to write.
    pub(in crate::store) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// An upsert's revision: ADDED when it brings the object into the store, else MODIFIED.
    fn upsert(&mut self, cluster: &str, o: &super::super::StoredObject, seen: Seen) {
        self.rows.push(NewRevision {
            cluster: cluster.to_string(),
            gvr: o.gvr.clone(),
            namespace: o.namespace.clone(),
            name: o.name.clone(),
            uid: o.uid.clone(),
            resource_version: o.resource_version.clone(),
            change: if o.created { ADDED } else { MODIFIED },
            seen,
            object: Some(encoding::encode(&o.object)),
        });
    }

    /// A deletion's revision, with the object's last state.
    pub(in crate::store) fn deleted(&mut self, cluster: &str, gvr: &Gvr, last: &LastState, seen: Seen) {
        self.rows.push(NewRevision {
            cluster: cluster.to_string(),
            gvr: gvr.clone(),
            namespace: last.namespace.clone(),
            name: last.name.clone(),
            uid: last.uid.clone(),
            resource_version: last.resource_version.clone(),
            change: DELETED,
            seen,
            object: Some(encoding::encode(&last.object)),
        });
    }

    /// The statements that insert the revisions and add them to their clusters' totals (when
    /// they are not staged): what a transaction runs (or a text holds) after the batch's writes.
    pub(in crate::store) fn statements(&self, d: Dialect) -> Vec<Stmt> {
        let mut out = Vec::new();
        let mut rest = &self.rows[..];
        while !rest.is_empty() {
            let mut n = 0;
            let mut bytes = 0;
            while n < rest.len().min(CHUNK) {
                bytes += rest[n].bytes() as usize;
                if n > 0 && bytes > CHUNK_BYTES {
                    break;
                }
                n += 1;
            }
            let (chunk, tail) = rest.split_at(n);
            rest = tail;
            out.push(insert(d, self.at, chunk));
        }
        if d.stages_revisions {
            return out;
        }
        let mut totals: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
        for r in &self.rows {
            let t = totals.entry(r.cluster.as_str()).or_default();
            t.0 += 1;
            t.1 += r.bytes();
        }
        out.extend(totals.into_iter().map(|(cluster, (rows, bytes))| add_totals(d, cluster, rows, bytes)));
        out
    }

    /// Inserts the revisions in `tx`.
    pub(in crate::store) async fn write(self, tx: &mut Tx) -> Result<()> {
        for stmt in self.statements(tx.dialect) {
            tx.execute(stmt).await?;
        }
        Ok(())
    }
}

/// The insert that writes revisions: into `revisions_log` where the backend stages them.
fn insert_into(d: Dialect) -> &'static str {
    if d.stages_revisions { "INSERT INTO revisions_log (" } else { "INSERT INTO revisions (" }
}

fn insert(d: Dialect, at: i64, rows: &[NewRevision]) -> Stmt {
    let mut b = Builder::new(d, insert_into(d));
    b.push(COLUMNS).push(") VALUES ");
    for (i, r) in rows.iter().enumerate() {
        b.push(if i > 0 { ", (" } else { "(" });
        b.bind(r.cluster.as_str()).push(", ").bind(r.gvr.group.as_str());
        b.push(", ").bind(r.gvr.version.as_str()).push(", ").bind(r.gvr.resource.as_str());
        b.push(", ").bind(r.namespace.as_str()).push(", ").bind(r.name.as_str());
        b.push(", ").bind(r.uid.as_str()).push(", ").bind(r.resource_version.as_str());
        b.push(", ").bind(at).push(", ").bind(r.change).push(", ").bind(r.seen.column());
        b.push(", ").bind(r.seen.gap_from());
        let (bytes, encoding) = match &r.object {
            Some((bytes, encoding)) => (Some(bytes.clone()), *encoding),
            None => (None, NONE),
        };
        b.push(", ").bind(bytes.as_ref().map_or(0, |b| b.len() as i64)).push(", ").bind(encoding);
        b.push(", ").bind(Arg::OptBytes(bytes)).push(")");
    }
    if sql::kept(rows.len(), CHUNK) {
        b.reusable();
    }
    debug_assert!(b.bound() == rows.len() * ARGS);
    b.finish()
}

/// Adds `rows` revisions of `bytes` to a cluster's totals (negative: removes them).
pub(super) fn add_totals(d: Dialect, cluster: &str, rows: i64, bytes: i64) -> Stmt {
    let mut b = Builder::new(d, "INSERT INTO history_totals (cluster, revisions, bytes) VALUES (");
    b.bind(cluster).push(", ").bind(rows).push(", ").bind(bytes).push(")");
    push_added_to_totals(&mut b);
    b.finish()
}

/// The end of an insert into `history_totals` that adds its rows to those already there.
pub(super) fn push_added_to_totals(b: &mut Builder) {
    match b.syntax().upsert {
        Upsert::OnConflict => b.push(
            " ON CONFLICT (cluster) DO UPDATE SET revisions = history_totals.revisions + excluded.revisions, \
             bytes = history_totals.bytes + excluded.bytes",
        ),
        Upsert::OnDuplicateKey => b.push(
            " ON DUPLICATE KEY UPDATE revisions = revisions + VALUES(revisions), bytes = bytes + VALUES(bytes)",
        ),
    };
}

/// An object's last stored state, for its deletion's revision.
#[derive(Debug)]
pub(in crate::store) struct LastState {
    namespace: String,
    name: String,
    uid: String,
    resource_version: String,
    object: RawObject,
}

/// Key of a stored row: type, namespace, name.
type Key = (Gvr, String, String);

/// Deletions per read of their stored rows.
const KEYS_PER_READ: usize = 100;

/// The stored rows of `keys` (of one cluster), by key.
async fn stored_states(tx: &mut Tx, cluster: &str, keys: &[&Key]) -> Result<HashMap<Key, LastState>> {
    let mut found = HashMap::new();
    for chunk in keys.chunks(KEYS_PER_READ) {
        let mut b = Builder::new(
            tx.dialect,
            "SELECT \"group\", version, resource, namespace, name, uid, resource_version, ",
        );
        b.push_json_column("object").push(" FROM resources WHERE cluster = ").bind(cluster).push(" AND (");
        for (i, (gvr, namespace, name)) in chunk.iter().enumerate() {
            b.push(if i > 0 { " OR (" } else { "(" }).push_gvr("", gvr);
            b.push(" AND namespace = ").bind(namespace.as_str()).push(" AND name = ").bind(name.as_str());
            b.push(")");
        }
        b.push(")");
        for mut r in tx.fetch(b.finish(), &STATE_COLS).await? {
            let key = (Gvr::new(r.text(0), r.text(1), r.text(2)), r.str(3).to_string(), r.str(4).to_string());
            let state = last_state(&mut r, 3)?;
            found.insert(key, state);
        }
    }
    Ok(found)
}

const STATE_COLS: [Col; 8] =
    [Col::Text, Col::Text, Col::Text, Col::Text, Col::Text, Col::Text, Col::OptText, Col::Text];

/// A [`LastState`] from `namespace, name, uid, resource_version, object` from column `from` on.
fn last_state(r: &mut super::super::statement::Row, from: usize) -> Result<LastState> {
    let namespace = r.text(from);
    let name = r.text(from + 1);
    let object = RawObject::from_text(r.text(from + 4)).map_err(|e| {
        super::super::Error::Corrupt(format!("object {namespace}/{name} read for its deletion: {e}"))
    })?;
    Ok(LastState {
        uid: r.text(from + 2),
        resource_version: r.opt_text(from + 3).unwrap_or_default(),
        namespace,
        name,
        object,
    })
}

/// The stored rows with these ids, by id, with their types: what `delete_missing` removes.
pub(in crate::store) async fn stored_states_by_id(tx: &mut Tx, ids: &[i64]) -> Result<Vec<(Gvr, LastState)>> {
    let mut found = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(sql::CHUNK) {
        let mut b = Builder::new(
            tx.dialect,
            "SELECT \"group\", version, resource, namespace, name, uid, resource_version, ",
        );
        b.push_json_column("object").push(" FROM resources WHERE id IN ").bind_list(chunk.iter().copied());
        b.push(" ORDER BY id");
        for mut r in tx.fetch(b.finish(), &STATE_COLS).await? {
            let gvr = Gvr::new(r.text(0), r.text(1), r.text(2));
            found.push((gvr, last_state(&mut r, 3)?));
        }
    }
    Ok(found)
}

/// The revisions of one cluster's changes (of the types `rules` include), in their order:
/// read before any of them is applied in `tx`, since a deletion's last state is the stored row
/// unless the batch upserted that incarnation before it.
pub(in crate::store) async fn record_batch(
    tx: &mut Tx,
    rules: &HistoryRules,
    recorder: &mut Recorder,
    cluster: &str,
    changes: &[Change],
    listed: &Listed,
) -> Result<()> {
    // Deletions whose last state is not an upsert before them in the batch.
    let mut upserted: HashMap<Key, &super::super::StoredObject> = HashMap::new();
    let mut to_read: Vec<Key> = Vec::new();
    for change in changes {
        match change {
            Change::Upsert(o) if rules.records(&o.gvr) => {
                upserted.insert((o.gvr.clone(), o.namespace.clone(), o.name.clone()), o);
            }
            Change::Delete { gvr, namespace, name, uid } if rules.records(gvr) => {
                let key = (gvr.clone(), namespace.clone(), name.clone());
                match upserted.get(&key) {
                    Some(o) if uid.is_empty() || &o.uid == uid => {}
                    _ => to_read.push(key),
                }
            }
            _ => {}
        }
    }
    let stored = if to_read.is_empty() {
        HashMap::new()
    } else {
        let keys: Vec<&Key> = to_read.iter().collect();
        stored_states(tx, cluster, &keys).await?
    };
    // The batch's changes in order, each deletion with the state before it.
    let mut current: HashMap<Key, Option<LastStateRef<'_>>> = HashMap::new();
    for change in changes {
        match change {
            Change::Upsert(o) => {
                if !rules.records(&o.gvr) {
                    continue;
                }
                recorder.upsert(cluster, o, listed.seen(&o.gvr));
                current.insert(
                    (o.gvr.clone(), o.namespace.clone(), o.name.clone()),
                    Some(LastStateRef::Batch(o)),
                );
            }
            Change::Delete { gvr, namespace, name, uid } => {
                if !rules.records(gvr) {
                    continue;
                }
                let key = (gvr.clone(), namespace.clone(), name.clone());
                // What the deletion removes: nothing when the incarnation it names is not there
                // (or a deletion before it in the batch removed it).
                let names = |s: &LastStateRef<'_>| uid.is_empty() || s.uid() == uid;
                let last = match current.get(&key).copied() {
                    Some(None) => None,
                    Some(Some(s)) if names(&s) => Some(s),
                    _ => stored.get(&key).map(LastStateRef::Stored).filter(names),
                };
                let Some(last) = last else { continue };
                match last {
                    LastStateRef::Batch(o) => {
                        let state = LastState {
                            namespace: o.namespace.clone(),
                            name: o.name.clone(),
                            uid: o.uid.clone(),
                            resource_version: o.resource_version.clone(),
                            object: o.object.clone(),
                        };
                        recorder.deleted(cluster, gvr, &state, Seen::Watch);
                    }
                    LastStateRef::Stored(state) => recorder.deleted(cluster, gvr, state, Seen::Watch),
                }
                current.insert(key, None);
            }
        }
    }
    Ok(())
}

/// The revisions of a batch of upserts only (its deletions are not recorded here: a batch
/// with one goes through [`record_batch`], which reads their last states).
pub(in crate::store) fn record_upserts(
    rules: &HistoryRules,
    recorder: &mut Recorder,
    cluster: &str,
    changes: &[Change],
    listed: &Listed,
) {
    for change in changes {
        if let Change::Upsert(o) = change
            && rules.records(&o.gvr)
        {
            recorder.upsert(cluster, o, listed.seen(&o.gvr));
        }
    }
}

/// Where a deletion's last state comes from.
#[derive(Clone, Copy)]
enum LastStateRef<'a> {
    Batch(&'a super::super::StoredObject),
    Stored(&'a LastState),
}

impl LastStateRef<'_> {
    fn uid(&self) -> &str {
        match self {
            LastStateRef::Batch(o) => &o.uid,
            LastStateRef::Stored(s) => &s.uid,
        }
    }
}

/// DELETED revisions, without objects, of every stored object of `gvr` (every type when
/// `None`, of the types `rules` include) of `cluster` that is about to be removed because the
/// type or the cluster is no longer synced ([`Seen::Unsynced`]): copied from `resources` by
/// one statement per type.
pub(in crate::store) async fn record_unsynced(
    tx: &mut Tx,
    rules: &HistoryRules,
    cluster: &str,
    gvr: Option<&Gvr>,
    at: i64,
) -> Result<()> {
    let d = tx.dialect;
    let types = match gvr {
        Some(gvr) => vec![gvr.clone()],
        None => {
            let mut b = Builder::new(
                d,
                "SELECT DISTINCT \"group\", version, resource FROM resources WHERE cluster = ",
            );
            b.bind(cluster);
            tx.fetch(b.finish(), &[Col::Text; 3])
                .await?
                .into_iter()
                .map(|mut r| Gvr::new(r.text(0), r.text(1), r.text(2)))
                .collect()
        }
    };
    let mut rows = 0;
    for gvr in types.iter().filter(|g| rules.records(g)) {
        let mut b = Builder::new(d, insert_into(d));
        b.push(COLUMNS).push(
            ") SELECT cluster, \"group\", version, resource, namespace, name, uid, \
             COALESCE(resource_version, ''), ",
        );
        b.bind(at).push(", ").bind(DELETED).push(", ").bind(Seen::Unsynced.column());
        b.push(", NULL, 0, ").bind(NONE).push(", NULL FROM resources WHERE cluster = ").bind(cluster);
        b.push(" AND ").push_gvr("", gvr).push(" ORDER BY namespace, name");
        rows += tx.execute(b.finish()).await? as i64;
    }
    if rows > 0 && !d.stages_revisions {
        tx.execute(add_totals(d, cluster, rows, 0)).await?;
    }
    Ok(())
}
