//! Trees of related objects, as `/v1/tree` answers them and `kubectl multicluster tree` prints
//! them: an object, what it owns down to pods, and what each pod uses.

use serde::{Deserialize, Serialize};

/// `GET ?gvr=&name=&namespace=&cluster=[&neighbours=true]` → JSON array of [`ClusterTree`], one
/// per cluster where the object exists. With `neighbours`, each root's children are what is one
/// step away: its owners ([`Relation::Owner`]), what it owns and what it links to.
pub const PATH: &str = "/v1/tree";

/// Most objects in one cluster's tree; a larger tree is cut, and says so.
pub const MAX_NODES: usize = 10_000;

/// Most levels below the root.
pub const MAX_DEPTH: usize = 12;

/// How a node is linked to its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Relation {
    /// The tree's root.
    Root,
    /// The root's owner (ownerReferences), in a tree of neighbours only.
    Owner,
    /// The parent is its owner (ownerReferences).
    Owned,
    /// A Service's EndpointSlice (label `kubernetes.io/service-name`).
    Endpoints,
    /// A Pod an EndpointSlice's endpoint points to (targetRef).
    Endpoint,
    /// A Service an Ingress routes to.
    Backend,
    /// The object a HorizontalPodAutoscaler scales.
    ScaleTarget,
    /// The Node a Pod runs on.
    RunsOn,
    /// A PersistentVolumeClaim a Pod mounts.
    Mounts,
    /// The PersistentVolume a claim is bound to.
    BoundTo,
    /// A ConfigMap a Pod mounts or reads.
    ConfigMap,
    /// A Secret a Pod mounts or reads.
    Secret,
    /// The ServiceAccount a Pod runs as.
    ServiceAccount,
    /// The object a MultiClusterResource applied in a member cluster.
    Applied,
    /// A target of a link an operator declared in the server's config.
    Linked,
}

/// One object of a tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeNode {
    /// How it is linked to its parent.
    pub relation: Relation,
    /// The cluster, when not the tree's (a MultiClusterResource's applied objects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// `apiVersion`.
    pub api_version: String,
    /// Kind.
    pub kind: String,
    /// `""` when cluster-scoped.
    #[serde(default)]
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Ready count (`2/2`), where the kind has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<String>,
    /// Short status: a pod's phase, a node's readiness, a claim's phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// `metadata.creationTimestamp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// Referred to but not stored (a mounted ConfigMap that does not exist).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub missing: bool,
    /// Its children.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<TreeNode>,
}

/// One cluster's tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterTree {
    /// The cluster.
    pub cluster: String,
    /// The root object and what is below it.
    pub root: TreeNode,
    /// Cut at [`MAX_NODES`] objects or [`MAX_DEPTH`] levels.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Objects left out because the caller may not read them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hidden: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl TreeNode {
    /// This node and every node below it, depth first (the node, then each child's).
    pub fn walk(&self) -> Vec<(usize, &TreeNode)> {
        let mut out = Vec::new();
        fn go<'a>(n: &'a TreeNode, depth: usize, out: &mut Vec<(usize, &'a TreeNode)>) {
            out.push((depth, n));
            for c in &n.children {
                go(c, depth + 1, out);
            }
        }
        go(self, 0, &mut out);
        out
    }
}
