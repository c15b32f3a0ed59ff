//! History against real clusters, on SQLite, MariaDB and PostgreSQL: a Deployment's life as
//! revisions (with the fields each change touched), the state at a time between two changes,
//! the deleted object's last state, an Event found after its cluster expired it, and no
//! revision lost to a kill -9 of a change a list had already shown.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Event};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::server::{McServer, Options, backends};
use crate::sync::ensure_namespace;
use crate::testenv::{TestEnv, eventually};

const NS: &str = "mc-history";

/// The deployment `web` as mc-server lists it in the first cluster, once `ready` says so.
async fn listed(server: &McServer, cluster: &str, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let path = format!("/v1/list?gvr=deployments&cluster={cluster}&namespace={NS}&name=web&limit=0");
    eventually(what, Duration::from_secs(30), || async {
        let (_, b) = server.get(&path).await;
        b.as_array()?.first().filter(|d| ready(d)).cloned()
    })
    .await
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

/// Deletes `web` if an earlier run left it, and waits until it is gone.
async fn no_deployment(deployments: &Api<Deployment>) {
    let _ = deployments.delete("web", &DeleteParams::default()).await;
    eventually("old web gone", Duration::from_secs(30), || async {
        deployments.get_opt("web").await.ok()?.is_none().then_some(())
    })
    .await;
}

/// The fields a revision touched that its controllers do not (status, and the Deployment's
/// revision annotation: one path, or `metadata.annotations` when it was the first annotation).
fn users_fields(revision: &Value) -> Vec<String> {
    let annotations = revision["object"]["metadata"]["annotations"].as_object();
    let only_the_controllers =
        annotations.is_some_and(|a| a.keys().all(|k| k == "deployment.kubernetes.io/revision"));
    revision["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|f| {
            !f.starts_with("status") && *f != "metadata.annotations['deployment.kubernetes.io/revision']"
        })
        .filter(|f| !(*f == "metadata.annotations" && only_the_controllers))
        .map(String::from)
        .collect()
}

