//! Errors of the authorizer: only reading a cluster's RBAC objects can fail; deciding cannot.

use mc_types::Gvr;

/// Errors of [`load`](super::load). [`Error::is_retryable`] tells whether trying again later
/// may succeed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading one type of a cluster's RBAC objects from the store failed. Retryable when the
    /// store's error is (see [`crate::store::Error::is_retryable`]).
    #[error("reading {gvr} of cluster {cluster} from the store")]
    Store {
        /// The cluster whose objects were read.
        cluster: String,
        /// The RBAC type being read.
        gvr: Gvr,
        /// What the store reported.
        #[source]
        source: crate::store::Error,
    },
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether the same operation may succeed when tried again later.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Store { source, .. } => source.is_retryable(),
        }
    }
}
