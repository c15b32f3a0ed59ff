//! The cluster a path under `/clusters/{cluster}/` names, checked before anything is read.

use std::collections::HashMap;

use crate::http::AppState;
use crate::http::params;
use crate::http::status::{KubeError, KubeResult};

/// Checks the cluster of a path under `/clusters/{cluster}/`: a valid name (400) of a known
/// cluster (404).
pub fn in_scope(state: &AppState, path: Option<&HashMap<String, String>>) -> KubeResult<()> {
    let Some(cluster) = path.and_then(|p| p.get("cluster")) else { return Ok(()) };
    params::cluster(cluster)?;
    if state.registry.get(cluster).is_none() {
        return Err(KubeError::not_found(format!("cluster \"{}\" not found", params::shown(cluster))));
    }
    Ok(())
}
