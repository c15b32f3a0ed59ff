//! Trees of related objects in one cluster: an object, what it owns down to pods (by owner uid,
//! so custom resources join too), and the links Kubernetes users follow — Service →
//! EndpointSlices → Pods, Ingress → Services, HorizontalPodAutoscaler → its target, Pod → Node,
//! claims → volumes, ConfigMaps, Secrets and ServiceAccount. A MultiClusterResource's tree holds
//! the object it applied in each placed member cluster, with that object's own tree.
//!
//! The tree is read a level at a time, each level in a few batched store reads (children by
//! owner, objects by name, EndpointSlices by label), all of a cluster's tree in one read
//! transaction (one snapshot, no `BEGIN`/`COMMIT` per read), and bounded by [`MAX_NODES`] and
//! [`MAX_DEPTH`]. Access rules are the caller's business (`http::tree` prunes what its caller
//! may not read).

mod declared;
mod links;
mod owned;
mod status;

use std::collections::{BTreeMap, HashMap, HashSet};

use mc_types::crd::{GROUP as MC_GROUP, OWNER_ANNOTATION};
use mc_types::tree::{ClusterTree, MAX_DEPTH, MAX_NODES, Relation, TreeNode};
use mc_types::{Gvr, ResourceInfo};
use serde_json::Value;

use crate::store::{RelatedObject, RelatedReads, Store};
use links::{Link, Target};
pub use owned::owned;

/// Errors of this module.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The store failed; retryable when its error is.
    #[error(transparent)]
    Store(#[from] crate::store::Error),
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The types a tree may name: by `(group, resource)` and by `(group, kind)`, from discovery.
#[derive(Clone, Debug, Default)]
pub struct Types {
    by_resource: HashMap<(String, String), (Gvr, String)>,
    by_kind: HashMap<(String, String), (Gvr, String)>,
    namespaced: HashSet<(String, String)>,
    /// The links declared in the config.
    declared: Vec<declared::Declared>,
}

impl Types {
    /// From a catalog of discovered types.
    pub fn new(catalog: &[ResourceInfo]) -> Self {
        let mut t = Types::default();
        for info in catalog {
            let entry = (info.gvr(), info.kind.clone());
            t.by_resource.insert((info.group.clone(), info.resource.clone()), entry.clone());
            t.by_kind.entry((info.group.clone(), info.kind.clone())).or_insert(entry);
            if info.namespaced {
                t.namespaced.insert((info.group.clone(), info.resource.clone()));
            }
        }
        t
    }

    /// With the links declared in the config (`relations.links`).
    pub fn with_links(mut self, links: &[mc_types::declared_links::DeclaredLink]) -> Self {
        self.declared = declared::compile(links);
        self
    }

    fn of(&self, link: &Link) -> Option<&(Gvr, String)> {
        let key = (link.group.clone(), link.resource.clone());
        if link.by_kind { self.by_kind.get(&key) } else { self.by_resource.get(&key) }
    }

    /// The type of objects of `kind` in `api_version`.
    pub fn of_kind(&self, api_version: &str, kind: &str) -> Option<&Gvr> {
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        self.by_kind.get(&(group.to_string(), kind.to_string())).map(|(g, _)| g)
    }
}

/// What is read below a node.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expand {
    /// What it owns and what it links to.
    Full,
    /// What it links to (a claim's volume).
    Links,
    /// Nothing (a Node, a ConfigMap).
    None,
}

fn expand_of(relation: Relation) -> Expand {
    match relation {
        Relation::Root
        | Relation::Owned
        | Relation::Endpoints
        | Relation::Endpoint
        | Relation::Backend
        | Relation::ScaleTarget
        | Relation::Applied
        | Relation::Linked => Expand::Full,
        Relation::Mounts => Expand::Links,
        _ => Expand::None,
    }
}

/// One batched read of a level: `(type, kind, namespace, label key)`, by name without a key.
type Read = (Gvr, String, String, Option<String>);

struct Slot {
    node: TreeNode,
    /// Its uid; `None` when it is not stored.
    uid: Option<String>,
    /// What it links to, read from its JSON when it was pushed (each object is parsed once);
    /// taken when its level is read.
    links: Vec<Link>,
    expand: Expand,
    children: Vec<usize>,
}

