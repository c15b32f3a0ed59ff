//! Staged revisions (SQLite): a change's transaction appends its revisions to `revisions_log`,
//! which has no index, so the change costs one more page written rather than a row and two
//! index entries at three places of the file. Here they are moved into `revisions`, oldest
//! first, at most [`STEP`] per transaction, with their clusters' totals: by the server's
//! history task every few hundred milliseconds, and by every read of the history before it
//! reads, so that a read sees every revision written before it started. A move is a write
//! transaction of its own, so a revision is never in both tables nor in neither; ids in
//! `revisions` are given in the order of the moves, which is the order of the writes (see
//! docs/adr/0031-sqlite-revisions-staged.md).

use super::super::statement::{Builder, Col, Stmt};
use super::super::{Result, Store};
use super::record::{COLUMNS, push_added_to_totals};

/// Most revisions moved in one transaction: a move holds the write lock for a few
/// milliseconds at most, and a large backlog (after a restart) goes in several.
const STEP: i64 = 1000;

impl Store {
    /// Moves the staged revisions into `revisions` (none where the backend does not stage
    /// them), in transactions of at most [`STEP`]; answers how many moved.
    pub async fn settle_history(&self) -> Result<u64> {
        if !self.dialect().stages_revisions || !self.has_staged().await? {
            return Ok(0);
        }
        let mut moved = 0;
        loop {
            let step = self.settle_step().await?;
            moved += step;
            if step < STEP as u64 {
                return Ok(moved);
            }
        }
    }

    /// Whether any revision is staged: a read, so that an idle store takes no write lock.
    async fn has_staged(&self) -> Result<bool> {
        let mut tx = self.begin(false).await?;
        let b = Builder::new(tx.dialect, "SELECT EXISTS (SELECT 1 FROM revisions_log)");
        let rows = tx.fetch(b.finish(), &[Col::Int]).await?;
        tx.commit().await?;
        Ok(rows.first().is_some_and(|r| r.int(0) != 0))
    }

    /// Moves the oldest [`STEP`] staged revisions or fewer in one transaction; answers how many.
    /// It deletes no object: the upserts' connection runs it, its statements kept prepared.
    async fn settle_step(&self) -> Result<u64> {
        let mut tx = self.begin_upserts().await?;
        let d = tx.dialect;
        let mut b =
            Builder::new(d, "SELECT MAX(id), COUNT(*) FROM (SELECT id FROM revisions_log ORDER BY id LIMIT ");
        b.bind(STEP).push(") s");
        let rows = tx.fetch(b.finish(), &[Col::OptInt, Col::Int]).await?;
        let (Some(through), count) = rows.first().map_or((None, 0), |r| (r.opt_int(0), r.int(1))) else {
            tx.commit().await?;
            return Ok(0);
        };
        let mut b = Builder::new(d, "INSERT INTO revisions (");
        b.push(COLUMNS)
            .push(") SELECT ")
            .push(COLUMNS)
            .push(" FROM revisions_log WHERE id <= ")
            .bind(through);
        b.push(" ORDER BY id");
        tx.execute(b.finish()).await?;
        tx.execute(add_staged_totals(d, through)).await?;
        let mut b = Builder::new(d, "DELETE FROM revisions_log WHERE id <= ");
        b.bind(through);
        tx.execute(b.finish()).await?;
        tx.commit().await?;
        Ok(u64::try_from(count).unwrap_or(0))
    }
}

/// Adds the staged revisions up to `through` to their clusters' totals.
fn add_staged_totals(d: super::super::dialect::Dialect, through: i64) -> Stmt {
    let mut b = Builder::new(
        d,
        "INSERT INTO history_totals (cluster, revisions, bytes) SELECT cluster, COUNT(*), SUM(bytes) \
         FROM revisions_log WHERE id <= ",
    );
    b.bind(through).push(" GROUP BY cluster");
    push_added_to_totals(&mut b);
    b.finish()
}
