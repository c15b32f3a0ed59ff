//! The history store's behaviour on every backend: revisions written with their changes, read
//! back by object, by time and as deletions, and pruned.

use std::time::Duration;

use mc_server::store::{Batch, ChangeKind, Expect, HistoryRules, Listed, PruneRules, Query, Revision, Store};
use mc_types::Gvr;
use serde_json::json;

use crate::harness::{ApplyOne as _, Ctx};
use crate::scenarios::{changed, delete, edit, object, pods, upsert};

fn recording(ctx: &Ctx) -> Store {
    ctx.store.clone().record_history(HistoryRules::default())
}

fn of(gvr: &Gvr) -> Query {
    Query { gvr: Some(gvr.clone()), ..Query::default() }
}

fn one(gvr: &Gvr, cluster: &str, ns: &str, name: &str) -> Query {
    Query {
        gvr: Some(gvr.clone()),
        cluster: Some(cluster.into()),
        namespace: Some(ns.into()),
        name: Some(name.into()),
        ..Query::default()
    }
}

fn kinds(revisions: &[Revision]) -> Vec<ChangeKind> {
    revisions.iter().map(|r| r.change).collect()
}

fn phase(r: &Revision) -> String {
    r.object
        .as_ref()
        .map(|o| o.value()["status"]["phase"].as_str().unwrap_or("").to_string())
        .unwrap_or_default()
}

/// Lets the clock move on, so that two writes get different `at`.
async fn tick() {
    tokio::time::sleep(Duration::from_millis(50)).await;
}

pub async fn history_keeps_every_change_of_an_object_in_order(ctx: Ctx) {
    let s = recording(&ctx);
    let mut o = object(&pods(), Some("ns"), "web", "u1", &[]);
    o.created = true;
    s.apply_batch("c1", vec![mc_server::store::Change::Upsert(o.clone())]).await.unwrap();
    o.created = false;
    for (version, phase) in [("2", "Pending"), ("3", "Failed")] {
        let mut next = changed(o.clone(), version);
        edit(&mut next, |v| v["status"]["phase"] = json!(phase));
        s.apply_batch("c1", vec![mc_server::store::Change::Upsert(next)]).await.unwrap();
    }
    // Another object, not in the history asked for.
    s.apply_batch("c1", vec![upsert(&pods(), Some("ns"), "other", "u2", &[])]).await.unwrap();
    s.apply_batch("c1", vec![delete(&pods(), Some("ns"), "web", "u1")]).await.unwrap();
    let all = s.history(&one(&pods(), "c1", "ns", "web"), true, 100).await.unwrap();
    assert_eq!(
        kinds(&all),
        [ChangeKind::Added, ChangeKind::Modified, ChangeKind::Modified, ChangeKind::Deleted]
    );
    assert!(all.windows(2).all(|w| w[0].id < w[1].id && w[0].at_ms <= w[1].at_ms));
    let phases: Vec<String> = all.iter().map(phase).collect();
    // The deletion carries the last stored state.
    assert_eq!(phases, ["Running", "Pending", "Failed", "Failed"]);
    let versions: Vec<&str> = all.iter().map(|r| r.resource_version.as_str()).collect();
    assert_eq!(versions, ["1", "2", "3", "3"]);
    assert!(all.iter().all(|r| !r.seen_by_list && r.bytes > 0 && r.uid == "u1" && r.cluster == "c1"));
    // Without objects, and limited: the newest, oldest first.
    let two = s.history(&one(&pods(), "c1", "ns", "web"), false, 2).await.unwrap();
    assert_eq!(
        two.iter().map(|r| r.id).collect::<Vec<_>>(),
        all[2..].iter().map(|r| r.id).collect::<Vec<_>>()
    );
    assert!(two.iter().all(|r| r.object.is_none()));
    // By id, where the query admits them.
    let ids = [all[1].id, all[3].id];
    let picked = s.revisions(&of(&pods()), &ids).await.unwrap();
    assert_eq!(phases[1], phase(&picked[0]));
    assert_eq!(picked.len(), 2);
    let other_type = Query { gvr: Some(Gvr::new("apps", "v1", "deployments")), ..Query::default() };
    assert!(s.revisions(&other_type, &ids).await.unwrap().is_empty());
    let elsewhere = Query { cluster: Some("c2".into()), ..of(&pods()) };
    assert!(s.history(&elsewhere, false, 100).await.unwrap().is_empty());
    // A batch that creates, changes and deletes an object keeps all three, the deletion with
    // the batch's state.
    let mut fresh = object(&pods(), Some("ns"), "brief", "u3", &[]);
    fresh.created = true;
    let mut edited = changed(fresh.clone(), "9");
    edited.created = false;
    edit(&mut edited, |v| v["status"]["phase"] = json!("Succeeded"));
    s.apply_batch(
        "c1",
        vec![
            mc_server::store::Change::Upsert(fresh),
            mc_server::store::Change::Upsert(edited),
            delete(&pods(), Some("ns"), "brief", "u3"),
        ],
    )
    .await
    .unwrap();
    let brief = s.history(&one(&pods(), "c1", "ns", "brief"), true, 10).await.unwrap();
    assert_eq!(kinds(&brief), [ChangeKind::Added, ChangeKind::Modified, ChangeKind::Deleted]);
    assert_eq!(phase(&brief[2]), "Succeeded");
    let stats = s.history_stats().await.unwrap();
    assert_eq!(stats.len(), 1);
    assert_eq!(stats[0].revisions, 8);
    assert_eq!(
        stats[0].bytes,
        all.iter().chain(&brief).map(|r| r.bytes as u64).sum::<u64>() + {
            let other = s.history(&one(&pods(), "c1", "ns", "other"), false, 10).await.unwrap();
            other[0].bytes as u64
        }
    );
    assert!(stats[0].oldest_ms.is_some_and(|o| o == all[0].at_ms));
    assert_eq!(ctx.table_rows("revisions").await, 8);
}

