//! Free-text search over every object: names, namespaces, label and annotation keys and values,
//! container images and owner names.
//!
//! What is searchable of an object is one bounded text ([`text`]), computed on the cluster's
//! task that read the object ([`super::RawObject::search_body`]) and written by the writer in the
//! transaction that writes the object's row: one row of `search_texts` per object, upserted
//! after the batch's objects, removed with its object by a trigger on `resources` (any deletion:
//! an event's, a relist's, a type's or a cluster's). Each backend indexes it its own way:
//! - SQLite: an FTS5 table with the trigram tokenizer over `search_texts` (external content,
//!   kept by triggers), asked with `MATCH "text"`, a substring match, and one over the names
//!   alone (`search_names`) for the names' query: FTS5 does not tell a trigram's columns apart,
//!   so a column filter would read every field's occurrences;
//! - PostgreSQL: a `pg_trgm` GIN index over the name and the text, asked with `ILIKE
//!   '%text%'`; without the extension the same query scans the table, and answers say so;
//! - MySQL/MariaDB: no trigram index (InnoDB's full-text parsers cut words, not substrings): a
//!   bounded `LIKE` over the table, slower on large stores.
//!
//! A search fetches at most [`CANDIDATES`] rows whose any field matches, and when more do, as
//! many whose name matches, each restricted in SQL to the types, clusters and namespaces the caller may read; then
//! ranks them in Rust ([`rank`]). Texts shorter than a trigram ([`MIN_TEXT`]) are refused. A
//! search within one namespace asks the index for the namespace's line too, so that a text
//! every object holds is not read through for the few of that namespace.
//!
//! `search_state.complete` says whether every object's row is there and current. A start with
//! search off clears it (the writer keeps no rows then); a start with search on goes over every
//! object whose row is missing or differs ([`Store::complete_search_index`]), and answers say so
//! while it does.

mod rank;
mod text;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

use mc_types::Gvr;

use rank::{Candidate, check, order};
pub use rank::{Rank, SearchHit};
pub(crate) use text::body_of;
pub use text::{MAX_BODY, MAX_VALUE};

use super::dialect::Dialect;
use super::sql::{self, SqlFilter};
use super::statement::{Builder, Col, Stmt, Upsert};
use super::{Allowed, Backend, Batch, Change, Result, Store, StoredObject};

pub use mc_types::search::{MAX_LIMIT, MAX_TEXT, MIN_TEXT};
/// Most rows fetched from the index per query (names, then every field).
pub const CANDIDATES: usize = 1000;
/// Rows per statement of `search_texts`' upserts.
const CHUNK: usize = 200;
/// Objects per step of [`Store::complete_search_index`].
const SWEEP_PAGE: i64 = 500;

/// The name of PostgreSQL's trigram index (migration 0010).
const PG_INDEX: &str = "ix_search_texts_trgm";

/// One type searched, where the caller may read it (`None`: everywhere).
#[derive(Clone, Debug, PartialEq)]
pub struct TypeScope {
    /// The type.
    pub gvr: Gvr,
    /// Where it may be read.
    pub allowed: Option<Allowed>,
}

/// A search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchQuery {
    /// The text, [`MIN_TEXT`] to [`MAX_TEXT`] characters; case is ignored.
    pub text: String,
    /// Only this cluster.
    pub cluster: Option<String>,
    /// Only this namespace.
    pub namespace: Option<String>,
    /// Only these types (each where it may be read); `None`: every type, everywhere.
    pub types: Option<Vec<TypeScope>>,
    /// Most hits, at most [`MAX_LIMIT`].
    pub limit: usize,
}

/// A search's answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchAnswer {
    /// The best hits, best first.
    pub hits: Vec<SearchHit>,
    /// More objects matched than `hits` holds.
    pub cut: bool,
    /// What the caller should know: the index incomplete, missing, or the candidates cut.
    pub warnings: Vec<String>,
}

/// Why a search cannot run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The text is too short or too long, or holds a line end or tab.
    #[error("{0}")]
    Text(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] super::Error),
}

