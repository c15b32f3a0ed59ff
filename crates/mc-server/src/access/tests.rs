#![allow(clippy::unwrap_used, clippy::expect_used)]

use mc_types::{Gvr, ResourceInfo};
use serde_json::{Value, json};

use super::*;
use crate::authz::User;
use crate::store::{Batch, Change, Expect, StoredObject};
use crate::sync::history::History;

fn pods() -> ResourceInfo {
    info("", "v1", "pods", "Pod", true)
}

fn nodes() -> ResourceInfo {
    info("", "v1", "nodes", "Node", false)
}

fn info(group: &str, version: &str, resource: &str, kind: &str, namespaced: bool) -> ResourceInfo {
    ResourceInfo {
        group: group.into(),
        version: version.into(),
        resource: resource.into(),
        singular: kind.to_ascii_lowercase(),
        kind: kind.into(),
        short_names: Vec::new(),
        namespaced,
        verbs: ["get", "list", "watch"].map(String::from).to_vec(),
        categories: Vec::new(),
    }
}

fn rbac(resource: &str, kind: &str, namespace: Option<&str>, name: &str, body: Value) -> Change {
    let mut object = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": name, "uid": format!("{resource}-{}-{name}", namespace.unwrap_or(""))},
    });
    if let Some(ns) = namespace {
        object["metadata"]["namespace"] = ns.into();
    }
    for (k, v) in body.as_object().unwrap() {
        object[k] = v.clone();
    }
    let gvr = Gvr::new("rbac.authorization.k8s.io", "v1", resource);
    Change::Upsert(StoredObject::from_json(gvr, kind, object).unwrap())
}

fn view_role() -> Change {
    rbac(
        "clusterroles",
        "ClusterRole",
        None,
        "view",
        json!({"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}]}),
    )
}

fn bind_view(namespace: &str, user: &str) -> Change {
    rbac(
        "rolebindings",
        "RoleBinding",
        Some(namespace),
        &format!("view-{user}"),
        json!({
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": user}],
        }),
    )
}

async fn store_with(clusters: &[(&str, Vec<Change>)]) -> Store {
    let store = Store::connect("sqlite::memory:").await.unwrap();
    for (cluster, changes) in clusters {
        store.apply(&[Batch::new(cluster, changes, Expect::Any)]).await.unwrap();
    }
    store
}

fn alice() -> Caller {
    Caller::member(User::new("alice", ["system:authenticated"]))
}

fn names(clusters: &[&str]) -> Vec<String> {
    clusters.iter().map(|c| c.to_string()).collect()
}

#[tokio::test]
async fn a_member_identity_reads_where_each_cluster_binds_it() {
    let store = store_with(&[
        ("c1", vec![view_role(), bind_view("a", "alice")]),
        ("c2", vec![view_role(), bind_view("b", "alice"), bind_view("c", "bob")]),
        ("c3", vec![view_role()]),
    ])
    .await;
    let access = AccessControl::new(store, Mode::Member, Arc::default());
    let clusters = names(&["c1", "c2", "c3"]);
    let reads = access.reads(&alice(), "list", &pods(), &clusters, None, None).await.unwrap();
    assert_eq!(
        reads.allowed,
        Some(Allowed(vec![
            ("c1".into(), Namespaces::Some(vec!["a".into()])),
            ("c2".into(), Namespaces::Some(vec!["b".into()])),
        ]))
    );
    assert_eq!(reads.denied, ["c3"]);
    assert!(reads.warning("alice", "list", "pods").unwrap().contains("c3"));

    // One namespace: the clusters that allow it there.
    let in_b = access.reads(&alice(), "get", &pods(), &clusters, Some("b"), Some("p")).await.unwrap();
    assert_eq!(in_b.allowed, Some(Allowed(vec![("c2".into(), Namespaces::All)])));
    // Cluster-scoped types: nothing without a ClusterRoleBinding.
    let nodes = access.reads(&alice(), "list", &nodes(), &clusters, None, None).await.unwrap();
    assert!(nodes.nothing());
    assert_eq!(nodes.denied, clusters);
    // A static token reads everything.
    let admin = Caller::with_role(mc_types::config::Role::Read);
    assert_eq!(
        access.reads(&admin, "list", &pods(), &clusters, None, None).await.unwrap(),
        Reads::everything()
    );
}

#[tokio::test]
async fn an_rbac_change_takes_effect_once_noticed() {
    let store = store_with(&[("c1", vec![view_role(), bind_view("a", "alice")])]).await;
    let history: Arc<History> = Arc::default();
    let access = AccessControl::new(store.clone(), Mode::Member, Arc::clone(&history));
    let clusters = names(&["c1"]);
    let before = access.reads(&alice(), "list", &pods(), &clusters, None, None).await.unwrap();
    assert!(!before.nothing());

    let gvr = Gvr::new("rbac.authorization.k8s.io", "v1", "rolebindings");
    let gone = Change::Delete { gvr, namespace: "a".into(), name: "view-alice".into(), uid: String::new() };
    store.apply(&[Batch::new("c1", &[gone], Expect::Any)]).await.unwrap();
    // Kept until the writer counts the change (it does before the change's notice goes out).
    let kept = access.reads(&alice(), "list", &pods(), &clusters, None, None).await.unwrap();
    assert_eq!(kept, before);
    history.rbac_changed("c1");
    let after = access.reads(&alice(), "list", &pods(), &clusters, None, None).await.unwrap();
    assert!(after.nothing(), "{after:?}");
}
