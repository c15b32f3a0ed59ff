//! Errors of the store, and which of them are worth trying again.

/// Errors of the store. [`Error::is_retryable`] tells whether trying again later may succeed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The storage URL names no supported backend. Not retryable: fix the configuration.
    #[error(
        "unsupported storage URL {url:?}: expected sqlite://PATH, mysql://…, mariadb://…, postgres://… or postgresql://…"
    )]
    UnsupportedUrl {
        /// The URL, with any password replaced by `***`.
        url: String,
    },
    /// The database could not be opened or reached. Retryable (the server may come up later).
    #[error("cannot connect to the {backend} store at {url}: {error}")]
    Connect {
        /// `sqlite`, `mysql` or `postgres`.
        backend: &'static str,
        /// The URL, with any password replaced by `***`.
        url: String,
        /// What the driver reported.
        error: sqlx::Error,
    },
    /// The directory of an SQLite database file could not be created. Not retryable.
    #[error("cannot create the store directory {path}: {error}")]
    CreateDir {
        /// The directory.
        path: std::path::PathBuf,
        /// What the file system reported.
        error: std::io::Error,
    },
    /// Applying the embedded schema migrations failed. Not retryable (a schema from a newer
    /// version, or insufficient privileges).
    #[error("migrating the {backend} store failed: {error}")]
    Migrate {
        /// `sqlite`, `mysql` or `postgres`.
        backend: &'static str,
        /// What the migrator reported.
        error: sqlx::migrate::MigrateError,
    },
    /// A statement failed. Retryable when the connection broke, the pool timed out or the
    /// database reported a deadlock or a busy database.
    #[error("store query failed: {0}")]
    Query(#[from] sqlx::Error),
    /// A `continue` token that this store did not produce (the token as received, shortened
    /// when long). Not retryable: a client error (400).
    #[error("invalid continue token {0:?}")]
    BadCursor(String),
    /// An object handed to the store cannot be stored (no name or uid, wrong type). Not
    /// retryable: a bug or a malformed object of the caller.
    #[error("invalid object: {0}")]
    InvalidObject(String),
    /// A count would answer more combinations of values than it may (the bound). Not
    /// retryable: a client error (400); count by fewer or coarser keys.
    #[error(
        "more than {0} combinations of values to count; count by fewer or coarser keys, or narrow the query"
    )]
    TooManyGroups(usize),
    /// A stored row could not be decoded (e.g. its JSON is damaged). Not retryable.
    #[error("corrupt row in the store: {0}")]
    Corrupt(String),
    /// A history read the store cannot answer (e.g. without a resource type). Not retryable: a
    /// client error (400).
    #[error("bad history query: {0}")]
    BadHistoryQuery(String),
}

/// Result of store operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether the same operation may succeed when tried again later.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Connect { .. } => true,
            Error::Query(e) => match e {
                sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => true,
                sqlx::Error::Database(db) => {
                    // Conflicts; MySQL's lock wait timeout (its SQLSTATE, HY000, is any error:
                    // sqlx's `code` answers that, so it is told by its number); SQLite
                    // busy/locked.
                    let mysql = db.try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>().map(|e| e.number());
                    self.is_conflict()
                        || mysql == Some(1205)
                        || matches!(db.code().as_deref(), Some("5" | "6" | "517"))
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// A unique key that the statement would have broken (a row already stored).
    pub(crate) fn is_duplicate(&self) -> bool {
        matches!(self, Error::Query(sqlx::Error::Database(db)) if db.is_unique_violation())
    }

    /// A deadlock or serialization failure (SQLSTATE 40001, 40P01): the database rolled the
    /// transaction back because a concurrent one held what it needed. Trying it again at once
    /// usually passes; it says nothing about the database being away.
    pub fn is_conflict(&self) -> bool {
        match self {
            Error::Query(sqlx::Error::Database(db)) => {
                matches!(db.code().as_deref(), Some("40001" | "40P01"))
            }
            _ => false,
        }
    }
}

/// Replaces the password of `scheme://user:password@host/…` by `***`.
pub(crate) fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}
