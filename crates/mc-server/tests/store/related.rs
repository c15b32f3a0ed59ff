//! Reads of related objects (what a tree reads), on every backend: by owner, by name and by
//! label, more keys than one statement of SQLite or MySQL takes, in one transaction.

use std::collections::BTreeSet;

use mc_server::store::{Change, Expect, RelatedObject, StoredObject};
use mc_types::Gvr;
use serde_json::json;

use crate::harness::{ApplyOne, Ctx};

fn pods() -> Gvr {
    Gvr::new("", "v1", "pods")
}

/// Pod `i` of `ns`, owned by ReplicaSet `rs-{i % 3}` (uid `uid-rs-…`), labelled `app=a{i % 700}`.
fn pod(ns: &str, i: usize) -> Change {
    let body = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("p{i:04}"), "namespace": ns, "uid": format!("{ns}-u{i}"), "resourceVersion": "1",
            "labels": {"app": format!("a{}", i % 700)},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("rs-{}", i % 3),
                "uid": format!("uid-rs-{}", i % 3), "controller": true}]},
    });
    Change::Upsert(StoredObject::from_json(pods(), "Pod", body).unwrap())
}

fn names(objects: &[RelatedObject]) -> BTreeSet<String> {
    objects.iter().map(|o| format!("{}/{}", o.namespace, o.name)).collect()
}

pub async fn related_reads_take_any_number_of_keys_in_one_transaction(ctx: Ctx) {
    let s = &ctx.store;
    let mine: Vec<Change> = (0..1200).map(|i| pod("ns", i)).collect();
    s.apply_changes("c1", &mine, Expect::NewRows).await.unwrap();
    // The same names elsewhere: another namespace, another cluster.
    let other: Vec<Change> = (0..50).map(|i| pod("other", i)).collect();
    s.apply_changes("c1", &other, Expect::NewRows).await.unwrap();
    let elsewhere: Vec<Change> = (0..50).map(|i| pod("ns", i)).collect();
    s.apply_changes("c2", &elsewhere, Expect::NewRows).await.unwrap();

    let mut reads = s.related_reads().await.unwrap();
    // 1,100 owner uids (SQLite and MySQL read them in three statements), two of them owners.
    let mut owners: Vec<String> = (0..1098).map(|i| format!("nobody-{i}")).collect();
    owners.extend(["uid-rs-0".to_string(), "uid-rs-2".to_string()]);
    let children = reads.children_of("c1", &owners).await.unwrap();
    let want: BTreeSet<String> = (0..1200)
        .filter(|i| i % 3 != 1)
        .map(|i| format!("ns/p{i:04}"))
        .chain((0..50).filter(|i| i % 3 != 1).map(|i| format!("other/p{i:04}")))
        .collect();
    assert_eq!(names(&children), want);
    assert!(children.iter().all(|c| c.owner.as_deref().is_some_and(|o| o != "uid-rs-1")));

    // 1,300 names, 1,200 of them stored in c1/ns.
    let asked: Vec<String> = (0..1300).map(|i| format!("p{i:04}")).collect();
    let named = reads.objects_named("c1", &pods(), "ns", &asked).await.unwrap();
    assert_eq!(names(&named), (0..1200).map(|i| format!("ns/p{i:04}")).collect());
    assert!(reads.objects_named("c1", &pods(), "nope", &asked).await.unwrap().is_empty());

    // 700 label values (each on 1 or 2 pods of c1/ns).
    let values: Vec<String> = (0..700).map(|i| format!("a{i}")).collect();
    let labelled = reads.objects_labelled("c1", &pods(), "ns", "app", &values).await.unwrap();
    assert_eq!(labelled.len(), 1200);
    let few = reads.objects_labelled("c2", &pods(), "ns", "app", &values[..10]).await.unwrap();
    assert_eq!(names(&few), (0..10).map(|i| format!("ns/p{i:04}")).collect());
    reads.finish().await.unwrap();

    // The one-read forms answer the same.
    assert_eq!(names(&s.children_of("c1", &owners).await.unwrap()), want);
    assert!(s.children_of("c1", &[]).await.unwrap().is_empty());
}