pub async fn history_of_a_relist_tells_the_gap(ctx: Ctx) {
    let s = recording(&ctx);
    // A first list ever: found by the list, no lower bound.
    let first: Vec<_> = ["a", "b", "c"]
        .iter()
        .map(|n| {
            let mut o = object(&pods(), Some("ns"), n, &format!("u-{n}"), &[]);
            o.created = true;
            mc_server::store::Change::Upsert(o)
        })
        .collect();
    let unknown = Listed(vec![(pods(), None)]);
    s.apply(&[Batch::new("c1", &first, Expect::NewRows).listed(&unknown)]).await.unwrap();
    let listed = s.history(&of(&pods()), false, 10).await.unwrap();
    assert_eq!(listed.len(), 3);
    assert!(
        listed.iter().all(|r| r.seen_by_list && r.gap_from_ms.is_none() && r.change == ChangeKind::Added)
    );
    // A relist after a gap: b changed, c is gone.
    let gap_from = listed[0].at_ms + 1;
    let mut keys = s.relist_keys("c1", &pods()).await.unwrap();
    let live = [
        object(&pods(), Some("ns"), "a", "u-a", &[]),
        changed(object(&pods(), Some("ns"), "b", "u-b", &[]), "7"),
    ];
    let found: Vec<_> = live
        .into_iter()
        .filter(|o| !keys.listed(&o.uid, &o.resource_version))
        .map(mc_server::store::Change::Upsert)
        .collect();
    assert_eq!(found.len(), 1);
    let after_gap = Listed(vec![(pods(), Some(gap_from))]);
    s.apply(&[Batch::new("c1", &found, Expect::Any).listed(&after_gap)]).await.unwrap();
    let gone = s.delete_missing_since("c1", &pods(), &keys, Some(gap_from)).await.unwrap();
    assert_eq!(gone.len(), 1);
    // A watch event after it.
    s.apply_batch("c1", vec![upsert(&pods(), Some("ns"), "d", "u-d", &[])]).await.unwrap();
    let all = s.history(&of(&pods()), true, 10).await.unwrap();
    let tail: Vec<(&str, ChangeKind, bool, Option<i64>)> =
        all[3..].iter().map(|r| (r.name.as_str(), r.change, r.seen_by_list, r.gap_from_ms)).collect();
    assert_eq!(
        tail,
        [
            ("b", ChangeKind::Modified, true, Some(gap_from)),
            ("c", ChangeKind::Deleted, true, Some(gap_from)),
            ("d", ChangeKind::Modified, false, None),
        ]
    );
    // The relist's deletion carries the last stored state.
    assert_eq!(all[4].object.as_ref().map(|o| o.value()["metadata"]["name"].clone()), Some(json!("c")));
}

