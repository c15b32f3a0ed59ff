//! PostgreSQL backend (objects as JSON text, byte-order `"C"` collation on key columns).

use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgArguments, PgConnectOptions, PgConnection, PgPoolOptions};
use sqlx::{PgPool, Postgres, Row as _};

use super::statement::{Arg, Array, Cell, Col, Row, Stmt};
use super::{Error, Result, redact_url};

static MIGRATOR: Migrator = sqlx::migrate!("migrations/postgres");

/// Connects to `postgres://` or `postgresql://` and migrates the database.
pub(super) async fn connect(url: &str) -> Result<PgPool> {
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
            Arg::Array(Array::Text(v)) => q.bind(v.as_slice()),
            Arg::Array(Array::OptText(v)) => q.bind(v.as_slice()),
            Arg::Array(Array::Int(v)) => q.bind(v.as_slice()),
            Arg::Array(Array::OptInt(v)) => q.bind(v.as_slice()),
        };
    }
    q
}

pub(super) async fn execute(conn: &mut PgConnection, stmt: &Stmt) -> Result<u64> {
    Ok(bind(stmt).execute(conn).await?.rows_affected())
}

pub(super) async fn fetch(conn: &mut PgConnection, stmt: &Stmt, cols: &[Col]) -> Result<Vec<Row>> {
    let rows = bind(stmt).fetch_all(conn).await?;
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
                    })
                })
                .collect::<Result<Vec<Cell>>>()?;
            Ok(Row(cells))
        })
        .collect()
}
