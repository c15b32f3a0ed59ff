//! HTTP wire types of mc-server, shared by the server and the CLI.
//!
//! The Go project's endpoints return bare JSON arrays, so pagination does not wrap them: the token
//! for the next page travels in the [`CONTINUE_HEADER`] response header.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::gvr::GvrError;

/// Response header carrying the `continue` token of the next page; absent on the last page.
pub const CONTINUE_HEADER: &str = "x-continue";

/// `limit` when none is given, as in the Go project; `limit=0` means all.
pub const DEFAULT_LIST_LIMIT: u64 = 10;

/// Request paths.
pub mod paths {
    /// `GET` → JSON array of objects.
    pub const LIST: &str = "/v1/list";
    /// `GET` → JSON array of [`super::ListWithClusterItem`].
    pub const LIST_WITH_CLUSTER: &str = "/v1/list_with_cluster";
    /// `POST ?cluster=&insecure=`, multipart field [`super::JOIN_KUBECONFIG_FIELD`].
    pub const JOIN: &str = "/v1/join";
    /// `DELETE ?cluster=`.
    pub const UNJOIN: &str = "/v1/unjoin";
    /// `GET` → JSON array of [`super::ClusterInfo`].
    pub const CLUSTERS: &str = "/v1/clusters";
    /// `GET ?verb=&gvr=` (and `namespace`, `name`, `subresource`, `cluster`, `user`, `group`) →
    /// JSON array of [`super::CanIAnswer`], one per cluster in name order.
    pub const CAN_I: &str = "/v1/auth/can-i";
    /// `GET ?gvr=&by=` (and `cluster`, `namespace`, `labelSelector`, `fieldSelector`) → a
    /// [`super::CountAnswer`].
    pub const COUNT: &str = "/v1/count";
    /// Liveness.
    pub const HEALTHZ: &str = "/healthz";
    /// Liveness, as kube-apiserver names it.
    pub const LIVEZ: &str = "/livez";
    /// The master cluster's Kubernetes version (kube's `version.Info`).
    pub const VERSION: &str = "/version";
    /// Readiness.
    pub const READYZ: &str = "/readyz";
    /// Prometheus metrics.
    pub const METRICS: &str = "/metrics";
    /// The resource metrics API (`metrics.k8s.io/v1beta1`) that mc-server reads live from the
    /// members that serve it: `/nodes[/NAME]`, `/pods`, `/namespaces/NS/pods[/NAME]`, under
    /// `/clusters/NAME` for one cluster.
    pub const RESOURCE_METRICS: &str = "/apis/metrics.k8s.io/v1beta1";
}

/// Multipart field of `/v1/join` that holds the kubeconfig.
pub const JOIN_KUBECONFIG_FIELD: &str = "kubeconfig";

/// One element of `/v1/list_with_cluster`: `{"clusterName": "...", "Object": {...}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ListWithClusterItem {
    /// The cluster the object lives in.
    #[serde(rename = "clusterName")]
    pub cluster_name: String,
    /// The object as stored.
    #[serde(rename = "Object")]
    pub object: serde_json::Value,
}

/// The answer of `/v1/count`: how many objects have each combination of the keys' values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountAnswer {
    /// The keys, as the server understood them (`cluster`, `status.phase`, `STATUS`).
    pub by: Vec<String>,
    /// One per combination of values that some object has, sorted by the values.
    pub items: Vec<CountItem>,
    /// Every object counted.
    pub total: u64,
}

/// One row of a [`CountAnswer`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountItem {
    /// The keys' values, in the order of `by` (`<none>` for a missing one).
    pub values: Vec<String>,
    /// How many objects have them.
    pub count: u64,
}

/// Body of every error response: `{"error": "..."}`, with candidates for an ambiguous or unknown
/// resource type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiErrorBody {
    /// One-line message.
    pub error: String,
    /// Possible meanings of an ambiguous or unknown name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<String>>,
}

