//! PostgreSQL backend (objects as JSON text, byte-order `"C"` collation on key columns).

use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgArguments, PgConnectOptions, PgConnection, PgPoolOptions};
use sqlx::{PgPool, Postgres, Row as _};

pub(in crate::store) mod copy;
mod unnest;

use crate::store::dialect::{NewRows, SqlDialect};
use crate::store::statement::{Arg, Array, Cell, Col, JsonAt, Placeholder, Row, Stmt, Syntax, Upsert};
use crate::store::{Error, Result, redact_url};

/// PostgreSQL's syntax and write strategy. Whole columns bind as arrays, one text for any number
/// of rows, and a first list's objects are copied (docs/adr/0010-postgresql-arrays-and-copy.md).
/// A label row has no foreign key to its object (migration 0006): the statement that deletes
/// objects deletes their label rows.
pub(in crate::store) static DIALECT: SqlDialect = SqlDialect {
    name: "postgres",
    syntax: Syntax {
        quote: '"',
        placeholder: Placeholder::Numbered,
        unix_time: ("to_timestamp(CAST(", " AS DOUBLE PRECISION))"),
        json_param: Some(("CAST(", " AS JSONB)")),
        json_as_text: Some("TEXT"),
        upsert: Upsert::OnConflict,
        row_values_use_index: true,
        binds_arrays: true,
        json_at: JsonAt::PathArray,
    },
    new_rows: NewRows::Copy,
    chunk: unnest::CHUNK,
    label_chunk: unnest::CHUNK,
    power_of_two_rests: false,
    one_text_below: 0,
    upsert_with_labels: None,
    upsert_returns_ids: true,
    upsert_tells_created: true,
    upsert_resources: Some(unnest::upsert_resources),
    insert_labels: Some(unnest::insert_labels),
    stages_revisions: false,
    labels_cascade: false,
    sorts_keys_first: false,
    index_definition: Some(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ",
    ),
    locks_for_replicas: true,
    around_index_build: None,
    database_bytes: Some("SELECT pg_database_size(current_database())"),
};

static MIGRATOR: Migrator = sqlx::migrate!("migrations/postgres");

/// Connects to `postgres://` or `postgresql://` and migrates the database.
pub(in crate::store) async fn connect(url: &str) -> Result<PgPool> {
    let connect_error = |error| Error::Connect { backend: "postgres", url: redact_url(url), error };
    let options = PgConnectOptions::from_str(url).map_err(connect_error)?;
    let pool = PgPoolOptions::new()
        .max_connections(10)
        .acquire_timeout(Duration::from_secs(30))
        .connect_with(options)
        .await
        .map_err(connect_error)?;
    MIGRATOR.run(&pool).await.map_err(|error| Error::Migrate { backend: "postgres", error })?;
    Ok(pool)
}

fn bind(stmt: &Stmt) -> sqlx::query::Query<'_, Postgres, PgArguments> {
    let mut q = sqlx::query(&stmt.sql).persistent(stmt.persistent());
    for arg in &stmt.args {
        q = match arg {
            Arg::Text(s) => q.bind(s.as_str()),
            Arg::OptText(s) => q.bind(s.as_deref()),
            Arg::Int(i) => q.bind(*i),
            Arg::OptInt(i) => q.bind(*i),
            Arg::Bool(b) => q.bind(*b),
            Arg::OptBytes(b) => q.bind(b.as_deref()),
            Arg::Array(Array::Text(v)) => q.bind(v.as_slice()),
            Arg::Array(Array::OptText(v)) => q.bind(v.as_slice()),
            Arg::Array(Array::Int(v)) => q.bind(v.as_slice()),
            Arg::Array(Array::OptInt(v)) => q.bind(v.as_slice()),
        };
    }
    q
}

pub(in crate::store) async fn execute(conn: &mut PgConnection, stmt: &Stmt) -> Result<u64> {
    Ok(bind(stmt).execute(conn).await?.rows_affected())
}

pub(in crate::store) async fn fetch(conn: &mut PgConnection, stmt: &Stmt, cols: &[Col]) -> Result<Vec<Row>> {
    let rows = bind(stmt).fetch_all(conn).await?;
    rows.iter()
        .map(|row| {
            let cells = cols
                .iter()
                .enumerate()
                .map(|(i, col)| {
                    Ok(match col {
                        Col::Int => opt_int(row, i)?.map_or(Cell::Null, Cell::Int),
                        Col::Text => Cell::Text(row.try_get(i)?),
                        Col::OptText => row.try_get::<Option<String>, _>(i)?.map_or(Cell::Null, Cell::Text),
                        Col::Bool => Cell::Bool(row.try_get(i)?),
                        Col::OptInt => opt_int(row, i)?.map_or(Cell::Null, Cell::Int),
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

/// An integer column of any width (`SMALLINT`, `INTEGER`, `BIGINT`), which PostgreSQL answers
/// as its own type and sqlx decodes only as that width.
fn opt_int(row: &sqlx::postgres::PgRow, i: usize) -> Result<Option<i64>> {
    use sqlx::{Column as _, TypeInfo as _};
    let width = row.columns().get(i).map(|c| c.type_info().name().to_string()).unwrap_or_default();
    Ok(match width.as_str() {
        "INT2" => row.try_get::<Option<i16>, _>(i)?.map(i64::from),
        "INT4" => row.try_get::<Option<i32>, _>(i)?.map(i64::from),
        _ => row.try_get::<Option<i64>, _>(i)?,
    })
}
