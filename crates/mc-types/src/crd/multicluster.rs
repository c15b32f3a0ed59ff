//! `MultiCluster`: one per member cluster, kept current by the server. Exactly the Go project's
//! shape, so its CRD, its objects and its CLI keep working: namespaced (in the server's
//! namespace), every spec field a string (`isMaster: "true"`), `status.status`, short name `cl`;
//! our additions are optional status fields.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// A member cluster as the registry shows it.
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "mulitcluster.practice.com",
    version = "v1alpha1",
    kind = "MultiCluster",
    plural = "multiclusters",
    shortname = "cl",
    shortname = "mc",
    namespaced,
    status = "MultiClusterStatus",
    printcolumn = r#"{"name":"Version","type":"string","jsonPath":".spec.version"}"#,
    printcolumn = r#"{"name":"Host","type":"string","jsonPath":".spec.host"}"#,
    printcolumn = r#"{"name":"Platform","type":"string","jsonPath":".spec.platform"}"#,
    printcolumn = r#"{"name":"IsMaster","type":"string","jsonPath":".spec.isMaster"}"#,
    printcolumn = r#"{"name":"Status","type":"string","jsonPath":".status.status"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
// Fields the Go project (or a later version) wrote that we do not know are kept, not pruned.
#[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
pub struct MultiClusterSpec {
    /// Cluster name (same as the object's name).
    #[serde(default)]
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
    /// `"true"` for the master cluster, which holds the MultiClusterResources; a string, as the
    /// Go project wrote it (a boolean is read too).
    #[serde(default, deserialize_with = "string_or_bool")]
    pub is_master: String,
}

impl MultiClusterSpec {
    /// Whether this is the master cluster (`isMaster: "true"`, any case).
    pub fn is_master(&self) -> bool {
        self.is_master.trim().eq_ignore_ascii_case("true")
    }
}

/// `"true"`/`"false"` as the Go project writes `isMaster`, from a string or a boolean.
fn string_or_bool<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Flag(bool),
    }
    Ok(match Option::<Either>::deserialize(d)? {
        Some(Either::Text(s)) => s,
        Some(Either::Flag(b)) => b.to_string(),
        None => String::new(),
    })
}

/// Health as last seen by the server. `status` is the Go project's field; the rest is ours.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
pub struct MultiClusterStatus {
    /// `Connecting`, `Syncing`, `Synced`, `NotReady` or `Stale` (the Go project wrote `Healthy`).
    #[serde(default)]
    pub status: String,
    /// Why it is not ready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Since when the cluster has this status (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Resource types whose initial list is in the store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub types_listed: Option<u64>,
    /// Resource types discovered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub types_total: Option<u64>,
    /// Objects of this cluster in the store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objects: Option<u64>,
    /// How far the store is behind the cluster, in whole seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_seconds: Option<u64>,
    /// The last change the store refused for this cluster, with the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Resource types whose list keeps failing: their objects may be missing or stale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unlisted_types: Option<Vec<crate::api::TypeFault>>,
    /// Resource types that are listed but whose watch keeps failing: their objects are only as
    /// current as the type's last list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unwatched_types: Option<Vec<crate::api::TypeFault>>,
    /// When the server last updated this status (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_heartbeat_time: Option<String>,
    /// `Ready`: True when the cluster's objects in the store are current (`Synced`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_object_the_go_project_wrote_reads_with_its_string_is_master() {
        let mc: MultiCluster = serde_json::from_value(json!({
            "apiVersion": "mulitcluster.practice.com/v1alpha1", "kind": "MultiCluster",
            "metadata": {"name": "tencent1", "namespace": "default"},
            "spec": {"name": "tencent1", "host": "https://1.2.3.4:6443", "version": "v1.27.3",
                     "platform": "linux/amd64", "isMaster": "true"},
            "status": {"status": "Healthy"}
        }))
        .unwrap();
        assert!(mc.spec.is_master());
        assert_eq!(mc.spec.is_master, "true");
        assert_eq!(mc.status.unwrap().status, "Healthy");
        let member: MultiClusterSpec =
            serde_json::from_value(json!({"name": "b", "isMaster": "false"})).unwrap();
        assert!(!member.is_master());
    }

    #[test]
    fn a_boolean_is_master_reads_as_its_string() {
        let spec: MultiClusterSpec = serde_json::from_value(json!({"name": "a", "isMaster": true})).unwrap();
        assert_eq!(spec.is_master, "true");
        let spec: MultiClusterSpec = serde_json::from_value(json!({"name": "a"})).unwrap();
        assert!(!spec.is_master());
    }

    #[test]
    fn is_master_is_written_as_a_string() {
        let spec = MultiClusterSpec { name: "a".into(), is_master: "true".into(), ..Default::default() };
        assert_eq!(serde_json::to_value(&spec).unwrap()["isMaster"], json!("true"));
    }
}
