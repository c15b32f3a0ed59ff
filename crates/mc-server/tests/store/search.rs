//! Free-text search on every backend: each field found, ranking, the index kept current by
//! every kind of write and deletion, the filters and rights in the query, and the index
//! completed after a start with search off.

use mc_server::store::search::{Rank, SearchAnswer, SearchHit, SearchQuery, TypeScope};
use mc_server::store::{Allowed, Change, Expect, Namespaces, RelistKeys, Store, StoredObject};
use mc_types::Gvr;
use serde_json::{Value, json};

use crate::harness::{ApplyOne as _, Ctx};
use crate::scenarios::{edit, pods};

fn configmaps() -> Gvr {
    Gvr::new("", "v1", "configmaps")
}

fn deployments() -> Gvr {
    Gvr::new("apps", "v1", "deployments")
}

fn searching(ctx: &Ctx) -> Store {
    ctx.store.clone().keep_search_index()
}

fn stored(gvr: &Gvr, kind: &str, ns: &str, name: &str, rest: Value) -> StoredObject {
    let mut body = json!({"metadata": {"name": name, "namespace": ns, "uid": format!("u-{ns}-{name}"),
        "resourceVersion": "1"}});
    if let (Some(b), Some(r)) = (body.as_object_mut(), rest.as_object()) {
        for (k, v) in r {
            if k == "metadata" {
                for (mk, mv) in v.as_object().into_iter().flatten() {
                    b["metadata"][mk] = mv.clone();
                }
            } else {
                b.insert(k.clone(), v.clone());
            }
        }
    }
    StoredObject::from_json(gvr.clone(), kind, body).unwrap()
}

fn pod(ns: &str, name: &str, image: &str) -> StoredObject {
    stored(&pods(), "Pod", ns, name, json!({"spec": {"containers": [{"name": "c", "image": image}]}}))
}

async fn search(s: &Store, text: &str) -> SearchAnswer {
    s.search(&SearchQuery { text: text.into(), limit: 100, ..Default::default() }).await.unwrap()
}

fn names(a: &SearchAnswer) -> Vec<String> {
    a.hits.iter().map(|h| format!("{}/{}/{}", h.cluster, h.namespace, h.name)).collect()
}

fn one<'a>(a: &'a SearchAnswer, name: &str) -> &'a SearchHit {
    a.hits.iter().find(|h| h.name == name).unwrap_or_else(|| panic!("{name} not in {:?}", names(a)))
}

pub async fn search_finds_objects_by_every_field(ctx: Ctx) {
    let s = searching(&ctx);
    let web = stored(
        &pods(),
        "Pod",
        "shop",
        "web-7d9-abc",
        json!({"metadata": {"labels": {"app": "storefront"}, "annotations": {"team": "payments-squad"},
            "ownerReferences": [{"kind": "ReplicaSet", "name": "web-7d9", "uid": "rs"}]},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.25.3"}], "initContainers": [{"name": "i", "image": "busybox:1.36"}]}}),
    );
    let deploy = stored(
        &deployments(),
        "Deployment",
        "shop",
        "api",
        json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "ghcr.io/acme/api:v2.7.1"}]}}}}),
    );
    let cm = stored(
        &configmaps(),
        "ConfigMap",
        "ops",
        "settings",
        json!({"metadata": {"annotations": {"owner-email": "Oncall@Example.com"}}, "data": {"secret-ish": "zebra-unicorn"}}),
    );
    s.apply_batch("c1", vec![Change::Upsert(web), Change::Upsert(deploy), Change::Upsert(cm)]).await.unwrap();

    let a = search(&s, "1.25.3").await;
    assert_eq!(names(&a), ["c1/shop/web-7d9-abc"]);
    assert_eq!(one(&a, "web-7d9-abc").matched, ["image=nginx:1.25.3"]);
    assert_eq!(one(&a, "web-7d9-abc").kind, "Pod");
    assert_eq!(one(&search(&s, "busybox").await, "web-7d9-abc").matched, ["image=busybox:1.36"]);
    assert_eq!(one(&search(&s, "STOREFRONT").await, "web-7d9-abc").matched, ["label app=storefront"]);
    assert_eq!(one(&search(&s, "payments").await, "web-7d9-abc").matched, ["annotation team=payments-squad"]);
    // The owner's name is also the start of the pod's name.
    assert_eq!(one(&search(&s, "web-7d9").await, "web-7d9-abc").matched, ["name", "owner web-7d9"]);
    let api = search(&s, "acme/api:v2").await;
    assert_eq!(names(&api), ["c1/shop/api"]);
    assert_eq!(api.hits[0].gvr, deployments());
    assert_eq!(
        one(&search(&s, "oncall@example").await, "settings").matched,
        ["annotation owner-email=Oncall@Example.com"]
    );
    let by_ns = search(&s, "shop").await;
    assert_eq!(names(&by_ns), ["c1/shop/api", "c1/shop/web-7d9-abc"]);
    assert!(by_ns.hits.iter().all(|h| h.matched == ["namespace"]), "{:?}", by_ns.hits);
    // Data is never searched; a text no object holds finds nothing.
    assert!(search(&s, "zebra-unicorn").await.hits.is_empty());
    assert!(search(&s, "no-such-thing").await.hits.is_empty());
    // LIKE's wildcards are taken as they are.
    assert!(search(&s, "w%b").await.hits.is_empty());
    assert!(search(&s, "web_7").await.hits.is_empty());
}