pub async fn history_state_at_a_time_is_each_objects_revision_then(ctx: Ctx) {
    let s = recording(&ctx);
    let v1 = object(&pods(), Some("ns"), "web", "u1", &[]);
    s.apply_batch("c1", vec![mc_server::store::Change::Upsert(v1.clone())]).await.unwrap();
    s.apply_batch("c2", vec![upsert(&pods(), Some("ns"), "web", "u9", &[])]).await.unwrap();
    tick().await;
    let mut v2 = changed(v1.clone(), "2");
    edit(&mut v2, |v| v["status"]["phase"] = json!("Failed"));
    s.apply_batch("c1", vec![mc_server::store::Change::Upsert(v2)]).await.unwrap();
    s.apply_batch("c1", vec![upsert(&pods(), Some("ns"), "late", "u2", &[])]).await.unwrap();
    tick().await;
    s.apply_batch("c1", vec![delete(&pods(), Some("ns"), "web", "u1")]).await.unwrap();
    let h = s.history(&of(&pods()), false, 100).await.unwrap();
    let at = |name: &str, kind: ChangeKind| {
        h.iter().find(|r| r.name == name && r.change == kind && r.cluster == "c1").map(|r| r.at_ms).unwrap()
    };
    let (created, modified, deleted) =
        (at("web", ChangeKind::Modified), at("late", ChangeKind::Modified), at("web", ChangeKind::Deleted));
    let web_v2 = h.iter().filter(|r| r.name == "web" && r.cluster == "c1").nth(1).unwrap().at_ms;
    assert!(created < web_v2 && web_v2 < deleted, "{created} {web_v2} {deleted}");
    let state = |at: i64, q: Query| {
        let s = s.clone();
        async move {
            s.state_at(&q, at)
                .await
                .unwrap()
                .iter()
                .map(|r| format!("{}/{}:{}", r.cluster, r.name, phase(r)))
                .collect::<Vec<_>>()
        }
    };
    // Between the two changes: the earlier one.
    assert_eq!(state(web_v2 - 1, of(&pods())).await, ["c1/web:Running", "c2/web:Running"]);
    assert_eq!(state(modified, of(&pods())).await, ["c1/late:Running", "c1/web:Failed", "c2/web:Running"]);
    // After the deletion: gone.
    assert_eq!(state(deleted, of(&pods())).await, ["c1/late:Running", "c2/web:Running"]);
    assert!(state(created - 1, of(&pods())).await.is_empty());
    // One cluster, and only where the caller may read.
    let c2 = Query { cluster: Some("c2".into()), ..of(&pods()) };
    assert_eq!(state(modified, c2).await, ["c2/web:Running"]);
    let allowed = Query {
        allowed: Some(mc_server::store::Allowed(vec![(
            "c1".into(),
            mc_server::store::Namespaces::Some(vec!["ns".into()]),
        )])),
        ..of(&pods())
    };
    assert_eq!(state(modified, allowed).await, ["c1/late:Running", "c1/web:Failed"]);
    // Deleted since a time: the last state.
    let gone = s.deleted(&of(&pods()), created).await.unwrap();
    assert_eq!(gone.len(), 1);
    assert_eq!((gone[0].name.as_str(), phase(&gone[0])), ("web", "Failed".to_string()));
    assert!(s.deleted(&of(&pods()), deleted + 1).await.unwrap().is_empty());
    assert!(s.state_at(&Query::default(), deleted).await.is_err(), "a type is needed");
}

