//! The store: every object of every cluster in one SQL database.
//!
//! One [`Store`] type serves three backends, chosen by URL: embedded SQLite (`sqlite://path`),
//! MySQL/MariaDB (`mysql://…`, `mariadb://…`) and PostgreSQL (`postgres://…`,
//! `postgresql://…`). The operations are written once against a small statement layer
//! ([`sql`]), and ask a backend's [`dialect`] where backends differ. Each backend is a folder
//! of [`backend`]: it opens connections, runs its embedded migrations, binds arguments, decodes
//! columns, declares its dialect and holds the statements only it runs.
//!
//! Tables (see `migrations/<backend>/0001_init.sql`):
//! - `resources`: one row per object, columns compatible with the Go project's table,
//!   unique by (group, version, resource, cluster, namespace, name) and by (cluster, uid, group,
//!   version, resource);
//!   and a field kept for counts (`count_field`, `count_value`: [`count_index`]);
//! - `resource_labels`: `(resource_id, key, value)`, indexed on `(key, value)`, so label
//!   selectors run as index-backed `EXISTS` subqueries; a label row goes with its object (a
//!   foreign key's cascade on SQLite and MySQL/MariaDB, the deleting statement itself on
//!   PostgreSQL, whose objects are also kept as text rather than `jsonb`: migrations 0006 and
//!   0007);
//! - `clusters`: one row per joined cluster;
//! - `changes` and `change_clock` (`0004_changes.sql`): the change feed between replicas that
//!   sync only their share of the clusters ([`change_feed`]);
//! - `deferred_indexes` (SQLite and PostgreSQL, `0005_deferred_indexes.sql`): indexes an empty
//!   store builds after its first sync ([`deferred`]);
//! - `revisions` and `history_totals` (`*_revisions.sql`): every change kept, with retention,
//!   and on SQLite `revisions_log` (`0011_revisions_log.sql`), where the writer stages them
//!   ([`history`]);
//! - `search_texts`, its index, and `search_state` (`*_search.sql`): what free-text search
//!   looks at, one row per object ([`search`]).
//!
//! Queries return objects in a stable order (cluster, namespace, name, group, version, resource)
//! with keyset pagination through opaque [`Cursor`] tokens.

mod backend;
mod change;
mod change_feed;
mod count;
mod count_index;
mod deferred;
mod dialect;
mod digests;
mod error;
mod history;
mod keys;
mod pending;
mod query;
mod raw;
mod read;
mod related;
mod resource_columns;
pub mod search;
mod sql;
mod statement;
mod write;

use std::fmt;
use std::sync::Arc;

use tokio::sync::Mutex;

use backend::{Pool, Tx, detached, mysql, postgres, sqlite};
pub use change::{Batch, Change, Expect, StoredObject};
pub use change_feed::FeedChange;
pub use count::{Count, GroupKey, MAX_GROUPS, TypeCount};
pub use count_index::{IndexedFields, IndexedValue};
use dialect::Dialect;
pub use digests::{DigestPage, DigestRow};
pub(crate) use error::redact_url;
pub use error::{Error, Result};
pub use history::{
    ChangeKind, EVENT_TYPES, HistoryRules, HistoryStats, Listed, PruneRules, Pruned, Revision, Seen,
    is_event_type, now_ms, now_ms_at,
};
pub use keys::RelistKeys;
use pending::Pending;
pub use query::{Allowed, ClusterRow, Cursor, Namespaces, Order, Page, Query};
pub use raw::{Compressors, RawObject};
use read::{each_key, objects_by_id};
pub use related::{RelatedObject, RelatedReads};
use sql::SqlFilter;
use statement::{Col, Row, Stmt};
#[cfg(test)]
pub(crate) use write::ApplyOne;

/// Which database a [`Store`] talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Embedded SQLite file.
    Sqlite,
    /// MySQL or MariaDB server.
    MySql,
    /// PostgreSQL server.
    Postgres,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Sqlite => "sqlite",
            Backend::MySql => "mysql",
            Backend::Postgres => "postgres",
        })
    }
}

/// A connection pool to one backend; cheap to clone.
#[derive(Clone)]
pub struct Store {
    pool: Pool,
    /// SQLite allows one writer at a time: serialising writes here avoids busy errors.
    write_lock: Arc<Mutex<()>>,
    /// Set: every change written is recorded in the change feed as this replica's (see
    /// [`change_feed`]).
    origin: Option<Arc<str>>,
    /// Indexes deferred for a first sync and not built yet (see [`deferred`]).
    pending: deferred::Pending,
    /// Set: every change written of a type these rules include is kept as a revision (see
    /// [`history`]).
    history: Option<Arc<HistoryRules>>,
    /// Set: every object written gets its row of the search index (see [`search`]).
    search: bool,
    /// The search index is being completed (see [`Store::complete_search_index`]).
    sweeping: search::Sweeping,
    /// Why the last [`Store::fill_count_fields`] failed (see [`count_index`]).
    count_fill: count_index::FillProblem,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("backend", &self.backend()).finish_non_exhaustive()
    }
}

