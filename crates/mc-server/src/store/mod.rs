//! The store: every object of every cluster in one SQL database.
//!
//! One [`Store`] type serves three backends, chosen by URL: embedded SQLite (`sqlite://path`),
//! MySQL/MariaDB (`mysql://…`, `mariadb://…`) and PostgreSQL (`postgres://…`,
//! `postgresql://…`). The operations are written once against a small statement layer
//! ([`sql`]): each backend module only opens connections, runs its embedded migrations, binds
//! arguments and decodes columns.
//!
//! Tables (see `migrations/<backend>/0001_init.sql`):
//! - `resources`: one row per object, columns compatible with the original project's table,
//!   unique by (group, version, resource, cluster, namespace, name) and by (cluster, uid, group,
//!   version, resource);
//! - `resource_labels`: `(resource_id, key, value)`, indexed on `(key, value)`, so label
//!   selectors run as index-backed `EXISTS` subqueries; a label row goes with its object (a
//!   foreign key's cascade on SQLite and MySQL/MariaDB, the deleting statement itself on
//!   PostgreSQL, whose objects are also kept as text rather than `jsonb`: migrations 0006 and
//!   0007);
//! - `clusters`: one row per joined cluster;
//! - `changes` and `change_clock` (`0004_changes.sql`): the change feed between replicas that
//!   sync only their share of the clusters ([`feed`]);
//! - `deferred_indexes` (SQLite and PostgreSQL, `0005_deferred_indexes.sql`): indexes an empty
//!   store builds after its first sync ([`deferred`]).
//!
//! Queries return objects in a stable order (cluster, namespace, name, group, version, resource)
//! with keyset pagination through opaque [`Cursor`] tokens.

mod checkpoint;
mod copy;
mod deferred;
mod digests;
mod feed;
mod keys;
mod mysql;
mod object;
mod pending;
mod postgres;
mod raw;
mod resource_columns;
mod sql;
mod sqlite;
mod statement;
mod unnest;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use mc_types::Gvr;
use mc_types::selector::{FieldOperator, FieldRequirement, FieldSelector, LabelSelector};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{Mutex, OwnedMutexGuard};

pub use digests::{DigestPage, DigestRow};
pub use feed::FeedChange;
pub use keys::RelistKeys;
pub use object::{Change, Expect, StoredObject};
use pending::Pending;
pub use raw::RawObject;
use resource_columns::Prepared;
use sql::SqlFilter;
use statement::{Col, Dialect, Row, Stmt};

/// Errors of the store. [`Error::is_retryable`] tells whether trying again later may succeed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The storage URL names no supported backend. Not retryable: fix the configuration.
    #[error(
        "unsupported storage URL {url:?}: expected sqlite://PATH, mysql://…, mariadb://…, postgres://… or postgresql://…"
    )]
    UnsupportedUrl {
        /// The URL, with any password replaced by `***`.
        url: String,
    },
    /// The database could not be opened or reached. Retryable (the server may come up later).
    #[error("cannot connect to the {backend} store at {url}: {error}")]
    Connect {
        /// `sqlite`, `mysql` or `postgres`.
        backend: &'static str,
        /// The URL, with any password replaced by `***`.
        url: String,
        /// What the driver reported.
        error: sqlx::Error,
    },
    /// The directory of an SQLite database file could not be created. Not retryable.
    #[error("cannot create the store directory {path}: {error}")]
    CreateDir {
        /// The directory.
        path: std::path::PathBuf,
        /// What the file system reported.
        error: std::io::Error,
    },
    /// Applying the embedded schema migrations failed. Not retryable (a schema from a newer
    /// version, or insufficient privileges).
    #[error("migrating the {backend} store failed: {error}")]
    Migrate {
        /// `sqlite`, `mysql` or `postgres`.
        backend: &'static str,
        /// What the migrator reported.
        error: sqlx::migrate::MigrateError,
    },
    /// A statement failed. Retryable when the connection broke, the pool timed out or the
    /// database reported a deadlock or a busy database.
    #[error("store query failed: {0}")]
    Query(#[from] sqlx::Error),
    /// A `continue` token that this store did not produce (the token as received, shortened
    /// when long). Not retryable: a client error (400).
    #[error("invalid continue token {0:?}")]
    BadCursor(String),
    /// An object handed to the store cannot be stored (no name or uid, wrong type). Not
    /// retryable: a bug or a malformed object of the caller.
    #[error("invalid object: {0}")]
    InvalidObject(String),
    /// A stored row could not be decoded (e.g. its JSON is damaged). Not retryable.
    #[error("corrupt row in the store: {0}")]
    Corrupt(String),
}