pub async fn search_ranks_exact_name_prefix_substring_then_fields(ctx: Ctx) {
    let s = searching(&ctx);
    let by_label = stored(&pods(), "Pod", "a", "cache", json!({"metadata": {"labels": {"app": "redis"}}}));
    s.apply_batch(
        "c1",
        vec![
            Change::Upsert(pod("a", "my-redis", "r:1")),
            Change::Upsert(by_label),
            Change::Upsert(pod("b", "redis-0", "r:1")),
            Change::Upsert(pod("z", "Redis", "r:1")),
        ],
    )
    .await
    .unwrap();
    let a = search(&s, "redis").await;
    assert_eq!(names(&a), ["c1/z/Redis", "c1/b/redis-0", "c1/a/my-redis", "c1/a/cache"]);
    let ranks: Vec<Rank> = a.hits.iter().map(|h| h.rank).collect();
    assert_eq!(ranks, [Rank::ExactName, Rank::NamePrefix, Rank::NameSubstring, Rank::Field]);
    assert!(!a.cut);
    let two = s.search(&SearchQuery { text: "redis".into(), limit: 2, ..Default::default() }).await.unwrap();
    assert_eq!(names(&two), ["c1/z/Redis", "c1/b/redis-0"]);
    assert!(two.cut);
    // Shorter than a trigram: refused, not scanned.
    let short = s.search(&SearchQuery { text: "re".into(), limit: 10, ..Default::default() }).await;
    assert!(short.unwrap_err().to_string().contains("shorter than 3"));
}