impl ApiErrorBody {
    /// An error without candidates.
    pub fn new(error: impl Into<String>) -> Self {
        Self { error: error.into(), candidates: None }
    }
}

impl fmt::Display for ApiErrorBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.error)
    }
}

impl From<&GvrError> for ApiErrorBody {
    fn from(err: &GvrError) -> Self {
        let candidates = err.candidates();
        Self {
            error: err.to_string(),
            candidates: if candidates.is_empty() { None } else { Some(candidates.to_vec()) },
        }
    }
}

/// One cluster's answer of `/v1/auth/can-i`: may the caller (or the user asked about) do this
/// there?
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CanIAnswer {
    /// The cluster.
    pub cluster: String,
    /// Whether it is allowed.
    pub allowed: bool,
    /// What allows it: the binding (`RoleBinding/NAMESPACE/NAME`, `ClusterRoleBinding/NAME`) or
    /// the static token's role (`static token: read role`); empty when denied.
    #[serde(default)]
    pub reason: String,
}

/// Body of a successful join or unjoin: `{"res": "..."}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResResponse {
    /// Human-readable result.
    pub res: String,
}

impl ResResponse {
    /// The Go project's join message.
    pub const JOINED: &str = "join cluster successful";
    /// The Go project's unjoin message.
    pub const UNJOINED: &str = "unjoin cluster successful";

    /// `{"res": "join cluster successful"}`.
    pub fn joined() -> Self {
        Self { res: Self::JOINED.to_owned() }
    }

    /// `{"res": "unjoin cluster successful"}`.
    pub fn unjoined() -> Self {
        Self { res: Self::UNJOINED.to_owned() }
    }
}

/// How fresh a cluster's objects in the store are. The same words are used in `/v1/clusters`,
/// `list clusters`, the `MultiCluster` status and the `Warning` headers of answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ClusterStatus {
    /// Not contacted yet.
    Connecting,
    /// Connected; the first list of some types is not written yet.
    Syncing,
    /// Every type listed and written; changes stream in. (`Ready` from older servers.)
    #[serde(alias = "Ready")]
    Synced,
    /// Unreachable, unauthorised or refusing; retried with backoff. Its stored objects are the
    /// last ones seen.
    NotReady,
    /// Connected and listed, but the store is behind: it refuses writes, or changes lag.
    Stale,
}

impl ClusterStatus {
    /// Whether answers from this cluster are current.
    pub fn is_synced(self) -> bool {
        self == Self::Synced
    }
}

impl fmt::Display for ClusterStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Connecting => "Connecting",
            Self::Syncing => "Syncing",
            Self::Synced => "Synced",
            Self::NotReady => "NotReady",
            Self::Stale => "Stale",
        })
    }
}

/// One element of `/v1/clusters` (a bare JSON array).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterInfo {
    /// Cluster name.
    pub name: String,
    /// Connecting, Syncing, Synced, NotReady or Stale.
    pub status: ClusterStatus,
    /// Since when the cluster has this status, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Kubernetes version, e.g. `v1.35.0`; empty until first contact.
    #[serde(default)]
    pub version: String,
    /// Platform, e.g. `linux/amd64`; empty until first contact.
    #[serde(default)]
    pub platform: String,
    /// API server URL.
    #[serde(default)]
    pub host: String,
    /// Whether this is the master cluster.
    #[serde(default)]
    pub is_master: bool,
    /// Number of resource types being synced.
    #[serde(default)]
    pub resource_types: usize,
    /// Of those, the types whose first list is written.
    #[serde(default)]
    pub types_listed: usize,
    /// Number of objects in the store for this cluster.
    #[serde(default)]
    pub objects: u64,
    /// Time of the last watch event, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_event: Option<String>,
    /// How far the store is behind the cluster, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_seconds: Option<f64>,
    /// Why the cluster is not ready, or other remarks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The last change the store refused for this cluster, with the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// With a shared database and several replicas: the replica that syncs this cluster (holds
    /// its Lease), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synced_by: Option<String>,
    /// Types whose list keeps failing: their objects in the store may be missing or stale. Each
    /// stops holding the cluster's sync back after three failures in a row, and is listed here
    /// until a list of it is written completely.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unlisted_types: Vec<TypeFault>,
    /// Types that are listed but whose watch keeps failing: their objects in the store follow
    /// the cluster only at each new list, minutes apart. Each is listed here until its watch
    /// brings a change, or runs for 20 s without failing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unwatched_types: Vec<TypeFault>,
    /// Revisions the history keeps of the cluster's objects (absent when history is off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_revisions: Option<u64>,
    /// Stored bytes of those revisions' objects (absent when history is off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_bytes: Option<u64>,
    /// When the oldest revision kept was written, RFC 3339 (absent when history is off or
    /// holds no revision of the cluster).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_oldest: Option<String>,
}