/// Result of store operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether the same operation may succeed when tried again later.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Connect { .. } => true,
            Error::Query(e) => match e {
                sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => true,
                sqlx::Error::Database(db) => {
                    // Conflicts; MySQL's lock wait timeout (its SQLSTATE, HY000, is any error:
                    // sqlx's `code` answers that, so it is told by its number); SQLite
                    // busy/locked.
                    let mysql = db.try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>().map(|e| e.number());
                    self.is_conflict()
                        || mysql == Some(1205)
                        || matches!(db.code().as_deref(), Some("5" | "6" | "517"))
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// A unique key that the statement would have broken (a row already stored).
    pub(crate) fn is_duplicate(&self) -> bool {
        matches!(self, Error::Query(sqlx::Error::Database(db)) if db.is_unique_violation())
    }

    /// A deadlock or serialization failure (SQLSTATE 40001, 40P01): the database rolled the
    /// transaction back because a concurrent one held what it needed. Trying it again at once
    /// usually passes; it says nothing about the database being away.
    pub fn is_conflict(&self) -> bool {
        match self {
            Error::Query(sqlx::Error::Database(db)) => {
                matches!(db.code().as_deref(), Some("40001" | "40P01"))
            }
            _ => false,
        }
    }
}

/// Replaces the password of `scheme://user:password@host/…` by `***`.
pub(crate) fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

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

/// What to list. Every `None` means "no restriction".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Query {
    /// Only this resource type; `None` lists every type.
    pub gvr: Option<Gvr>,
    /// Only this cluster.
    pub cluster: Option<String>,
    /// Only this namespace (`""` selects cluster-scoped objects).
    pub namespace: Option<String>,
    /// Only objects with exactly this name.
    pub name: Option<String>,
    /// Only objects whose labels match.
    pub labels: Option<LabelSelector>,
    /// Only objects whose fields match. `metadata.name` and `metadata.namespace` are evaluated
    /// in SQL, any other field on the fetched objects.
    pub fields: Option<FieldSelector>,
    /// At most this many objects; `None` (or `Some(0)`) returns all.
    pub limit: Option<u32>,
    /// Continue after this position (from [`Page::next`]); only in [`Order::Name`].
    pub continue_after: Option<Cursor>,
    /// In which order rows come.
    pub order: Order,
}

impl Query {
    /// The filters SQL evaluates, and the field requirements it cannot (checked on the objects).
    fn sql_filter(&self) -> (SqlFilter<'_>, Vec<&FieldRequirement>) {
        let mut columns = Vec::new();
        let mut after_fetch: Vec<&FieldRequirement> = Vec::new();
        for r in self.fields.iter().flat_map(|f| f.requirements()) {
            let equals = r.op == FieldOperator::Equals;
            match r.field.as_str() {
                "metadata.name" => columns.push(("name", equals, r.value.as_str())),
                "metadata.namespace" => columns.push(("namespace", equals, r.value.as_str())),
                _ => after_fetch.push(r),
            }
        }
        let filter = SqlFilter {
            gvr: self.gvr.as_ref(),
            cluster: self.cluster.as_deref(),
            namespace: self.namespace.as_deref(),
            name: self.name.as_deref(),
            columns,
            labels: self.labels.as_ref().filter(|l| !l.is_empty()),
        };
        (filter, after_fetch)
    }
}

/// The order of query results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// The stable order: cluster, namespace, name (then group, version, resource). Pages
    /// continue with [`Cursor`]s.
    #[default]
    Name,
    /// Newest object first (by creation time, then the stable order), as the original answered.
    /// One page only: no [`Page::next`].
    Newest,
}

/// One page of query results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Page {
    /// `(cluster, object)` in the stable order.
    pub items: Vec<(String, RawObject)>,
    /// Where the next page starts; `None` when there are no more matching objects.
    pub next: Option<Cursor>,
}

/// A position in the stable order: the sort key of the last row of a page.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Cursor {
    /// Cluster name.
    pub cluster: String,
    /// Namespace, `""` for cluster-scoped objects.
    pub namespace: String,
    /// Object name.
    pub name: String,
    /// API group.
    pub group: String,
    /// API version.
    pub version: String,
    /// Plural resource name.
    pub resource: String,
}

impl Cursor {
    /// The sort key a page row starts with (its first six columns, see `sql::select_rows`).
    fn from_row(row: &mut Row) -> Cursor {
        Cursor {
            cluster: row.text(0),
            namespace: row.text(1),
            name: row.text(2),
            group: row.text(3),
            version: row.text(4),
            resource: row.text(5),
        }
    }

    /// The opaque, URL-safe `continue` token: lowercase hex of a JSON array.
    pub fn encode(&self) -> String {
        self.encode_parts(None)
    }

    /// [`Cursor::encode`] with `query` (what the query that reached this position selects, as its
    /// caller digests it) inside, so the position is taken only for that query
    /// ([`Cursor::decode_for`]).
    pub fn encode_for(&self, query: &str) -> String {
        self.encode_parts(Some(query))
    }

    fn encode_parts(&self, query: Option<&str>) -> String {
        let mut parts = vec![
            &*self.cluster,
            &*self.namespace,
            &*self.name,
            &*self.group,
            &*self.version,
            &*self.resource,
        ];
        parts.extend(query);
        let json = serde_json::to_string(&parts).unwrap_or_default();
        json.bytes().map(|b| format!("{b:02x}")).collect()
    }

    /// Parses a token made by [`Cursor::encode`] or [`Cursor::encode_for`]; anything else is
    /// [`Error::BadCursor`].
    pub fn decode(token: &str) -> Result<Cursor> {
        Self::decode_for(token).map(|(cursor, _)| cursor)
    }

    /// The position a token holds and the query it was made for, if any ([`Cursor::encode_for`]).
    pub fn decode_for(token: &str) -> Result<(Cursor, Option<String>)> {
        let bad = || {
            let shown: String = token.chars().take(64).filter(|c| !c.is_control()).collect();
            Error::BadCursor(if token.chars().count() > 64 { format!("{shown}…") } else { shown })
        };
        if token.is_empty() || !token.len().is_multiple_of(2) || token.len() > 8192 {
            return Err(bad());
        }
        let bytes = (0..token.len())
            .step_by(2)
            .map(|i| token.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
            .collect::<Option<Vec<u8>>>()
            .ok_or_else(bad)?;
        let mut parts: Vec<String> = serde_json::from_slice(&bytes).map_err(|_| bad())?;
        let query = match parts.len() {
            6 => None,
            7 => parts.pop(),
            _ => return Err(bad()),
        };
        let [cluster, namespace, name, group, version, resource]: [String; 6] =
            parts.try_into().map_err(|_| bad())?;
        Ok((Cursor { cluster, namespace, name, group, version, resource }, query))
    }
}

/// One row of the `clusters` table.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterRow {
    /// Cluster name (primary key).
    pub name: String,
    /// Whether this is the master cluster.
    pub is_master: bool,
    /// `Healthy`, `NotReady`, …
    pub status: String,
    /// Kubernetes version, e.g. `v1.35.4`.
    pub version: String,
    /// Platform, e.g. `linux/amd64`.
    pub platform: String,
    /// API server host.
    pub host: String,
    /// When the row was last written, unix seconds (set by the caller).
    pub updated_at: i64,
    /// Anything else worth keeping (resource type counts, sync lag, …).
    pub info: Value,
}

