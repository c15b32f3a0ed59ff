//! `/version`, as kube-apiserver answers it (kube's `version.Info`), so that kubectl, client-go
//! and k9s accept the server: kubectl prints it and checks its skew against it, k9s asks for it
//! to tell whether it is connected at all.
//!
//! Over every cluster it is the master cluster's version: the master holds the
//! `MultiCluster` objects and reviews the tokens, so it is the cluster mc-server speaks for.
//! Under `/clusters/NAME/` it is that cluster's. Either comes from the probe the sync makes
//! every 10 s (no request to a member per caller). Its `gitVersion` carries the build metadata
//! `+mc-server` (`v1.35.4+mc-server`: semver that kubectl's skew check parses), so that who
//! looks knows what answers. When the members run different versions, a `Warning` says the
//! range. Without the master's version (not probed yet), the lowest member version answers,
//! with a `Warning` saying so; with none at all, `503`.
//!
//! Any authenticated caller may read it (kube-apiserver lets everyone read it through
//! `system:public-info-viewer`): no member's RBAC is asked, as no member's objects are shown.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use k8s_openapi::apimachinery::pkg::version::Info;

use super::scope::in_scope;
use crate::http::status::{KubeError, KubeResult};
use crate::http::warnings::add_warnings;
use crate::http::{ApiError, AppState};

/// The build metadata marking a version that mc-server answers.
pub const MARK: &str = "mc-server";

/// One member's probed version.
#[derive(Clone, Debug)]
pub struct Probed {
    /// The cluster's name.
    pub cluster: String,
    /// Whether it is the master.
    pub is_master: bool,
    /// Its `/version` answer.
    pub info: Info,
}

/// What `/version` answers: the version and the `Warning`s that go with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The version, its `gitVersion` marked with [`MARK`].
    pub info: Info,
    /// Why this version, when the members do not all run it.
    pub warnings: Vec<String>,
}

/// `GET /version` (every cluster) and `GET /clusters/{cluster}/version` (that cluster's).
pub async fn version(
    State(state): State<AppState>,
    path: Option<Path<HashMap<String, String>>>,
) -> KubeResult<Response> {
    let path = path.map(|p| p.0);
    in_scope(&state, path.as_ref())?;
    let one = path.as_ref().and_then(|p| p.get("cluster"));
    let probed: Vec<Probed> = state
        .registry
        .all()
        .into_iter()
        .filter(|c| one.is_none_or(|name| name == c.name()))
        .filter_map(|c| {
            let info = c.server_version()?;
            Some(Probed { cluster: c.name().to_string(), is_master: c.spec.is_master, info })
        })
        .collect();
    let Some(answer) = choose(&probed) else {
        let which = one.map_or("no cluster's version".to_string(), |c| format!("the version of {c}"));
        return Err(KubeError::from(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{which} is known yet: not connected; try again"),
        )));
    };
    let mut resp = Json(answer.info).into_response();
    add_warnings(&mut resp, answer.warnings);
    Ok(resp)
}

/// The version to answer for these members: the master's, else the lowest; `None` when none
/// was probed.
pub fn choose(probed: &[Probed]) -> Option<Answer> {
    let lowest = probed.iter().min_by_key(|p| release(&p.info.git_version))?;
    let highest = probed.iter().max_by_key(|p| release(&p.info.git_version))?;
    let mut warnings = Vec::new();
    let chosen = match probed.iter().find(|p| p.is_master) {
        Some(master) => master,
        None if probed.len() > 1 => {
            warnings.push(format!(
                "the master cluster's version is not known yet: this is the lowest member version, {}'s",
                lowest.cluster
            ));
            lowest
        }
        None => lowest,
    };
    if release(&lowest.info.git_version) != release(&highest.info.git_version) {
        let whose = if chosen.is_master { "the master's" } else { "the lowest" };
        warnings.push(format!(
            "member clusters run Kubernetes {} ({}) to {} ({}); this is {whose}",
            lowest.info.git_version, lowest.cluster, highest.info.git_version, highest.cluster
        ));
    }
    let mut info = chosen.info.clone();
    info.git_version = marked(&info.git_version);
    Some(Answer { info, warnings })
}

/// `gitVersion` with [`MARK`] as (more) build metadata: `v1.35.4+mc-server`,
/// `v1.30.2+k3s1.mc-server`.
pub fn marked(git_version: &str) -> String {
    let sep = if git_version.contains('+') { '.' } else { '+' };
    format!("{git_version}{sep}{MARK}")
}

/// `(major, minor, patch)` of a `gitVersion` such as `v1.35.4`, `v1.30.2+k3s1` or
/// `v1.29.3-gke.1093000`; what does not parse sorts first.
fn release(git_version: &str) -> (u64, u64, u64) {
    let core = git_version.trim_start_matches('v');
    let core = core.split(['-', '+']).next().unwrap_or_default();
    let mut parts = core.split('.').map(|n| n.parse::<u64>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn probed(cluster: &str, is_master: bool, git_version: &str) -> Probed {
        let info = Info { git_version: git_version.into(), major: "1".into(), ..Info::default() };
        Probed { cluster: cluster.into(), is_master, info }
    }

    #[test]
    fn the_masters_version_answers_marked_as_mc_servers() {
        let answer = choose(&[probed("a", false, "v1.34.1"), probed("m", true, "v1.35.4")]).unwrap();
        assert_eq!(answer.info.git_version, "v1.35.4+mc-server");
        assert_eq!(answer.info.major, "1");
        assert_eq!(
            answer.warnings,
            ["member clusters run Kubernetes v1.34.1 (a) to v1.35.4 (m); this is the master's"]
        );
    }

    #[test]
    fn members_of_one_version_answer_without_a_warning() {
        let answer = choose(&[probed("m", true, "v1.35.4"), probed("b", false, "v1.35.4")]).unwrap();
        assert!(answer.warnings.is_empty(), "{:?}", answer.warnings);
    }

    #[test]
    fn without_the_master_the_lowest_member_version_answers_and_says_so() {
        let answer = choose(&[probed("b", false, "v1.35.10"), probed("c", false, "v1.35.9")]).unwrap();
        assert_eq!(answer.info.git_version, "v1.35.9+mc-server", "numbers compare as numbers");
        assert!(answer.warnings[0].contains("not known yet"), "{:?}", answer.warnings);
        assert!(answer.warnings[1].contains("this is the lowest"), "{:?}", answer.warnings);
    }

    #[test]
    fn no_probed_member_has_no_version() {
        assert_eq!(choose(&[]), None);
    }

    #[test]
    fn build_metadata_is_extended_not_doubled() {
        assert_eq!(marked("v1.35.4"), "v1.35.4+mc-server");
        assert_eq!(marked("v1.30.2+k3s1"), "v1.30.2+k3s1.mc-server");
        assert_eq!(marked("v1.29.3-gke.1093000"), "v1.29.3-gke.1093000+mc-server");
    }

    #[test]
    fn vendor_versions_sort_by_their_release() {
        assert!(release("v1.29.3-gke.1093000") < release("v1.30.2+k3s1"));
        assert_eq!(release("garbage"), (0, 0, 0));
    }
}
