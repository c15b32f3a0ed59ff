//! `MultiCluster`: one per member cluster, kept current by the server (cluster-scoped).

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A member cluster as the registry shows it.
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "mulitcluster.practice.com",
    version = "v1alpha1",
    kind = "MultiCluster",
    plural = "multiclusters",
    shortname = "mc",
    status = "MultiClusterStatus",
    printcolumn = r#"{"name":"VERSION","type":"string","jsonPath":".spec.version"}"#,
    printcolumn = r#"{"name":"HOST","type":"string","jsonPath":".spec.host"}"#,
    printcolumn = r#"{"name":"PLATFORM","type":"string","jsonPath":".spec.platform"}"#,
    printcolumn = r#"{"name":"ISMASTER","type":"boolean","jsonPath":".spec.isMaster"}"#,
    printcolumn = r#"{"name":"STATUS","type":"string","jsonPath":".status.status"}"#,
    printcolumn = r#"{"name":"AGE","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct MultiClusterSpec {
    /// Cluster name (same as the object's name).
    pub name: String,
    /// API server URL.
    #[serde(default)]
    pub host: String,
    /// Kubernetes version.
    #[serde(default)]
    pub version: String,
    /// Platform, e.g. `linux/amd64`.
    #[serde(default)]
    pub platform: String,
    /// The master cluster holds the MultiClusterResources.
    #[serde(default)]
    pub is_master: bool,
}

/// Health as last seen by the server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MultiClusterStatus {
    /// `Healthy` or `NotReady`.
    #[serde(default)]
    pub status: String,
    /// Why it is not ready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// When the server last updated this status (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_heartbeat_time: Option<String>,
}