/// `state_at` rewinds from the current rows: objects created, modified, deleted, or deleted
/// and re-created with a new uid after the time are as they were then, the same whether what
/// changed is read from the time index or from a scan of the object index; before the horizon
/// pruning made, only what the kept revisions show.
pub async fn history_state_at_rewinds_from_the_current_rows(ctx: Ctx) {
    let s = recording(&ctx);
    let [quiet, edited, gone, again] = ["quiet", "edited", "gone", "again"].map(|n| {
        let mut o = object(&pods(), Some("ns"), n, &format!("{n}-1"), &[]);
        o.created = true;
        o
    });
    let batch = [&quiet, &edited, &gone, &again].map(|o| mc_server::store::Change::Upsert(o.clone()));
    s.apply_batch("c1", batch.to_vec()).await.unwrap();
    tick().await;
    let t1 = mc_server::store::now_ms();
    tick().await;
    let mut edited2 = changed(edited.clone(), "2");
    edit(&mut edited2, |v| v["status"]["phase"] = json!("Failed"));
    s.apply_batch("c1", vec![mc_server::store::Change::Upsert(edited2)]).await.unwrap();
    s.apply_batch("c1", vec![delete(&pods(), Some("ns"), "gone", "gone-1")]).await.unwrap();
    s.apply_batch("c1", vec![delete(&pods(), Some("ns"), "again", "again-1")]).await.unwrap();
    s.apply_batch("c1", vec![upsert(&pods(), Some("ns"), "late", "late-1", &[])]).await.unwrap();
    tick().await;
    let t2 = mc_server::store::now_ms();
    tick().await;
    let mut again2 = object(&pods(), Some("ns"), "again", "again-2", &[]);
    edit(&mut again2, |v| v["status"]["phase"] = json!("Pending"));
    s.apply_batch("c1", vec![mc_server::store::Change::Upsert(again2)]).await.unwrap();
    tick().await;
    let t3 = mc_server::store::now_ms();
    let state = |at: i64, walk: usize| {
        let s = s.clone();
        async move {
            s.state_at_walking(&of(&pods()), at, walk)
                .await
                .unwrap()
                .iter()
                .map(|r| format!("{}/{}:{}", r.name, r.uid, phase(r)))
                .collect::<Vec<_>>()
        }
    };
    let expected: [(i64, &[&str]); 3] = [
        (
            t1,
            &[
                "again/again-1:Running",
                "edited/edited-1:Running",
                "gone/gone-1:Running",
                "quiet/quiet-1:Running",
            ],
        ),
        (t2, &["edited/edited-1:Failed", "late/late-1:Running", "quiet/quiet-1:Running"]),
        (
            t3,
            &[
                "again/again-2:Pending",
                "edited/edited-1:Failed",
                "late/late-1:Running",
                "quiet/quiet-1:Running",
            ],
        ),
    ];
    for (at, names) in expected {
        for walk in [usize::MAX, 0] {
            assert_eq!(state(at, walk).await, names, "at {at}, walk {walk}");
        }
    }
    // The rows in the answer carry their revisions: the current row stands in for the newest.
    let now = s.state_at(&of(&pods()), t3).await.unwrap();
    let history = s.history(&of(&pods()), false, 100).await.unwrap();
    for r in &now {
        let newest = history.iter().rfind(|h| h.name == r.name).unwrap();
        assert_eq!((r.id, r.at_ms, r.change), (newest.id, newest.at_ms, newest.change), "{}", r.name);
    }
    // Before the horizon: pruning took the revisions of the objects deleted before t2 (`gone`,
    // the first `again`) and the first of `edited` (superseded before t2).
    let now = mc_server::store::now_ms();
    let rules = PruneRules { max_age_ms: now - t2 + 1, ..PruneRules::default() };
    s.prune_history_as_of(&rules, None, now).await.unwrap();
    assert!(s.history_stats().await.unwrap()[0].complete_since_ms > Some(t1), "t1 is before the horizon");
    for walk in [usize::MAX, 0] {
        assert_eq!(
            state(t1, walk).await,
            ["quiet/quiet-1:Running"],
            "walk {walk}: what the kept revisions show"
        );
        assert_eq!(state(t3, walk).await, expected[2].1, "walk {walk}: inside the window, unchanged");
    }
}

