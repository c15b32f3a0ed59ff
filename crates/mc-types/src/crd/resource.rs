//! `MultiClusterResource`: a template, where to place it and per-cluster customizations.

use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What to dispatch and where.
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "mulitcluster.practice.com",
    version = "v1alpha1",
    kind = "MultiClusterResource",
    plural = "multiclusterresources",
    shortname = "mcr",
    shortname = "rr",
    namespaced,
    status = "MultiClusterResourceStatus",
    printcolumn = r#"{"name":"KIND","type":"string","jsonPath":".spec.template.kind"}"#,
    printcolumn = r#"{"name":"READY","type":"string","jsonPath":".status.ready","description":"clusters applied / clusters placed"}"#,
    printcolumn = r#"{"name":"SYNCED","type":"string","jsonPath":".status.conditions[?(@.type==\"Synced\")].status"}"#,
    printcolumn = r#"{"name":"AGE","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct MultiClusterResourceSpec {
    /// Any Kubernetes object (apiVersion, kind, metadata, …).
    #[schemars(schema_with = "super::any_object")]
    pub template: serde_json::Value,
    /// Target clusters; empty or missing means the master cluster only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<Placement>,
    /// Per-cluster JSON-Patch operations applied to the template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub customize: Option<Customize>,
    /// What to do when the object already exists in a cluster and was not created by us.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict_resolution: Option<ConflictResolution>,
}

/// Where to dispatch.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Placement {
    /// Clusters by name.
    #[serde(default)]
    pub clusters: Vec<ClusterRef>,
    /// Clusters by the labels of their `MultiCluster` objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_selector: Option<LabelSelector>,
}

/// A cluster by name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClusterRef {
    /// The cluster's name.
    pub name: String,
}

/// Per-cluster differences.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Customize {
    /// One entry per customized cluster.
    #[serde(default)]
    pub clusters: Vec<ClusterCustomize>,
}

/// The actions for one cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClusterCustomize {
    /// The cluster's name.
    pub name: String,
    /// JSON-Patch operations, applied in order.
    #[serde(default)]
    pub action: Vec<Action>,
}

/// One JSON-Patch operation in the Go project's convention.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Action {
    /// JSON Pointer into the object, e.g. `/spec/replicas`.
    pub path: String,
    /// `add`, `replace` or `remove`.
    pub op: String,
    /// A list whose element is the value (`"key=value"` strings make a map), or a plain value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::any_value")]
    pub value: Option<serde_json::Value>,
}

/// Adoption of objects that exist and are not ours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ConflictResolution {
    /// Leave them alone and report a conflict.
    #[default]
    Abort,
    /// Take them over.
    Overwrite,
}

/// Observed state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MultiClusterResourceStatus {
    /// `applied/placed`, e.g. `2/3`.
    #[serde(default)]
    pub ready: String,
    /// Generation of the spec the status describes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// One entry per placed cluster (and per cluster still being cleaned up).
    #[serde(default)]
    pub clusters: Vec<ClusterResult>,
    /// `Ready` (every placed cluster applied) and `Synced` (the last reconcile succeeded).
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

/// The outcome in one cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterResult {
    /// Cluster name.
    pub name: String,
    /// What happened.
    pub phase: Phase,
    /// Details, e.g. the error.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Generation applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// When the phase last changed (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<String>,
}

/// Phase of one cluster's copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Phase {
    /// Not tried yet.
    #[default]
    Pending,
    /// The rendered object is applied.
    Applied,
    /// Rendering or applying failed; retried with backoff.
    Failed,
    /// An object of that name exists there and is not ours.
    Conflict,
    /// The copy is being removed.
    Deleting,
    /// The template points outside what this resource may write (another namespace, or a
    /// cluster-scoped kind, from a namespace not in `dispatch.adminNamespaces`); nothing is
    /// written.
    Forbidden,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Pending => "Pending",
            Phase::Applied => "Applied",
            Phase::Failed => "Failed",
            Phase::Conflict => "Conflict",
            Phase::Deleting => "Deleting",
            Phase::Forbidden => "Forbidden",
        })
    }
}

impl MultiClusterResource {
    /// `<namespace>/<name>`, the owner annotation's value on every copy.
    pub fn owner_key(&self) -> String {
        format!(
            "{}/{}",
            self.metadata.namespace.as_deref().unwrap_or("default"),
            self.metadata.name.as_deref().unwrap_or("")
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_go_projects_examples_parse() {
        for file in [
            "multi_cluster_resource_deployment_example.yaml",
            "multi_cluster_resource_configmap_example.yaml",
            "multi_cluster_resource_pod_example.yaml",
        ] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(file);
            let text = std::fs::read_to_string(&path).unwrap();
            let mcr: MultiClusterResource = serde_saphyr::from_str(&text).unwrap();
            assert_eq!(mcr.spec.placement.unwrap().clusters.len(), 3, "{file}");
            assert!(mcr.spec.customize.is_some(), "{file}");
        }
    }
}
