//! Free-text search, as `/v1/search` answers it and `kubectl multicluster search` prints it.

use serde::{Deserialize, Serialize};

/// `GET ?q=&namespace=&cluster=&kind=a,b&limit=` → JSON array of [`SearchItem`], best first.
pub const PATH: &str = "/v1/search";

/// Fewest characters of `q`: the index matches trigrams.
pub const MIN_TEXT: usize = 3;
/// Most characters of `q`.
pub const MAX_TEXT: usize = 253;
/// Hits answered without `limit`.
pub const DEFAULT_LIMIT: usize = 100;
/// Most hits one answer holds.
pub const MAX_LIMIT: usize = 1000;
/// Most types in `kind`.
pub const MAX_KINDS: usize = 32;

/// One object found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchItem {
    /// Its cluster.
    pub cluster: String,
    /// Its type's group (`""` the core group).
    pub group: String,
    /// Its type's version.
    pub version: String,
    /// Its type's plural name.
    pub resource: String,
    /// Its kind.
    pub kind: String,
    /// Its namespace (`""` cluster-scoped).
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// What matched, best first: `name`, `namespace`, `label app=web`, `annotation team=x`,
    /// `image=redis:6.2`, `owner web-7d9`.
    pub matched: Vec<String>,
}