/// Checks a search text: the one-line reason when it cannot be searched.
pub fn check_text(text: &str) -> std::result::Result<(), String> {
    let n = text.chars().count();
    if n < MIN_TEXT {
        return Err(format!(
            "search text {text:?} is shorter than {MIN_TEXT} characters: the index matches trigrams; for a name prefix use `list` with a field selector or a longer text"
        ));
    }
    if n > MAX_TEXT {
        return Err(format!("search text is longer than {MAX_TEXT} characters"));
    }
    if text.chars().any(char::is_control) {
        return Err("search text holds a control character (line end, tab)".to_string());
    }
    Ok(())
}

/// The search rows a batch leaves: for each object of the batch, its last upsert unless a later
/// deletion removed it (the trigger removes the rows of deleted objects).
fn batch_rows<'a>(batch: &Batch<'a>) -> Vec<&'a StoredObject> {
    let mut last: foldhash::HashMap<(&Gvr, &str, &str), Option<&StoredObject>> = Default::default();
    let mut order: Vec<(&Gvr, &str, &str)> = Vec::new();
    for change in batch.changes {
        match change {
            Change::Upsert(o) => {
                let key = (&o.gvr, o.namespace.as_str(), o.name.as_str());
                if last.insert(key, Some(o)).is_none() {
                    order.push(key);
                }
            }
            Change::Delete { gvr, namespace, name, uid } => {
                let key = (gvr, namespace.as_str(), name.as_str());
                if let Some(slot) = last.get_mut(&key)
                    && (uid.is_empty() || slot.is_some_and(|o| &o.uid == uid))
                {
                    *slot = None;
                }
            }
        }
    }
    order.into_iter().filter_map(|k| last.get(&k).copied().flatten()).collect()
}

/// The upserts of `search_texts` for a batch's objects.
pub(super) fn statements(d: Dialect, batch: &Batch<'_>) -> Vec<Stmt> {
    let rows = batch_rows(batch);
    rows.chunks(CHUNK)
        .map(|chunk| {
            let rows = chunk.iter().map(|o| Row {
                cluster: batch.cluster,
                gvr: &o.gvr,
                namespace: &o.namespace,
                name: &o.name,
                kind: &o.kind,
                body: o.object.search_body(),
            });
            upsert(d, rows)
        })
        .collect()
}

/// One row of `search_texts`.
struct Row<'a> {
    cluster: &'a str,
    gvr: &'a Gvr,
    namespace: &'a str,
    name: &'a str,
    kind: &'a str,
    body: &'a str,
}

/// Inserts rows, or replaces a stored row whose text differs.
fn upsert<'a>(d: Dialect, rows: impl Iterator<Item = Row<'a>>) -> Stmt {
    let mut b = Builder::new(
        d,
        "INSERT INTO search_texts (cluster, \"group\", version, resource, namespace, name, kind, body) VALUES ",
    );
    for (i, r) in rows.enumerate() {
        b.push(if i > 0 { ", (" } else { "(" });
        b.bind(r.cluster).push(", ").bind(r.gvr.group.as_str()).push(", ").bind(r.gvr.version.as_str());
        b.push(", ").bind(r.gvr.resource.as_str()).push(", ").bind(r.namespace).push(", ").bind(r.name);
        b.push(", ").bind(r.kind).push(", ").bind(r.body).push(")");
    }
    match b.syntax().upsert {
        // An unchanged text is not written again: SQLite's FTS5 would remove and add its
        // trigrams, PostgreSQL would write a new row version and index entries.
        Upsert::OnConflict => b.push(
            " ON CONFLICT (\"group\", version, resource, cluster, namespace, name) DO UPDATE SET \
             kind = excluded.kind, body = excluded.body \
             WHERE search_texts.body <> excluded.body OR search_texts.kind <> excluded.kind",
        ),
        // InnoDB leaves a row whose values do not change unwritten.
        Upsert::OnDuplicateKey => b.push(" ON DUPLICATE KEY UPDATE kind = VALUES(kind), body = VALUES(body)"),
    };
    b.finish()
}

/// What [`Store::search_index_state`] tells.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexState {
    /// Every object's row is there and current.
    pub complete: bool,
    /// PostgreSQL without `pg_trgm`: searches scan the table.
    pub scanning: bool,
}

