//! SQLite: a watch batch of a few changes written as one text, one round trip to SQLite's
//! thread (see docs/adr/0009-sqlite-watch-batches-in-one-text.md).

use std::sync::Arc;

use crate::store::dialect::Dialect;
use crate::store::resource_columns::{Prepared, RESOURCE_COLUMNS, RESOURCE_KEY, RESOURCE_UPDATED};
use crate::store::sql::{self, push_resource_row};
use crate::store::statement::{self, Builder, Stmt};
use crate::store::{Batch, Change, Expect, Pending, Pool, Result, Store, StoredObject, detached};

/// The largest watch batch of upserts only whose text [`Store::one_text`] keeps prepared (one
/// text for each number of objects, on the upserts' connection). A text not kept is parsed and
/// planned anew, which under a watch churn is a large part of mc-server's CPU. Most batches hold
/// a few objects, and every kept text is memory on the connection: the sizes up to 16 cover the
/// common batches, and keeping every size below 64 would cost ten times that for rare ones (see
/// docs/adr/0009-sqlite-watch-batches-in-one-text.md).
pub(in crate::store) const KEPT_TEXTS_UP_TO: usize = 16;

/// A write transaction as one text (see [`Store::one_text`]).
pub(in crate::store) struct OneText {
    pub(in crate::store) text: Stmt,
    /// It deletes no object.
    pub(in crate::store) upserts_only: bool,
}