/// A connection pool to one backend; cheap to clone.
#[derive(Clone)]
pub struct Store {
    pool: Pool,
    /// SQLite allows one writer at a time: serialising writes here avoids busy errors.
    write_lock: Arc<Mutex<()>>,
    /// Set: every change written is recorded in the change feed as this replica's (see
    /// [`feed`]).
    origin: Option<Arc<str>>,
    /// Indexes deferred for a first sync and not built yet (see [`deferred`]).
    pending: deferred::Pending,
}

#[derive(Clone)]
enum Pool {
    Sqlite(sqlite::Pools),
    MySql(sqlx::MySqlPool),
    Postgres(sqlx::PgPool),
}

enum Conn {
    Sqlite(sqlx::Transaction<'static, sqlx::Sqlite>),
    MySql(sqlx::Transaction<'static, sqlx::MySql>),
    Postgres(sqlx::Transaction<'static, sqlx::Postgres>),
}

/// One transaction; every operation runs in one.
///
/// Each step (BEGIN, a statement, COMMIT) runs to its end in a task of its own, which holds the
/// connection meanwhile. sqlx's connections are not cancel-safe: a statement dropped half-way
/// leaves its answer unread, and the next user of the pooled connection (MySQL/MariaDB) can wait
/// for ever; a BEGIN dropped before its answer leaves a transaction nobody ends (PostgreSQL, and
/// MySQL: sqlx counts it only once answered). Callers are dropped: an HTTP client that goes away,
/// a probe that times out. A dropped caller's step still finishes in its task, and the
/// transaction is then rolled back at a clean boundary, as any transaction dropped uncommitted.
/// (SQLite's BEGIN already runs on its connection's own thread, whatever its caller does.)
struct Tx {
    /// `None` only while a step runs.
    conn: Option<Conn>,
    dialect: Dialect,
    _write: Option<OwnedMutexGuard<()>>,
    /// Begun by [`Store::begin_upserts`]: it must delete no `resources` row.
    upserts_only: bool,
}

/// The largest watch batch of upserts only whose text [`Store::one_text`] keeps prepared (one
/// text for each number of objects, on the upserts' connection). A text not kept is parsed and
/// planned anew, which under a watch churn is a large part of mc-server's CPU. Most batches hold
/// a few objects, and every kept text is memory on the connection: the sizes up to 16 cover the
/// common batches, and keeping every size below 64 would cost ten times that for rare ones (see
/// docs/adr/0009-sqlite-watch-batches-in-one-text.md).
const KEPT_TEXTS_UP_TO: usize = 16;

/// A write transaction as one text (see [`Store::one_text`]).
struct OneText {
    text: Stmt,
    /// It deletes no object.
    upserts_only: bool,
}

/// What a transaction may do (see [`Store::begin`] and [`Store::begin_upserts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    Read,
    Write,
    /// Writes that delete no `resources` row: they insert and update objects and replace their
    /// label rows.
    Upserts,
}

/// Runs one step of a transaction to its end, whether or not its caller waits (see [`Tx`]).
async fn detached<T: Send + 'static>(step: impl Future<Output = T> + Send + 'static) -> Result<T> {
    match tokio::spawn(step).await {
        Ok(v) => Ok(v),
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        // The runtime is shutting down.
        Err(_) => Err(Error::Query(sqlx::Error::PoolClosed)),
    }
}

impl Tx {
    fn take(&mut self) -> Result<Conn> {
        // Only a step that panicked leaves no connection; its caller unwound with it.
        self.conn.take().ok_or(Error::Query(sqlx::Error::PoolClosed))
    }

    async fn execute(&mut self, stmt: Stmt) -> Result<u64> {
        Ok(self.run(stmt).await?.0)
    }

    /// MySQL/MariaDB: runs an `INSERT`; answers how many rows it inserted and the id given to
    /// the first of them (0 elsewhere, or when it gave none).
    async fn insert(&mut self, stmt: Stmt) -> Result<(u64, i64)> {
        let (rows, first) = self.run(stmt).await?;
        Ok((rows, first.and_then(|id| i64::try_from(id).ok()).unwrap_or(0)))
    }

    /// Runs a statement that answers no rows: how many it changed, and on MySQL/MariaDB the
    /// first id it gave (`LAST_INSERT_ID()`).
    async fn run(&mut self, stmt: Stmt) -> Result<(u64, Option<u64>)> {
        debug_assert!(
            !(self.upserts_only && stmt.sql.contains("DELETE FROM resources ")),
            "a transaction begun for upserts deletes objects (their label rows would stay on SQLite)"
        );
        let mut conn = self.take()?;
        let (conn, result) = detached(async move {
            let result = match &mut conn {
                Conn::Sqlite(tx) => sqlite::execute(tx, stmt).await.map(|n| (n, None)),
                Conn::MySql(tx) => mysql::execute(tx, &stmt).await.map(|(n, id)| (n, Some(id))),
                Conn::Postgres(tx) => postgres::execute(tx, &stmt).await.map(|n| (n, None)),
            };
            (conn, result)
        })
        .await?;
        self.conn = Some(conn);
        result
    }