/// One cluster's tree being read.
struct Builder<'a> {
    reads: RelatedReads,
    types: &'a Types,
    cluster: &'a str,
    slots: Vec<Slot>,
    /// Uids already expanded: an object reached twice is shown once.
    seen: HashSet<String>,
    truncated: bool,
}

fn node(relation: Relation, o: &RelatedObject, value: &Value) -> TreeNode {
    let (ready, status) = status::of(&o.kind, value);
    TreeNode {
        relation,
        cluster: None,
        api_version: o.gvr.api_version(),
        kind: o.kind.clone(),
        namespace: o.namespace.clone(),
        name: o.name.clone(),
        ready,
        status,
        created: value["metadata"]["creationTimestamp"].as_str().map(str::to_string),
        missing: false,
        children: Vec::new(),
    }
}

impl Builder<'_> {
    fn push(
        &mut self,
        parent: Option<usize>,
        relation: Relation,
        o: &RelatedObject,
        value: &Value,
    ) -> Option<usize> {
        let expand = expand_of(relation);
        if expand == Expand::Full && !self.seen.insert(o.uid.clone()) {
            return None;
        }
        if self.slots.len() >= MAX_NODES {
            self.truncated = true;
            return None;
        }
        let links = if expand == Expand::None {
            Vec::new()
        } else {
            let types = self.types;
            let mut links = links::of(&o.gvr.group, &o.kind, value);
            links.extend(declared::of(&types.declared, &o.gvr.group, &o.gvr.resource, value, |t| {
                types.namespaced.contains(&(t.group.clone(), t.resource.clone()))
            }));
            links
        };
        let i = self.slots.len();
        self.slots.push(Slot {
            node: node(relation, o, value),
            uid: Some(o.uid.clone()),
            links,
            expand,
            children: Vec::new(),
        });
        if let Some(p) = parent {
            self.slots[p].children.push(i);
        }
        Some(i)
    }

    fn push_missing(&mut self, parent: usize, link: &Link, gvr: &Gvr, kind: &str, name: &str) {
        if self.slots.len() >= MAX_NODES {
            self.truncated = true;
            return;
        }
        let i = self.slots.len();
        let node = TreeNode {
            relation: link.relation,
            cluster: None,
            api_version: gvr.api_version(),
            kind: kind.into(),
            namespace: link.namespace.clone(),
            name: name.into(),
            ready: None,
            status: Some("Missing".into()),
            created: None,
            missing: true,
            children: Vec::new(),
        };
        self.slots.push(Slot {
            node,
            uid: None,
            links: Vec::new(),
            expand: Expand::None,
            children: Vec::new(),
        });
        self.slots[parent].children.push(i);
    }

    /// Reads one level below `frontier`; returns the next level.
    async fn level(&mut self, frontier: &[usize]) -> Result<Vec<usize>> {
        let mut next = Vec::new();
        // What the frontier owns.
        let owners: HashMap<String, usize> = frontier
            .iter()
            .filter(|&&i| self.slots[i].expand == Expand::Full)
            .filter_map(|&i| self.slots[i].uid.clone().map(|uid| (uid, i)))
            .collect();
        if !owners.is_empty() {
            let uids: Vec<String> = owners.keys().cloned().collect();
            let mut children = self.reads.children_of(self.cluster, &uids).await?;
            children.sort_by(|a, b| (&a.kind, &a.namespace, &a.name).cmp(&(&b.kind, &b.namespace, &b.name)));
            for child in children {
                let Some(&parent) = child.owner.as_ref().and_then(|o| owners.get(o)) else { continue };
                let value = child.object.value();
                next.extend(self.push(Some(parent), Relation::Owned, &child, &value));
            }
        }
        // What the frontier links to, read a (type, namespace, label key) at a time.
        let mut wanted: BTreeMap<Read, Vec<(usize, Link)>> = BTreeMap::new();
        for &i in frontier {
            for link in std::mem::take(&mut self.slots[i].links) {
                let Some((gvr, kind)) = self.types.of(&link) else { continue };
                let key = match &link.target {
                    Target::Named(_) => None,
                    Target::Labelled(k, _) => Some(k.clone()),
                    // Read by its first label, the others checked on what is read.
                    Target::Selected(labels) => labels.keys().next().cloned(),
                };
                wanted
                    .entry((gvr.clone(), kind.clone(), link.namespace.clone(), key))
                    .or_default()
                    .push((i, link));
            }
        }
        for ((gvr, kind, namespace, label), links) in wanted {
            let mut values: Vec<String> = links
                .iter()
                .filter_map(|(_, l)| match &l.target {
                    Target::Named(n) | Target::Labelled(_, n) => Some(n.clone()),
                    Target::Selected(labels) => labels.values().next().cloned(),
                })
                .collect();
            values.sort();
            values.dedup();
            let found = match &label {
                None => self.reads.objects_named(self.cluster, &gvr, &namespace, &values).await?,
                Some(key) => {
                    self.reads.objects_labelled(self.cluster, &gvr, &namespace, key, &values).await?
                }
            };
            let mut by_value: BTreeMap<String, Vec<(RelatedObject, Value)>> = BTreeMap::new();
            for o in found {
                let value = o.object.value();
                let v = match &label {
                    None => o.name.clone(),
                    Some(key) => value["metadata"]["labels"][key].as_str().unwrap_or_default().to_string(),
                };
                by_value.entry(v).or_default().push((o, value));
            }
            for (parent, link) in links {
                let (v, all) = match &link.target {
                    Target::Named(v) | Target::Labelled(_, v) => (v, None),
                    Target::Selected(labels) => match labels.values().next() {
                        Some(v) => (v, Some(labels)),
                        None => continue,
                    },
                };
                match by_value.get(v) {
                    Some(objects) => {
                        for (o, value) in objects {
                            let selected = all.is_none_or(|all| {
                                all.iter()
                                    .all(|(k, v)| value["metadata"]["labels"][k].as_str() == Some(v.as_str()))
                            });
                            if selected {
                                next.extend(self.push(Some(parent), link.relation, o, value));
                            }
                        }
                    }
                    None if label.is_none() => self.push_missing(parent, &link, &gvr, &kind, v),
                    None => {}
                }
            }
        }
        Ok(next)
    }

    /// The tree, and the reads' transaction to end.
    fn finish(mut self, root: usize) -> (ClusterTree, RelatedReads) {
        fn build(slots: &mut [Slot], i: usize) -> TreeNode {
            let children = std::mem::take(&mut slots[i].children);
            let mut node = slots[i].node.clone();
            node.children = children.into_iter().map(|c| build(slots, c)).collect();
            // Stable output: by relation, then kind, namespace and name.
            node.children.sort_by(|a, b| {
                (a.relation, &a.kind, &a.namespace, &a.name).cmp(&(
                    b.relation,
                    &b.kind,
                    &b.namespace,
                    &b.name,
                ))
            });
            node
        }
        let root = build(&mut self.slots, root);
        let tree =
            ClusterTree { cluster: self.cluster.to_string(), root, truncated: self.truncated, hidden: 0 };
        (tree, self.reads)
    }
}