pub async fn history_keeps_an_expired_events_last_state(ctx: Ctx) {
    let s = recording(&ctx);
    let events = Gvr::new("", "v1", "events");
    let mut e1 = object(&events, Some("ns"), "pod.1", "e1", &[]);
    edit(&mut e1, |v| v["message"] = json!("pulled"));
    let e2 = object(&events, Some("ns"), "pod.2", "e2", &[]);
    s.apply_batch(
        "c1",
        vec![mc_server::store::Change::Upsert(e1.clone()), mc_server::store::Change::Upsert(e2)],
    )
    .await
    .unwrap();
    let mut again = changed(e1, "5");
    edit(&mut again, |v| v["message"] = json!("pulled again"));
    s.apply_batch("c1", vec![mc_server::store::Change::Upsert(again)]).await.unwrap();
    // The cluster expires the Event.
    tick().await;
    s.apply_batch("c1", vec![delete(&events, Some("ns"), "pod.1", "e1")]).await.unwrap();
    let since = s.history(&of(&events), false, 10).await.unwrap()[0].at_ms;
    let found = s.events(&of(&events), since).await.unwrap();
    let seen: Vec<(String, ChangeKind, String)> = found
        .iter()
        .map(|r| {
            let message = r.object.as_ref().map(|o| o.value()["message"].as_str().unwrap_or("").to_string());
            (r.uid.clone(), r.change, message.unwrap_or_default())
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("e2".to_string(), ChangeKind::Modified, String::new()),
            ("e1".to_string(), ChangeKind::Modified, "pulled again".to_string()),
        ]
    );
    let last = s.history(&of(&events), false, 10).await.unwrap().last().unwrap().at_ms;
    let recent = s.events(&of(&events), last).await.unwrap();
    assert_eq!(recent.iter().map(|r| r.uid.as_str()).collect::<Vec<_>>(), ["e1"], "only e1 changed since");
}

pub async fn history_pruned_by_age_keeps_what_the_window_needs(ctx: Ctx) {
    let s = recording(&ctx);
    let live = object(&pods(), Some("ns"), "live", "u1", &[]);
    let mut batch = vec![mc_server::store::Change::Upsert(live.clone())];
    batch.push(upsert(&pods(), Some("ns"), "quiet", "u2", &[]));
    batch.push(upsert(&pods(), Some("ns"), "gone", "u3", &[]));
    s.apply_batch("c1", batch).await.unwrap();
    s.apply_batch("c1", vec![mc_server::store::Change::Upsert(changed(live.clone(), "2"))]).await.unwrap();
    s.apply_batch("c1", vec![delete(&pods(), Some("ns"), "gone", "u3")]).await.unwrap();
    tick().await;
    let cutoff_marker = mc_server::store::now_ms();
    tick().await;
    // Inside the window: a third version of `live`.
    s.apply_batch("c1", vec![mc_server::store::Change::Upsert(changed(live.clone(), "3"))]).await.unwrap();
    let before = s.history(&of(&pods()), false, 100).await.unwrap();
    assert_eq!(before.len(), 6);
    // The window is counted back from a fixed time, so that it does not move while the test
    // runs (a slow machine would otherwise age live@3 out of it before the second prune).
    let now = mc_server::store::now_ms();
    let rules = PruneRules { max_age_ms: now - cutoff_marker, step_rows: 2, ..PruneRules::default() };
    let pruned = s.prune_history_as_of(&rules, None, now).await.unwrap();
    let after = s.history(&of(&pods()), false, 100).await.unwrap();
    let left: Vec<(&str, &str)> =
        after.iter().map(|r| (r.name.as_str(), r.resource_version.as_str())).collect();
    // live@1 went (superseded by live@2, also old); live@2 stays (live@3 is inside the window);
    // quiet's only revision stays however old; gone's revisions all went.
    assert_eq!(left, [("quiet", "1"), ("live", "2"), ("live", "3")]);
    assert_eq!(pruned.revisions, 3);
    assert!(pruned.steps >= 3, "{pruned:?}");
    let stats = s.history_stats().await.unwrap();
    assert_eq!(stats[0].revisions, 3);
    assert_eq!(stats[0].bytes, after.iter().map(|r| r.bytes as u64).sum::<u64>());
    // The horizon: the deletion's time (before it, `gone` existed and is no longer shown).
    let gone_at = before.iter().find(|r| r.name == "gone" && r.change == ChangeKind::Deleted).unwrap().at_ms;
    assert_eq!(stats[0].complete_since_ms, Some(gone_at));
    // A state inside the window is unchanged by the prune.
    let inside = s.state_at(&of(&pods()), cutoff_marker).await.unwrap();
    let names: Vec<(&str, &str)> =
        inside.iter().map(|r| (r.name.as_str(), r.resource_version.as_str())).collect();
    assert_eq!(names, [("live", "2"), ("quiet", "1")]);
    // Nothing more goes a second time.
    assert_eq!(s.prune_history_as_of(&rules, None, now).await.unwrap().revisions, 0);
}