    async fn fetch(&mut self, stmt: Stmt, cols: &[Col]) -> Result<Vec<Row>> {
        let mut conn = self.take()?;
        let cols = cols.to_vec();
        let (conn, result) = detached(async move {
            let result = match &mut conn {
                Conn::Sqlite(tx) => sqlite::fetch(tx, stmt, &cols).await,
                Conn::MySql(tx) => mysql::fetch(tx, &stmt, &cols).await,
                Conn::Postgres(tx) => postgres::fetch(tx, &stmt, &cols).await,
            };
            (conn, result)
        })
        .await?;
        self.conn = Some(conn);
        result
    }

    /// PostgreSQL: runs `COPY … FROM STDIN` (`statement`) with the data of `pieces`, each built
    /// while the one before is sent; answers the rows copied.
    async fn copy(&mut self, statement: &'static str, pieces: impl Iterator<Item = Vec<u8>>) -> Result<u64> {
        let mut conn = self.take()?;
        // One piece waits while the one before is sent: the data is never held whole. `None`
        // ends the data; a caller dropped before it aborts the `COPY`.
        let (send, mut receive) = tokio::sync::mpsc::channel::<Option<Vec<u8>>>(1);
        let step = detached(async move {
            let result = async {
                let Conn::Postgres(tx) = &mut conn else {
                    return Err(sqlx::Error::Protocol("COPY on a store other than PostgreSQL".into()));
                };
                let mut copy = tx.copy_in_raw(statement).await?;
                loop {
                    match receive.recv().await {
                        Some(Some(piece)) => {
                            copy.send(piece).await?;
                        }
                        Some(None) => return copy.finish().await,
                        None => {
                            copy.abort("the writer stopped").await?;
                            return Err(sqlx::Error::PoolClosed);
                        }
                    }
                }
            }
            .await;
            (conn, result)
        });
        let feed = async move {
            for piece in pieces.map(Some).chain([None]) {
                // The step ended early (it failed): its error is the answer.
                if send.send(piece).await.is_err() {
                    break;
                }
            }
        };
        let (step, ()) = tokio::join!(step, feed);
        let (conn, result) = step?;
        self.conn = Some(conn);
        Ok(result?)
    }

    async fn commit(mut self) -> Result<()> {
        let conn = self.take()?;
        detached(async move {
            match conn {
                Conn::Sqlite(tx) => tx.commit().await,
                Conn::MySql(tx) => tx.commit().await,
                Conn::Postgres(tx) => tx.commit().await,
            }
        })
        .await??;
        Ok(())
    }
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("backend", &self.backend()).finish_non_exhaustive()
    }
}

