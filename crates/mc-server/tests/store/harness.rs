//! A fresh database per test, on the backend asked for.

use std::future::Future;
use std::path::PathBuf;

use mc_server::store::{Batch, Change, Expect, Store};
use sqlx::{Connection as _, Executor as _};

/// The backend a test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Sqlite,
    MySql,
    Postgres,
}

/// What a scenario gets: the store under test and a side door to count table rows.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub store: Store,
    pub kind: Kind,
    pub url: String,
}

impl Ctx {
    /// Rows of a table, read around the store (to see what its API does not show).
    pub async fn table_rows(&self, table: &str) -> i64 {
        self.count(&format!("SELECT COUNT(*) FROM {table}")).await
    }

    /// Of the deferrable indexes (`ix_resources_namespace`, `ix_resource_labels_kv`), how many
    /// the database's catalog holds.
    pub async fn deferrable_indexes(&self) -> i64 {
        let names =
            "('ix_resources_namespace', 'ix_resource_labels_kv', 'ix_resources_owner', 'ix_resources_count')";
        self.count(&match self.kind {
            Kind::Sqlite => {
                format!("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name IN {names}")
            }
            Kind::MySql => format!(
                "SELECT COUNT(DISTINCT index_name) FROM information_schema.statistics \
                 WHERE table_schema = DATABASE() AND index_name IN {names}"
            ),
            Kind::Postgres => format!(
                "SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname IN {names}"
            ),
        })
        .await
    }

    /// Label rows that are not their object's: of no stored object, or an `own` label whose
    /// value is not the uid of the object its row points to (scenarios give every object
    /// `own=<its uid>`). A row written with another object's id shows here.
    pub async fn stray_label_rows(&self) -> i64 {
        let key = if self.kind == Kind::MySql { "`key`" } else { "\"key\"" };
        self.count(&format!(
            "SELECT COUNT(*) FROM resource_labels l LEFT JOIN resources r ON r.id = l.resource_id \
             WHERE r.id IS NULL OR (l.{key} = 'own' AND l.value <> r.uid)"
        ))
        .await
    }

    /// A `SELECT COUNT(…)` read around the store.
    async fn count(&self, sql: &str) -> i64 {
        match self.kind {
            Kind::Sqlite => {
                let mut c = sqlx::SqliteConnection::connect(&self.url).await.unwrap();
                sqlx::query_scalar(sql).fetch_one(&mut c).await.unwrap()
            }
            Kind::MySql => {
                let mut c = sqlx::MySqlConnection::connect(&self.url).await.unwrap();
                sqlx::query_scalar(sql).fetch_one(&mut c).await.unwrap()
            }
            Kind::Postgres => {
                let mut c = sqlx::PgConnection::connect(&self.url).await.unwrap();
                sqlx::query_scalar(sql).fetch_one(&mut c).await.unwrap()
            }
        }
    }
}

impl Ctx {
    /// PostgreSQL: sessions of the test's database left inside a transaction with nothing running
    /// (`None` on the other backends, which do not show a bare `BEGIN`).
    pub async fn sessions_in_transaction(&self) -> Option<i64> {
        if self.kind != Kind::Postgres {
            return None;
        }
        let mut c = sqlx::PgConnection::connect(&self.url).await.unwrap();
        let sql = "SELECT COUNT(*) FROM pg_stat_activity \
                   WHERE datname = current_database() AND state LIKE 'idle in transaction%'";
        Some(sqlx::query_scalar(sql).fetch_one(&mut c).await.unwrap())
    }
}

fn server_url(var: &str) -> String {
    match std::env::var(var) {
        Ok(url) if !url.is_empty() => url,
        _ => panic!(
            "{var} is not set: these tests need real servers. Start them with \
             `eval \"$(scripts/testdb up --dir /tmp/mc-testdb)\"` and run again \
             (stop them with `scripts/testdb down --dir /tmp/mc-testdb`)"
        ),
    }
}

/// `scheme://user:pass@host:port/` + `db`, keeping any query string.
fn with_database(url: &str, db: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, format!("?{q}")),
        None => (url, String::new()),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let base = match base[scheme_end..].find('/') {
        Some(i) => &base[..scheme_end + i],
        None => base,
    };
    format!("{base}/{db}{query}")
}

/// A short database name, unique per process and test.
fn database_name(test: &str) -> String {
    let hash =
        test.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    format!("mc_t{}_{:08x}", std::process::id(), hash as u32)
}

pub enum Cleanup {
    Dir(PathBuf),
    MySql { admin: String, db: String },
    Postgres { admin: String, db: String },
}