pub async fn history_pruned_by_bytes_goes_oldest_first(ctx: Ctx) {
    let s = recording(&ctx);
    let o = object(&pods(), Some("ns"), "web", "u1", &[]);
    s.apply_batch("c1", vec![mc_server::store::Change::Upsert(o.clone())]).await.unwrap();
    for v in 2..=5 {
        let mut next = changed(o.clone(), &v.to_string());
        edit(&mut next, |j| j["spec"]["filler"] = json!("x".repeat(v * 300)));
        s.apply_batch("c1", vec![mc_server::store::Change::Upsert(next)]).await.unwrap();
    }
    let before = s.history(&of(&pods()), false, 100).await.unwrap();
    let total: i64 = before.iter().map(|r| r.bytes).sum();
    // Room for all but the two oldest.
    let keep = (total - before[0].bytes - before[1].bytes) as u64;
    let rules = PruneRules { max_age_ms: i64::MAX / 4, max_bytes: Some(keep), ..PruneRules::default() };
    let pruned = s.prune_history(&rules, None).await.unwrap();
    let after: Vec<String> = s
        .history(&of(&pods()), false, 100)
        .await
        .unwrap()
        .iter()
        .map(|r| r.resource_version.clone())
        .collect();
    assert_eq!(after, ["3", "4", "5"]);
    assert_eq!(pruned.revisions, 2);
    let stats = s.history_stats().await.unwrap();
    assert_eq!(stats[0].bytes, keep);
    assert_eq!(stats[0].complete_since_ms, Some(before[2].at_ms));
    // Never the newest revision of a live object, whatever the limit.
    let none = PruneRules { max_bytes: Some(0), ..rules };
    s.prune_history(&none, None).await.unwrap();
    let left = s.history(&of(&pods()), false, 100).await.unwrap();
    assert_eq!(left.iter().map(|r| r.resource_version.as_str()).collect::<Vec<_>>(), ["5"]);
}

pub async fn history_off_writes_no_revision(ctx: Ctx) {
    let s = &ctx.store;
    s.apply_batch("c1", vec![upsert(&pods(), Some("ns"), "a", "u1", &[])]).await.unwrap();
    s.apply_batch("c1", vec![delete(&pods(), Some("ns"), "a", "u1")]).await.unwrap();
    s.apply_batch("c1", vec![upsert(&pods(), Some("ns"), "b", "u2", &[])]).await.unwrap();
    s.delete_gvr("c1", &pods()).await.unwrap();
    assert_eq!(ctx.table_rows("revisions").await, 0);
    assert!(s.history_stats().await.unwrap().is_empty());
    // Leases are excluded by default.
    let r = recording(&ctx);
    let leases = Gvr::new("coordination.k8s.io", "v1", "leases");
    r.apply_batch("c1", vec![upsert(&leases, Some("ns"), "l", "u3", &[])]).await.unwrap();
    assert_eq!(ctx.table_rows("revisions").await, 0);
}

pub async fn history_of_a_failed_transaction_is_not_written(ctx: Ctx) {
    let s = recording(&ctx);
    let good = upsert(&pods(), Some("ns"), "a", "u1", &[]);
    let mut bad = object(&pods(), Some("ns"), "b", "u2", &[]);
    bad.uid = String::new();
    let stored_first = delete(&pods(), Some("ns"), "zz", "");
    let err =
        s.apply_batch("c1", vec![good.clone(), stored_first, mc_server::store::Change::Upsert(bad)]).await;
    assert!(err.is_err());
    // Revisions a backend stages are moved first: none, as none were written.
    assert_eq!(s.settle_history().await.unwrap(), 0);
    assert_eq!(ctx.table_rows("resources").await, 0);
    assert_eq!(ctx.table_rows("revisions").await, 0);
    assert_eq!(ctx.table_rows("history_totals").await, 0);
    s.apply_batch("c1", vec![good]).await.unwrap();
    s.settle_history().await.unwrap();
    assert_eq!(ctx.table_rows("revisions").await, 1);
    assert_eq!(ctx.table_rows("history_totals").await, 1);
}

