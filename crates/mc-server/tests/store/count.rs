//! Counts grouped by cluster, namespace and fields of the objects, on every backend.

use std::collections::BTreeMap;

use mc_server::store::{
    Allowed, Change, Count, Expect, GroupKey, IndexedFields, Namespaces, Query, Store, StoredObject,
};
use mc_types::Gvr;
use mc_types::count::FieldPath;
use mc_types::selector::{FieldSelector, LabelSelector};
use serde_json::{Value, json};

use crate::harness::{ApplyOne, Ctx};

fn kept() -> IndexedFields {
    IndexedFields::new(&BTreeMap::from([("pods".to_string(), "status.phase".to_string())])).unwrap()
}

fn pods() -> Gvr {
    Gvr::new("", "v1", "pods")
}

fn pod(ns: &str, name: &str, labels: Value, spec: Value, status: Value) -> Change {
    let uid = format!("{ns}-{name}");
    let body = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "uid": uid, "resourceVersion": "1", "labels": labels},
        "spec": spec, "status": status,
    });
    Change::Upsert(StoredObject::from_json(pods(), "Pod", body).unwrap())
}

fn field(path: &str) -> GroupKey {
    GroupKey::Field(FieldPath::parse(path).unwrap())
}

fn rows(counts: &[Count]) -> Vec<(Vec<&str>, u64)> {
    counts.iter().map(|c| (c.values.iter().map(String::as_str).collect(), c.count)).collect()
}

/// Cluster `a`: pods in `web` and `db` with every kind of value at `status.phase` (a string, the
/// same string in another case, `null`, nothing); cluster `b`: one pod; and what must not count
/// (a Deployment of the same name, a cluster-scoped Node).
async fn fill(ctx: &Ctx) {
    let s = &ctx.store;
    let web = json!({"app": "web", "app.kubernetes.io/name": "shop"});
    let containers =
        |image: &str| json!({"containers": [{"name": "c", "image": image}], "hostNetwork": true});
    s.apply_batch(
        "a",
        vec![
            pod("web", "w1", web.clone(), containers("nginx:1"), json!({"phase": "Running"})),
            pod("web", "w2", web.clone(), containers("nginx:1"), json!({"phase": "Running"})),
            pod("web", "w3", web, json!({"containers": []}), json!({"phase": "Pending"})),
            pod("db", "d1", json!({"app": "db"}), containers("postgres:17"), json!({"phase": "running"})),
            pod("db", "d2", json!({"app": "db"}), json!({}), json!({"phase": null})),
            pod("db", "d3", json!({}), json!({}), json!({})),
        ],
    )
    .await
    .unwrap();
    s.apply_batch(
        "b",
        vec![pod("web", "w1", json!({"app": "web"}), containers("nginx:2"), json!({"phase": "Running"}))],
    )
    .await
    .unwrap();
    let deployment = json!({"metadata": {"name": "w1", "namespace": "web", "uid": "dep", "resourceVersion": "1"},
        "status": {"phase": "Running"}});
    let node = json!({"metadata": {"name": "n1", "uid": "node", "resourceVersion": "1"}, "status": {"phase": "Running"}});
    s.apply_batch(
        "a",
        vec![
            Change::Upsert(
                StoredObject::from_json(Gvr::new("apps", "v1", "deployments"), "Deployment", deployment)
                    .unwrap(),
            ),
            Change::Upsert(StoredObject::from_json(Gvr::new("", "v1", "nodes"), "Node", node).unwrap()),
        ],
    )
    .await
    .unwrap();
}

fn of_pods() -> Query {
    Query { gvr: Some(pods()), ..Query::default() }
}