/// Whether a sweep of the index is under way, whether the index waits for the end of a first
/// sync, the rows the sweep wrote so far and why its last run failed (shared by a store's
/// clones).
#[derive(Debug, Default)]
pub(super) struct Progress {
    sweeping: std::sync::atomic::AtomicBool,
    deferred: std::sync::atomic::AtomicBool,
    written: std::sync::atomic::AtomicU64,
    failed: std::sync::Mutex<Option<String>>,
}

/// Where the building of the index stands, as `/readyz` and `/metrics` tell it
/// ([`Store::search_index_building`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Building {
    /// Waiting for the end of the clusters' first sync.
    Deferred,
    /// Going over every object; the rows written so far.
    Sweeping(u64),
    /// The last run failed (why); it is retried.
    Failed(String),
}

impl std::fmt::Display for Building {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Building::Deferred => {
                f.write_str("the search index is built after the first sync of the clusters")
            }
            Building::Sweeping(n) => {
                write!(f, "the search index is being built: {n} objects' rows written so far")
            }
            Building::Failed(why) => write!(f, "building the search index failed ({why}); retrying"),
        }
    }
}

/// [`Progress`], shared.
pub(super) type Sweeping = Arc<Progress>;

impl Store {
    /// This store keeps the search index with every write (`search.enabled`); a store without
    /// it keeps none, and [`Store::search`] is not to be asked.
    pub fn keep_search_index(mut self) -> Self {
        self.search = true;
        self
    }

    /// Whether this store keeps the search index.
    pub fn keeps_search_index(&self) -> bool {
        self.search
    }

    /// Whether the writer writes index rows now: kept, and not deferred for a first sync.
    pub(super) fn writes_search_rows(&self) -> bool {
        self.search && !self.sweeping.deferred.load(Relaxed)
    }

    /// Defers the index for an empty store's first sync (search on): the writer writes no index
    /// rows until [`Store::complete_search_index`] runs, which then builds them all. Keeping
    /// FTS5's trigrams row by row halved SQLite's first-sync rate (see
    /// docs/adr/0027-search-index.md). Returns whether it deferred.
    pub async fn defer_search_index(&self) -> Result<bool> {
        if !self.search {
            return Ok(false);
        }
        let mut tx = self.begin(true).await?;
        let d = tx.dialect;
        let empty = tx
            .fetch(Builder::new(d, "SELECT NOT EXISTS (SELECT 1 FROM resources)").finish(), &[Col::Bool])
            .await?
            .first()
            .is_some_and(|r| r.bool(0));
        if empty {
            let mut b = Builder::new(d, "UPDATE search_state SET complete = ");
            b.bind(false).push(" WHERE id = 1");
            tx.execute(b.finish()).await?;
            self.sweeping.deferred.store(true, Relaxed);
        }
        tx.commit().await?;
        Ok(empty)
    }

    /// Whether the index is complete, and whether it is a trigram index.
    pub async fn search_index_state(&self) -> Result<IndexState> {
        let mut tx = self.begin(false).await?;
        let d = tx.dialect;
        let complete = tx
            .fetch(Builder::new(d, "SELECT complete FROM search_state WHERE id = 1").finish(), &[Col::Bool])
            .await?
            .first()
            .is_some_and(|r| r.bool(0));
        let scanning = if self.backend() == Backend::Postgres {
            let mut b = Builder::new(d, "SELECT COUNT(*) FROM pg_indexes WHERE indexname = ");
            b.bind(PG_INDEX);
            tx.fetch(b.finish(), &[Col::Int]).await?.first().is_none_or(|r| r.int(0) == 0)
        } else {
            false
        };
        tx.commit().await?;
        Ok(IndexState { complete, scanning })
    }

    /// Readies the index, at start or after a deferred first sync: with search off, marks it
    /// incomplete (the writer keeps no rows); with it on, ends a deferral, and if the index is
    /// marked incomplete (deferred, an upgraded store, or one that ran with search off) goes over
    /// every object, a page at a time, writing the rows missing or differing, then marks it
    /// complete. Returns how many rows it wrote. A failure is kept for
    /// [`Store::search_index_building`] until a later call succeeds.
    pub async fn complete_search_index(&self) -> Result<u64> {
        let done = self.complete().await;
        self.set_failed(done.as_ref().err().map(ToString::to_string));
        done
    }