#[tokio::test]
async fn a_deployments_life_is_kept_and_read_back_on_every_backend() {
    let env = TestEnv::from_env();
    let cluster = &env.clusters[0];
    let client = env.client(cluster).await.unwrap();
    ensure_namespace(&client, NS).await;
    // An Event the cluster expires (test clusters keep Events 3 minutes): made first, looked for
    // at the end.
    let events: Api<Event> = Api::namespaced(client.clone(), NS);
    let event_name = format!("history-probe.{}", now_ms());
    let event: Event = serde_json::from_value(json!({
        "metadata": {"name": event_name},
        "involvedObject": {"kind": "ConfigMap", "name": "probe", "namespace": NS},
        "reason": "HistoryProbe", "message": "kept past its expiry", "type": "Warning",
        "firstTimestamp": k8s_openapi::jiff::Timestamp::now().to_string(),
        "lastTimestamp": k8s_openapi::jiff::Timestamp::now().to_string(), "count": 1,
        "source": {"component": "history-test"}
    }))
    .unwrap();
    events.create(&PostParams::default(), &event).await.unwrap();
    let event_made = Instant::now();
    let mut sqlite_server: Option<McServer> = None;

    let deployments: Api<Deployment> = Api::namespaced(client.clone(), NS);
    for (backend, url) in backends(&env, "history") {
        no_deployment(&deployments).await;
        let opts = Options { storage: Some(url), ..Default::default() };
        let server = McServer::start(&env, &format!("history-{backend}"), opts).await;
        let c = cluster.name.as_str();
        let web: Deployment = serde_json::from_value(json!({
            "metadata": {"name": "web", "labels": {"app": "web"}},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}}}
        }))
        .unwrap();
        deployments.create(&PostParams::default(), &web).await.unwrap();
        let image = |d: &Value| d["spec"]["template"]["spec"]["containers"][0]["image"].clone();
        listed(&server, c, "created", |d| image(d) == "nginx:1.25").await;
        let patch = |p: Value| Patch::Merge(p);
        let pp = PatchParams::default();
        deployments
            .patch("web", &pp, &patch(json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}})))
            .await
            .unwrap();
        listed(&server, c, "image changed", |d| image(d) == "nginx:1.27").await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let between = now_ms();
        tokio::time::sleep(Duration::from_millis(1500)).await;
        deployments.patch("web", &pp, &patch(json!({"spec": {"replicas": 3}}))).await.unwrap();
        listed(&server, c, "scaled", |d| d["spec"]["replicas"] == 3).await;
        deployments
            .patch("web", &pp, &patch(json!({"metadata": {"labels": {"tier": "front"}}})))
            .await
            .unwrap();
        listed(&server, c, "labelled", |d| d["metadata"]["labels"]["tier"] == "front").await;
        deployments.delete("web", &DeleteParams::default()).await.unwrap();
        let gone_path = format!("/v1/list?gvr=deployments&cluster={c}&namespace={NS}&name=web&limit=0");
        eventually("deleted", Duration::from_secs(30), || async {
            let (_, b) = server.get(&gone_path).await;
            b.as_array()?.is_empty().then_some(())
        })
        .await;

        // history: the five changes in order, each with the fields it touched.
        let (status, revisions) = server
            .get(&format!("/v1/history?gvr=deployments&cluster={c}&namespace={NS}&name=web&objects=true"))
            .await;
        assert_eq!(status, StatusCode::OK, "{backend}: {revisions}");
        let revisions = revisions.as_array().unwrap().clone();
        let uids: BTreeSet<&str> = revisions.iter().filter_map(|r| r["uid"].as_str()).collect();
        assert_eq!(uids.len(), 1, "{backend}: one object: {revisions:#?}");
        let ids: Vec<i64> = revisions.iter().map(|r| r["revision"].as_i64().unwrap()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{backend}: oldest first: {ids:?}");
        // The controllers' own changes (status, the revision annotation) come between.
        let users: Vec<(String, Vec<String>)> = revisions
            .iter()
            .map(|r| (r["change"].as_str().unwrap().to_string(), users_fields(r)))
            .filter(|(change, fields)| change != "MODIFIED" || !fields.is_empty())
            .collect();
        let expected: Vec<(String, Vec<String>)> = vec![
            ("ADDED".into(), vec![]),
            ("MODIFIED".into(), vec!["spec.template.spec.containers[0].image".into()]),
            ("MODIFIED".into(), vec!["spec.replicas".into()]),
            ("MODIFIED".into(), vec!["metadata.labels.tier".into()]),
            ("DELETED".into(), vec![]),
        ];
        assert_eq!(users, expected, "{backend}: {revisions:#?}");
        assert!(revisions.iter().all(|r| r["afterGap"].is_null()), "{backend}: all watched: {revisions:#?}");

        // The image change against the revision before it: exactly the image.
        let at_image = revisions
            .iter()
            .position(|r| users_fields(r) == ["spec.template.spec.containers[0].image"])
            .unwrap();
        let pair = format!("{},{}", ids[at_image - 1], ids[at_image]);
        let (status, both) = server
            .get(&format!("/v1/history?gvr=deployments&cluster={c}&namespace={NS}&name=web&revisions={pair}&objects=true"))
            .await;
        assert_eq!(status, StatusCode::OK, "{backend}: {both}");
        let both = both.as_array().unwrap();
        assert_eq!(both.len(), 2, "{backend}");
        assert_eq!(users_fields(&both[1]), ["spec.template.spec.containers[0].image"], "{backend}");
        assert_eq!(image(&both[0]["object"]), "nginx:1.25", "{backend}");
        assert_eq!(image(&both[1]["object"]), "nginx:1.27", "{backend}");

        // At a moment between the image change and the scale: the earlier state.
        let at = mc_types::moment::rfc3339(between);
        let (status, then) =
            server.get(&format!("/v1/history/at?gvr=deployments&cluster={c}&namespace={NS}&at={at}")).await;
        assert_eq!(status, StatusCode::OK, "{backend}: {then}");
        let web_then: Vec<&Value> =
            then.as_array().unwrap().iter().filter(|o| o["Object"]["metadata"]["name"] == "web").collect();
        assert_eq!(web_then.len(), 1, "{backend}: {then}");
        assert_eq!(image(&web_then[0]["Object"]), "nginx:1.27", "{backend}");
        assert_eq!(web_then[0]["Object"]["spec"]["replicas"], 1, "{backend}");
        // And now it is gone.
        let now = mc_types::moment::rfc3339(now_ms());
        let (_, now) =
            server.get(&format!("/v1/history/at?gvr=deployments&cluster={c}&namespace={NS}&at={now}")).await;
        assert!(
            now.as_array().unwrap().iter().all(|o| o["Object"]["metadata"]["name"] != "web"),
            "{backend}: {now}"
        );

        // Deleted in the last 10 minutes, as it last was.
        let (status, gone) = server
            .get(&format!("/v1/history/deleted?gvr=deployments&cluster={c}&namespace={NS}&since=10m"))
            .await;
        assert_eq!(status, StatusCode::OK, "{backend}: {gone}");
        let gone: Vec<&Value> =
            gone.as_array().unwrap().iter().filter(|o| o["Object"]["metadata"]["name"] == "web").collect();
        assert_eq!(gone.len(), 1, "{backend}");
        assert_eq!(gone[0]["Object"]["metadata"]["labels"]["tier"], "front", "{backend}");
        assert_eq!(gone[0]["Object"]["spec"]["replicas"], 3, "{backend}");
        assert_eq!(gone[0]["clusterName"], c, "{backend}");

        if backend == "sqlite" {
            sqlite_server = Some(server);
        }
    }

    // The Event, once its cluster expired it, is still there.
    let server = sqlite_server.unwrap();
    eventually("the Event expired in its cluster", Duration::from_secs(330), || async {
        events.get_opt(&event_name).await.ok()?.is_none().then_some(())
    })
    .await;
    eprintln!("the Event expired {:?} after it was made", event_made.elapsed());
    let (status, kept) = server.get(&format!("/v1/events?namespace={NS}&since=1h&reason=HistoryProbe")).await;
    assert_eq!(status, StatusCode::OK, "{kept}");
    let kept: Vec<&Value> = kept
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["Object"]["metadata"]["name"] == event_name.as_str())
        .collect();
    assert_eq!(kept.len(), 1, "{kept:#?}");
    assert_eq!(kept[0]["Object"]["message"], "kept past its expiry");
    assert_eq!(kept[0]["clusterName"], cluster.name.as_str());
    let (_, for_other) = server.get(&format!("/v1/events?namespace={NS}&since=1h&for=pod/probe")).await;
    assert!(
        for_other.as_array().unwrap().iter().all(|e| e["Object"]["metadata"]["name"] != event_name.as_str())
    );
    let (_, for_it) = server.get(&format!("/v1/events?namespace={NS}&since=1h&for=cm/probe")).await;
    let ours =
        for_it.as_array().unwrap().iter().filter(|e| e["Object"]["metadata"]["name"] == event_name.as_str());
    assert_eq!(ours.count(), 1, "{for_it}");
}

