//! What a set of owners owns at any depth in one cluster (`list --owner`): the children of each
//! level's objects read in one batched store read per level, as the tree reads them.

use std::collections::HashSet;

use mc_types::Gvr;
use mc_types::tree::{MAX_DEPTH, MAX_NODES};

use super::Result;
use crate::store::{RelatedObject, Store};

/// The objects of type `gvr` owned, directly or through other objects (a Deployment's Pods
/// through its ReplicaSets), by one of `owners` (uids) in `cluster`; and whether the walk was
/// cut at [`MAX_NODES`] objects or [`MAX_DEPTH`] levels.
pub async fn owned(
    store: &Store,
    cluster: &str,
    owners: Vec<String>,
    gvr: &Gvr,
) -> Result<(Vec<RelatedObject>, bool)> {
    let mut seen: HashSet<String> = owners.iter().cloned().collect();
    let mut frontier = owners;
    let mut found = Vec::new();
    let mut walked = 0usize;
    for _ in 0..MAX_DEPTH {
        if frontier.is_empty() {
            return Ok((found, false));
        }
        let children = store.children_of(cluster, &frontier).await?;
        frontier = Vec::new();
        for child in children {
            if !seen.insert(child.uid.clone()) {
                continue;
            }
            walked += 1;
            if walked > MAX_NODES {
                return Ok((found, true));
            }
            frontier.push(child.uid.clone());
            if child.gvr.group == gvr.group && child.gvr.resource == gvr.resource {
                found.push(child);
            }
        }
    }
    Ok((found, !frontier.is_empty()))
}