/// A resource type of a cluster whose list or whose watch keeps failing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TypeFault {
    /// The type, `group/version/resource` (`v1/pods` for the core group).
    #[serde(rename = "type")]
    pub gvr: String,
    /// Since when it fails, RFC 3339.
    pub since: String,
    /// Why, in the server's words (a status code, never the remote server's text).
    pub reason: String,
}

impl TypeFault {
    /// The `Warning` an answer about this type carries for `cluster` when its list fails.
    pub fn unlisted_warning(&self, cluster: &str) -> String {
        format!(
            "cluster {cluster}: {} could not be listed since {} ({}): its objects of this type may be missing or stale",
            self.gvr, self.since, self.reason
        )
    }

    /// The `Warning` an answer about this type carries for `cluster` when its watch fails.
    pub fn unwatched_warning(&self, cluster: &str) -> String {
        format!(
            "cluster {cluster}: {} could not be watched since {} ({}): its objects of this type are \
             only as current as its last list (lists are repeated up to 5 minutes apart)",
            self.gvr, self.since, self.reason
        )
    }
}

impl ClusterInfo {
    /// The `Warning` an answer carries when it holds objects of this cluster and the cluster is
    /// not `Synced` (Kubernetes' `299 - "text"` form); `None` when it is.
    pub fn staleness_warning(&self) -> Option<String> {
        if self.status.is_synced() {
            return None;
        }
        let since = self.since.as_deref().map(|s| format!(" since {s}")).unwrap_or_default();
        Some(format!("cluster {} is {}{since}: its objects may be stale", self.name, self.status))
    }

    /// The `Warning` an answer about the type `gvr` (its `Display` form) carries when this
    /// cluster cannot list it or, listing it, cannot watch it; `None` when it can.
    pub fn type_warning(&self, gvr: &str) -> Option<String> {
        let find = |faults: &[TypeFault]| faults.iter().find(|f| f.gvr == gvr).cloned();
        match (find(&self.unlisted_types), find(&self.unwatched_types)) {
            (Some(unlisted), _) => Some(unlisted.unlisted_warning(&self.name)),
            (None, Some(unwatched)) => Some(unwatched.unwatched_warning(&self.name)),
            (None, None) => None,
        }
    }
}

/// Type of a [`WatchEvent`], spelled as Kubernetes does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum WatchEventType {
    /// The object appeared.
    Added,
    /// The object changed.
    Modified,
    /// The object was deleted; `object` is its last known state.
    Deleted,
    /// The stream failed; `object` is an [`ApiErrorBody`] and the stream ends.
    Error,
}

impl fmt::Display for WatchEventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Added => "ADDED",
            Self::Modified => "MODIFIED",
            Self::Deleted => "DELETED",
            Self::Error => "ERROR",
        })
    }
}