/// kill -9 during churn: every state a list showed before the kill has its revision after the
/// restart (the revision is written in the transaction that makes the state visible).
#[tokio::test]
async fn a_kill_during_churn_loses_no_revision_a_list_showed() {
    let env = TestEnv::from_env();
    let cluster = &env.clusters[1];
    let client = env.client(cluster).await.unwrap();
    ensure_namespace(&client, NS).await;
    let cms: Api<ConfigMap> = Api::namespaced(client, NS);
    for (backend, url) in backends(&env, "history-kill") {
        let name = format!("churn-{backend}");
        let _ = cms.delete(&name, &DeleteParams::default()).await;
        let opts = Options { storage: Some(url), ..Default::default() };
        let mut server = McServer::start(&env, &format!("history-kill-{backend}"), opts.clone()).await;
        let cm: ConfigMap =
            serde_json::from_value(json!({"metadata": {"name": name}, "data": {"n": "0"}})).unwrap();
        cms.create(&PostParams::default(), &cm).await.unwrap();
        let c = cluster.name.clone();
        let path = format!("/v1/list?gvr=configmaps&cluster={c}&namespace={NS}&name={name}&limit=0");
        // Churn in the background; read lists meanwhile, remembering every version shown.
        let churn = {
            let (cms, name) = (cms.clone(), name.clone());
            tokio::spawn(async move {
                for i in 1..=300 {
                    let p = Patch::Merge(json!({"data": {"n": i.to_string()}}));
                    if cms.patch(&name, &PatchParams::default(), &p).await.is_err() {
                        break;
                    }
                }
            })
        };
        let mut shown: BTreeSet<String> = BTreeSet::new();
        let start = Instant::now();
        while shown.len() < 20 && start.elapsed() < Duration::from_secs(60) {
            let (_, b) = server.get(&path).await;
            if let Some(rv) =
                b.as_array().and_then(|a| a.first()).and_then(|o| o["metadata"]["resourceVersion"].as_str())
            {
                shown.insert(rv.to_string());
            }
        }
        server.kill();
        churn.await.unwrap();
        assert!(shown.len() >= 5, "{backend}: too few versions seen before the kill: {shown:?}");
        // A change made while the server is down: its restart's list finds it, after a gap.
        let p = Patch::Merge(json!({"data": {"n": "while-down"}}));
        cms.patch(&name, &PatchParams::default(), &p).await.unwrap();
        let server = McServer::start(&env, &format!("history-kill-{backend}-2"), opts).await;
        let final_rv = cms.get(&name).await.unwrap().metadata.resource_version.unwrap();
        eventually("restarted server caught up", Duration::from_secs(30), || async {
            let (_, b) = server.get(&path).await;
            (b.as_array()?.first()?["metadata"]["resourceVersion"] == final_rv.as_str()).then_some(())
        })
        .await;
        let (status, revisions) = server
            .get(&format!("/v1/history?gvr=configmaps&cluster={c}&namespace={NS}&name={name}&limit=1000"))
            .await;
        assert_eq!(status, StatusCode::OK, "{backend}: {revisions}");
        let kept: BTreeSet<String> = revisions
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["resourceVersion"].as_str().map(String::from))
            .collect();
        let lost: Vec<&String> = shown.iter().filter(|rv| !kept.contains(*rv)).collect();
        assert!(
            lost.is_empty(),
            "{backend}: versions a list showed but history lost: {lost:?} (kept {})",
            kept.len()
        );
        // The relist after the restart found the last changes after a gap, and says so.
        let last = revisions.as_array().unwrap().last().unwrap();
        assert_eq!(last["resourceVersion"], final_rv.as_str(), "{backend}");
        assert_eq!(last["afterGap"], true, "{backend}: {last}");
        cms.delete(&name, &DeleteParams::default()).await.unwrap();
    }
}
