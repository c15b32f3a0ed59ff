//! One metrics request asked of several members at once, each through its own client and
//! bounded in time and size ([`LIMITS`]): a member that is slow, large or broken delays or
//! fails only its own part.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::clusters::Cluster;
use crate::http::kube::fetch::{self, Fetched, Limits};

/// How much of one member's answer is read, and for how long: metrics-server answers within
/// its scrape of the kubelets' summaries, and a list of every pod of a large cluster is a few
/// MiB.
pub const LIMITS: Limits = Limits { bytes: 32 << 20, time: Duration::from_secs(10) };

/// Why one member's metrics could not be had. [`Error::Read`] is retryable as its source is;
/// [`Error::NotFound`] lasts until the object or the member's metrics API comes back.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The member answered 404: no such object, or no metrics API any more.
    #[error("not found")]
    NotFound,
    /// The request failed, timed out, was too large, or answered another error status.
    #[error(transparent)]
    Read(#[from] fetch::Error),
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One member's part.
#[derive(Debug)]
pub struct Part {
    /// The cluster.
    pub cluster: String,
    /// Its answer, parsed.
    pub answer: Result<Value>,
}

/// `GET path_and_query` (a path of the members' own) of each of `clusters`, concurrently, in
/// the clusters' order.
pub async fn ask(clusters: Vec<Arc<Cluster>>, path_and_query: &str, limits: Limits) -> Vec<Part> {
    let asks = clusters.into_iter().map(|cluster| async move {
        let answer = one(&cluster, path_and_query, limits).await;
        if let Err(e) = &answer {
            tracing::info!(cluster = cluster.name(), error = %e, "metrics request failed");
        }
        Part { cluster: cluster.name().to_string(), answer }
    });
    futures::future::join_all(asks).await
}

async fn one(cluster: &Cluster, path_and_query: &str, limits: Limits) -> Result<Value> {
    let client = cluster.client().ok_or(fetch::Error::NotConnected)?;
    match fetch::get(&client, path_and_query, None, limits).await {
        Ok(Fetched::Document { body, .. }) => Ok(serde_json::from_slice(&body).map_err(fetch::Error::Json)?),
        Ok(Fetched::NotModified) => Err(fetch::Error::Status(304).into()),
        Err(fetch::Error::Status(404)) => Err(Error::NotFound),
        Err(e) => Err(e.into()),
    }
}
