//! Embedded SQLite backend: one database file, WAL journal, one writer at a time.

use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::sqlite::{
    SqliteArguments, SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePoolOptions,
    SqliteSynchronous,
};
use sqlx::{Row as _, Sqlite, SqlitePool};

mod checkpoint;
mod new_rows;
mod one_text;

use checkpoint::Checkpoints;
#[cfg(test)]
pub(in crate::store) use checkpoint::EVERY as CHECKPOINT_EVERY;
#[cfg(test)]
pub(in crate::store) use one_text::KEPT_TEXTS_UP_TO;
use one_text::upsert_with_labels;

use crate::store::dialect::{NewRows, SqlDialect};
use crate::store::sql::{CHUNK, LABEL_CHUNK};
use crate::store::statement::{Arg, Cell, Col, JsonAt, Placeholder, Row, Stmt, Syntax, Upsert};
use crate::store::{Error, Result, redact_url};

/// Rows that go in one statement however many they are: a watch batch's few changes. Cut in
/// powers of two, 5 upserts took 2 upserts, 2 label deletes and 2 label inserts, each a round
/// trip to SQLite's thread, instead of one each, and under a watch churn those round trips are
/// what a change waits for (see docs/adr/0009-sqlite-watch-batches-in-one-text.md). A text
/// this small costs little to parse anew.
const ONE_STATEMENT_BELOW: usize = 64;

/// SQLite's syntax and write strategy. Rests of a write are cut in powers of two so that their
/// texts come back and stay prepared (docs/adr/0008-sqlite-bulk-writes.md); a limited sorted
/// page is read as keys first (docs/adr/0020-store-query-plans.md); deferred indexes are built
/// with their sort in a temporary file, not in memory (docs/adr/0012-deferred-indexes.md).
pub(in crate::store) static DIALECT: SqlDialect = SqlDialect {
    name: "sqlite",
    syntax: Syntax {
        quote: '"',
        placeholder: Placeholder::Question,
        unix_time: ("datetime(", ", 'unixepoch')"),
        json_param: None,
        json_as_text: None,
        upsert: Upsert::OnConflict,
        row_values_use_index: true,
        binds_arrays: false,
        json_at: JsonAt::Arrow,
    },
    new_rows: NewRows::IdsAboveLargest(new_rows::insert_new_resources),
    chunk: CHUNK,
    label_chunk: LABEL_CHUNK,
    power_of_two_rests: true,
    one_text_below: ONE_STATEMENT_BELOW,
    upsert_with_labels: Some(upsert_with_labels),
    upsert_returns_ids: true,
    upsert_tells_created: false,
    upsert_resources: None,
    insert_labels: None,
    stages_revisions: true,
    labels_cascade: true,
    sorts_keys_first: true,
    index_definition: Some("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = "),
    locks_for_replicas: false,
    around_index_build: Some(("PRAGMA temp_store = FILE", "PRAGMA temp_store = MEMORY")),
    database_bytes: None,
};

static MIGRATOR: Migrator = sqlx::migrate!("migrations/sqlite");

/// A store's connections. Reads and most writes share `main`, whose connections check foreign
/// keys. A file store writes upserts (see `Store::begin_upserts`) on a connection of its own
/// opened without the checks: switching them per transaction (`PRAGMA foreign_keys`, as the
/// single connection of `:memory:` still does) expires every statement the connection keeps
/// prepared, so each multi-row upsert of thousands of parameters would be parsed again in the
/// next transaction (see docs/adr/0008-sqlite-bulk-writes.md).
#[derive(Clone)]
pub(in crate::store) struct Pools {
    pub(in crate::store) main: SqlitePool,
    /// `None` for `:memory:`, whose every connection is a database of its own.
    pub(in crate::store) upserts: Option<SqlitePool>,
    /// The log's checkpoints off the writer's path (`None` for `:memory:`, which has no log).
    checkpoints: Option<Checkpoints>,
}

impl Pools {
    /// The pool of a write transaction (`upserts`: one that deletes no object), and the SQL that
    /// begins it. IMMEDIATE takes the write lock up front: no busy error half-way through.
    /// `:memory:`'s one connection switches the checks for each write transaction (sqlite3_exec
    /// runs both statements; the pragma is a no-op inside a transaction, so it comes first).
    pub(in crate::store) fn writer(&self, upserts: bool) -> (&SqlitePool, &'static str) {
        match (&self.upserts, upserts) {
            (Some(pool), true) => (pool, "BEGIN IMMEDIATE"),
            (Some(_), false) => (&self.main, "BEGIN IMMEDIATE"),
            (None, true) => (&self.main, "PRAGMA foreign_keys = OFF; BEGIN IMMEDIATE"),
            (None, false) => (&self.main, "PRAGMA foreign_keys = ON; BEGIN IMMEDIATE"),
        }
    }

