//! Secondary indexes built in one pass after an empty store's first sync.
//!
//! A first sync writes every object of every cluster at once, and on SQLite its single writer is
//! the critical path of the server's start. Four of the indexes cost more kept up row by row than
//! built at the end from the finished tables: `ix_resources_namespace` (a namespace across every
//! cluster), `ix_resource_labels_kv` (label selectors), `ix_resources_owner` (the children of
//! an owner, for trees of relations) and `ix_resources_count` (the field kept for counts). On SQLite and PostgreSQL the writes
//! without them plus one build afterwards take less time and CPU than keeping them up (see
//! docs/adr/0012-deferred-indexes.md).
//!
//! The other indexes stay: the natural key finds the row an upsert replaces, and the
//! cluster-led order serves the per-cluster counts taken during the sync.
//!
//! [`Store::defer_indexes`] drops them when the store has no object and keeps their statements
//! in `deferred_indexes`; [`Store::build_deferred_indexes`] builds what that table holds, so an
//! index deferred by a run that stopped half-way is built by the next one. Until then queries
//! are answered as before, by scanning the type, and `/readyz` says why it waits. Replicas that
//! share a PostgreSQL store take turns: the first to start defers, each waits for the indexes,
//! the first to finish its sync builds them. MySQL/MariaDB keep every index.

use std::sync::Arc;

use super::statement::{Builder, Col};
use super::{Error, Result, Store};

/// The indexes an empty store builds after its first sync rather than during it.
const DEFERRABLE: [&str; 4] =
    ["ix_resources_namespace", "ix_resource_labels_kv", "ix_resources_owner", "ix_resources_count"];

/// What `/readyz` says while the deferred indexes are not built yet.
const PENDING: &str = "building the store's indexes after the first sync";

/// Whether deferred indexes wait to be built, and why not yet (shared by a store's clones).
pub(super) type Pending = Arc<std::sync::Mutex<Option<String>>>;

impl Store {
    /// Drops the [`DEFERRABLE`] indexes if the store holds no object (SQLite and PostgreSQL),
    /// keeping the statements that build them. Returns how many indexes now wait for
    /// [`Store::build_deferred_indexes`], including any an earlier run deferred and did not
    /// build.
    pub async fn defer_indexes(&self) -> Result<usize> {
        let Some(definition) = self.dialect().index_definition else { return Ok(0) };
        let mut tx = self.begin(true).await?;
        let d = tx.dialect;
        if d.locks_for_replicas {
            // Replicas that start together check and drop in turn.
            tx.execute(Builder::new(d, "LOCK TABLE deferred_indexes IN EXCLUSIVE MODE").finish()).await?;
        }
        let empty = tx
            .fetch(Builder::new(d, "SELECT NOT EXISTS (SELECT 1 FROM resources)").finish(), &[Col::Bool])
            .await?
            .first()
            .is_some_and(|r| r.bool(0));
        if empty {
            for name in DEFERRABLE {
                let mut b = Builder::new(d, definition);
                b.bind(name);
                let Some(mut row) = tx.fetch(b.finish(), &[Col::Text]).await?.into_iter().next() else {
                    continue;
                };
                let mut b = Builder::new(d, "INSERT INTO deferred_indexes (name, sql) VALUES (");
                b.bind(name).push(", ").bind(row.text(0)).push(")").push_upsert("name", &["sql"]);
                tx.execute(b.finish()).await?;
                tx.execute(Builder::new(d, &format!("DROP INDEX {name}")).finish()).await?;
            }
        }
        let pending = deferred(&mut tx).await?;
        tx.commit().await?;
        self.set_pending(if pending > 0 { Some(PENDING.to_string()) } else { None });
        Ok(pending)
    }

    /// Builds the indexes [`Store::defer_indexes`] deferred; returns how many. A failure is kept
    /// for [`Store::pending_indexes`] until a later call succeeds.
    pub async fn build_deferred_indexes(&self) -> Result<usize> {
        match self.build().await {
            Ok(n) => {
                self.set_pending(None);
                Ok(n)
            }
            Err(e) => {
                self.set_pending(Some(format!("{PENDING} failed ({e}); retrying")));
                Err(e)
            }
        }
    }

    async fn build(&self) -> Result<usize> {
        if self.dialect().index_definition.is_none() {
            return Ok(0);
        }
        // Each in a transaction of its own: PostgreSQL builds them at the same time rather than
        // one after the other; SQLite's single writer takes them in turn.
        let built = futures::future::try_join_all(DEFERRABLE.map(|name| self.build_one(name))).await?;
        Ok(built.into_iter().filter(|&b| b).count())
    }

    /// Builds one deferred index; `false` when it was not deferred (or another replica built it).
    async fn build_one(&self, name: &str) -> Result<bool> {
        let mut tx = self.begin(true).await?;
        let d = tx.dialect;
        let Some(definition) = d.index_definition else { return Ok(false) };
        let mut b = Builder::new(d, "SELECT sql FROM deferred_indexes WHERE name = ");
        b.bind(name);
        if d.locks_for_replicas {
            // A replica building it at the same time waits here, then finds the row gone.
            b.push(" FOR UPDATE");
        }
        let Some(mut row) = tx.fetch(b.finish(), &[Col::Text]).await?.into_iter().next() else {
            tx.commit().await?;
            return Ok(false);
        };
        let sql = row.text(0);
        // Only what this module put there: the table is ours, but a statement read back from the
        // database is still checked before it runs.
        if !sql.starts_with("CREATE INDEX ") || sql.contains(';') {
            return Err(Error::Corrupt(format!("deferred index {name:?} has an unexpected statement")));
        }
        let mut b = Builder::new(d, definition);
        b.bind(name);
        if tx.fetch(b.finish(), &[Col::Text]).await?.is_empty() {
            // SQLite sorts the keys in a temporary file, not in memory: with the connections'
            // `temp_store = MEMORY` (for statement journals), the sort's memory stays held for
            // good (SQLite's allocator keeps it), for no gain in time (see
            // docs/adr/0012-deferred-indexes.md).
            if let Some((before, _)) = d.around_index_build {
                tx.execute(Builder::new(d, before).finish()).await?;
            }
            let built = tx.execute(Builder::new(d, &sql).finish()).await;
            if let Some((_, after)) = d.around_index_build {
                tx.execute(Builder::new(d, after).finish()).await?;
            }
            built?;
        }
        let mut b = Builder::new(d, "DELETE FROM deferred_indexes WHERE name = ");
        b.bind(name);
        tx.execute(b.finish()).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Why deferred indexes are not built yet; `None` once they are (or when none were).
    pub fn pending_indexes(&self) -> Option<String> {
        self.pending.lock().map_or(None, |p| p.clone())
    }

    fn set_pending(&self, why: Option<String>) {
        if let Ok(mut p) = self.pending.lock() {
            *p = why;
        }
    }
}

/// How many indexes wait to be built.
async fn deferred(tx: &mut super::Tx) -> Result<usize> {
    let rows =
        tx.fetch(Builder::new(tx.dialect, "SELECT COUNT(*) FROM deferred_indexes").finish(), &[Col::Int]);
    Ok(rows.await?.first().map_or(0, |r| usize::try_from(r.int(0)).unwrap_or(0)))
}