pub async fn counts_group_by_cluster_namespace_and_fields(ctx: Ctx) {
    fill(&ctx).await;
    let s = &ctx.store;
    let counts = s.count_by(&of_pods(), &[GroupKey::Cluster, field("status.phase")]).await.unwrap();
    assert_eq!(
        rows(&counts),
        [
            (vec!["a", "<none>"], 2),
            (vec!["a", "Pending"], 1),
            (vec!["a", "Running"], 2),
            (vec!["a", "running"], 1),
            (vec!["b", "Running"], 1),
        ]
    );
    let counts = s.count_by(&of_pods(), &[GroupKey::Namespace, GroupKey::Cluster]).await.unwrap();
    assert_eq!(rows(&counts), [(vec!["db", "a"], 3), (vec!["web", "a"], 3), (vec!["web", "b"], 1)]);
    // Indexes, quoted keys, booleans; a missing element is <none>.
    let by = [
        field("spec.containers[0].image"),
        field(".metadata.labels['app.kubernetes.io/name']"),
        field("spec.hostNetwork"),
    ];
    let counts = s.count_by(&of_pods(), &by).await.unwrap();
    assert_eq!(
        rows(&counts),
        [
            (vec!["<none>", "<none>", "<none>"], 2),
            (vec!["<none>", "shop", "<none>"], 1),
            (vec!["nginx:1", "shop", "true"], 2),
            (vec!["nginx:2", "<none>", "true"], 1),
            (vec!["postgres:17", "<none>", "true"], 1),
        ]
    );
    // No key: the total.
    assert_eq!(rows(&s.count_by(&of_pods(), &[]).await.unwrap()), [(vec![], 7)]);
    // A cluster-scoped type's namespace is <none>.
    let nodes = Query { gvr: Some(Gvr::new("", "v1", "nodes")), ..Query::default() };
    assert_eq!(rows(&s.count_by(&nodes, &[GroupKey::Namespace]).await.unwrap()), [(vec!["<none>"], 1)]);
    // Nothing matches: no rows.
    let none = Query { cluster: Some("nope".into()), ..of_pods() };
    assert!(s.count_by(&none, &[GroupKey::Cluster]).await.unwrap().is_empty());
    // Counted here, object by object, the same keys give the same counts.
    let by =
        [GroupKey::Cluster, GroupKey::Namespace, field("status.phase"), field("spec.containers[0].image")];
    let in_sql = s.count_by(&of_pods(), &by).await.unwrap();
    let here = s
        .count_each(&of_pods(), |cluster, object| {
            let value = object.value();
            by.iter().map(|k| k.value_of(cluster, &value)).collect()
        })
        .await
        .unwrap();
    assert_eq!(in_sql, here);
    assert_eq!(in_sql.iter().map(|c| c.count).sum::<u64>(), 7);
}

pub async fn counts_keep_the_filters_of_the_query(ctx: Ctx) {
    fill(&ctx).await;
    let s = &ctx.store;
    let phase = [GroupKey::Cluster, field("status.phase")];
    let q = Query { cluster: Some("a".into()), namespace: Some("web".into()), ..of_pods() };
    assert_eq!(
        rows(&s.count_by(&q, &phase).await.unwrap()),
        [(vec!["a", "Pending"], 1), (vec!["a", "Running"], 2)]
    );
    let q = Query { labels: Some(LabelSelector::parse("app in (db,web),app!=web").unwrap()), ..of_pods() };
    assert_eq!(
        rows(&s.count_by(&q, &phase).await.unwrap()),
        [(vec!["a", "<none>"], 1), (vec!["a", "running"], 1)]
    );
    // A field selector SQL evaluates (the name) and one it cannot (counted object by object).
    let q = Query { fields: Some(FieldSelector::parse("metadata.name=w1").unwrap()), ..of_pods() };
    assert_eq!(
        rows(&s.count_by(&q, &phase).await.unwrap()),
        [(vec!["a", "Running"], 1), (vec!["b", "Running"], 1)]
    );
    let q = Query { fields: Some(FieldSelector::parse("status.phase!=Running").unwrap()), ..of_pods() };
    assert_eq!(
        rows(&s.count_by(&q, &phase).await.unwrap()),
        [(vec!["a", "<none>"], 2), (vec!["a", "Pending"], 1), (vec!["a", "running"], 1)]
    );
    // Limits, cursors and order of the query do not cut a count.
    let q = Query { limit: Some(1), ..of_pods() };
    assert_eq!(s.count_by(&q, &[]).await.unwrap()[0].count, 7);
    // Only where the caller may read.
    let allowed =
        Allowed(vec![("a".into(), Namespaces::Some(vec!["db".into()])), ("b".into(), Namespaces::All)]);
    let q = Query { allowed: Some(allowed), ..of_pods() };
    assert_eq!(
        rows(&s.count_by(&q, &[GroupKey::Cluster, GroupKey::Namespace]).await.unwrap()),
        [(vec!["a", "db"], 3), (vec!["b", "web"], 1)]
    );
    let q = Query { allowed: Some(Allowed::default()), ..of_pods() };
    assert!(s.count_by(&q, &[GroupKey::Cluster]).await.unwrap().is_empty());
    // The same rights where the count is made object by object.
    let q = Query {
        allowed: Some(Allowed(vec![("b".into(), Namespaces::All)])),
        fields: Some(FieldSelector::parse("status.phase=Running").unwrap()),
        ..of_pods()
    };
    assert_eq!(rows(&s.count_by(&q, &phase).await.unwrap()), [(vec!["b", "Running"], 1)]);
}

/// A pod whose `status.phase` is kept for counts, as the cluster's task writes it.
fn kept_pod(ns: &str, name: &str, status: Value) -> Change {
    let Change::Upsert(o) = pod(ns, name, json!({"app": ns}), json!({}), status) else { unreachable!() };
    Change::Upsert(o.indexed_by(&kept()))
}