/// Objects scanned per query when fields are filtered after fetching.
const MIN_SCAN_BATCH: usize = 256;

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
        Ok(Store { pool, write_lock: Arc::new(Mutex::new(())), origin: None, pending: Default::default() })
    }

    /// Refreshes the query planner's statistics where the database does not do it by itself
    /// (SQLite). Without them SQLite scans every row of a type for a label query instead of
    /// starting from the label index. The statistics are exact (every index is read): sampled
    /// ones (`analysis_limit = 1000`) can put a large namespace at a few rows, and a limited
    /// label query then walks the whole namespace in index order instead of starting from the
    /// label index (see docs/adr/0020-store-query-plans.md).
    pub async fn optimize(&self) -> Result<()> {
        if let Pool::Sqlite(p) = &self.pool {
            let _guard = Arc::clone(&self.write_lock).lock_owned().await;
            let mut conn = p.main.acquire().await?;
            sqlx::query("PRAGMA analysis_limit = 0").execute(&mut *conn).await?;
            sqlx::query("ANALYZE").execute(&mut *conn).await?;
        }
        Ok(())
    }

    /// The database's size in bytes (data and indexes) as its server reports it; `None` on
    /// SQLite, whose files are its size.
    pub async fn database_bytes(&self) -> Result<Option<u64>> {
        let sql = match self.dialect() {
            Dialect::Sqlite => return Ok(None),
            Dialect::MySql => {
                "SELECT CAST(COALESCE(SUM(data_length + index_length), 0) AS SIGNED) \
                 FROM information_schema.tables WHERE table_schema = DATABASE()"
            }
            Dialect::Postgres => "SELECT pg_database_size(current_database())",
        };
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
        match self.pool {
            Pool::Sqlite(_) => Dialect::Sqlite,
            Pool::MySql(_) => Dialect::MySql,
            Pool::Postgres(_) => Dialect::Postgres,
        }
    }

    async fn begin(&self, write: bool) -> Result<Tx> {
        self.begin_as(if write { Access::Write } else { Access::Read }).await
    }

    /// A write transaction that deletes no `resources` row (checked in debug builds): it inserts
    /// and updates objects and replaces their label rows. On SQLite it runs without foreign key
    /// checks, which only matter to a deletion (a label row goes with its object through
    /// `ON DELETE CASCADE`): a multi-row insert into `resources` looks for label rows of every
    /// new row, and every label row inserted looks up its object: lookups that writes deleting
    /// nothing need not pay (see docs/adr/0008-sqlite-bulk-writes.md). A file store runs them on
    /// a connection opened without the checks (see [`sqlite::Pools`]).
    async fn begin_upserts(&self) -> Result<Tx> {
        self.begin_as(Access::Upserts).await
    }

    async fn begin_as(&self, access: Access) -> Result<Tx> {
        let dialect = self.dialect();
        // Each BEGIN in a task of its own (see `Tx`): one whose caller is dropped still completes,
        // and its transaction is then rolled back. (sqlx's SQLite connection counts a BEGIN that
        // it answered, and whose answer was never read, as open, with no transaction left to end
        // it: the connection went back to the pool inside it, and the writer's next BEGIN failed,
        // `InvalidSavePointStatement`, as every one after it would have.)
        let (conn, guard) = match &self.pool {
            Pool::Sqlite(p) if access != Access::Read => {
                let guard = Arc::clone(&self.write_lock).lock_owned().await;
                let (pool, begin) = p.writer(access == Access::Upserts);
                let pool = pool.clone();
                (Conn::Sqlite(detached(async move { pool.begin_with(begin).await }).await??), Some(guard))
            }
            Pool::Sqlite(p) => {
                let pool = p.main.clone();
                (Conn::Sqlite(detached(async move { pool.begin().await }).await??), None)
            }
            Pool::MySql(p) => {
                let p = p.clone();
                (Conn::MySql(detached(async move { p.begin().await }).await??), None)
            }
            Pool::Postgres(p) => {
                let p = p.clone();
                (Conn::Postgres(detached(async move { p.begin().await }).await??), None)
            }
        };
        Ok(Tx { conn: Some(conn), dialect, _write: guard, upserts_only: access == Access::Upserts })
    }

    /// Applies a batch of watch events of one cluster in one transaction, in order. An upsert
    /// replaces the object's labels.
    pub async fn apply_batch(&self, cluster: &str, events: Vec<Change>) -> Result<()> {
        self.apply_changes(cluster, &events, Expect::Any).await
    }

    /// As [`Store::apply_batch`], borrowing the events, so a caller can retry or split a batch
    /// that failed; `expect` says what its upserts are likely to be (a first list's pages are
    /// written faster as new rows).
    pub async fn apply_changes(&self, cluster: &str, events: &[Change], expect: Expect) -> Result<()> {
        self.apply_changes_of(&[(cluster, events, expect)]).await
    }

    /// As [`Store::apply_changes`] for the changes of several clusters, in one transaction. On
    /// SQLite, whose writes are serial anyway, a watch batch of 3 clusters then takes one
    /// `BEGIN` and one `COMMIT` instead of three of each.
    pub async fn apply_changes_of(&self, batches: &[(&str, &[Change], Expect)]) -> Result<()> {
        if batches.iter().all(|(_, events, _)| events.is_empty()) {
            return Ok(());
        }
        if let Some(text) = self.one_text(batches)? {
            return self.write_one_text(text).await;
        }
        let deletes =
            batches.iter().any(|(_, events, _)| events.iter().any(|c| matches!(c, Change::Delete { .. })));
        let mut tx = if deletes { self.begin(true).await? } else { self.begin_upserts().await? };
        for &(cluster, events, expect) in batches {
            apply_in(&mut tx, self.origin.as_deref(), cluster, events, expect).await?;
        }
        tx.commit().await
    }

    /// SQLite: a watch batch of a few changes (and no change feed to record) as one text that
    /// begins a transaction, writes the batch's deletions in order (their label rows go by the
    /// foreign key), then its upserts as [`apply_in`] does (see [`Pending`]) in one statement
    /// with their label rows ([`sql::upsert_with_labels`]), and commits: one round trip to
    /// SQLite's thread instead of one for `BEGIN`, one per chunk of upserts or deletion, and one
    /// for `COMMIT`. `None` for any other batch, written by [`apply_in`]. The text of a batch of
    /// upserts only, of any clusters, depends only on how many objects it holds: it is kept
    /// prepared up to [`KEPT_TEXTS_UP_TO`] of them.
    fn one_text(&self, batches: &[(&str, &[Change], Expect)]) -> Result<Option<OneText>> {
        let Pool::Sqlite(pools) = &self.pool else { return Ok(None) };
        let changes: usize = batches.iter().map(|(_, events, _)| events.len()).sum();
        if self.origin.is_some()
            || !sql::upserts_with_labels(Dialect::Sqlite, changes)
            || batches.iter().any(|(_, _, expect)| *expect != Expect::Any)
        {
            return Ok(None);
        }
        let upserts_only =
            batches.iter().all(|(_, events, _)| events.iter().all(|c| matches!(c, Change::Upsert(_))));
        let mut text = statement::Builder::new(Dialect::Sqlite, pools.writer(upserts_only).1).finish();
        // Deletions in order, then the upserts left (see [`Pending`]).
        let mut pending = Pending::default();
        for &(cluster, events, _) in batches {
            for change in events {
                match change {
                    Change::Upsert(o) => {
                        o.validate()?;
                        pending.upsert(cluster, o);
                    }
                    Change::Delete { gvr, namespace, name, uid } => {
                        pending.delete(cluster, gvr, namespace, name, uid);
                        text = text.then(sql::delete_object(
                            Dialect::Sqlite,
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
            text = text.then(sql::upsert_with_labels(objects.iter().map(|(c, p)| (*c, p))));
        }
        let mut text = text.then(statement::Builder::new(Dialect::Sqlite, "COMMIT").finish());
        text.reuse = upserts_only && objects.len() <= KEPT_TEXTS_UP_TO;
        Ok(Some(OneText { text, upserts_only }))
    }

    /// Runs a text of [`Store::one_text`] as the writer, in a task of its own (see [`Tx`]): on
    /// the connection without foreign key checks when it deletes no object (see
    /// [`Store::begin_upserts`]).
    async fn write_one_text(&self, one: OneText) -> Result<()> {
        let Pool::Sqlite(pools) = &self.pool else { unreachable!("one_text answers only on SQLite") };
        let _write = Arc::clone(&self.write_lock).lock_owned().await;
        let pool = pools.writer(one.upserts_only).0.clone();
        detached(async move { sqlite::execute_transaction(&pool, one.text).await }).await?
    }

    /// After a fresh list whose unchanged objects were skipped (see [`Store::relist_keys`]):
    /// removes the rows of one type in one cluster whose uid `keep` did not list (a row written
    /// after the keys were read too). Returns them as deletions,
    /// for the watch streams (a list after a gap is how a deletion the watch missed is found).
    pub async fn delete_missing(&self, cluster: &str, gvr: &Gvr, keep: &RelistKeys) -> Result<Vec<Change>> {
        let mut tx = self.begin(true).await?;
        let (ids, deleted) = not_kept(&mut tx, cluster, gvr, keep).await?;
        for chunk in ids.chunks(sql::CHUNK) {
            tx.execute(sql::delete_objects(tx.dialect, chunk)).await?;
        }
        feed::record(&mut tx, self.origin.as_deref(), cluster, &deleted).await?;
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

    /// Every cluster that has objects or a cluster row, by name.
    pub async fn cluster_names(&self) -> Result<Vec<String>> {
        let mut tx = self.begin(false).await?;
        let stmt = statement::Builder::new(
            tx.dialect,
            "SELECT cluster FROM resources UNION SELECT name FROM clusters ORDER BY 1",
        )
        .finish();
        let rows = tx.fetch(stmt, &[Col::Text]).await?;
        tx.commit().await?;
        Ok(rows.into_iter().map(|mut r| r.text(0)).collect())
    }

    /// Removes every object of one type in one cluster (the type went away): a relist that
    /// listed nothing, its rows read a page at a time. Returns them as deletions, for the watch
    /// streams.
    pub async fn delete_gvr(&self, cluster: &str, gvr: &Gvr) -> Result<Vec<Change>> {
        self.delete_missing(cluster, gvr, &RelistKeys::default()).await
    }

    /// Removes every object of a cluster, their labels and the cluster's row (unjoin). Returns
    /// the objects removed as deletions, for the watch streams.
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
        tx.execute(sql::delete_cluster_objects(d, cluster)).await?;
        let mut b = statement::Builder::new(d, "DELETE FROM clusters WHERE name = ");
        b.bind(cluster);
        tx.execute(b.finish()).await?;
        feed::record(&mut tx, self.origin.as_deref(), cluster, &gone).await?;
        tx.commit().await?;
        Ok(gone)
    }

    /// Lists objects in the stable order, one page at a time.
    pub async fn query(&self, q: &Query) -> Result<Page> {
        let (filter, after_fetch) = q.sql_filter();
        let limit = q.limit.filter(|&l| l > 0).map(|l| l as usize);
        // One row more than a page tells whether another page exists; with fields filtered
        // here, scan in larger batches until the page is full or the rows run out.
        // Newest first has no cursor to scan on from: with fields filtered here it reads every row.
        let batch = match (q.order, after_fetch.is_empty()) {
            (_, true) => limit.map(|l| l + 1),
            (Order::Name, false) => limit.map(|l| (l + 1).max(MIN_SCAN_BATCH)),
            (Order::Newest, false) => None,
        };

        let mut tx = self.begin(false).await?;
        let mut after = q.continue_after.clone();
        let mut items = Vec::new();
        let mut last: Option<Cursor> = None;
        loop {
            let rows = fetch_page(&mut tx, &filter, after.as_ref(), batch, q.order).await?;
            let scanned = rows.len();
            for mut row in rows {
                let cursor = Cursor::from_row(&mut row);
                let object = RawObject::from_text(row.text(6)).map_err(|e| {
                    Error::Corrupt(format!(
                        "object {}/{}/{} of cluster {}: {e}",
                        cursor.group, cursor.resource, cursor.name, cursor.cluster
                    ))
                })?;
                // Only fields SQL cannot evaluate need the parsed object.
                let matches = after_fetch.is_empty() || {
                    let parsed = object.value();
                    after_fetch.iter().all(|r| r.matches(&parsed))
                };
                after = Some(cursor.clone());
                if !matches {
                    continue;
                }
                if limit.is_some_and(|l| items.len() >= l) {
                    tx.commit().await?;
                    let next = if q.order == Order::Name { last } else { None };
                    return Ok(Page { items, next });
                }
                items.push((cursor.cluster.clone(), object));
                last = Some(cursor);
            }
            match batch {
                Some(b) if scanned >= b => {}
                _ => break,
            }
        }
        tx.commit().await?;
        Ok(Page { items, next: None })
    }

    /// How many objects of a cluster are stored.
    pub async fn count(&self, cluster: &str) -> Result<u64> {
        let mut tx = self.begin(false).await?;
        let mut b = statement::Builder::new(tx.dialect, "SELECT COUNT(*) FROM resources WHERE cluster = ");
        b.bind(cluster);
        let rows = tx.fetch(b.finish(), &[Col::Int]).await?;
        tx.commit().await?;
        Ok(rows.first().map_or(0, |r| u64::try_from(r.int(0)).unwrap_or(0)))
    }

    /// How many objects of each type a cluster has.
    pub async fn count_by_gvr(&self, cluster: &str) -> Result<BTreeMap<Gvr, u64>> {
        let mut tx = self.begin(false).await?;
        let mut b = statement::Builder::new(
            tx.dialect,
            "SELECT \"group\", version, resource, COUNT(*) FROM resources WHERE cluster = ",
        );
        b.bind(cluster).push(" GROUP BY \"group\", version, resource");
        let rows = tx.fetch(b.finish(), &[Col::Text, Col::Text, Col::Text, Col::Int]).await?;
        tx.commit().await?;
        Ok(rows
            .into_iter()
            .map(|mut r| {
                let n = u64::try_from(r.int(3)).unwrap_or(0);
                (Gvr::new(r.text(0), r.text(1), r.text(2)), n)
            })
            .collect())
    }

    /// `(uid, resource_version)` of every stored object of one type in one cluster.
    pub async fn list_keys(&self, cluster: &str, gvr: &Gvr) -> Result<Vec<(String, String)>> {
        let mut keys = Vec::new();
        let mut tx = self.begin(false).await?;
        each_key(&mut tx, cluster, gvr, |_, uid, version| keys.push((uid.to_string(), version.to_string())))
            .await?;
        tx.commit().await?;
        Ok(keys)
    }

    /// The resource version of every stored object of one type in one cluster, by uid, read a
    /// page at a time into a compact sorted array: a relist skips the objects stored at their
    /// version and marks what it lists (see [`Store::delete_missing`]).
    pub async fn relist_keys(&self, cluster: &str, gvr: &Gvr) -> Result<RelistKeys> {
        let mut tx = self.begin(false).await?;
        // Sized once: a map that doubles as it fills holds both tables while it moves.
        let rows = tx.fetch(sql::count_gvr_rows(tx.dialect, cluster, gvr), &[Col::Int]).await?;
        let mut keys =
            RelistKeys::with_capacity(rows.first().map_or(0, |r| r.int(0)).try_into().unwrap_or(0));
        each_key(&mut tx, cluster, gvr, |_, uid, version| keys.insert(uid, version)).await?;
        tx.commit().await?;
        keys.seal();
        Ok(keys)
    }

    /// Inserts or replaces a cluster's row.
    pub async fn upsert_cluster(&self, cluster: &ClusterRow) -> Result<()> {
        let mut tx = self.begin(true).await?;
        tx.execute(sql::upsert_cluster(tx.dialect, cluster)).await?;
        tx.commit().await
    }

    /// Every cluster row, by name.
    pub async fn list_clusters(&self) -> Result<Vec<ClusterRow>> {
        let mut tx = self.begin(false).await?;
        let rows = tx.fetch(sql::select_clusters(tx.dialect), &sql::CLUSTER_COLS).await?;
        tx.commit().await?;
        rows.into_iter()
            .map(|mut r| {
                let name = r.text(0);
                let info = serde_json::from_str(&r.text(7))
                    .map_err(|e| Error::Corrupt(format!("info of cluster {name}: {e}")))?;
                Ok(ClusterRow {
                    is_master: r.bool(1),
                    status: r.text(2),
                    version: r.text(3),
                    platform: r.text(4),
                    host: r.text(5),
                    updated_at: r.int(6),
                    info,
                    name,
                })
            })
            .collect()
    }
}

/// The ids of the rows of one type in one cluster whose uid `keep` did not list, and those rows
/// as deletions. Only ids and uids of every row are read, a page at a time: after a first list
/// every row is kept, and a type may hold a million.
async fn not_kept(
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

/// Rows of [`each_key`] read at once: a few megabytes however many rows the type has (a few in
/// unit tests, so that their types span pages).
const KEYS_PAGE: usize = if cfg!(test) { 7 } else { 10_000 };

/// Calls `each` with `(id, uid, resource_version)` of every row of one type in one cluster, in
/// key order, reading [`KEYS_PAGE`] rows at a time (along the unique key's index).
async fn each_key(
    tx: &mut Tx,
    cluster: &str,
    gvr: &Gvr,
    mut each: impl FnMut(i64, &str, &str),
) -> Result<()> {
    let mut after: Option<(String, String)> = None;
    loop {
        let stmt = sql::select_keys_page(tx.dialect, cluster, gvr, after.as_ref(), KEYS_PAGE);
        let mut rows = tx.fetch(stmt, &sql::KEYS_PAGE_COLS).await?;
        for row in &rows {
            each(row.int(0), row.str(1), row.str(2));
        }
        if rows.len() < KEYS_PAGE {
            return Ok(());
        }
        let Some(last) = rows.last_mut() else { return Ok(()) };
        after = Some((last.text(3), last.text(4)));
    }
}

/// The rows with these ids (of one type) as deletions of their objects.
async fn identities(tx: &mut Tx, gvr: &Gvr, ids: &[i64]) -> Result<Vec<Change>> {
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

/// One page of query rows in the [`sql::QUERY_COLS`] shape. On SQLite a limited page whose rows
/// must be sorted ([`sql::sorts_rows`]) is read as its sort keys and row ids first, then its
/// objects by id: SQLite sorts an `ORDER BY … LIMIT` in a b-tree that carries each row's whole
/// object, while the keys alone sort as fast as without a limit. A page read along an index in
/// its order is read in one step: it needs no sort, and a second read of every row only costs
/// time (see docs/adr/0020-store-query-plans.md).
async fn fetch_page(
    tx: &mut Tx,
    filter: &SqlFilter<'_>,
    after: Option<&Cursor>,
    limit: Option<usize>,
    order: Order,
) -> Result<Vec<Row>> {
    let d = tx.dialect;
    if d != Dialect::Sqlite || limit.is_none() || !sql::sorts_rows(filter, order) {
        return tx.fetch(sql::select_page(d, filter, after, limit, order), &sql::QUERY_COLS).await;
    }
    let keys = sql::select_rows(d, filter, after, limit, order, sql::Payload::Digest);
    let keys = tx.fetch(keys, &sql::DIGEST_COLS).await?;
    let ids: Vec<i64> = keys.iter().map(|r| r.int(6)).collect();
    let mut objects = objects_by_id(tx, &ids).await?;
    // Both reads are in one transaction: every id of the first has its object in the second.
    keys.into_iter()
        .map(|mut row| {
            let (_, object) = objects.remove(&row.int(6)).ok_or_else(|| {
                Error::Corrupt(format!("row {} vanished between two reads of one transaction", row.int(6)))
            })?;
            row.0.truncate(6);
            row.0.push(statement::Cell::Text(object));
            Ok(row)
        })
        .collect()
}

/// `(hash, object JSON)` of the rows with these ids, read a chunk of ids at a time; a row that
/// is gone is absent.
async fn objects_by_id(tx: &mut Tx, ids: &[i64]) -> Result<HashMap<i64, (Option<String>, String)>> {
    let mut objects = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(sql::CHUNK) {
        for mut row in tx.fetch(sql::select_by_id(tx.dialect, chunk), &sql::BY_ID_COLS).await? {
            objects.insert(row.int(0), (row.opt_text(1), row.text(2)));
        }
    }
    Ok(objects)
}

/// One cluster's changes in `tx`, in order (see [`Store::apply_changes`]).
async fn apply_in(
    tx: &mut Tx,
    origin: Option<&str>,
    cluster: &str,
    events: &[Change],
    expect: Expect,
) -> Result<()> {
    let d = tx.dialect;
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
    feed::record(tx, origin, cluster, events).await
}

/// Writes the upserts [`Store::apply_changes`] collected (those of one cluster) and forgets them.
async fn write_pending(tx: &mut Tx, cluster: &str, pending: &mut Pending<'_>, expect: Expect) -> Result<()> {
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
/// SQLite's thread ([`sql::upsert_with_labels`]).
///
/// On MySQL/MariaDB, such objects are inserted by a plain `INSERT`, which answers the first id
/// it gave: when the row of the last id is the chunk's last object ([`consecutive`]), the ids
/// are known without reading them back by uid, and there are no label rows to delete. A chunk
/// with an object already stored fails with a duplicate key (only that statement is rolled
/// back) and is upserted.
///
/// On PostgreSQL, they are copied ([`copy::write_new_rows`]) with their label rows, ids drawn
/// from the table's sequence; if one is stored, the copy is rolled back and all are upserted.
async fn write_objects(tx: &mut Tx, cluster: &str, objects: &[Prepared<'_>], expect: Expect) -> Result<()> {
    let d = tx.dialect;
    // PostgreSQL: a first list's objects by `COPY`; where one is stored, they are upserted.
    if d == Dialect::Postgres && expect == Expect::NewRows {
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
    let first_id = match d {
        Dialect::Sqlite if expect == Expect::NewRows && !objects.is_empty() => {
            let max =
                tx.fetch(sql::max_id(d, "resources"), &[Col::Int]).await?.first().map_or(0, |r| r.int(0));
            max.checked_add(1).filter(|first| first.checked_add(objects.len() as i64).is_some())
        }
        _ => None,
    };
    // MySQL/MariaDB: a first list's chunks as plain inserts, whose ids InnoDB answers.
    let inserts = d == Dialect::MySql && expect == Expect::NewRows;
    let mut offset = 0;
    let mut chunks = sql::write_chunks(d, objects).map(|chunk| {
        let step = match first_id.map(|first| first + offset) {
            Some(first) => (Write::NewIds(first), sql::insert_new_resources(cluster, chunk, first)),
            None if inserts => (Write::Insert, sql::insert_resources(cluster, chunk)),
            None if sql::upserts_with_labels(d, chunk.len()) => {
                (Write::WithLabels, sql::upsert_with_labels(chunk.iter().map(|p| (cluster, p))))
            }
            None => (Write::Upsert, sql::upsert_resources(d, cluster, chunk)),
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
                tx.fetch(sql::upsert_resources(d, cluster, chunk), resource_columns::upsert_cols(d)).await?
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
                    overlapped(tx.fetch(stmt, resource_columns::upsert_cols(d)), || chunks.next()).await;
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
fn with_ids<'a>(
    chunk: &'a [Prepared<'_>],
    first: i64,
) -> impl Iterator<Item = (i64, &'a BTreeMap<String, String>)> {
    chunk.iter().zip(first..).map(|(p, id)| (id, &p.object.labels))
}

/// The rows of a chunk just written, read back by uid (MySQL/MariaDB, which answer no
/// `RETURNING`), as [`resource_columns::IDS_BY_UID_COLS`].
async fn ids_by_uid(tx: &mut Tx, cluster: &str, chunk: &[Prepared<'_>]) -> Result<Vec<Row>> {
    let uids = chunk.iter().map(|p| p.object.uid.as_str());
    tx.fetch(sql::select_ids_by_uid(tx.dialect, cluster, uids), &resource_columns::IDS_BY_UID_COLS).await
}

/// How [`write_objects`] writes a chunk first.
enum Write {
    /// SQLite: as new rows with these ids and the ones after, skipping stored ones.
    NewIds(i64),
    /// MySQL/MariaDB: as new rows, by a plain insert that fails if one is stored.
    Insert,
    /// Inserted or updated.
    Upsert,
    /// SQLite: inserted or updated, with its label rows, by one text (a watch batch's few
    /// objects, see [`sql::upsert_with_labels`]).
    WithLabels,
}

/// Whether the rows a plain insert of `chunk` (of `cluster`) just wrote have the ids `first`,
/// `first + 1`, … in its order: the row of the last id is the chunk's last object. An insert's
/// ids increase row by row, so its rows are then exactly the ids between. InnoDB gives a plain
/// multi-row insert consecutive ids with `innodb_autoinc_lock_mode` 0 or 1 (MariaDB's default)
/// and `auto_increment_increment` 1; with others, this says no and the ids are read back.
async fn consecutive(tx: &mut Tx, cluster: &str, chunk: &[Prepared<'_>], first: i64) -> Result<bool> {
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
async fn overlapped<T, U>(step: impl Future<Output = T>, work: impl FnOnce() -> U) -> (T, U) {
    let mut step = std::pin::pin!(step);
    if let std::task::Poll::Ready(done) = futures::poll!(step.as_mut()) {
        return (done, work());
    }
    tokio::task::yield_now().await;
    let u = work();
    (step.await, u)
}

#[cfg(test)]
mod tests;
