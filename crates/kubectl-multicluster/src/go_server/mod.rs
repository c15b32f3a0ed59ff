//! Talking to the Go project's server, which users may still run during a migration: everything
//! the plugin does only because of it lives in this folder. That server has only `/v1/list`,
//! `/v1/list_with_cluster`, `/v1/join` and `/v1/unjoin`; it takes resource types only as
//! `group/version/resource` (anything else: 400 `not found gvr`); it knows no label or field
//! selectors, no `continue` tokens and no watch, and checks no token.
//!
//! The plugin notices it by the 404 of `/v1/resources` (or `/v1/clusters`), which it asks for
//! anyway, so our own server pays no extra round trip. Then it speaks the Go project's dialect:
//!
//! - [`listing`]: the one listing `list` and `describe` read, from whichever server answered;
//! - [`query`]: a listing as the Go project's server takes it, the selectors applied here;
//! - [`resolve`]: the typed resource type resolved here, as that server cannot.
//!
//! `list clusters` reads its MultiCluster objects instead of `/v1/clusters` (asked for by
//! [`multiclusters_query`]); `list --watch` refuses it.

pub mod listing;
pub mod query;
pub mod resolve;

pub use listing::Listing;
pub use query::Query;
pub use resolve::Resolver;

use kube::Resource;
use mc_types::crd::MultiCluster;
use mc_types::selector::SelectorError;

use crate::client::{self, ListQuery};

/// Namespace of the Go project's MultiCluster objects (its CLI asks for no other).
pub const MULTICLUSTER_NAMESPACE: &str = "default";

/// Why a listing through the Go project's server failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The typed resource type could not be resolved here; see [`resolve::Error`].
    #[error(transparent)]
    Resolve(#[from] resolve::Error),
    /// `-l` or `--field-selector` does not parse (not retryable: fix the selector).
    #[error(transparent)]
    Selector(#[from] SelectorError),
    /// The request failed; see [`client::Error`].
    #[error(transparent)]
    Client(#[from] client::Error),
    /// An object in the answer is not JSON (a different server on that port?).
    #[error("unexpected object from mc-server: {0}")]
    Object(#[source] serde_json::Error),
}

/// Result of a listing through the Go project's server.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `list clusters` as the Go project's CLI asks for it: every MultiCluster object in `default`.
pub fn multiclusters_query() -> ListQuery {
    let gvr = format!("{}/{}", MultiCluster::api_version(&()), MultiCluster::plural(&()));
    ListQuery { namespace: Some(MULTICLUSTER_NAMESPACE.to_owned()), ..ListQuery::all(gvr) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiclusters_are_asked_for_as_the_go_projects_cli_does() {
        let q = multiclusters_query();
        assert_eq!(q.gvr, "mulitcluster.practice.com/v1alpha1/multiclusters");
        assert_eq!(q.namespace.as_deref(), Some("default"));
        assert_eq!(q.limit, None);
    }
}