    pub(in crate::store) async fn close(&self) {
        // sqlx's `close` leaves open a connection that comes back to the pool while it runs (the
        // connection's check on return awaits its worker thread): a second `close` closes it.
        for pool in std::iter::once(&self.main).chain(&self.upserts) {
            pool.close().await;
            pool.close().await;
        }
        if let Some(checkpoints) = &self.checkpoints {
            checkpoints.stop().await;
        }
    }
}

/// Opens (creating when missing) the database file of `sqlite://PATH` and migrates it.
pub(in crate::store) async fn connect(url: &str) -> Result<Pools> {
    let connect_error = |error| Error::Connect { backend: "sqlite", url: redact_url(url), error };
    let memory = url.contains(":memory:") || url.contains("mode=memory");
    let options = SqliteConnectOptions::from_str(url)
        .map_err(connect_error)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(Duration::from_secs(10))
        .foreign_keys(true)
        // Rows are objects of a kilobyte or more: 16 KiB pages hold several of them, so a bulk
        // load splits fewer pages (takes effect when the file is created).
        .pragma("page_size", "16384")
        // Statement journals of multi-row upserts in memory rather than in temporary files.
        .pragma("temp_store", "MEMORY")
        // A commit checkpoints once the log holds 64 MiB rather than 4 MiB: pages an initial
        // sync rewrites again and again are copied into the database fewer times. A task of its
        // own checkpoints more often, off the writer's path (see `checkpoint`).
        .pragma("wal_autocheckpoint", "4096")
        .pragma("journal_size_limit", "67108864");
    if !memory {
        let file = options.get_filename();
        if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_private_dir(dir).map_err(|error| Error::CreateDir { path: dir.to_path_buf(), error })?;
        }
        create_private_file(file).map_err(|e| connect_error(sqlx::Error::Io(e)))?;
    }
    let main = if memory {
        // Every connection to `:memory:` is a database of its own: keep exactly one, forever.
        SqlitePoolOptions::new().max_connections(1).idle_timeout(None).max_lifetime(None)
    } else {
        SqlitePoolOptions::new().max_connections(4)
    }
    .connect_with(options.clone())
    .await
    .map_err(connect_error)?;
    MIGRATOR.run(&main).await.map_err(|error| Error::Migrate { backend: "sqlite", error })?;
    let upserts = if memory {
        None
    } else {
        // One connection, kept: its prepared statements are the point of it.
        let pool = SqlitePoolOptions::new().max_connections(1).idle_timeout(None).max_lifetime(None);
        Some(pool.connect_with(options.clone().foreign_keys(false)).await.map_err(connect_error)?)
    };
    let checkpoints = (!memory).then(|| Checkpoints::spawn(options));
    Ok(Pools { main, upserts, checkpoints })
}

/// A missing store directory, created readable by mc-server's user alone (0700), with the
/// directories above it that are missing; one that exists keeps its mode.
fn create_private_dir(dir: &std::path::Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Creates the database file readable by mc-server's user alone (0600): it holds every object
/// of every cluster. SQLite gives the `-wal` and `-shm` files it creates beside it the database
/// file's mode, so creating the file first, empty (SQLite's empty database), is enough. A file
/// from an earlier release, created open to every user, is made private too.
fn create_private_file(file: &std::path::Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(file) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => make_private(file),
        Err(e) => Err(e),
    }
}

/// Takes group and other users' access away from an existing database file and its `-wal` and
/// `-shm` files.
#[cfg(unix)]
fn make_private(file: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for suffix in ["", "-wal", "-shm"] {
        let mut name = file.as_os_str().to_owned();
        name.push(suffix);
        let path = std::path::Path::new(&name);
        let Ok(meta) = std::fs::metadata(path) else { continue };
        let mode = meta.permissions().mode();
        if meta.is_file() && mode & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o700))?;
            tracing::warn!(file = %path.display(), was = %format!("{:o}", mode & 0o777), "the store's file was open to other users; made private");
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn make_private(_: &std::path::Path) -> std::io::Result<()> {
    Ok(())
}