pub async fn search_index_follows_every_write_and_deletion(ctx: Ctx) {
    let s = searching(&ctx);
    // A first list's pages (new rows), then watch events.
    let first: Vec<Change> =
        (0..30).map(|i| Change::Upsert(pod("ns", &format!("p-{i:02}"), "alpine:3.19"))).collect();
    s.apply_changes("c1", &first, Expect::NewRows).await.unwrap();
    s.apply_changes("c2", &first, Expect::NewRows).await.unwrap();
    assert_eq!(search(&s, "alpine:3.19").await.hits.len(), 60);
    // An update: the old image is gone, the new one found.
    let mut p = pod("ns", "p-00", "alpine:3.19");
    edit(&mut p, |v| v["spec"]["containers"][0]["image"] = json!("debian:bookworm"));
    s.apply_batch("c1", vec![Change::Upsert(p)]).await.unwrap();
    assert_eq!(names(&search(&s, "bookworm").await), ["c1/ns/p-00"]);
    assert_eq!(search(&s, "alpine:3.19").await.hits.len(), 59);
    // A deletion by a watch event; an upsert and deletion in one batch leaves nothing.
    let gone =
        Change::Delete { gvr: pods(), namespace: "ns".into(), name: "p-00".into(), uid: String::new() };
    let brief = pod("ns", "brief", "ephemeral-image:1");
    s.apply_batch(
        "c1",
        vec![
            gone.clone(),
            Change::Upsert(brief),
            Change::Delete { gvr: pods(), namespace: "ns".into(), name: "brief".into(), uid: String::new() },
        ],
    )
    .await
    .unwrap();
    assert!(search(&s, "bookworm").await.hits.is_empty());
    assert!(search(&s, "ephemeral-image").await.hits.is_empty());
    // A relist that no longer holds p-01.
    let mut keys: RelistKeys = s.relist_keys("c1", &pods()).await.unwrap();
    for i in 2..30 {
        let o = pod("ns", &format!("p-{i:02}"), "alpine:3.19");
        keys.listed(&o.uid, &o.resource_version);
    }
    s.delete_missing("c1", &pods(), &keys).await.unwrap();
    assert!(search(&s, "p-01").await.hits.iter().all(|h| h.cluster == "c2"));
    assert_eq!(search(&s, "alpine:3.19").await.hits.len(), 58);
    // A type gone from a cluster, then the cluster.
    s.apply_batch("c2", vec![Change::Upsert(stored(&configmaps(), "ConfigMap", "ns", "cfg", json!({})))])
        .await
        .unwrap();
    s.delete_gvr("c2", &pods()).await.unwrap();
    assert_eq!(search(&s, "alpine:3.19").await.hits.len(), 28);
    assert_eq!(names(&search(&s, "cfg").await), ["c2/ns/cfg"]);
    s.delete_cluster("c2").await.unwrap();
    assert!(search(&s, "cfg").await.hits.is_empty());
    s.delete_cluster("c1").await.unwrap();
    assert!(search(&s, "alpine").await.hits.is_empty());
    assert_eq!(ctx.table_rows("search_texts").await, 0);
}

pub async fn search_keeps_to_the_filters_and_rights_in_the_query(ctx: Ctx) {
    let s = searching(&ctx);
    for c in ["c1", "c2"] {
        s.apply_batch(
            c,
            vec![
                Change::Upsert(pod("team-a", "app-a", "img:tag")),
                Change::Upsert(pod("team-b", "app-b", "img:tag")),
                // A namespace the other's name starts: not in team-b's answers.
                Change::Upsert(pod("team-bb", "app-bb", "img:tag")),
                Change::Upsert(stored(&configmaps(), "ConfigMap", "team-a", "img-cfg", json!({}))),
            ],
        )
        .await
        .unwrap();
    }
    let q = |f: &dyn Fn(&mut SearchQuery)| {
        let mut q = SearchQuery { text: "img".into(), limit: 100, ..Default::default() };
        f(&mut q);
        q
    };
    assert_eq!(s.search(&q(&|_| {})).await.unwrap().hits.len(), 8);
    let in_c2 = s.search(&q(&|q| q.cluster = Some("c2".into()))).await.unwrap();
    assert!(in_c2.hits.len() == 4 && in_c2.hits.iter().all(|h| h.cluster == "c2"));
    let in_b = s.search(&q(&|q| q.namespace = Some("team-b".into()))).await.unwrap();
    assert_eq!(names(&in_b), ["c1/team-b/app-b", "c2/team-b/app-b"]);
    let cms = s
        .search(&q(&|q| q.types = Some(vec![TypeScope { gvr: configmaps(), allowed: None }])))
        .await
        .unwrap();
    assert_eq!(names(&cms), ["c1/team-a/img-cfg", "c2/team-a/img-cfg"]);
    // Pods of team-a in c1 only, ConfigMaps everywhere.
    let restricted = q(&|q| {
        q.types = Some(vec![
            TypeScope {
                gvr: pods(),
                allowed: Some(Allowed(vec![("c1".into(), Namespaces::Some(vec!["team-a".into()]))])),
            },
            TypeScope { gvr: configmaps(), allowed: None },
        ])
    });
    let seen = s.search(&restricted).await.unwrap();
    assert_eq!(names(&seen), ["c1/team-a/img-cfg", "c2/team-a/img-cfg", "c1/team-a/app-a"]);
    assert!(s.search(&q(&|q| q.types = Some(Vec::new()))).await.unwrap().hits.is_empty());
}