/// The tree below `root`, an object of `cluster`: every level up to [`MAX_DEPTH`] (`depth`
/// `None`, a deeper tree marked truncated), or only `depth` levels.
pub async fn tree(
    store: &Store,
    types: &Types,
    cluster: &str,
    root: RelatedObject,
    depth: Option<usize>,
) -> Result<ClusterTree> {
    let reads = store.related_reads().await?;
    let mut b = Builder { reads, types, cluster, slots: Vec::new(), seen: HashSet::new(), truncated: false };
    let value = root.object.value();
    let is_mcr = root.gvr.group == MC_GROUP && root.kind == "MultiClusterResource";
    let Some(top) = b.push(None, Relation::Root, &root, &value) else {
        return Err(Error::Store(crate::store::Error::Corrupt("a tree without its root".into())));
    };
    let mut frontier = vec![top];
    for _ in 0..depth.unwrap_or(MAX_DEPTH) {
        if frontier.is_empty() || b.truncated {
            break;
        }
        frontier = b.level(&frontier).await?;
    }
    b.truncated |= depth.is_none() && !frontier.is_empty();
    let (mut tree, reads) = b.finish(top);
    reads.finish().await?;
    if is_mcr && depth != Some(0) {
        let applied = applied(store, types, &value, depth.map(|d| d - 1)).await?;
        tree.truncated |= applied.iter().any(|t| t.truncated);
        tree.root.children.extend(applied.into_iter().map(|t| {
            let mut root = t.root;
            root.cluster = Some(t.cluster);
            root
        }));
    }
    Ok(tree)
}