/// Binds by value, taking the statement's arguments: sqlx hands SQLite's worker thread arguments
/// it owns, so a borrowed text would be copied once more on the way (an object's whole JSON, for
/// every row of a bulk insert).
fn bind(stmt: &mut Stmt) -> sqlx::query::Query<'_, Sqlite, SqliteArguments<'_>> {
    let mut q = sqlx::query(&stmt.sql).persistent(stmt.persistent());
    for arg in std::mem::take(&mut stmt.args) {
        q = match arg {
            Arg::Text(s) => q.bind(s),
            Arg::OptText(s) => q.bind(s),
            Arg::Int(i) => q.bind(i),
            Arg::OptInt(i) => q.bind(i),
            Arg::Bool(b) => q.bind(b),
            Arg::OptBytes(b) => q.bind(b),
            // No array parameters here: the statements that bind them are PostgreSQL's.
            Arg::Array(a) => q.bind(a.to_json()),
        };
    }
    q
}

pub(in crate::store) async fn execute(conn: &mut SqliteConnection, mut stmt: Stmt) -> Result<u64> {
    Ok(bind(&mut stmt).execute(conn).await?.rows_affected())
}

/// Runs `stmt`, a text that begins a transaction and ends with its `COMMIT`, on a connection of
/// `pool`. Where one of its statements fails, the transaction is rolled back before the
/// connection goes back to the pool; where even that fails, the connection is closed: none goes
/// back inside a transaction (sqlx does not know of one it did not begin).
pub(in crate::store) async fn execute_transaction(pool: &SqlitePool, stmt: Stmt) -> Result<()> {
    let mut conn = pool.acquire().await?;
    let Err(error) = execute(&mut conn, stmt).await else { return Ok(()) };
    // No transaction is left open where the `BEGIN` failed, or SQLite rolled it back itself
    // (a full disk, an I/O error): the `ROLLBACK` then fails too, and the connection is closed.
    if sqlx::query("ROLLBACK").execute(&mut *conn).await.is_err() {
        let _ = conn.close().await;
    }
    Err(error)
}

pub(in crate::store) async fn fetch(
    conn: &mut SqliteConnection,
    mut stmt: Stmt,
    cols: &[Col],
) -> Result<Vec<Row>> {
    let rows = bind(&mut stmt).fetch_all(conn).await?;
    rows.iter()
        .map(|row| {
            let cells = cols
                .iter()
                .enumerate()
                .map(|(i, col)| {
                    Ok(match col {
                        Col::Int => Cell::Int(row.try_get(i)?),
                        Col::Text => Cell::Text(row.try_get(i)?),
                        Col::OptText => row.try_get::<Option<String>, _>(i)?.map_or(Cell::Null, Cell::Text),
                        Col::Bool => Cell::Bool(row.try_get(i)?),
                        Col::OptInt => row.try_get::<Option<i64>, _>(i)?.map_or(Cell::Null, Cell::Int),
                        Col::OptBytes => {
                            row.try_get::<Option<Vec<u8>>, _>(i)?.map_or(Cell::Null, Cell::Bytes)
                        }
                    })
                })
                .collect::<Result<Vec<Cell>>>()?;
            Ok(Row(cells))
        })
        .collect()
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &std::path::Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    /// Every file under `dir` with its mode, the directories included.
    fn modes(dir: &std::path::Path) -> Vec<(String, u32)> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            found.push((path.file_name().unwrap().to_string_lossy().to_string(), mode(&path)));
            if path.is_dir() {
                found.extend(modes(&path));
            }
        }
        found.sort();
        found
    }

    #[tokio::test]
    async fn the_database_its_log_and_its_directory_are_private_to_the_servers_user() {
        let dir = std::env::temp_dir().join(format!("mc-sqlite-modes-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let pools = connect(&format!("sqlite://{}/data/mc.db", dir.display())).await.unwrap();
        // A write, so that the log and its index exist.
        sqlx::query("CREATE TABLE probe (x INTEGER)").execute(&pools.main).await.unwrap();
        let found = modes(&dir);
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["data", "mc.db", "mc.db-shm", "mc.db-wal"]);
        for (name, mode) in &found {
            let want = if name == "data" { 0o700 } else { 0o600 };
            assert_eq!(*mode, want, "{name}: {mode:o}");
        }
        pools.close().await;
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn a_database_open_to_other_users_is_made_private() {
        let dir = std::env::temp_dir().join(format!("mc-sqlite-open-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("mc.db");
        std::fs::write(&file, b"").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let pools = connect(&format!("sqlite://{}", file.display())).await.unwrap();
        assert_eq!(mode(&file), 0o600);
        pools.close().await;
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