/// One line of a newline-delimited watch stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WatchEvent {
    /// What happened.
    #[serde(rename = "type")]
    pub kind: WatchEventType,
    /// The cluster of the object (empty for a stream-wide error).
    #[serde(rename = "clusterName", default)]
    pub cluster_name: String,
    /// The object.
    pub object: serde_json::Value,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn list_with_cluster_items_use_the_go_projects_keys() {
        let item = ListWithClusterItem { cluster_name: "tencent1".into(), object: json!({"kind": "Pod"}) };
        assert_eq!(
            serde_json::to_value(&item).unwrap(),
            json!({"clusterName": "tencent1", "Object": {"kind": "Pod"}})
        );
        let back: ListWithClusterItem =
            serde_json::from_value(json!({"clusterName": "c", "Object": {"a": 1}})).unwrap();
        assert_eq!(back.cluster_name, "c");
    }

    #[test]
    fn error_bodies_omit_candidates_when_there_are_none() {
        assert_eq!(serde_json::to_value(ApiErrorBody::new("boom")).unwrap(), json!({"error": "boom"}));
        let body: ApiErrorBody = serde_json::from_value(json!({"error": "x"})).unwrap();
        assert_eq!(body.candidates, None);
        assert_eq!(body.to_string(), "x");
    }

    #[test]
    fn gvr_errors_become_error_bodies_with_candidates() {
        let err = GvrError::Ambiguous { name: "widgets".into(), candidates: vec!["a/v1/widgets".into()] };
        let body = ApiErrorBody::from(&err);
        assert_eq!(body.error, err.to_string());
        assert_eq!(body.candidates, Some(vec!["a/v1/widgets".into()]));
        assert_eq!(ApiErrorBody::from(&GvrError::Empty).candidates, None);
    }

    #[test]
    fn join_and_unjoin_answer_like_the_go_project() {
        assert_eq!(
            serde_json::to_value(ResResponse::joined()).unwrap(),
            json!({"res": "join cluster successful"})
        );
        assert_eq!(
            serde_json::to_value(ResResponse::unjoined()).unwrap(),
            json!({"res": "unjoin cluster successful"})
        );
    }

    #[test]
    fn cluster_info_is_camel_case_and_skips_absent_options() {
        let info = ClusterInfo {
            name: "tencent1".into(),
            status: ClusterStatus::NotReady,
            since: Some("2026-11-24T01:02:03Z".into()),
            version: "v1.35.0".into(),
            platform: "linux/amd64".into(),
            host: "https://10.0.0.1:6443".into(),
            is_master: true,
            resource_types: 57,
            types_listed: 50,
            objects: 1234,
            last_event: None,
            lag_seconds: Some(0.5),
            message: None,
            last_error: None,
            synced_by: None,
            unlisted_types: Vec::new(),
            unwatched_types: Vec::new(),
            history_revisions: None,
            history_bytes: None,
            history_oldest: None,
        };
        let value = serde_json::to_value(&info).unwrap();
        assert_eq!(
            value,
            json!({
                "name": "tencent1", "status": "NotReady", "since": "2026-11-24T01:02:03Z", "version": "v1.35.0",
                "platform": "linux/amd64", "host": "https://10.0.0.1:6443", "isMaster": true,
                "resourceTypes": 57, "typesListed": 50, "objects": 1234, "lagSeconds": 0.5
            })
        );
        let list: Vec<ClusterInfo> = serde_json::from_value(json!([value])).unwrap();
        assert_eq!(list, vec![info.clone()]);
        assert_eq!(
            info.staleness_warning().as_deref(),
            Some("cluster tencent1 is NotReady since 2026-11-24T01:02:03Z: its objects may be stale")
        );
        let kept = ClusterInfo {
            history_revisions: Some(10),
            history_bytes: Some(2048),
            history_oldest: Some("2026-11-20T00:00:00Z".into()),
            ..info.clone()
        };
        let value = serde_json::to_value(&kept).unwrap();
        assert_eq!(
            (&value["historyRevisions"], &value["historyBytes"], &value["historyOldest"]),
            (&json!(10), &json!(2048), &json!("2026-11-20T00:00:00Z"))
        );
        let synced = ClusterInfo { status: ClusterStatus::Synced, ..info };
        assert_eq!(synced.staleness_warning(), None);
        assert_eq!(synced.type_warning("v1/pods"), None);

        let fault = TypeFault {
            gvr: "example.com/v2/gadgets".into(),
            since: "2026-11-24T01:02:03Z".into(),
            reason: "HTTP 500".into(),
        };
        let unlisted = ClusterInfo { unlisted_types: vec![fault.clone()], ..synced.clone() };
        assert_eq!(
            serde_json::to_value(&unlisted).unwrap()["unlistedTypes"],
            json!([{"type": "example.com/v2/gadgets", "since": "2026-11-24T01:02:03Z", "reason": "HTTP 500"}])
        );
        assert_eq!(unlisted.type_warning("v1/pods"), None);
        let cannot_list = "cluster tencent1: example.com/v2/gadgets could not be listed since 2026-11-24T01:02:03Z \
                           (HTTP 500): its objects of this type may be missing or stale";
        assert_eq!(unlisted.type_warning("example.com/v2/gadgets").as_deref(), Some(cannot_list));

        let unwatched = ClusterInfo { unwatched_types: vec![fault.clone()], ..synced };
        let value = serde_json::to_value(&unwatched).unwrap();
        assert_eq!(
            value["unwatchedTypes"],
            json!([{"type": "example.com/v2/gadgets", "since": "2026-11-24T01:02:03Z", "reason": "HTTP 500"}])
        );
        assert!(value.get("unlistedTypes").is_none(), "{value}");
        assert_eq!(unwatched.type_warning("v1/pods"), None);
        assert_eq!(
            unwatched.type_warning("example.com/v2/gadgets").as_deref(),
            Some(
                "cluster tencent1: example.com/v2/gadgets could not be watched since 2026-11-24T01:02:03Z \
                 (HTTP 500): its objects of this type are only as current as its last list (lists are \
                 repeated up to 5 minutes apart)"
            )
        );
        // A type that cannot be listed says so, whatever its watch.
        let both = ClusterInfo { unlisted_types: vec![fault], ..unwatched };
        assert_eq!(both.type_warning("example.com/v2/gadgets").as_deref(), Some(cannot_list));
    }

    #[test]
    fn cluster_status_displays_as_serialized() {
        for s in [
            ClusterStatus::Connecting,
            ClusterStatus::Syncing,
            ClusterStatus::Synced,
            ClusterStatus::NotReady,
            ClusterStatus::Stale,
        ] {
            assert_eq!(serde_json::to_value(s).unwrap(), json!(s.to_string()));
        }
        // Older servers said Ready.
        assert_eq!(serde_json::from_value::<ClusterStatus>(json!("Ready")).unwrap(), ClusterStatus::Synced);
    }

    #[test]
    fn watch_events_are_typed_like_kubernetes() {
        let event =
            WatchEvent { kind: WatchEventType::Modified, cluster_name: "c".into(), object: json!({}) };
        let line = serde_json::to_string(&event).unwrap();
        assert_eq!(line, r#"{"type":"MODIFIED","clusterName":"c","object":{}}"#);
        assert_eq!(serde_json::from_str::<WatchEvent>(&line).unwrap(), event);
        for (kind, text) in [
            (WatchEventType::Added, "ADDED"),
            (WatchEventType::Deleted, "DELETED"),
            (WatchEventType::Error, "ERROR"),
        ] {
            assert_eq!(serde_json::to_value(kind).unwrap(), json!(text));
            assert_eq!(kind.to_string(), text);
        }
    }

    #[test]
    fn the_continue_header_is_lowercase_for_http2() {
        assert_eq!(CONTINUE_HEADER, CONTINUE_HEADER.to_ascii_lowercase());
    }
}
