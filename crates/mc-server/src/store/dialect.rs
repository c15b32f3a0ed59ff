//! What a backend does differently, as data: its SQL syntax and its write strategy.
//!
//! The store's operations are written once; where a backend differs they ask its [`Dialect`]
//! rather than which backend it is. Each backend folder (`backend/sqlite`, `backend/mysql`,
//! `backend/postgres`) defines its dialect next to the code it names, so a new backend is one
//! folder plus its migrations.

use std::fmt;
use std::ops::Deref;

use super::resource_columns::Prepared;
use super::statement::{Stmt, Syntax};

/// The dialect of a backend; every statement is built for one.
pub(crate) type Dialect = &'static SqlDialect;

/// Builds the upsert of a few objects (with their clusters) and of their label rows, as one text.
pub(crate) type UpsertWithLabels = fn(&[(&str, &Prepared<'_>)]) -> Stmt;

/// Builds the insert of `(resource_id, key, value)` label rows.
pub(crate) type InsertLabels = fn(&[(i64, &str, &str)]) -> Stmt;

/// How a first list's objects, expected to be new rows ([`super::Expect::NewRows`]), are written.
/// A chunk with an object already stored falls back to the upsert every backend has.
#[derive(Clone, Copy)]
pub(crate) enum NewRows {
    /// Inserted with ids chosen above the table's largest, by this statement (`first` id given),
    /// skipping stored rows: where every row is new, the writer knows every id without reading
    /// them back, and new rows have no label rows to delete.
    IdsAboveLargest(fn(&str, &[Prepared<'_>], i64) -> Stmt),
    /// Inserted by this plain insert, which answers the first id it gave: when the ids are
    /// consecutive the writer knows them all. A stored row fails the statement with a
    /// duplicate key (only that statement is rolled back).
    InsertAnswersFirstId(fn(&str, &[Prepared<'_>]) -> Stmt),
    /// Copied with their label rows in the backend's bulk format, all or nothing.
    Copy,
}

/// A backend's SQL syntax and write strategy.
pub(crate) struct SqlDialect {
    /// The backend's name, for logs and errors.
    pub(crate) name: &'static str,

    /// How its statements are written.
    pub(crate) syntax: Syntax,

    // Writing.
    pub(crate) new_rows: NewRows,
    /// Objects per upsert statement.
    pub(crate) chunk: usize,
    /// Label rows per insert statement.
    pub(crate) label_chunk: usize,
    /// Whether the rest of a write below a whole chunk is cut in powers of two, so that each
    /// size comes back with the same text and stays prepared; otherwise it goes in one
    /// statement.
    pub(crate) power_of_two_rests: bool,
    /// A rest below this many rows goes in one statement, not cut in powers of two; and a chunk
    /// of fewer objects is upserted with its label rows in one text by `upsert_with_labels`.
    pub(crate) one_text_below: usize,
    /// The upsert of a few objects (of any clusters) with the replacement of their label rows,
    /// as one text.
    pub(crate) upsert_with_labels: Option<UpsertWithLabels>,
    /// Whether the upsert answers the ids of its rows (`RETURNING`); otherwise they are read
    /// back by uid.
    pub(crate) upsert_returns_ids: bool,
    /// Whether the upsert also answers which of its rows it created.
    pub(crate) upsert_tells_created: bool,
    /// The backend's own upsert statement, in place of the multi-row `VALUES` one.
    pub(crate) upsert_resources: Option<fn(&str, &[Prepared<'_>]) -> Stmt>,
    /// The backend's own insert of label rows, in place of the multi-row `VALUES` one.
    pub(crate) insert_labels: Option<InsertLabels>,
    /// Whether a write's revisions go to `revisions_log`, a table without indexes, and are moved
    /// into `revisions` with their clusters' totals in steps off the writer's path and before
    /// any read of the history (see `history::settle`); otherwise into `revisions` directly.
    pub(crate) stages_revisions: bool,
    /// Whether a label row goes with its object through a foreign key's `ON DELETE CASCADE`;
    /// otherwise the statement that deletes objects deletes their label rows too.
    pub(crate) labels_cascade: bool,

    // Reading.
    /// Whether a limited page that must be sorted is read as its sort keys and ids first, then
    /// its objects by id (see `read::fetch_page`).
    pub(crate) sorts_keys_first: bool,

    // Operations.
    /// The catalog query that answers an index's definition, its name bound last; `None`: this
    /// backend defers no index (see `deferred.rs`).
    pub(crate) index_definition: Option<&'static str>,
    /// Whether replicas sharing the database take table and row locks around deferred indexes.
    pub(crate) locks_for_replicas: bool,
    /// Statements run before and after building an index.
    pub(crate) around_index_build: Option<(&'static str, &'static str)>,
    /// The query that answers the database's size in bytes; `None` where its files are its size.
    pub(crate) database_bytes: Option<&'static str>,
}

impl fmt::Debug for SqlDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl Deref for SqlDialect {
    type Target = Syntax;

    fn deref(&self) -> &Syntax {
        &self.syntax
    }
}

impl PartialEq for SqlDialect {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