    async fn complete(&self) -> Result<u64> {
        let mut tx = self.begin(true).await?;
        if !self.search {
            let mut b = Builder::new(tx.dialect, "UPDATE search_state SET complete = ");
            b.bind(false).push(" WHERE id = 1");
            tx.execute(b.finish()).await?;
            return tx.commit().await.map(|()| 0);
        }
        tx.commit().await?;
        // From here on the writer keeps the rows of what it writes; the sweep does the rest.
        self.sweeping.deferred.store(false, Relaxed);
        if self.search_index_state().await?.complete {
            return Ok(0);
        }
        self.sweeping.written.store(0, Relaxed);
        self.sweeping.sweeping.store(true, Relaxed);
        let done = self.sweep().await;
        self.sweeping.sweeping.store(false, Relaxed);
        let written = done?;
        if self.backend() == Backend::Postgres {
            // Only faster searches depend on it, and autovacuum does the same later: a role that
            // does not own the index may not empty its list, and the index is built anyway.
            let _ = self.tidy_postgres_index().await;
        }
        Ok(written)
    }

    /// PostgreSQL after a build: the planner's statistics of the table just filled (without
    /// them it guesses how many rows a trigram condition keeps, and may scan rather than use
    /// the index), and the GIN index's pending list emptied (rows inserted but not yet sorted
    /// into the index, up to 4 MB, which every search reads through until a vacuum empties it).
    async fn tidy_postgres_index(&self) -> Result<()> {
        let mut tx = self.begin(true).await?;
        let d = tx.dialect;
        tx.execute(Builder::new(d, "ANALYZE search_texts").finish()).await?;
        let mut b = Builder::new(d, "SELECT gin_clean_pending_list(i) FROM (SELECT to_regclass(");
        b.bind(PG_INDEX).push(") AS i) s WHERE i IS NOT NULL");
        tx.fetch(b.finish(), &[Col::Int]).await?;
        tx.commit().await
    }

    fn set_failed(&self, why: Option<String>) {
        if let Ok(mut failed) = self.sweeping.failed.lock() {
            *failed = why;
        }
    }

    /// Where the building of the index stands; `None` when nothing is under way, waiting or
    /// failed (this process's view: the index may still be incomplete, as
    /// [`Store::search_index_state`] tells, until a start with search on builds it).
    pub fn search_index_building(&self) -> Option<Building> {
        if !self.search {
            return None;
        }
        if self.sweeping.deferred.load(Relaxed) {
            return Some(Building::Deferred);
        }
        if self.sweeping.sweeping.load(Relaxed) {
            return Some(Building::Sweeping(self.sweeping.written.load(Relaxed)));
        }
        self.sweeping.failed.lock().ok().and_then(|f| f.clone()).map(Building::Failed)
    }