pub async fn search_index_is_completed_after_a_start_with_search_off(ctx: Ctx) {
    // Written without the index (search off): nothing to find, and the index says so.
    let off = ctx.store.clone();
    off.complete_search_index().await.unwrap();
    off.apply_batch("c1", vec![Change::Upsert(pod("ns", "quiet", "hidden-image:1"))]).await.unwrap();
    let on = ctx.store.clone().keep_search_index();
    let before = search(&on, "hidden-image").await;
    assert!(before.hits.is_empty());
    assert!(before.warnings.iter().any(|w| w.contains("not complete")), "{:?}", before.warnings);
    // A start with search on goes over every object.
    assert_eq!(on.complete_search_index().await.unwrap(), 1);
    let after = search(&on, "hidden-image").await;
    assert_eq!(names(&after), ["c1/ns/quiet"]);
    assert!(after.warnings.iter().all(|w| !w.contains("complete")), "{:?}", after.warnings);
    assert_eq!(on.complete_search_index().await.unwrap(), 0, "a complete index is left as it is");
}

pub async fn search_index_deferred_for_a_first_sync_is_built_after_it(ctx: Ctx) {
    let s = searching(&ctx);
    assert!(s.defer_search_index().await.unwrap(), "an empty store defers");
    let first: Vec<Change> =
        (0..20).map(|i| Change::Upsert(pod("ns", &format!("early-{i:02}"), "first-sync:1"))).collect();
    s.apply_changes("c1", &first, Expect::NewRows).await.unwrap();
    assert_eq!(ctx.table_rows("search_texts").await, 0, "no rows during the first sync");
    let during = search(&s, "first-sync").await;
    assert!(during.hits.is_empty());
    assert!(during.warnings.iter().any(|w| w.contains("after the first sync")), "{:?}", during.warnings);
    // Built after it; what is written from then on is kept by the writer.
    assert_eq!(s.complete_search_index().await.unwrap(), 20);
    s.apply_batch("c1", vec![Change::Upsert(pod("ns", "late", "after-sync:2"))]).await.unwrap();
    let after = search(&s, "first-sync").await;
    assert_eq!(after.hits.len(), 20);
    assert!(after.warnings.is_empty(), "{:?}", after.warnings);
    assert_eq!(names(&search(&s, "after-sync").await), ["c1/ns/late"]);
    // A store with objects does not defer.
    assert!(!s.defer_search_index().await.unwrap());
}

pub async fn search_of_a_text_every_object_holds_still_finds_the_names(ctx: Ctx) {
    let s = searching(&ctx);
    // More objects hold the text (in their image) than a search reads; the pods whose name holds
    // it come last, and some are in a namespace of their own.
    let mut changes: Vec<Change> = (0..1100)
        .map(|i| Change::Upsert(pod("bulk", &format!("p-{i:04}"), "everywhere.example/app:1")))
        .collect();
    changes.push(Change::Upsert(pod("bulk", "everywhere", "other:1")));
    changes.push(Change::Upsert(pod("bulk", "not-everywhere-x", "other:1")));
    changes.push(Change::Upsert(pod("quiet", "q-1", "everywhere.example/app:1")));
    changes.push(Change::Upsert(pod("quiet", "q-everywhere", "other:1")));
    s.apply_batch("c1", changes).await.unwrap();
    let a =
        s.search(&SearchQuery { text: "everywhere".into(), limit: 3, ..Default::default() }).await.unwrap();
    assert_eq!(names(&a), ["c1/bulk/everywhere", "c1/bulk/not-everywhere-x", "c1/quiet/q-everywhere"]);
    assert_eq!(
        a.hits.iter().map(|h| h.rank).collect::<Vec<_>>(),
        [Rank::ExactName, Rank::NameSubstring, Rank::NameSubstring]
    );
    assert!(a.cut);
    assert!(a.warnings.iter().any(|w| w.contains("more than 1000 objects match")), "{:?}", a.warnings);
    // Within one namespace, every object of it is found, the name first.
    let quiet = SearchQuery {
        text: "everywhere".into(),
        namespace: Some("quiet".into()),
        limit: 10,
        ..Default::default()
    };
    let q = s.search(&quiet).await.unwrap();
    assert_eq!(names(&q), ["c1/quiet/q-everywhere", "c1/quiet/q-1"]);
    assert_eq!(q.hits[1].matched, ["image=everywhere.example/app:1"]);
    assert!(q.warnings.is_empty(), "{:?}", q.warnings);
}