pub async fn history_of_removed_types_and_clusters_says_so(ctx: Ctx) {
    let s = recording(&ctx);
    s.apply_batch(
        "c1",
        vec![upsert(&pods(), Some("ns"), "a", "u1", &[]), upsert(&pods(), Some("ns"), "b", "u2", &[])],
    )
    .await
    .unwrap();
    let deployments = Gvr::new("apps", "v1", "deployments");
    s.apply_batch("c2", vec![upsert(&deployments, Some("ns"), "d", "u3", &[])]).await.unwrap();
    s.delete_gvr("c1", &pods()).await.unwrap();
    s.delete_cluster("c2").await.unwrap();
    let gone = s.deleted(&of(&pods()), 0).await.unwrap();
    assert_eq!(
        gone.iter().map(|r| (r.name.as_str(), r.unsynced, r.object.is_none())).collect::<Vec<_>>(),
        [("a", true, true), ("b", true, true)]
    );
    let gone = s.deleted(&of(&deployments), 0).await.unwrap();
    assert_eq!(gone.len(), 1);
    assert!(gone[0].unsynced);
    let stats = s.history_stats().await.unwrap();
    let counts: Vec<(&str, u64)> = stats.iter().map(|s| (s.cluster.as_str(), s.revisions)).collect();
    assert_eq!(counts, [("c1", 4), ("c2", 2)]);
}

/// SQLite stages a write's revisions and moves them into the history, in order and with their
/// totals, in steps of at most a thousand; every read moves them first. Other backends write
/// them in place: nothing to move.
pub async fn history_staged_revisions_move_in_write_order(ctx: Ctx) {
    let s = recording(&ctx);
    let staged = ctx.kind == crate::harness::Kind::Sqlite;
    let many = |cluster: &str, n: usize| -> Vec<mc_server::store::Change> {
        (0..n)
            .map(|i| {
                let mut o =
                    object(&pods(), Some("ns"), &format!("{cluster}-{i}"), &format!("{cluster}-u{i}"), &[]);
                o.created = true;
                mc_server::store::Change::Upsert(o)
            })
            .collect()
    };
    s.apply_batch("c1", many("c1", 1200)).await.unwrap();
    s.apply_batch("c2", many("c2", 1300)).await.unwrap();
    let mut first = object(&pods(), Some("ns"), "c1-0", "c1-u0", &[]);
    first = changed(first, "2");
    edit(&mut first, |v| v["status"]["phase"] = json!("Failed"));
    s.apply_batch("c1", vec![mc_server::store::Change::Upsert(first)]).await.unwrap();
    if staged {
        assert_eq!(ctx.table_rows("revisions").await, 0);
        assert_eq!(ctx.table_rows("revisions_log").await, 2501);
        assert_eq!(ctx.table_rows("history_totals").await, 0);
    }
    assert_eq!(s.settle_history().await.unwrap(), if staged { 2501 } else { 0 });
    assert_eq!(ctx.table_rows("revisions").await, 2501);
    if staged {
        assert_eq!(ctx.table_rows("revisions_log").await, 0);
    }
    let stats = s.history_stats().await.unwrap();
    let counts: Vec<(&str, u64)> = stats.iter().map(|s| (s.cluster.as_str(), s.revisions)).collect();
    assert_eq!(counts, [("c1", 1201), ("c2", 1300)]);
    let bytes: u64 = stats.iter().map(|s| s.bytes).sum();
    assert!(bytes > 2501 * 50, "{bytes} bytes for 2,501 revisions");
    // The ids follow the writes: the first object's change comes after both clusters' batches.
    let all = s.history(&one(&pods(), "c1", "ns", "c1-0"), true, 10).await.unwrap();
    assert_eq!(kinds(&all), [ChangeKind::Added, ChangeKind::Modified]);
    let last_of_c2 = s.history(&one(&pods(), "c2", "ns", "c2-1299"), false, 10).await.unwrap();
    assert!(all[0].id < last_of_c2[0].id && last_of_c2[0].id < all[1].id, "{all:?} {last_of_c2:?}");
    assert_eq!(phase(&all[1]), "Failed");
    // A read moves what was staged since, by itself.
    s.apply_batch("c2", vec![delete(&pods(), Some("ns"), "c2-0", "c2-u0")]).await.unwrap();
    let gone = s.deleted(&of(&pods()), 0).await.unwrap();
    assert_eq!(gone.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["c2-0"]);
    assert_eq!(ctx.table_rows("revisions").await, 2502);
    assert_eq!(s.settle_history().await.unwrap(), 0);
}
