//! The backends, one folder each (`sqlite`, `mysql`, `postgres`: connections, migrations,
//! binding, the [`Dialect`] and the code only that backend runs), and what they share:
//! one pool per backend, a transaction whose every step runs in a task of its own, and the
//! statements it runs.

pub(super) mod mysql;
pub(super) mod postgres;
pub(super) mod sqlite;

use std::sync::Arc;

use tokio::sync::OwnedMutexGuard;

use super::{Col, Dialect, Error, Result, Row, Stmt, Store};

#[derive(Clone)]
pub(super) enum Pool {
    Sqlite(sqlite::Pools),
    MySql(sqlx::MySqlPool),
    Postgres(sqlx::PgPool),
}

impl Pool {
    /// The dialect of this pool's backend.
    pub(super) fn dialect(&self) -> Dialect {
        match self {
            Pool::Sqlite(_) => &sqlite::DIALECT,
            Pool::MySql(_) => &mysql::DIALECT,
            Pool::Postgres(_) => &postgres::DIALECT,
        }
    }
}

pub(super) enum Conn {
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
pub(super) struct Tx {
    /// `None` only while a step runs.
    pub(super) conn: Option<Conn>,
    pub(super) dialect: Dialect,
    pub(super) _write: Option<OwnedMutexGuard<()>>,
    /// Begun by [`Store::begin_upserts`]: it must delete no `resources` row.
    pub(super) upserts_only: bool,
}

/// What a transaction may do (see [`Store::begin`] and [`Store::begin_upserts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Access {
    Read,
    Write,
    /// Writes that delete no `resources` row: they insert and update objects and replace their
    /// label rows.
    Upserts,
}

/// Runs one step of a transaction to its end, whether or not its caller waits (see [`Tx`]).
pub(super) async fn detached<T: Send + 'static>(step: impl Future<Output = T> + Send + 'static) -> Result<T> {
    match tokio::spawn(step).await {
        Ok(v) => Ok(v),
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        // The runtime is shutting down.
        Err(_) => Err(Error::Query(sqlx::Error::PoolClosed)),
    }
}

impl Tx {
    pub(super) fn take(&mut self) -> Result<Conn> {
        // Only a step that panicked leaves no connection; its caller unwound with it.
        self.conn.take().ok_or(Error::Query(sqlx::Error::PoolClosed))
    }

    pub(super) async fn execute(&mut self, stmt: Stmt) -> Result<u64> {
        Ok(self.run(stmt).await?.0)
    }

    /// MySQL/MariaDB: runs an `INSERT`; answers how many rows it inserted and the id given to
    /// the first of them (0 elsewhere, or when it gave none).
    pub(super) async fn insert(&mut self, stmt: Stmt) -> Result<(u64, i64)> {
        let (rows, first) = self.run(stmt).await?;
        Ok((rows, first.and_then(|id| i64::try_from(id).ok()).unwrap_or(0)))
    }

    /// Runs a statement that answers no rows: how many it changed, and on MySQL/MariaDB the
    /// first id it gave (`LAST_INSERT_ID()`).
    pub(super) async fn run(&mut self, stmt: Stmt) -> Result<(u64, Option<u64>)> {
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

    pub(super) async fn fetch(&mut self, stmt: Stmt, cols: &[Col]) -> Result<Vec<Row>> {
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
    pub(super) async fn copy(
        &mut self,
        statement: &'static str,
        pieces: impl Iterator<Item = Vec<u8>>,
    ) -> Result<u64> {
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

    pub(super) async fn commit(mut self) -> Result<()> {
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
impl Store {
    pub(super) async fn begin(&self, write: bool) -> Result<Tx> {
        self.begin_as(if write { Access::Write } else { Access::Read }).await
    }

    /// A write transaction that deletes no `resources` row (checked in debug builds): it inserts
    /// and updates objects and replaces their label rows. On SQLite it runs without foreign key
    /// checks, which only matter to a deletion (a label row goes with its object through
    /// `ON DELETE CASCADE`): a multi-row insert into `resources` looks for label rows of every
    /// new row, and every label row inserted looks up its object: lookups that writes deleting
    /// nothing need not pay (see docs/adr/0008-sqlite-bulk-writes.md). A file store runs them on
    /// a connection opened without the checks (see [`sqlite::Pools`]).
    pub(super) async fn begin_upserts(&self) -> Result<Tx> {
        self.begin_as(Access::Upserts).await
    }

    pub(super) async fn begin_as(&self, access: Access) -> Result<Tx> {
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
}