impl Store {
    /// Opens the store at `url` and applies the embedded migrations.
    ///
    /// `sqlite://PATH` creates the file and its directory when missing (`sqlite::memory:` is an
    /// in-memory store for tests); `mysql://`/`mariadb://` and `postgres://`/`postgresql://`
    /// connect to a server whose database must exist.
    pub async fn connect(url: &str) -> Result<Store> {
        let pool = if url.starts_with("sqlite:") {
            Pool::Sqlite(sqlite::connect(url).await?)
        } else if url.starts_with("mysql:") || url.starts_with("mariadb:") {
            Pool::MySql(mysql::connect(url).await?)
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Pool::Postgres(postgres::connect(url).await?)
        } else {
            return Err(Error::UnsupportedUrl { url: redact_url(url) });
        };
        Ok(Store {
            pool,
            write_lock: Arc::new(Mutex::new(())),
            origin: None,
            pending: Default::default(),
            history: None,
            search: false,
            sweeping: Default::default(),
            count_fill: Default::default(),
        })
    }

    /// Refreshes the query planner's statistics, after a first sync and every ten minutes.
    ///
    /// SQLite keeps none by itself: without them it scans every row of a type for a label
    /// query instead of starting from the label index. Its statistics are exact (every index is
    /// read): sampled ones (`analysis_limit = 1000`) can put a large namespace at a few rows, and
    /// a limited label query then walks the whole namespace in index order instead of starting
    /// from the label index (see docs/adr/0020-store-query-plans.md).
    ///
    /// PostgreSQL's autovacuum analyzes a table only some time after a bulk load: until then a
    /// count after a first sync was planned for an empty table (1.12 s at 100,000 pods against
    /// 0.64 s after `ANALYZE`). Its `ANALYZE` reads a sample of the table's pages; the `VACUUM`
    /// beside it marks the pages whose rows every transaction sees, so that a count reads the
    /// field kept for counts from its index alone (an index-only scan), instead of visiting
    /// every row of a million freshly written. It is the pass autovacuum makes after a bulk
    /// load anyway, made now; later passes skip the pages already marked, and a table another
    /// vacuum holds is skipped (`SKIP_LOCKED`). MySQL/MariaDB's `ANALYZE TABLE` reads a sample
    /// too.
    pub async fn optimize(&self) -> Result<()> {
        match &self.pool {
            Pool::Sqlite(p) => {
                let _guard = Arc::clone(&self.write_lock).lock_owned().await;
                let mut conn = p.main.acquire().await?;
                sqlx::query("PRAGMA analysis_limit = 0").execute(&mut *conn).await?;
                sqlx::query("ANALYZE").execute(&mut *conn).await?;
            }
            Pool::Postgres(p) => {
                sqlx::query("VACUUM (ANALYZE, SKIP_LOCKED) resources, resource_labels").execute(p).await?;
            }
            Pool::MySql(p) => {
                // Answers a result set (a row per table), read and dropped.
                sqlx::query("ANALYZE TABLE resources, resource_labels").fetch_all(p).await?;
            }
        }
        Ok(())
    }

    /// The database's size in bytes (data and indexes) as its server reports it; `None` on
    /// SQLite, whose files are its size.
    pub async fn database_bytes(&self) -> Result<Option<u64>> {
        let Some(sql) = self.dialect().database_bytes else { return Ok(None) };
        let mut tx = self.begin(false).await?;
        let rows = tx.fetch(statement::Builder::new(tx.dialect, sql).finish(), &[Col::Int]).await?;
        tx.commit().await?;
        Ok(rows.first().map(|r| u64::try_from(r.int(0)).unwrap_or(0)))
    }

    /// Which backend this store uses.
    pub fn backend(&self) -> Backend {
        match self.pool {
            Pool::Sqlite(_) => Backend::Sqlite,
            Pool::MySql(_) => Backend::MySql,
            Pool::Postgres(_) => Backend::Postgres,
        }
    }

    /// Closes every connection; later calls fail.
    pub async fn close(&self) {
        match &self.pool {
            Pool::Sqlite(p) => p.close().await,
            Pool::MySql(p) => p.close().await,
            Pool::Postgres(p) => p.close().await,
        }
    }

    fn dialect(&self) -> Dialect {
        self.pool.dialect()
    }
}

#[cfg(test)]
mod tests;