/// The upsert of a few objects, the delete of their label rows and the insert of their
/// labels, as one text of three statements. sqlx runs a text's statements in turn on SQLite's
/// thread, binding the arguments in order, so the chunk takes one round trip to that thread
/// instead of three (the upsert answering ids, the delete, the insert), each of which waited
/// for a core on a busy machine. The label statements find the rows by natural key (the unique
/// `uq_resources_key`), and the labels of each object come as one JSON text (`{}` for none),
/// spread into rows by `json_each`. Each row carries its cluster, so the objects of several
/// clusters go in one statement, whose text depends only on how many they are: a watch batch's
/// text is kept prepared (see `Store::one_text`).
pub(crate) fn upsert_with_labels(rows: &[(&str, &Prepared<'_>)]) -> Stmt {
    let rows = rows.iter().copied();
    let d: Dialect = &super::DIALECT;
    let mut b = Builder::new(d, "INSERT INTO resources (");
    b.push(RESOURCE_COLUMNS).push(") VALUES ");
    for (i, (cluster, p)) in rows.clone().enumerate() {
        if i > 0 {
            b.push(", ");
        }
        push_resource_row(&mut b, cluster, p, None);
    }
    b.push_upsert(RESOURCE_KEY, &RESOURCE_UPDATED);
    b.push("; DELETE FROM resource_labels WHERE resource_id IN (SELECT r.id FROM ");
    push_keys(&mut b, rows.clone().map(|(c, p)| (c, p.object, None)));
    b.push(
        "); INSERT INTO resource_labels (resource_id, \"key\", \"value\") SELECT r.id, l.key, l.value FROM ",
    );
    let labels = rows.map(|(c, p)| {
        let json = serde_json::to_string(&p.object.labels).unwrap_or_else(|_| "{}".into());
        (c, p.object, Some(json))
    });
    push_keys(&mut b, labels);
    b.push(", json_each(k.column7) l");
    b.finish()
}

/// `(VALUES (group, version, resource, namespace, name, cluster[, more]), …) k JOIN resources r
/// ON` the natural key of each: the rows of these objects (see [`upsert_with_labels`]).
fn push_keys<'a>(b: &mut Builder, keys: impl Iterator<Item = (&'a str, &'a StoredObject, Option<String>)>) {
    b.push("(VALUES ");
    for (i, (cluster, o, more)) in keys.enumerate() {
        b.push(if i > 0 { ", (" } else { "(" });
        b.bind(o.gvr.group.as_str()).push(", ").bind(o.gvr.version.as_str());
        b.push(", ").bind(o.gvr.resource.as_str()).push(", ").bind(o.namespace.as_str());
        b.push(", ").bind(o.name.as_str()).push(", ").bind(cluster);
        if let Some(more) = more {
            b.push(", ").bind(more);
        }
        b.push(")");
    }
    b.push(
        ") k JOIN resources r ON r.\"group\" = k.column1 AND r.version = k.column2 AND r.resource = k.column3 \
         AND r.cluster = k.column6 AND r.namespace = k.column4 AND r.name = k.column5",
    );
}

impl Store {
    /// SQLite: a watch batch of a few changes (and no change feed to record, nor, with history
    /// kept, a deletion, whose revision reads the stored object first; `revisions` are the
    /// statements of the upserts' revisions) as one text that
    /// begins a transaction, writes the batch's deletions in order (their label rows go by the
    /// foreign key), then its upserts as [`apply_in`] does (see [`Pending`]) in one statement
    /// with their label rows ([`upsert_with_labels`]), and commits: one round trip to
    /// SQLite's thread instead of one for `BEGIN`, one per chunk of upserts or deletion, and one
    /// for `COMMIT`. `None` for any other batch, written by [`apply_in`]. The text of a batch of
    /// upserts only, of any clusters, depends only on how many objects it holds: it is kept
    /// prepared up to [`KEPT_TEXTS_UP_TO`] of them.
    pub(in crate::store) fn one_text(
        &self,
        batches: &[Batch<'_>],
        revisions: impl FnOnce() -> Vec<Stmt>,
    ) -> Result<Option<OneText>> {
        let Pool::Sqlite(pools) = &self.pool else { return Ok(None) };
        let changes: usize = batches.iter().map(|b| b.changes.len()).sum();
        let upserts_only = batches.iter().all(|b| b.changes.iter().all(|c| matches!(c, Change::Upsert(_))));
        // A deletion's revision needs the object's last state, read first: such a batch goes
        // through `apply_in`.
        if self.origin.is_some()
            || !sql::upserts_with_labels(&super::DIALECT, changes)
            || batches.iter().any(|b| b.expect != Expect::Any)
            || (self.history.is_some() && !upserts_only)
        {
            return Ok(None);
        }
        let mut text = statement::Builder::new(&super::DIALECT, pools.writer(upserts_only).1).finish();
        // Deletions in order, then the upserts left (see [`Pending`]).
        let mut pending = Pending::default();
        for &Batch { cluster, changes: events, .. } in batches {
            for change in events {
                match change {
                    Change::Upsert(o) => {
                        o.validate()?;
                        pending.upsert(cluster, o);
                    }
                    Change::Delete { gvr, namespace, name, uid } => {
                        pending.delete(cluster, gvr, namespace, name, uid);
                        text = text.then(sql::delete_object(
                            &super::DIALECT,
                            cluster,
                            gvr,
                            namespace,
                            name,
                            uid,
                        ));
                    }
                }
            }
        }
        let objects: Vec<(&str, Prepared<'_>)> = pending.take().map(|(c, o)| (c, Prepared::new(o))).collect();
        if !objects.is_empty() {
            let rows: Vec<(&str, &Prepared<'_>)> = objects.iter().map(|(c, p)| (*c, p)).collect();
            text = text.then(upsert_with_labels(&rows));
        }
        // The upserts' revisions (see `store::history`), when it keeps them.
        for stmt in revisions() {
            text = text.then(stmt);
        }
        // Their rows of the search index (see `store::search`), when it keeps them.
        if self.writes_search_rows() {
            for b in batches {
                for stmt in crate::store::search::statements(&super::DIALECT, b) {
                    text = text.then(stmt);
                }
            }
        }
        let mut text = text.then(statement::Builder::new(&super::DIALECT, "COMMIT").finish());
        text.reuse = upserts_only && objects.len() <= KEPT_TEXTS_UP_TO;
        Ok(Some(OneText { text, upserts_only }))
    }

    /// Runs a text of [`Store::one_text`] as the writer, in a task of its own (see [`Tx`]): on
    /// the connection without foreign key checks when it deletes no object (see
    /// [`Store::begin_upserts`]).
    pub(in crate::store) async fn write_one_text(&self, one: OneText) -> Result<()> {
        let Pool::Sqlite(pools) = &self.pool else { unreachable!("one_text answers only on SQLite") };
        let _write = Arc::clone(&self.write_lock).lock_owned().await;
        let pool = pools.writer(one.upserts_only).0.clone();
        detached(async move { super::execute_transaction(&pool, one.text).await }).await?
    }
}
