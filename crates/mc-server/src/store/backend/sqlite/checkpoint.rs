//! SQLite: the write-ahead log copied into the database file by a connection of its own, off the
//! writer's path.
//!
//! SQLite copies its log into the database (a checkpoint) inside the commit that grows the log
//! past `wal_autocheckpoint` pages: that commit then also syncs the log, copies the pages it
//! holds and syncs the database file, and no change is written meanwhile. Under a steady watch
//! churn the slowest changes are the ones that wait for it (see
//! docs/adr/0007-sqlite-checkpoints-off-the-writer.md).
//!
//! [`Checkpoints`] checkpoints from a task of its own every [`EVERY`] (`PASSIVE`: it never waits
//! for the writer, nor the writer for it; the log goes on growing while it copies). What the
//! writer finds to copy when its own checkpoint comes due is then what was written since the
//! task's last one, and the log starts again from its beginning whenever one of the task's
//! checkpoints finds nothing written meanwhile. The writers' own checkpoint stays as it was: it
//! bounds the log if the task falls behind or fails.

use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{ConnectOptions as _, Connection as _, Row as _};
use tokio::sync::watch;
use tracing::warn;

/// How often the log is copied into the database.
pub(in crate::store) const EVERY: Duration = Duration::from_millis(250);

/// Checkpoints run again at once when the writer committed meanwhile, up to this many times per
/// tick: each has less to copy than the one before, and a quiet moment of the writer lets one
/// finish the log, which then starts again from its beginning.
const AGAIN: usize = 4;

/// The task that checkpoints one database file. It ends when [`Checkpoints::stop`] is called or
/// the last clone is dropped.
#[derive(Clone)]
pub(super) struct Checkpoints {
    stop: watch::Sender<bool>,
}

impl Checkpoints {
    /// Starts checkpointing the database of `options` on a connection of its own.
    pub(super) fn spawn(options: SqliteConnectOptions) -> Checkpoints {
        let (stop, stopped) = watch::channel(false);
        tokio::spawn(run(options, stopped));
        Checkpoints { stop }
    }

    /// Stops the task and waits until its connection is closed (a checkpoint under way first
    /// runs to its end): the task drops its receiver last.
    pub(super) async fn stop(&self) {
        self.stop.send_replace(true);
        self.stop.closed().await;
    }
}

async fn run(options: SqliteConnectOptions, mut stopped: watch::Receiver<bool>) {
    let mut conn: Option<SqliteConnection> = None;
    let mut failing = false;
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            // Stopped, or every sender dropped with the store.
            _ = stopped.changed() => break,
            _ = tick.tick() => {}
        }
        let result = match &mut conn {
            Some(c) => checkpoint(c).await,
            None => match options.connect().await {
                Ok(c) => checkpoint(conn.insert(c)).await,
                Err(e) => Err(e),
            },
        };
        match result {
            Ok(()) => failing = false,
            Err(error) => {
                // The writers' own checkpoints keep the log bounded meanwhile; the next tick
                // opens a new connection.
                if !failing {
                    warn!(%error, "checkpointing the SQLite log failed; the writers checkpoint it meanwhile");
                }
                failing = true;
                if let Some(c) = conn.take() {
                    let _ = c.close().await;
                }
            }
        }
    }
    if let Some(c) = conn {
        let _ = c.close().await;
    }
}

/// One `PASSIVE` checkpoint, run again while the writer committed during it (see [`AGAIN`]).
async fn checkpoint(conn: &mut SqliteConnection) -> Result<(), sqlx::Error> {
    for _ in 0..AGAIN {
        let row = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)").fetch_one(&mut *conn).await?;
        // (busy, pages in the log, pages of it in the database).
        let (log, copied): (i64, i64) = (row.try_get(1)?, row.try_get(2)?);
        if copied >= log {
            break;
        }
    }
    Ok(())
}