/// The owners of `o` (its `ownerReferences` whose type is known and whose object is stored with
/// the uid referred to), as nodes of relation [`Relation::Owner`].
pub async fn owners(store: &Store, types: &Types, cluster: &str, o: &RelatedObject) -> Result<Vec<TreeNode>> {
    let value = o.object.value();
    let mut out = Vec::new();
    for r in value["metadata"]["ownerReferences"].as_array().into_iter().flatten() {
        let (Some(api_version), Some(kind), Some(name), Some(uid)) =
            (r["apiVersion"].as_str(), r["kind"].as_str(), r["name"].as_str(), r["uid"].as_str())
        else {
            continue;
        };
        let Some(gvr) = types.of_kind(api_version, kind).cloned() else { continue };
        let namespaced = types.namespaced.contains(&(gvr.group.clone(), gvr.resource.clone()));
        let namespace = if namespaced { o.namespace.as_str() } else { "" };
        for owner in store.objects_named(cluster, &gvr, namespace, &[name.to_string()]).await? {
            if owner.uid == uid {
                let value = owner.object.value();
                out.push(node(Relation::Owner, &owner, &value));
            }
        }
    }
    Ok(out)
}

/// The object a MultiClusterResource (`mcr`, its JSON) applied in each cluster its status names,
/// each with its own tree; a cluster where the object is not stored, or not marked as this
/// resource's, gives a missing node with the resource's phase there.
async fn applied(
    store: &Store,
    types: &Types,
    mcr: &Value,
    depth: Option<usize>,
) -> Result<Vec<ClusterTree>> {
    let template = &mcr["spec"]["template"];
    let (Some(api_version), Some(kind), Some(name)) =
        (template["apiVersion"].as_str(), template["kind"].as_str(), template["metadata"]["name"].as_str())
    else {
        return Ok(Vec::new());
    };
    let Some(gvr) = types.of_kind(api_version, kind).cloned() else { return Ok(Vec::new()) };
    let mcr_ns = mcr["metadata"]["namespace"].as_str().unwrap_or("default");
    let owner_key = format!("{mcr_ns}/{}", mcr["metadata"]["name"].as_str().unwrap_or_default());
    // A namespaced template names its namespace or takes the resource's (as dispatch does).
    let namespaced = types.namespaced.contains(&(gvr.group.clone(), gvr.resource.clone()));
    let namespace =
        if namespaced { template["metadata"]["namespace"].as_str().unwrap_or(mcr_ns) } else { "" };
    let mut out = Vec::new();
    for placed in mcr["status"]["clusters"].as_array().into_iter().flatten() {
        let Some(cluster) = placed["name"].as_str() else { continue };
        let found = store.objects_named(cluster, &gvr, namespace, &[name.to_string()]).await?;
        let mine = found.into_iter().find(|o| {
            o.object.value()["metadata"]["annotations"][OWNER_ANNOTATION].as_str() == Some(owner_key.as_str())
        });
        match mine {
            Some(o) => {
                let mut t = Box::pin(tree(store, types, cluster, o, depth)).await?;
                t.root.relation = Relation::Applied;
                out.push(t);
            }
            None => out.push(ClusterTree {
                cluster: cluster.to_string(),
                root: TreeNode {
                    relation: Relation::Applied,
                    cluster: None,
                    api_version: api_version.into(),
                    kind: kind.into(),
                    namespace: namespace.into(),
                    name: name.into(),
                    ready: None,
                    status: placed["phase"].as_str().map(str::to_string).or(Some("Missing".into())),
                    created: None,
                    missing: true,
                    children: Vec::new(),
                },
                truncated: false,
                hidden: 0,
            }),
        }
    }
    Ok(out)
}
