//! Secondary indexes built in one pass after an empty store's first sync.
//!
//! A first sync writes every object of every cluster at once, and on SQLite its single writer is
//! the critical path of the server's start. Two of the indexes cost more kept up row by row than
//! built at the end from the finished tables: `ix_resources_namespace` (a namespace across every
//! cluster) and `ix_resource_labels_kv` (label selectors). Measured on 3 × 30k ConfigMaps,
//! without them the same writes took 0.4–0.5 s and 0.5–0.7 core-seconds less, and building both
//! afterwards takes about 0.1 s. The other indexes stay: the natural key finds the row an upsert
//! replaces, and the cluster-led order serves the per-cluster counts taken during the sync.
//!
//! [`Store::defer_indexes`] drops them when the store has no object and keeps their statements
//! in `deferred_indexes`; [`Store::build_deferred_indexes`] builds what that table holds, so an
//! index deferred by a run that stopped half-way is built by the next one. Until then queries
//! are answered as before, by scanning the type, and `/readyz` says why it waits.
//! PostgreSQL and MySQL/MariaDB keep every index.

use std::sync::Arc;

use super::sql::{Builder, Col};
use super::{Dialect, Error, Pool, Result, Store};

/// The indexes an empty store builds after its first sync rather than during it.
const DEFERRABLE: [&str; 2] = ["ix_resources_namespace", "ix_resource_labels_kv"];

/// What `/readyz` says while the deferred indexes are not built yet.
const PENDING: &str = "building the store's indexes after the first sync";

/// Whether deferred indexes wait to be built, and why not yet (shared by a store's clones).
pub(super) type Pending = Arc<std::sync::Mutex<Option<String>>>;

impl Store {
    /// Drops the [`DEFERRABLE`] indexes if the store holds no object (SQLite only), keeping the
    /// statements that build them. Returns how many indexes now wait for
    /// [`Store::build_deferred_indexes`], including any an earlier run deferred and did not
    /// build.
    pub async fn defer_indexes(&self) -> Result<usize> {
        if !matches!(self.pool, Pool::Sqlite(_)) {
            return Ok(0);
        }
        let mut tx = self.begin(true).await?;
        let d = tx.dialect;
        let empty = tx
            .fetch(Builder::new(d, "SELECT NOT EXISTS (SELECT 1 FROM resources)").finish(), &[Col::Bool])
            .await?
            .first()
            .is_some_and(|r| r.bool(0));
        if empty {
            for name in DEFERRABLE {
                let mut b = Builder::new(d, "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ");
                b.bind(name);
                let Some(mut row) = tx.fetch(b.finish(), &[Col::Text]).await?.into_iter().next() else {
                    continue;
                };
                let mut b = Builder::new(d, "INSERT OR REPLACE INTO deferred_indexes (name, sql) VALUES (");
                b.bind(name).push(", ").bind(row.text(0)).push(")");
                tx.execute(b.finish()).await?;
                tx.execute(Builder::new(d, &format!("DROP INDEX {name}")).finish()).await?;
            }
        }
        let pending = deferred(&mut tx).await?.len();
        tx.commit().await?;
        self.set_pending(if pending > 0 { Some(PENDING.to_string()) } else { None });
        Ok(pending)
    }

    /// Builds the indexes [`Store::defer_indexes`] deferred, in one transaction; returns how
    /// many. A failure is kept for [`Store::pending_indexes`] until a later call succeeds.
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
        if !matches!(self.pool, Pool::Sqlite(_)) {
            return Ok(0);
        }
        let mut tx = self.begin(true).await?;
        let d = tx.dialect;
        let indexes = deferred(&mut tx).await?;
        for (name, sql) in &indexes {
            // Only what this module put there: the table is ours, but a statement read back from a
            // file is still checked before it runs.
            if !DEFERRABLE.contains(&name.as_str()) || !sql.starts_with("CREATE INDEX ") || sql.contains(';')
            {
                return Err(Error::Corrupt(format!("deferred index {name:?} has an unexpected statement")));
            }
            let mut b = Builder::new(d, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ");
            b.bind(name.as_str());
            if tx.fetch(b.finish(), &[Col::Int]).await?.is_empty() {
                tx.execute(Builder::new(d, sql).finish()).await?;
            }
        }
        tx.execute(Builder::new(d, "DELETE FROM deferred_indexes").finish()).await?;
        tx.commit().await?;
        Ok(indexes.len())
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

/// `(name, statement)` of every index waiting to be built.
async fn deferred(tx: &mut super::Tx) -> Result<Vec<(String, String)>> {
    let rows = tx
        .fetch(
            Builder::new(Dialect::Sqlite, "SELECT name, sql FROM deferred_indexes ORDER BY name").finish(),
            &[Col::Text, Col::Text],
        )
        .await?;
    Ok(rows.into_iter().map(|mut r| (r.text(0), r.text(1))).collect())
}