/// Counts by every key shape that involves the kept field, read from it, against the same
/// counts made object by object; the first one returned.
async fn counted_both_ways(s: &Store, q: &Query) -> Vec<Count> {
    let phase = field("status.phase");
    assert!(s.counts_read_kept_field(&pods(), &FieldPath::parse("status.phase").unwrap()).await.unwrap());
    let mut first = None;
    for by in [
        vec![GroupKey::Cluster, phase.clone()],
        vec![phase.clone()],
        vec![GroupKey::Namespace, phase.clone(), GroupKey::Cluster],
        vec![phase.clone(), phase.clone()],
    ] {
        let kept = s.count_by(q, &by).await.unwrap();
        let here = s
            .count_each(q, |cluster, object| {
                let value = object.value();
                by.iter().map(|k| k.value_of(cluster, &value)).collect()
            })
            .await
            .unwrap();
        assert_eq!(kept, here, "by {by:?}");
        first.get_or_insert(kept);
    }
    first.unwrap_or_default()
}

pub async fn counts_by_a_kept_field_are_the_objects_counts(ctx: Ctx) {
    let s = &ctx.store;
    // A first list (new rows: SQLite's ids above the largest, PostgreSQL's COPY, MySQL's plain
    // insert), then watch events (upserts).
    let listed: Vec<Change> = (0..12)
        .map(|i| {
            let status = match i % 4 {
                0 | 1 => json!({"phase": "Running"}),
                2 => json!({"phase": null}),
                _ => json!({}),
            };
            kept_pod(if i < 6 { "web" } else { "db" }, &format!("p{i}"), status)
        })
        .collect();
    s.apply_changes("a", &listed, Expect::NewRows).await.unwrap();
    s.apply_batch("b", vec![kept_pod("web", "p0", json!({"phase": "Pending"}))]).await.unwrap();
    assert_eq!(
        rows(&counted_both_ways(s, &of_pods()).await),
        [(vec!["a", "<none>"], 6), (vec!["a", "Running"], 6), (vec!["b", "Pending"], 1),]
    );
    // A phase that changes, a pod deleted, a pod added by a watch.
    s.apply_batch(
        "a",
        vec![
            kept_pod("web", "p0", json!({"phase": "Failed"})),
            kept_pod("db", "p7", json!({"phase": "Succeeded"})),
            Change::Delete { gvr: pods(), namespace: "web".into(), name: "p1".into(), uid: String::new() },
            kept_pod("db", "p12", json!({"phase": "Running"})),
        ],
    )
    .await
    .unwrap();
    assert_eq!(
        rows(&counted_both_ways(s, &of_pods()).await),
        [
            (vec!["a", "<none>"], 5),
            (vec!["a", "Failed"], 1),
            (vec!["a", "Running"], 5),
            (vec!["a", "Succeeded"], 1),
            (vec!["b", "Pending"], 1),
        ]
    );
    // The query's filters hold as before.
    let q = Query { cluster: Some("a".into()), namespace: Some("db".into()), ..of_pods() };
    assert_eq!(
        rows(&counted_both_ways(s, &q).await),
        [(vec!["a", "<none>"], 3), (vec!["a", "Running"], 3), (vec!["a", "Succeeded"], 1)]
    );
    let q = Query { labels: Some(LabelSelector::parse("app=web").unwrap()), ..of_pods() };
    assert_eq!(counted_both_ways(s, &q).await.iter().map(|c| c.count).sum::<u64>(), 6);
    // A cluster removed.
    s.delete_cluster("b").await.unwrap();
    assert_eq!(counted_both_ways(s, &of_pods()).await.iter().map(|c| c.count).sum::<u64>(), 12);

    // A pod written without the kept field (another configuration): counts read the objects,
    // and give the same answer.
    s.apply_batch("a", vec![pod("web", "p1", json!({}), json!({}), json!({"phase": "Running"}))])
        .await
        .unwrap();
    let path = FieldPath::parse("status.phase").unwrap();
    assert!(!s.counts_read_kept_field(&pods(), &path).await.unwrap());
    let by = [GroupKey::Cluster, field("status.phase")];
    let read = s.count_by(&of_pods(), &by).await.unwrap();
    assert_eq!(rows(&read)[2], (vec!["a", "Running"], 6));
    // Filled in: read from the kept field again, the same counts.
    assert_eq!(s.fill_count_fields(&kept()).await.unwrap(), 1);
    assert_eq!(counted_both_ways(s, &of_pods()).await, read);
    assert_eq!(s.fill_count_fields(&kept()).await.unwrap(), 0, "nothing left to fill");
    // Another field is read from the objects; a field kept for another type is not used.
    assert!(!s.counts_read_kept_field(&pods(), &FieldPath::parse("spec.nodeName").unwrap()).await.unwrap());
    let deployment = json!({"metadata": {"name": "d", "namespace": "web", "uid": "dep", "resourceVersion": "1"},
        "status": {"phase": "Running"}});
    let deployments = Gvr::new("apps", "v1", "deployments");
    let deployment = StoredObject::from_json(deployments.clone(), "Deployment", deployment).unwrap();
    s.apply_batch("a", vec![Change::Upsert(deployment.indexed_by(&kept()))]).await.unwrap();
    assert!(!s.counts_read_kept_field(&deployments, &path).await.unwrap());
    // Planner statistics refresh on every backend.
    s.optimize().await.unwrap();
}
