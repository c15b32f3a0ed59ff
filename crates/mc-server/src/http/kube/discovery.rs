//! Discovery: `/api`, `/apis`, `/api/v1` and `/apis/{group}/{version}`, built from the union of
//! every cluster's synced types (CRDs included), in the legacy (unaggregated) form that kubectl,
//! client-go and kube-rs all read. Every type is served read-only: `get`, `list`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use axum::Json;
use axum::extract::{Path, State};
use mc_types::ResourceInfo;
use serde_json::{Value, json};

use super::status::{KubeError, KubeResult};
use crate::http::AppState;

/// The verbs every served type has.
const VERBS: [&str; 2] = ["get", "list"];

/// `/api`: the core group's versions.
pub async fn api_versions() -> Json<Value> {
    Json(json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}))
}

/// `/apis`: every named group with the versions its types are synced in.
pub async fn api_groups(State(state): State<AppState>) -> Json<Value> {
    let mut groups: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in state.registry.catalog().into_iter().filter(|r| !r.group.is_empty()) {
        groups.entry(r.group).or_default().insert(r.version);
    }
    let groups: Vec<Value> = groups
        .into_iter()
        .map(|(name, versions)| {
            let versions: Vec<Value> = versions
                .iter()
                .map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
                .collect();
            let preferred = versions.first().cloned().unwrap_or(Value::Null);
            json!({"name": name, "versions": versions, "preferredVersion": preferred})
        })
        .collect();
    Json(json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}))
}

/// `/api/{version}` (core) and `/apis/{group}/{version}`: one group version's types. The path
/// may also hold `{cluster}` (under `/clusters/{cluster}/`): discovery is the same union there.
pub async fn resources(
    State(state): State<AppState>,
    Path(path): Path<HashMap<String, String>>,
) -> KubeResult<Json<Value>> {
    let group = path.get("group").map(String::as_str).unwrap_or_default();
    let version = path.get("version").map(String::as_str).unwrap_or_default();
    resource_list(&state, group, version)
}

fn resource_list(state: &AppState, group: &str, version: &str) -> KubeResult<Json<Value>> {
    let types: Vec<ResourceInfo> =
        state.registry.catalog().into_iter().filter(|r| r.group == group && r.version == version).collect();
    if types.is_empty() {
        return Err(KubeError::no_such_resource());
    }
    let resources: Vec<Value> = types
        .iter()
        .map(|r| {
            let mut entry = json!({
                "name": r.resource,
                "singularName": r.singular,
                "namespaced": r.namespaced,
                "kind": r.kind,
                "verbs": VERBS,
            });
            if !r.short_names.is_empty() {
                entry["shortNames"] = json!(r.short_names);
            }
            entry
        })
        .collect();
    let group_version = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    Ok(Json(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources,
    })))
}
