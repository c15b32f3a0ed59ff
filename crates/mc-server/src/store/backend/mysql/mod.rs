//! MySQL and MariaDB backend (InnoDB, utf8mb4 with binary collation).

use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::mysql::{MySqlArguments, MySqlConnectOptions, MySqlConnection, MySqlPoolOptions};
use sqlx::{MySql, MySqlPool, Row as _};

mod insert;

use crate::store::dialect::{NewRows, SqlDialect};
use crate::store::sql::{CHUNK, LABEL_CHUNK};
use crate::store::statement::{Arg, Cell, Col, JsonAt, Placeholder, Row, Stmt, Syntax, Upsert};
use crate::store::{Error, Result, redact_url};

/// MySQL/MariaDB's syntax and write strategy. A write's rest goes in one statement: a
/// transaction of more statements holds its locks longer, and writers of different clusters at
/// once (replicas sharing the database) deadlock again and again
/// (docs/adr/0011-mysql-first-lists-as-plain-inserts.md). MariaDB does not scan an index range
/// for a row-value comparison (docs/adr/0020-store-query-plans.md). It defers no index.
pub(in crate::store) static DIALECT: SqlDialect = SqlDialect {
    name: "mysql",
    syntax: Syntax {
        quote: '`',
        placeholder: Placeholder::Question,
        unix_time: ("FROM_UNIXTIME(", ")"),
        json_param: None,
        json_as_text: Some("CHAR"),
        upsert: Upsert::OnDuplicateKey,
        row_values_use_index: false,
        binds_arrays: false,
        json_at: JsonAt::Extract,
    },
    new_rows: NewRows::InsertAnswersFirstId(insert::insert_resources),
    chunk: CHUNK,
    label_chunk: LABEL_CHUNK,
    power_of_two_rests: false,
    one_text_below: 0,
    upsert_with_labels: None,
    // `INSERT … ON DUPLICATE KEY UPDATE` has no `RETURNING`; the uid index that reading them
    // back needs is kept.
    upsert_returns_ids: false,
    upsert_tells_created: false,
    upsert_resources: None,
    insert_labels: None,
    stages_revisions: false,
    labels_cascade: true,
    sorts_keys_first: false,
    index_definition: None,
    locks_for_replicas: false,
    around_index_build: None,
    database_bytes: Some(
        "SELECT CAST(COALESCE(SUM(data_length + index_length), 0) AS SIGNED) \
         FROM information_schema.tables WHERE table_schema = DATABASE()",
    ),
};

static MIGRATOR: Migrator = sqlx::migrate!("migrations/mysql");

/// Connects to `mysql://` or `mariadb://` (the same protocol) and migrates the database.
pub(in crate::store) async fn connect(url: &str) -> Result<MySqlPool> {
    let connect_error = |error| Error::Connect { backend: "mysql", url: redact_url(url), error };
    let normalized = match url.strip_prefix("mariadb:") {
        Some(rest) => format!("mysql:{rest}"),
        None => url.to_string(),
    };
    // Parameters in the columns' own collation: with another one MariaDB could not see that
    // `group = ?` fixes the sort order's leading columns and sorted the whole type for a page.
    let options = MySqlConnectOptions::from_str(&normalized)
        .map_err(connect_error)?
        .charset("utf8mb4")
        .collation("utf8mb4_bin");
    let pool = MySqlPoolOptions::new()
        .max_connections(10)
        .acquire_timeout(Duration::from_secs(30))
        .connect_with(options)
        .await
        .map_err(connect_error)?;
    set_aside_the_go_projects_table(&pool).await?;
    MIGRATOR.run(&pool).await.map_err(|error| Error::Migrate { backend: "mysql", error })?;
    Ok(pool)
}

/// A database the Go project used has its `resources` table (MyISAM, no natural key) and none
/// of our migrations. That table is only a cache of the clusters, but it is kept: renamed to
/// `resources_go_original_<unix seconds>` (rename it back to roll back), and ours is created.
async fn set_aside_the_go_projects_table(pool: &MySqlPool) -> Result<()> {
    let count = |table: &'static str| {
        sqlx::query_scalar::<_, i64>(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
        )
        .bind(table)
        .fetch_one(pool)
    };
    if count("_sqlx_migrations").await? > 0 || count("resources").await? == 0 {
        return Ok(());
    }
    let kept = format!("resources_go_original_{}", k8s_openapi::jiff::Timestamp::now().as_second());
    sqlx::query(&format!("RENAME TABLE resources TO `{kept}`")).execute(pool).await?;
    tracing::warn!(table = %kept, "the Go project's resources table was renamed; ours is created next to it");
    Ok(())
}

fn bind(stmt: &Stmt) -> sqlx::query::Query<'_, MySql, MySqlArguments> {
    let mut q = sqlx::query(&stmt.sql).persistent(stmt.persistent());
    for arg in &stmt.args {
        q = match arg {
            Arg::Text(s) => q.bind(s.as_str()),
            Arg::OptText(s) => q.bind(s.as_deref()),
            Arg::Int(i) => q.bind(*i),
            Arg::OptInt(i) => q.bind(*i),
            Arg::Bool(b) => q.bind(*b),
            Arg::OptBytes(b) => q.bind(b.as_deref()),
            // No array parameters here: the statements that bind them are PostgreSQL's.
            Arg::Array(a) => q.bind(a.to_json()),
        };
    }
    q
}

/// Runs a statement: the rows it changed, and the id given to the first row it inserted (MySQL's
/// `LAST_INSERT_ID()` of the statement; 0 when it gave none).
pub(in crate::store) async fn execute(conn: &mut MySqlConnection, stmt: &Stmt) -> Result<(u64, u64)> {
    let done = bind(stmt).execute(conn).await?;
    Ok((done.rows_affected(), done.last_insert_id()))
}

/// Text comes back as bytes: sqlx refuses `String` for columns flagged BINARY, which MySQL sets
/// for every `utf8mb4_bin` column.
fn text(bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| Error::Query(sqlx::Error::Decode(Box::new(e))))
}

pub(in crate::store) async fn fetch(
    conn: &mut MySqlConnection,
    stmt: &Stmt,
    cols: &[Col],
) -> Result<Vec<Row>> {
    let rows = bind(stmt).fetch_all(conn).await?;
    rows.iter()
        .map(|row| {
            let cells = cols
                .iter()
                .enumerate()
                .map(|(i, col)| {
                    Ok(match col {
                        Col::Int => Cell::Int(row.try_get(i)?),
                        Col::Text => Cell::Text(text(row.try_get(i)?)?),
                        Col::OptText => match row.try_get::<Option<Vec<u8>>, _>(i)? {
                            Some(bytes) => Cell::Text(text(bytes)?),
                            None => Cell::Null,
                        },
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