pub async fn prepare(kind: Kind, test: &str) -> (String, Cleanup) {
    let db = database_name(test);
    match kind {
        Kind::Sqlite => {
            let dir = std::env::temp_dir().join(format!("mc-store-conformance-{db}"));
            let _ = std::fs::remove_dir_all(&dir);
            (format!("sqlite://{}/mc.db", dir.display()), Cleanup::Dir(dir))
        }
        Kind::MySql => {
            let admin = server_url("MC_TEST_MYSQL_URL");
            let mut c = sqlx::MySqlConnection::connect(&admin).await.expect("connect to MC_TEST_MYSQL_URL");
            c.execute(format!("DROP DATABASE IF EXISTS `{db}`").as_str()).await.unwrap();
            c.execute(format!("CREATE DATABASE `{db}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin").as_str())
                .await
                .expect("create a test database (the user needs CREATE)");
            (with_database(&admin, &db), Cleanup::MySql { admin, db })
        }
        Kind::Postgres => {
            let admin = server_url("MC_TEST_POSTGRES_URL");
            let mut c = sqlx::PgConnection::connect(&admin).await.expect("connect to MC_TEST_POSTGRES_URL");
            c.execute(format!("DROP DATABASE IF EXISTS \"{db}\"").as_str()).await.unwrap();
            c.execute(format!("CREATE DATABASE \"{db}\"").as_str())
                .await
                .expect("create a test database (the user needs CREATEDB)");
            (with_database(&admin, &db), Cleanup::Postgres { admin, db })
        }
    }
}

pub async fn cleanup(c: Cleanup) {
    match c {
        Cleanup::Dir(dir) => {
            let _ = std::fs::remove_dir_all(dir);
        }
        Cleanup::MySql { admin, db } => {
            let mut c = sqlx::MySqlConnection::connect(&admin).await.unwrap();
            c.execute(format!("DROP DATABASE IF EXISTS `{db}`").as_str()).await.unwrap();
        }
        Cleanup::Postgres { admin, db } => {
            let mut c = sqlx::PgConnection::connect(&admin).await.unwrap();
            // FORCE cannot end a session of another role (an autovacuum worker that just
            // started on the database): that one ends by itself, so try again.
            let drop = format!("DROP DATABASE IF EXISTS \"{db}\" WITH (FORCE)");
            for attempt in 1..=10 {
                match c.execute(drop.as_str()).await {
                    Ok(_) => break,
                    Err(e) if attempt == 10 => eprintln!("test database {db} kept: {e}"),
                    Err(_) => tokio::time::sleep(std::time::Duration::from_millis(300)).await,
                }
            }
        }
    }
}

/// Runs one scenario in a fresh database; the database is dropped when the scenario passes and
/// kept (for a look) when it fails.
pub async fn run<F, Fut>(kind: Kind, test: &str, scenario: F)
where
    F: FnOnce(Ctx) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (url, to_clean) = prepare(kind, test).await;
    let store = Store::connect(&url).await.unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    let ctx = Ctx { store: store.clone(), kind, url };
    // A task of its own: the store's futures must be Send, and a failure still reaches here.
    let outcome = tokio::spawn(scenario(ctx)).await;
    // Closing waits for every connection to come back: one left stuck (an answer never read)
    // fails the scenario instead of hanging the run.
    let closed = tokio::time::timeout(std::time::Duration::from_secs(20), store.close()).await;
    match outcome {
        Ok(()) => {
            assert!(closed.is_ok(), "{kind:?} {test}: a connection of the store's pool never came back");
            cleanup(to_clean).await
        }
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

#[test]
fn database_urls_are_rewritten() {
    assert_eq!(with_database("mysql://u:p@h:1/mc", "x"), "mysql://u:p@h:1/x");
    assert_eq!(with_database("postgres://u@h/mc?sslmode=disable", "x"), "postgres://u@h/x?sslmode=disable");
    assert_eq!(with_database("postgres://u@h", "x"), "postgres://u@h/x");
}

/// Writing one cluster's changes, as the scenarios do most (the store's one entry point takes
/// the changes of several clusters at once).
#[allow(async_fn_in_trait)]
pub trait ApplyOne {
    /// Watch events of one cluster.
    async fn apply_batch(&self, cluster: &str, changes: Vec<Change>) -> mc_server::store::Result<()>;
    /// One cluster's changes, expected to be `expect`.
    async fn apply_changes(
        &self,
        cluster: &str,
        changes: &[Change],
        expect: Expect,
    ) -> mc_server::store::Result<()>;
}

impl ApplyOne for Store {
    async fn apply_batch(&self, cluster: &str, changes: Vec<Change>) -> mc_server::store::Result<()> {
        self.apply(&[Batch::new(cluster, &changes, Expect::Any)]).await
    }

    async fn apply_changes(
        &self,
        cluster: &str,
        changes: &[Change],
        expect: Expect,
    ) -> mc_server::store::Result<()> {
        self.apply(&[Batch::new(cluster, changes, expect)]).await
    }
}