    /// Goes over every object a page at a time; a page whose transaction failed in a way worth
    /// retrying (a deadlock with the writer, a busy database) is gone over again, a few times.
    async fn sweep(&self) -> Result<u64> {
        let mut after = 0_i64;
        let mut written = 0;
        let mut failures = 0;
        loop {
            match self.sweep_page(after).await {
                Ok(Some((last, n))) => {
                    (after, failures) = (last, 0);
                    written += n;
                    self.sweeping.written.store(written, Relaxed);
                }
                Ok(None) => return Ok(written),
                Err(e) if e.is_retryable() && failures < 5 => {
                    failures += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(100 << failures)).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// One page of [`Store::sweep`]: the objects after the id `after`, their rows written; the
    /// last id and the rows written, or `None` (and the index marked complete) past the last.
    async fn sweep_page(&self, after: i64) -> Result<Option<(i64, u64)>> {
        let mut tx = self.begin(true).await?;
        let d = tx.dialect;
        let mut b =
            Builder::new(d, "SELECT id, cluster, \"group\", version, resource, namespace, name, kind, ");
        b.push_json_column("object").push(" FROM resources WHERE id > ").bind(after);
        b.push(" ORDER BY id LIMIT ").bind(SWEEP_PAGE);
        // Rows read stay as read until this step commits: a deletion waits, so no row of a
        // deleted object is written.
        match self.backend() {
            Backend::Sqlite => {}
            Backend::Postgres => {
                b.push(" FOR SHARE");
            }
            Backend::MySql => {
                b.push(" LOCK IN SHARE MODE");
            }
        }
        let mut cols = [Col::Text; 9];
        cols[0] = Col::Int;
        let rows = tx.fetch(b.finish(), &cols).await?;
        let Some(last) = rows.last() else {
            let mut b = Builder::new(d, "UPDATE search_state SET complete = ");
            b.bind(true).push(" WHERE id = 1");
            tx.execute(b.finish()).await?;
            tx.commit().await?;
            return Ok(None);
        };
        let last_id = last.int(0);
        let gvrs: Vec<Gvr> = rows.iter().map(|r| Gvr::new(r.str(2), r.str(3), r.str(4))).collect();
        let bodies: Vec<String> = rows.iter().map(|r| body_of(r.str(8))).collect();
        let stmt = upsert(
            d,
            rows.iter().zip(&gvrs).zip(&bodies).map(|((r, gvr), body)| Row {
                cluster: r.str(1),
                gvr,
                namespace: r.str(5),
                name: r.str(6),
                kind: r.str(7),
                body,
            }),
        );
        let written = tx.execute(stmt).await?;
        tx.commit().await?;
        Ok(Some((last_id, written)))
    }

    /// Whether [`Store::complete_search_index`] is going over the objects now.
    pub fn search_index_sweeping(&self) -> bool {
        self.sweeping.sweeping.load(Relaxed)
    }

    /// Whether the index waits for the end of a first sync ([`Store::defer_search_index`]).
    pub fn search_index_deferred(&self) -> bool {
        self.sweeping.deferred.load(Relaxed)
    }

    /// Searches: the best [`SearchQuery::limit`] hits, ranked (see [`rank`]).
    pub async fn search(&self, q: &SearchQuery) -> std::result::Result<SearchAnswer, SearchError> {
        check_text(&q.text).map_err(SearchError::Text)?;
        let needle = q.text.to_lowercase();
        let limit = q.limit.clamp(1, MAX_LIMIT);
        let mut answer = SearchAnswer::default();
        if q.types.as_ref().is_some_and(Vec::is_empty) {
            return Ok(answer);
        }
        let state = self.search_index_state().await?;
        if !state.complete {
            answer.warnings.push(if self.search_index_deferred() {
                "the search index is built after the first sync of the clusters: until then objects are not found".to_string()
            } else if self.search_index_sweeping() {
                "the search index is being built: objects not reached yet are not found".to_string()
            } else {
                "the search index is not complete (search was off, or the store was upgraded); it is built at the next start with search on".to_string()
            });
        }
        if state.scanning {
            answer.warnings.push(
                "PostgreSQL's pg_trgm extension could not be created in this database: search scans every object's text (install the contrib package and restart)".to_string(),
            );
        }
        let mut tx = self.begin(false).await?;
        let mut candidates = Vec::new();
        let mut capped = false;
        // Every field first; only when more match than the candidates hold are the names asked
        // apart, so that a name match is never left out for other fields' matches.
        for names_only in [false, true] {
            if names_only && !capped {
                break;
            }
            let stmt = select(self.backend(), tx.dialect, q, &needle, names_only);
            let mut rows = tx.fetch(stmt, &[Col::Text; 8]).await?;
            if rows.len() > CANDIDATES {
                capped = true;
                rows.truncate(CANDIDATES);
            }
            candidates.extend(rows.into_iter().map(|mut r| Candidate {
                cluster: r.text(0),
                gvr: Gvr::new(r.text(1), r.text(2), r.text(3)),
                kind: r.text(4),
                namespace: r.text(5),
                name: r.text(6),
                body: r.text(7),
            }));
        }
        tx.commit().await?;
        let mut seen = HashSet::new();
        let mut hits: Vec<SearchHit> = candidates
            .into_iter()
            .filter(|c| seen.insert((c.cluster.clone(), c.gvr.clone(), c.namespace.clone(), c.name.clone())))
            .filter_map(|c| check(&needle, c))
            .collect();
        hits.sort_by(order);
        if capped {
            answer.warnings.push(format!(
                "more than {CANDIDATES} objects match: ranked among the first {CANDIDATES} found; narrow the search (a longer text, a namespace, a cluster or kinds)"
            ));
        }
        answer.cut = hits.len() > limit;
        hits.truncate(limit);
        answer.hits = hits;
        Ok(answer)
    }
}

/// `%text%` for `LIKE`, its wildcards and escape taken literally.
fn like_pattern(needle: &str) -> String {
    let mut p = String::with_capacity(needle.len() + 2);
    p.push('%');
    for c in needle.chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

/// A phrase of FTS5's query syntax: the text as is, a substring match with the trigram
/// tokenizer.
fn fts_phrase(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// The namespace's line of the searched texts (`ns\tNAME`, always their first: see [`text`]),
/// when the query is restricted to one namespace.
fn namespace_line(q: &SearchQuery) -> Option<String> {
    q.namespace.as_deref().filter(|ns| !ns.is_empty()).map(|ns| format!("ns\t{ns}"))
}

/// The candidates' query: rows whose name (`names_only`) or any field holds the text, within
/// the query's filters, at most [`CANDIDATES`].
fn select(backend: Backend, d: Dialect, q: &SearchQuery, needle: &str, names_only: bool) -> Stmt {
    let columns = "r.cluster, r.\"group\", r.version, r.resource, r.kind, r.namespace, r.name, r.body";
    let mut b = Builder::new(d, "SELECT ");
    b.push(columns);
    match backend {
        Backend::Sqlite => {
            // A phrase of trigrams is a substring match, case ignored (the tokenizer's default).
            // The names have an index of their own: `search_fts` does not tell its trigrams apart
            // by column, and a column filter there reads every field's occurrences.
            let phrase = fts_phrase(&q.text);
            let fts = if names_only { "search_names" } else { "search_fts" };
            b.push(&format!(" FROM {fts} JOIN search_texts r ON r.id = {fts}.rowid WHERE {fts} MATCH "));
            match namespace_line(q) {
                // The index finds the namespace too: a text every object holds is not read
                // through for the few of one namespace (the SQL filter below stays exact).
                Some(line) if !names_only => b.bind(format!("{phrase} AND {}", fts_phrase(&line))),
                _ => b.bind(phrase),
            };
        }
        Backend::Postgres => {
            let pattern = like_pattern(needle);
            b.push(" FROM search_texts r WHERE (r.name ILIKE ").bind(pattern.as_str());
            if !names_only {
                b.push(" OR r.body ILIKE ").bind(pattern.as_str());
            }
            b.push(")");
            if let Some(line) = namespace_line(q).filter(|_| !names_only) {
                // As on SQLite: the trigram index finds the namespace; without it the planner
                // scans the table for a text found everywhere.
                b.push(" AND r.body ILIKE ").bind(like_pattern(&line));
            }
        }
        Backend::MySql => {
            let pattern = like_pattern(needle);
            b.push(" FROM search_texts r WHERE (LOWER(r.name) LIKE ").bind(pattern.as_str());
            if !names_only {
                b.push(" OR LOWER(r.body) LIKE ").bind(pattern.as_str());
            }
            b.push(")");
        }
    }
    sql::push_filter(&mut b, &filter(q.cluster.as_deref(), q.namespace.as_deref(), None, None));
    if let Some(types) = &q.types {
        b.push(" AND (");
        for (i, t) in types.iter().enumerate() {
            b.push(if i > 0 { " OR (1 = 1" } else { "(1 = 1" });
            sql::push_filter(&mut b, &filter(None, None, Some(&t.gvr), t.allowed.as_ref()));
            b.push(")");
        }
        b.push(")");
    }
    b.push(" LIMIT ").bind(CANDIDATES as i64 + 1);
    b.finish()
}

fn filter<'a>(
    cluster: Option<&'a str>,
    namespace: Option<&'a str>,
    gvr: Option<&'a Gvr>,
    allowed: Option<&'a Allowed>,
) -> SqlFilter<'a> {
    SqlFilter { gvr, cluster, namespace, name: None, columns: Vec::new(), labels: None, allowed }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_bounded() {
        assert!(check_text("ab").is_err());
        assert!(check_text("abc").is_ok());
        assert!(check_text("héé").is_ok());
        assert!(check_text(&"x".repeat(MAX_TEXT)).is_ok());
        assert!(check_text(&"x".repeat(MAX_TEXT + 1)).is_err());
        assert!(check_text("ab\ncd").is_err());
        assert_eq!(like_pattern("a_b%c\\"), "%a\\_b\\%c\\\\%");
    }
}
