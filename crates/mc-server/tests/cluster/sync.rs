//! mc-server keeps the store equal to the clusters and answers the query API.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use futures::{StreamExt, stream};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, PostParams};
use kube::{Client, ResourceExt};
use reqwest::StatusCode;
use serde_json::json;
use sqlx::Connection as _;
use tokio::io::AsyncBufReadExt;

use mc_types::crd::MultiCluster;

use crate::server::{Launch, McServer, Options, backends, config_with};
use crate::testenv::{Cluster, TestEnv, eventually};

const NS: &str = "mc-sync";
/// Per cluster: over the clusters, more than one page (1,000) of a list without a limit, which
/// is then streamed page by page.
const CONFIGMAPS: usize = 400;
const SECRETS: usize = 60;
const DEPLOYMENTS: usize = 20;

pub async fn ensure_namespace(client: &Client, name: &str) {
    let api: Api<Namespace> = Api::all(client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    match api.create(&PostParams::default(), &ns).await {
        Ok(_) => {}
        Err(kube::Error::Api(s)) if s.code == 409 => {}
        Err(e) => panic!("creating namespace {name}: {e}"),
    }
}

async fn create_ignoring_conflict<K>(api: &Api<K>, obj: K)
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + serde::Serialize + std::fmt::Debug,
{
    match api.create(&PostParams::default(), &obj).await {
        Ok(_) => {}
        Err(kube::Error::Api(s)) if s.code == 409 => {}
        Err(e) => panic!("creating {}: {e}", obj.meta().name.clone().unwrap_or_default()),
    }
}

/// A few hundred ConfigMaps, Secrets and Deployments in each cluster (idempotent).
async fn load_objects(env: &TestEnv, cluster: &Cluster) {
    let client = env.client(cluster).await.unwrap();
    ensure_namespace(&client, NS).await;
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), NS);
    let secrets: Api<Secret> = Api::namespaced(client.clone(), NS);
    let deps: Api<Deployment> = Api::namespaced(client.clone(), NS);
    stream::iter(0..CONFIGMAPS)
        .for_each_concurrent(16, |i| {
            let cms = cms.clone();
            async move {
                let cm = serde_json::from_value(json!({
                    "metadata": {"name": format!("cm-{i:04}"), "labels": {"tier": if i % 2 == 0 { "even" } else { "odd" }, "idx": i.to_string()}},
                    "data": {"payload": "x".repeat(512), "cluster": cluster.name}
                }))
                .unwrap();
                create_ignoring_conflict(&cms, cm).await;
            }
        })
        .await;
    stream::iter(0..SECRETS)
        .for_each_concurrent(16, |i| {
            let secrets = secrets.clone();
            async move {
                let s = serde_json::from_value(json!({
                    "metadata": {"name": format!("secret-{i:03}")},
                    "stringData": {"password": format!("very-secret-value-{i}")}
                }))
                .unwrap();
                create_ignoring_conflict(&secrets, s).await;
            }
        })
        .await;
    stream::iter(0..DEPLOYMENTS)
        .for_each_concurrent(8, |i| {
            let deps = deps.clone();
            async move {
                let name = format!("dep-{i:02}");
                let d = serde_json::from_value(json!({
                    "metadata": {"name": name},
                    "spec": {
                        "replicas": 0,
                        "selector": {"matchLabels": {"app": name}},
                        "template": {"metadata": {"labels": {"app": name}},
                                     "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}
                    }
                }))
                .unwrap();
                create_ignoring_conflict(&deps, d).await;
            }
        })
        .await;
}

/// `(cluster, namespace, name)` of every object of a type in every cluster, from the API servers.
async fn cluster_keys(
    env: &TestEnv,
    api_version: &str,
    kind: &str,
    plural: &str,
) -> Vec<(String, String, String)> {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let ar = kube::api::ApiResource {
        group: group.into(),
        version: version.into(),
        api_version: api_version.into(),
        kind: kind.into(),
        plural: plural.into(),
    };
    let mut keys = Vec::new();
    for c in &env.clusters {
        let api: Api<DynamicObject> = Api::all_with(env.client(c).await.unwrap(), &ar);
        for o in api.list(&ListParams::default()).await.unwrap() {
            keys.push((c.name.clone(), o.namespace().unwrap_or_default(), o.name_any()));
        }
    }
    keys.sort();
    keys
}

async fn assert_store_equals_clusters(env: &TestEnv, server: &McServer, backend: &str) {
    for (gvr, api_version, kind, plural) in [
        ("v1/configmaps", "v1", "ConfigMap", "configmaps"),
        ("v1/secrets", "v1", "Secret", "secrets"),
        ("apps/v1/deployments", "apps/v1", "Deployment", "deployments"),
        ("v1/namespaces", "v1", "Namespace", "namespaces"),
    ] {
        // Converges within seconds; the clusters' own controllers may still be adding objects.
        let start = Instant::now();
        loop {
            let want = cluster_keys(env, api_version, kind, plural).await;
            let got = server.keys(gvr).await;
            if want == got {
                break;
            }
            if start.elapsed() > Duration::from_secs(15) {
                let want: BTreeSet<_> = want.iter().collect();
                let got: BTreeSet<_> = got.iter().collect();
                panic!(
                    "{backend}: {gvr} differs; missing in store: {:?}; stale in store: {:?}",
                    want.difference(&got).take(10).collect::<Vec<_>>(),
                    got.difference(&want).take(10).collect::<Vec<_>>()
                );
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }
}

#[tokio::test]
async fn list_with_cluster_returns_exactly_what_the_clusters_hold_on_every_backend() {
    let env = TestEnv::from_env();
    futures::future::join_all(env.clusters.iter().map(|c| load_objects(&env, c))).await;
    for (backend, url) in backends(&env, "exact") {
        let server = McServer::start(
            &env,
            &format!("exact-{backend}"),
            Options { storage: Some(url), ..Default::default() },
        )
        .await;
        assert_store_equals_clusters(&env, &server, backend).await;
        let (_, body) = server
            .get(&format!(
                "/v1/list_with_cluster?gvr=v1/configmaps&namespace={NS}&labelSelector=tier&limit=0"
            ))
            .await;
        assert_eq!(body.as_array().unwrap().len(), CONFIGMAPS * env.clusters.len(), "{backend}");
        // A watch sends the same objects first, read a page at a time, then waits for changes.
        let url = format!("{}/v1/list_with_cluster?gvr=v1/configmaps&namespace={NS}&watch=true", server.url);
        let resp = server.http().get(url).bearer_auth(server.token()).send().await.unwrap();
        let bytes = resp.bytes_stream().map(|r| r.map_err(std::io::Error::other));
        let mut lines = tokio_util::io::StreamReader::new(bytes).lines();
        let mut watched = BTreeSet::new();
        for _ in 0..CONFIGMAPS * env.clusters.len() {
            let ev = next(&mut lines).await;
            assert_eq!(ev["type"], "ADDED", "{backend}: {ev}");
            watched.insert((ev["clusterName"].to_string(), ev["object"]["metadata"]["name"].to_string()));
        }
        assert_eq!(watched.len(), CONFIGMAPS * env.clusters.len(), "{backend}: each object once");
    }
}

/// Lists are read three ways, chosen by the first page: one page; one answer read as it arrives
/// (from the API server's watch cache, at most `sync.unpagedListMax` objects); pages. Small sizes
/// make the few hundred objects of each cluster take every way, and the store holds exactly
/// what the clusters hold either way.
#[tokio::test]
async fn lists_read_whole_or_in_pages_store_exactly_what_the_clusters_hold() {
    let env = TestEnv::from_env();
    futures::future::join_all(env.clusters.iter().map(|c| load_objects(&env, c))).await;
    // ConfigMaps (400 and more per cluster) in pages of 50; Secrets (60 and more, fewer than
    // 300) in one answer; the smallest types (Deployments, 20 here) in one page.
    let config = config_with(&env, "list-sizes", "sync: {listPageSize: 50, unpagedListMax: 300}");
    // The server's log is appended to: only this run's lines are counted.
    let _ = std::fs::remove_file(env.dir.join("logs").join("mc-server-list-sizes.log"));
    let server =
        McServer::start(&env, "list-sizes", Options { config: Some(config), ..Default::default() }).await;
    assert_store_equals_clusters(&env, &server, "sqlite").await;
    let log = std::fs::read_to_string(&server.log).unwrap();
    let count = |what: &str, url: &str| log.lines().filter(|l| l.contains(what) && l.contains(url)).count();
    let n = env.clusters.len();
    assert_eq!(count("listing in pages", "url=/api/v1/configmaps "), n, "ConfigMaps in pages");
    assert_eq!(count("listing without pages", "url=/api/v1/secrets "), n, "Secrets in one answer");
    // The store was empty: four of its indexes waited for the end of the first sync, and were
    // built before `/readyz` said ready.
    let db = env.dir.join("mc-server").join("list-sizes").join("mc.db");
    let mut conn =
        sqlx::SqliteConnection::connect(&format!("sqlite://{}?mode=ro", db.display())).await.unwrap();
    let built: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'index' \
         AND name IN ('ix_resources_namespace', 'ix_resource_labels_kv', 'ix_resources_owner', \
         'ix_resources_count') ORDER BY name",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    assert_eq!(
        built,
        ["ix_resource_labels_kv", "ix_resources_count", "ix_resources_namespace", "ix_resources_owner"]
    );
    let waiting: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM deferred_indexes").fetch_one(&mut conn).await.unwrap();
    assert_eq!(waiting, 0);
    assert_eq!(count("deferred indexes built", "indexes=4"), 1, "built once, after the sync");
}

#[tokio::test]
async fn secret_values_never_appear_in_api_output() {
    let env = TestEnv::from_env();
    load_objects(&env, &env.clusters[0]).await;
    let server = McServer::start(&env, "redact", Options::default()).await;
    let (status, body) = server.get(&format!("/v1/list?gvr=v1/secrets&namespace={NS}&limit=0")).await;
    assert_eq!(status, StatusCode::OK);
    let text = body.to_string();
    assert!(!text.contains("very-secret-value"), "secret value leaked");
    assert!(!text.contains("dmVyeS1zZWNyZXQtdmFsdWU"), "base64 secret value leaked");
    assert!(text.contains("secret-000"), "secrets are listed: {}", &text[..text.len().min(300)]);
    let first = &body.as_array().unwrap()[0];
    // Keys stay, values go; a data value stays base64 ("<redacted>" encoded) so clients decode it.
    assert_eq!(first["data"]["password"], "PHJlZGFjdGVkPg==", "keys stay, values go");
    assert_eq!(first["metadata"]["annotations"]["mulitcluster.practice.com/redacted"], "true");

    // Redaction can be turned off in the config.
    let config = config_with(&env, "no-redact", "sync:\n  redactSecrets: false");
    let server =
        McServer::start(&env, "no-redact", Options { config: Some(config), ..Default::default() }).await;
    let (_, body) = server.get(&format!("/v1/list?gvr=v1/secrets&namespace={NS}&name=secret-000")).await;
    assert!(body.to_string().contains("dmVyeS1zZWNyZXQtdmFsdWUtMA=="), "{body}");
}

#[tokio::test]
async fn creates_updates_and_deletes_show_up_within_two_seconds() {
    let env = TestEnv::from_env();
    let cluster = &env.clusters[1];
    let client = env.client(cluster).await.unwrap();
    ensure_namespace(&client, NS).await;
    let server = McServer::start(&env, "latency", Options::default()).await;
    let cms: Api<ConfigMap> = Api::namespaced(client, NS);
    let _ = cms.delete("latency", &DeleteParams::default()).await;
    let query = format!(
        "/v1/list_with_cluster?gvr=v1/configmaps&cluster={}&namespace={NS}&name=latency",
        cluster.name
    );
    let cm: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "latency"}, "data": {"v": "1"}})).unwrap();

    let t = Instant::now();
    cms.create(&PostParams::default(), &cm).await.unwrap();
    eventually("create visible", Duration::from_secs(2), || async {
        let (_, b) = server.get(&query).await;
        (b.as_array()?.len() == 1).then_some(())
    })
    .await;
    eprintln!("create visible after {:?}", t.elapsed());

    let t = Instant::now();
    let patch = json!({"data": {"v": "2"}});
    cms.patch("latency", &kube::api::PatchParams::default(), &kube::api::Patch::Merge(&patch)).await.unwrap();
    eventually("update visible", Duration::from_secs(2), || async {
        let (_, b) = server.get(&query).await;
        (b.as_array()?.first()?["Object"]["data"]["v"] == "2").then_some(())
    })
    .await;
    eprintln!("update visible after {:?}", t.elapsed());

    let t = Instant::now();
    cms.delete("latency", &DeleteParams::default()).await.unwrap();
    eventually("delete visible", Duration::from_secs(2), || async {
        let (_, b) = server.get(&query).await;
        b.as_array()?.is_empty().then_some(())
    })
    .await;
    eprintln!("delete visible after {:?}", t.elapsed());
}

#[tokio::test]
async fn a_restart_reconciles_changes_made_while_the_server_was_down() {
    let env = TestEnv::from_env();
    for (backend, url) in backends(&env, "restart") {
        let opts = Options { storage: Some(url), ..Default::default() };
        let mut server = McServer::start(&env, &format!("restart-{backend}"), opts.clone()).await;
        let client = env.client(&env.clusters[0]).await.unwrap();
        ensure_namespace(&client, NS).await;
        let cms: Api<ConfigMap> = Api::namespaced(client, NS);
        for name in ["gone-1", "gone-2"] {
            let cm = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
            create_ignoring_conflict(&cms, cm).await;
        }
        eventually("gone-* stored", Duration::from_secs(5), || async {
            let (_, b) = server
                .get(&format!("/v1/list?gvr=v1/configmaps&namespace={NS}&labelSelector=&limit=0"))
                .await;
            let names: Vec<String> = b
                .as_array()?
                .iter()
                .filter_map(|o| o["metadata"]["name"].as_str().map(String::from))
                .collect();
            (names.contains(&"gone-1".to_string()) && names.contains(&"gone-2".to_string())).then_some(())
        })
        .await;
        server.stop();

        for name in ["gone-1", "gone-2"] {
            cms.delete(name, &DeleteParams::default()).await.unwrap();
        }
        let fresh = format!("fresh-{backend}");
        let cm = serde_json::from_value(json!({"metadata": {"name": fresh}})).unwrap();
        create_ignoring_conflict(&cms, cm).await;

        let server = McServer::start(&env, &format!("restart-{backend}-2"), opts).await;
        assert_store_equals_clusters(&env, &server, backend).await;
        let (_, b) = server.get(&format!("/v1/list?gvr=v1/configmaps&namespace={NS}&name=gone-1")).await;
        assert_eq!(b, json!([]), "{backend}: deleted while down must be gone");
        cms.delete(&fresh, &DeleteParams::default()).await.unwrap();
    }
}

/// Creates `crd` afresh (a copy left by an earlier run deleted first); returns when it was asked.
async fn reinstall_crd(crds: &Api<CustomResourceDefinition>, crd: &CustomResourceDefinition) -> Instant {
    let name = crd.metadata.name.clone().unwrap();
    let _ = crds.delete(&name, &DeleteParams::default()).await;
    eventually("old CRD gone", Duration::from_secs(30), || async {
        crds.get_opt(&name).await.ok()?.is_none().then_some(())
    })
    .await;
    let asked = Instant::now();
    crds.create(&PostParams::default(), crd).await.unwrap();
    asked
}

/// Creates `object` through `api` as soon as its new type is served.
async fn create_once_served(api: &Api<DynamicObject>, object: serde_json::Value) {
    let object: DynamicObject = serde_json::from_value(object).unwrap();
    eventually("CRD established", Duration::from_secs(20), || async {
        api.create(&PostParams::default(), &object).await.ok().map(|_| ())
    })
    .await;
}

#[tokio::test]
async fn a_crd_installed_after_start_is_listed_within_30_seconds() {
    let env = TestEnv::from_env();
    let server = McServer::start(&env, "crd", Options::default()).await;
    let cluster = &env.clusters[2];
    let client = env.client(cluster).await.unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "shortNames": ["wdg"]},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]
        }
    }))
    .unwrap();
    let start = reinstall_crd(&crds, &crd).await;
    let ar = kube::api::ApiResource {
        group: "example.com".into(),
        version: "v1".into(),
        api_version: "example.com/v1".into(),
        kind: "Widget".into(),
        plural: "widgets".into(),
    };
    ensure_namespace(&client, NS).await;
    let widgets: Api<DynamicObject> = Api::namespaced_with(client.clone(), NS, &ar);
    let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"size": 3}});
    create_once_served(&widgets, widget).await;
    eventually("custom object listed", Duration::from_secs(30), || async {
        let (status, b) = server.get("/v1/list_with_cluster?gvr=example.com/v1/widgets&limit=0").await;
        (status == StatusCode::OK && b.as_array()?.len() == 1).then_some(())
    })
    .await;
    eprintln!("custom object listed {:?} after the CRD was created", start.elapsed());
    // Short names of the new type resolve too.
    let (status, _) = server.get("/v1/list?gvr=wdg").await;
    assert_eq!(status, StatusCode::OK);

    // And a CRD that goes away takes its objects with it.
    crds.delete("widgets.example.com", &DeleteParams::default()).await.unwrap();
    eventually("type dropped", Duration::from_secs(30), || async {
        let (status, _) = server.get("/v1/list?gvr=example.com/v1/widgets").await;
        (status == StatusCode::NOT_FOUND).then_some(())
    })
    .await;
}

/// A type whose list fails for good (here: a CRD whose preferred version needs a conversion
/// webhook nobody answers) stops holding readiness back after three failures, and says so: in
/// `/v1/clusters`, in metrics, in the cluster's MultiCluster status, and in a `Warning` on every
/// answer about the type, until a list of it is written.
#[tokio::test]
async fn a_type_that_cannot_be_listed_is_reported_and_warned_about_until_it_is_listed() {
    const CRD: &str = "gadgets.example.com";
    let env = TestEnv::from_env();
    let cluster = &env.clusters[1];
    let client = env.client(cluster).await.unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let schema = json!({"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
    let crd = |conversion: serde_json::Value| -> CustomResourceDefinition {
        serde_json::from_value(json!({
            "metadata": {"name": CRD},
            "spec": {
                "group": "example.com",
                "names": {"kind": "Gadget", "plural": "gadgets", "singular": "gadget"},
                "scope": "Namespaced",
                "versions": [
                    {"name": "v1", "served": true, "storage": true, "schema": schema},
                    {"name": "v2", "served": true, "storage": false, "schema": schema}
                ],
                "conversion": conversion
            }
        }))
        .unwrap()
    };
    // v2 is the preferred version; its objects are stored as v1, and converting them needs a
    // webhook at a port where nothing listens.
    let webhook = json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
        "clientConfig": {"url": "https://127.0.0.1:1/convert"}}});
    reinstall_crd(&crds, &crd(webhook)).await;
    let ar = |version: &str| kube::api::ApiResource {
        group: "example.com".into(),
        version: version.into(),
        api_version: format!("example.com/{version}"),
        kind: "Gadget".into(),
        plural: "gadgets".into(),
    };
    ensure_namespace(&client, NS).await;
    let v1: Api<DynamicObject> = Api::namespaced_with(client.clone(), NS, &ar("v1"));
    let gadget = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"}, "spec": {"size": 3}});
    create_once_served(&v1, gadget).await;
    let v2: Api<DynamicObject> = Api::all_with(client.clone(), &ar("v2"));
    let refused = v2.list(&ListParams::default()).await.expect_err("listing v2 needs the webhook");
    assert!(matches!(&refused, kube::Error::Api(s) if s.code == 500), "{refused}");

    // Ready although one type cannot be listed (at most 90 s: three failures with backoff).
    let server = McServer::start(&env, "unlisted", Options::default()).await;
    let gvr = "example.com/v2/gadgets";
    let (_, clusters) = server.get("/v1/clusters").await;
    let info =
        clusters.as_array().unwrap().iter().find(|c| c["name"] == cluster.name.as_str()).unwrap().clone();
    let unlisted = info["unlistedTypes"].as_array().unwrap_or_else(|| panic!("{info}"));
    assert_eq!(unlisted.len(), 1, "{info}");
    assert_eq!(unlisted[0]["type"], gvr);
    assert_eq!(unlisted[0]["reason"], "the API server answered HTTP 500", "{info}");
    assert!(info["typesListed"].as_u64().unwrap() < info["resourceTypes"].as_u64().unwrap(), "{info}");
    let others: Vec<&serde_json::Value> =
        clusters.as_array().unwrap().iter().filter(|c| c["name"] != cluster.name.as_str()).collect();
    assert_eq!(others.len(), 2);
    assert!(others.iter().all(|c| c.get("unlistedTypes").is_none()), "{clusters}");

    // Every answer about the type says so, in the Kubernetes API too, even a `404`; answers
    // about other types do not.
    let want = format!("299 - \"cluster {}: {gvr} could not be listed since ", cluster.name);
    for path in [
        format!("/v1/list?gvr={gvr}&limit=0"),
        "/v1/list_with_cluster?gvr=gadgets&limit=1".to_string(),
        format!("/apis/example.com/v2/namespaces/{NS}/gadgets"),
        format!("/clusters/{}/apis/example.com/v2/gadgets", cluster.name),
        format!("/apis/example.com/v2/namespaces/{NS}/gadgets/g1"),
    ] {
        let (status, warnings, body) = server.get_warned(&path).await;
        assert!(status == StatusCode::OK || status == StatusCode::NOT_FOUND, "{path}: {status} {body}");
        assert_eq!(warnings.iter().filter(|w| w.starts_with(&want)).count(), 1, "{path}: {warnings:?}");
        assert!(warnings.iter().all(|w| !w.contains("127.0.0.1:1")), "no remote text: {warnings:?}");
    }
    let other = format!("/v1/list?gvr=gadgets&cluster={}&limit=0", env.clusters[0].name);
    let (status, warnings, _) = server.get_warned(&other).await;
    assert_eq!((status, warnings.len()), (StatusCode::OK, 0), "another cluster's scope: {warnings:?}");
    let (status, warnings, _) =
        server.get_warned(&format!("/v1/list?gvr=v1/configmaps&namespace={NS}")).await;
    assert_eq!((status, warnings.len()), (StatusCode::OK, 0), "another type: {warnings:?}");
    let (_, metrics) = server.get("/metrics").await;
    let metric = format!("mc_cluster_unlisted_types{{cluster=\"{}\"}} 1", cluster.name);
    assert!(metrics.as_str().unwrap().contains(&metric), "{metrics}");
    // And the cluster's MultiCluster object in the master says so in its status.
    let master = env.client(&env.clusters[0]).await.unwrap();
    let multiclusters: Api<MultiCluster> = Api::namespaced(master, "default");
    let unlisted_in_status = || async {
        let mc = multiclusters.get(&cluster.name).await.ok()?;
        Some(mc.status?.unlisted_types.unwrap_or_default().iter().map(|u| u.gvr.clone()).collect::<Vec<_>>())
    };
    eventually("the MultiCluster status names the type", Duration::from_secs(30), || async {
        (unlisted_in_status().await? == [gvr]).then_some(())
    })
    .await;

    // Converted by the API server itself, the type lists: the mark, the warning and the metric go.
    let mut fixed = crds.get(CRD).await.unwrap();
    fixed.spec.conversion = crd(json!({"strategy": "None"})).spec.conversion;
    crds.replace(CRD, &PostParams::default(), &fixed).await.unwrap();
    eventually("gadget listed", Duration::from_secs(90), || async {
        let (status, warnings, body) = server.get_warned(&format!("/v1/list?gvr={gvr}&limit=0")).await;
        (status == StatusCode::OK && warnings.is_empty() && body.as_array()?.len() == 1).then_some(())
    })
    .await;
    let (_, clusters) = server.get("/v1/clusters").await;
    assert!(clusters.as_array().unwrap().iter().all(|c| c.get("unlistedTypes").is_none()), "{clusters}");
    let (_, metrics) = server.get("/metrics").await;
    let metric = format!("mc_cluster_unlisted_types{{cluster=\"{}\"}} 0", cluster.name);
    assert!(metrics.as_str().unwrap().contains(&metric), "{metrics}");
    eventually("the MultiCluster status no longer names it", Duration::from_secs(30), || async {
        unlisted_in_status().await?.is_empty().then_some(())
    })
    .await;
    crds.delete(CRD, &DeleteParams::default()).await.unwrap();
}

/// A type whose watch is refused while its list is allowed (here: RBAC that grants `list` on
/// ConfigMaps but not `watch`) is listed again after three failed watches, so its rows still
/// follow the cluster; it is named in `/v1/clusters`, the metrics and the `MultiCluster` status,
/// and answers about it carry a Warning, until its watch works again.
#[tokio::test]
async fn a_type_whose_watch_keeps_failing_is_listed_again_and_warned_about() {
    const ACCOUNT: &str = "mc-list-only";
    let env = TestEnv::from_env();
    let member = &env.clusters[2];
    let client = env.client(member).await.unwrap();
    ensure_namespace(&client, NS).await;
    let apply = |api: Api<DynamicObject>, object: serde_json::Value| async move {
        let name = object["metadata"]["name"].as_str().unwrap().to_string();
        let object: DynamicObject = serde_json::from_value(object).unwrap();
        let params = kube::api::PatchParams::apply("mc-test").force();
        api.patch(&name, &params, &kube::api::Patch::Apply(&object)).await.unwrap();
    };
    let ar = |group: &str, kind: &str, plural: &str| {
        let api_version = if group.is_empty() { "v1".to_string() } else { format!("{group}/v1") };
        kube::api::ApiResource {
            group: group.into(),
            version: "v1".into(),
            api_version,
            kind: kind.into(),
            plural: plural.into(),
        }
    };
    let rbac = "rbac.authorization.k8s.io";
    apply(
        Api::namespaced_with(client.clone(), NS, &ar("", "ServiceAccount", "serviceaccounts")),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": ACCOUNT, "namespace": NS}}),
    )
    .await;
    let role = |verbs: &[&str]| {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": ACCOUNT},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": verbs}]})
    };
    let roles = Api::all_with(client.clone(), &ar(rbac, "ClusterRole", "clusterroles"));
    apply(roles.clone(), role(&["get", "list"])).await;
    apply(
        Api::all_with(client.clone(), &ar(rbac, "ClusterRoleBinding", "clusterrolebindings")),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": ACCOUNT},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": ACCOUNT},
            "subjects": [{"kind": "ServiceAccount", "name": ACCOUNT, "namespace": NS}]}),
    )
    .await;
    let token = env.kubectl(member, &["create", "token", ACCOUNT, "-n", NS, "--duration", "1h"]).unwrap();
    let admin = std::fs::read_to_string(&member.kubeconfig).unwrap();
    let kubeconfig: String = admin
        .lines()
        .map(|line| match line.split_once("token:") {
            Some((indent, _)) if indent.trim().is_empty() => format!("{indent}token: {}\n", token.trim()),
            _ => format!("{line}\n"),
        })
        .collect();
    assert_ne!(kubeconfig, admin, "the token replaced");
    let kubeconfig_path = env.dir.join(format!("{}-{ACCOUNT}.kubeconfig", member.name));
    std::fs::write(&kubeconfig_path, kubeconfig).unwrap();
    let config = env.dir.join("config-watchless.yaml");
    std::fs::write(
        &config,
        format!(
            "clusters:\n  - metadata:\n      clusterName: {}\n      configPath: {}\n      isMaster: true\n  \
             - metadata:\n      clusterName: {}\n      configPath: {}\n      resources: [{{rType: v1/configmaps}}]\n",
            env.clusters[0].name,
            env.clusters[0].kubeconfig.display(),
            member.name,
            kubeconfig_path.display()
        ),
    )
    .unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), NS);
    let _ = cms.delete("watchless", &DeleteParams::default()).await;
    let server =
        McServer::start(&env, "watchless", Options { config: Some(config), ..Default::default() }).await;

    // Made after the list: only a new list brings it, since no watch does.
    let cm: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "watchless"}, "data": {"k": "v"}})).unwrap();
    cms.create(&PostParams::default(), &cm).await.unwrap();
    let key = (member.name.clone(), NS.to_string(), "watchless".to_string());
    eventually("a ConfigMap made after the list is stored", Duration::from_secs(60), || async {
        server.keys("v1/configmaps").await.contains(&key).then_some(())
    })
    .await;
    let (_, clusters) = server.get("/v1/clusters").await;
    let info =
        clusters.as_array().unwrap().iter().find(|c| c["name"] == member.name.as_str()).unwrap().clone();
    assert_eq!(info["status"], "Synced", "{info}");
    assert!(info.get("unlistedTypes").is_none(), "it lists: {info}");
    let message = info["message"].as_str().unwrap_or_else(|| panic!("a reason: {info}"));
    assert!(message.starts_with("v1/configmaps: "), "{info}");
    let unwatched = info["unwatchedTypes"].as_array().unwrap_or_else(|| panic!("{info}"));
    assert_eq!(unwatched.len(), 1, "{info}");
    assert_eq!(unwatched[0]["type"], "v1/configmaps", "{info}");
    assert_eq!(unwatched[0]["reason"], "the API server answered HTTP 403", "{info}");
    let master = &env.clusters[0];
    let master_info =
        clusters.as_array().unwrap().iter().find(|c| c["name"] == master.name.as_str()).unwrap();
    assert!(master_info.get("unwatchedTypes").is_none(), "{clusters}");

    // Answers about ConfigMaps of that cluster say their rows may be as old as the last list;
    // answers about the master's ConfigMaps, or about another type, do not.
    let want = format!("299 - \"cluster {}: v1/configmaps could not be watched since ", member.name);
    for path in [
        format!("/v1/list?gvr=v1/configmaps&namespace={NS}"),
        format!("/clusters/{}/api/v1/namespaces/{NS}/configmaps", member.name),
    ] {
        let (status, warnings, body) = server.get_warned(&path).await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        assert_eq!(warnings.iter().filter(|w| w.starts_with(&want)).count(), 1, "{path}: {warnings:?}");
        assert!(warnings.iter().all(|w| !w.contains("forbidden")), "no remote text: {warnings:?}");
    }
    for path in [
        format!("/v1/list?gvr=v1/configmaps&cluster={}&namespace={NS}", master.name),
        format!("/v1/list?gvr=v1/namespaces&cluster={}", master.name),
    ] {
        let (status, warnings, _) = server.get_warned(&path).await;
        assert_eq!((status, warnings.len()), (StatusCode::OK, 0), "{path}: {warnings:?}");
    }
    let metric = |n: u32| format!("mc_cluster_unwatched_types{{cluster=\"{}\"}} {n}", member.name);
    let (_, metrics) = server.get("/metrics").await;
    assert!(metrics.as_str().unwrap().contains(&metric(1)), "{metrics}");
    let multiclusters: Api<MultiCluster> = Api::namespaced(env.client(master).await.unwrap(), "default");
    let unwatched_in_status = || async {
        let mc = multiclusters.get(&member.name).await.ok()?;
        Some(mc.status?.unwatched_types.unwrap_or_default().iter().map(|u| u.gvr.clone()).collect::<Vec<_>>())
    };
    eventually("the MultiCluster status names the type", Duration::from_secs(30), || async {
        (unwatched_in_status().await? == ["v1/configmaps"]).then_some(())
    })
    .await;

    cms.delete("watchless", &DeleteParams::default()).await.unwrap();
    eventually("its deletion reaches the store", Duration::from_secs(60), || async {
        (!server.keys("v1/configmaps").await.contains(&key)).then_some(())
    })
    .await;

    // Allowed to watch, the type is watched from its next list on (within 40 s here). No
    // ConfigMap changes meanwhile: the watch lifts the mark, the warning, the metric and the
    // message by running 20 s without failing, as an idle type's must (a change it brings
    // would lift them at once).
    apply(roles, role(&["get", "list", "watch"])).await;
    let cluster_info = eventually("the watch works again", Duration::from_secs(180), || async {
        let (_, clusters) = server.get("/v1/clusters").await;
        let info = clusters.as_array()?.iter().find(|c| c["name"] == member.name.as_str())?.clone();
        info.get("unwatchedTypes").is_none().then_some(info)
    })
    .await;
    assert!(cluster_info.get("message").is_none(), "{cluster_info}");
    let (status, warnings, _) =
        server.get_warned(&format!("/v1/list?gvr=v1/configmaps&namespace={NS}")).await;
    assert_eq!((status, warnings.len()), (StatusCode::OK, 0), "{warnings:?}");
    let (_, metrics) = server.get("/metrics").await;
    assert!(metrics.as_str().unwrap().contains(&metric(0)), "{metrics}");
    eventually("the MultiCluster status no longer names it", Duration::from_secs(30), || async {
        unwatched_in_status().await?.is_empty().then_some(())
    })
    .await;
}

#[tokio::test]
async fn bad_inputs_get_clear_json_errors_with_fitting_status_codes() {
    let env = TestEnv::from_env();
    let server = McServer::start(&env, "bad-input", Options::default()).await;
    let cases = [
        ("/v1/list?gvr=v1/podz", StatusCode::NOT_FOUND),
        ("/v1/list?gvr=deploymnts", StatusCode::NOT_FOUND),
        ("/v1/list?gvr=apps//deployments", StatusCode::BAD_REQUEST),
        ("/v1/list?gvr=a/b/c/d/e", StatusCode::BAD_REQUEST),
        ("/v1/list", StatusCode::BAD_REQUEST),
        ("/v1/list?gvr=v1/pods&labelSelector=a%20in%20(", StatusCode::BAD_REQUEST),
        ("/v1/list?gvr=v1/pods&fieldSelector=metadata.name", StatusCode::BAD_REQUEST),
        ("/v1/list?gvr=v1/pods&limit=-1", StatusCode::BAD_REQUEST),
        ("/v1/list?gvr=v1/pods&limit=ten", StatusCode::BAD_REQUEST),
        ("/v1/list?gvr=v1/pods&continue=garbage", StatusCode::BAD_REQUEST),
        ("/v1/list?gvr=v1/pods&cluster=nope", StatusCode::NOT_FOUND),
        ("/v1/list?gvr=v1/pods&bogus=1", StatusCode::BAD_REQUEST),
        ("/v2/whatever", StatusCode::NOT_FOUND),
    ];
    for (path, want) in cases {
        let (status, body) = server.get(path).await;
        assert_eq!(status, want, "{path}: {body}");
        let msg = body["error"].as_str().unwrap_or_else(|| panic!("{path}: not a JSON error: {body}"));
        assert!(!msg.is_empty() && !msg.contains('\n'), "{path}: {msg:?}");
    }
    let (_, body) = server.get("/v1/list?gvr=deploymnts").await;
    let candidates = body["candidates"].as_array().expect("candidates");
    assert!(candidates.iter().any(|c| c == "apps/v1/deployments"), "{body}");
}

#[tokio::test]
async fn a_configured_token_is_required_on_v1() {
    let env = TestEnv::from_env();
    let config = config_with(&env, "token", "server:\n  token: s3cret-s3cret-s3cret");
    // No MC_TOKEN: the config file's token is the one.
    let launch = Launch { envs: &[("MC_TOKEN", "")], ..Default::default() };
    let server =
        McServer::start_with(&env, "token", Options { config: Some(config), ..Default::default() }, launch)
            .await;
    let (status, body) = server.get_anonymous("/v1/list?gvr=v1/pods").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert!(body["error"].is_string());
    let server = server.with_token("wrong");
    let (status, _) = server.get("/v1/clusters").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let server = server.with_token("s3cret-s3cret-s3cret");
    let (status, _) = server.get("/v1/clusters").await;
    assert_eq!(status, StatusCode::OK);
    // Probes stay open.
    let (status, _) = server.get_anonymous("/healthz").await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn pagination_selectors_and_clusters_endpoint_work_together() {
    let env = TestEnv::from_env();
    futures::future::join_all(env.clusters.iter().map(|c| load_objects(&env, c))).await;
    let server = McServer::start(&env, "paging", Options::default()).await;
    // Pages of 37 give every object once, in a stable order.
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    let http = server.http();
    loop {
        let mut url = format!(
            "{}/v1/list_with_cluster?gvr=configmaps&namespace={NS}&labelSelector=tier&limit=37",
            server.url
        );
        if let Some(t) = &token {
            url.push_str(&format!("&continue={t}"));
        }
        let resp = http.get(url).bearer_auth(server.token()).send().await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        token = resp.headers().get("x-continue").map(|v| v.to_str().unwrap().to_string());
        let page: Vec<serde_json::Value> = resp.json().await.unwrap();
        seen.extend(page.iter().map(|i| {
            (
                i["clusterName"].as_str().unwrap().to_string(),
                i["Object"]["metadata"]["name"].as_str().unwrap().to_string(),
            )
        }));
        if token.is_none() {
            break;
        }
    }
    assert_eq!(seen.len(), CONFIGMAPS * env.clusters.len());
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), seen.len(), "no duplicates across pages");

    let (_, b) =
        server.get(&format!("/v1/list?gvr=cm&namespace={NS}&labelSelector=tier%3Deven&limit=0")).await;
    assert_eq!(b.as_array().unwrap().len(), CONFIGMAPS / 2 * env.clusters.len());
    let (_, b) =
        server.get(&format!("/v1/list?gvr=cm&namespace={NS}&labels[tier]=odd&labels[idx]=7&limit=0")).await;
    assert_eq!(b.as_array().unwrap().len(), env.clusters.len());
    let (_, b) = server
        .get(&format!("/v1/list?gvr=cm&namespace={NS}&labelSelector=idx%20in%20(1,2,3),tier!%3Dodd&limit=0"))
        .await;
    assert_eq!(b.as_array().unwrap().len(), env.clusters.len(), "only idx=2 is even");
    let (_, b) = server
        .get(&format!("/v1/list?gvr=cm&namespace={NS}&fieldSelector=metadata.name%3Dcm-0003&limit=0"))
        .await;
    assert_eq!(b.as_array().unwrap().len(), env.clusters.len());
    let (_, b) = server.get(&format!("/v1/list?gvr=v1.configmaps&namespace={NS}")).await;
    assert_eq!(b.as_array().unwrap().len(), 10, "the Go project's default limit");

    let (status, clusters) = server.get("/v1/clusters").await;
    assert_eq!(status, StatusCode::OK);
    let clusters = clusters.as_array().unwrap();
    assert_eq!(clusters.len(), env.clusters.len());
    // The version each cluster's own API server reports, whichever release testenv built.
    let served = env.kubectl(&env.clusters[0], &["version", "-o", "json"]).unwrap();
    let served: serde_json::Value = serde_json::from_str(&served).unwrap();
    let version = served["serverVersion"]["gitVersion"].as_str().unwrap().to_string();
    assert!(version.starts_with("v1."), "{version}");
    for c in clusters {
        assert_eq!(c["status"], "Synced", "{c}");
        assert_eq!(c["typesListed"], c["resourceTypes"], "{c}");
        assert_eq!(c["version"], version.as_str(), "{c}");
        assert!(c["resourceTypes"].as_u64().unwrap() > 20, "{c}");
        assert!(c["host"].as_str().unwrap().starts_with("https://127.0.0.1:"));
    }
    assert_eq!(clusters.iter().filter(|c| c["isMaster"] == true).count(), 1);
    let metrics = http.get(format!("{}/metrics", server.url)).send().await.unwrap().text().await.unwrap();
    assert!(metrics.contains("mc_cluster_ready{cluster=\"tencent1\"} 1"), "{metrics}");
    let (status, doc) = server.get("/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    assert!(doc["paths"]["/v1/list_with_cluster"].is_object());
}

/// Brings a cluster's API server back when dropped, so a failing test leaves the clusters whole.
pub struct Restore<'a>(pub &'a TestEnv, pub String);

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        let _ =
            crate::testenv::testenv_command(&["start", "--dir", &self.0.dir.display().to_string(), &self.1]);
    }
}

/// An API server restarted faster than the cluster's probe notices (two failed probes, 10 s
/// apart): its types' watches fail meanwhile and they are marked as not watched, which is so.
/// The list that finds the server back lifts the mark; a quiet watch did only 20 s later, and
/// every answer about those types carried a Warning meanwhile.
#[tokio::test]
async fn a_type_marked_unwatched_while_its_api_server_restarts_is_unmarked_by_the_list_after() {
    let env = TestEnv::from_env();
    let cluster = env.clusters.last().unwrap().clone();
    let server = McServer::start(&env, "restart-marks", Options::default()).await;
    let this_cluster = || async {
        let (_, clusters) = server.get("/v1/clusters").await;
        clusters.as_array()?.iter().find(|c| c["name"] == cluster.name.as_str()).cloned()
    };
    let dir = env.dir.display().to_string();
    crate::testenv::testenv_command(&["stop-apiserver", "--dir", &dir, &cluster.name]).unwrap();
    let restore = Restore(&env, cluster.name.clone());
    // Three failures of a watch take about 2.4 s (the watcher retries after 0.8 s, then twice
    // that, jittered).
    let marked = eventually(
        "a type marked unwatched while its API server is away",
        Duration::from_secs(8),
        || async {
            let c = this_cluster().await?;
            let marked = c.get("unwatchedTypes")?.as_array()?.len();
            (c["status"] == "Synced" && marked > 0).then_some(marked)
        },
    )
    .await;
    drop(restore);
    eventually("every type listed again", Duration::from_secs(60), || async {
        let c = this_cluster().await?;
        (c["status"] == "Synced" && c.get("unlistedTypes").is_none()).then_some(())
    })
    .await;
    // A type whose watch failed while the server was away lists again at its watcher's next
    // retry, which backs off to at most 30 s (jittered): the longer the outage, the later.
    eventually("no type marked unwatched once they are listed", Duration::from_secs(40), || async {
        let c = this_cluster().await?;
        c.get("unwatchedTypes").is_none().then_some(())
    })
    .await;
    eprintln!("{marked} types marked unwatched while the API server was away, unmarked after");
}

#[tokio::test]
async fn a_cluster_down_at_start_is_not_ready_and_synced_once_it_is_back() {
    let env = TestEnv::from_env();
    let down = env.clusters.last().unwrap().clone();
    let dir = env.dir.display().to_string();
    crate::testenv::testenv_command(&["stop-apiserver", "--dir", &dir, &down.name]).unwrap();
    let restore = Restore(&env, down.name.clone());

    let start = Instant::now();
    let server = McServer::start(&env, "down", Options::default()).await;
    eprintln!("ready without {} after {:?}", down.name, start.elapsed());
    let (_, clusters) = server.get("/v1/clusters").await;
    let state = |name: &str| {
        clusters.as_array().unwrap().iter().find(|c| c["name"] == name).unwrap()["status"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(state(&down.name), "NotReady", "{clusters}");
    assert_eq!(state(&env.clusters[0].name), "Synced", "{clusters}");
    let (status, _) = server.get("/v1/list?gvr=v1/pods&limit=0").await;
    assert_eq!(status, StatusCode::OK, "the others are served");

    drop(restore);
    let client = env.client(&down).await.unwrap();
    ensure_namespace(&client, NS).await;
    let cms: Api<ConfigMap> = Api::namespaced(client, NS);
    let cm = serde_json::from_value(json!({"metadata": {"name": "after-outage"}})).unwrap();
    create_ignoring_conflict(&cms, cm).await;
    eventually("the cluster comes back and syncs", Duration::from_secs(60), || async {
        let (_, b) = server
            .get(&format!(
                "/v1/list?gvr=v1/configmaps&cluster={}&namespace={NS}&name=after-outage",
                down.name
            ))
            .await;
        (b.as_array()?.len() == 1).then_some(())
    })
    .await;
    let (_, clusters) = server.get("/v1/clusters").await;
    let back = clusters.as_array().unwrap().iter().find(|c| c["name"] == down.name.as_str()).unwrap().clone();
    assert_eq!(back["status"], "Synced", "{back}");

    // Down again, with its objects in the store: answers holding them say so.
    crate::testenv::testenv_command(&["stop-apiserver", "--dir", &dir, &down.name]).unwrap();
    let restore = Restore(&env, down.name.clone());
    eventually("NotReady after the outage", Duration::from_secs(60), || async {
        let (_, clusters) = server.get("/v1/clusters").await;
        let c = clusters.as_array()?.iter().find(|c| c["name"] == down.name.as_str())?.clone();
        (c["status"] == "NotReady" && c["since"].is_string()).then_some(())
    })
    .await;
    let resp = server
        .http()
        .get(format!("{}/v1/list_with_cluster?gvr=v1/configmaps&namespace={NS}&limit=0", server.url))
        .bearer_auth(server.token())
        .send()
        .await
        .unwrap();
    let warnings: Vec<String> =
        resp.headers().get_all("warning").iter().map(|v| v.to_str().unwrap().to_string()).collect();
    let want = format!("299 - \"cluster {} is NotReady since ", down.name);
    assert_eq!(warnings.iter().filter(|w| w.starts_with(&want)).count(), 1, "{warnings:?}");
    assert_eq!(warnings.len(), 1, "only the cluster that is not synced: {warnings:?}");
    let body: serde_json::Value = resp.json().await.unwrap();
    assert!(
        body.as_array().unwrap().iter().any(|i| i["clusterName"] == down.name.as_str()),
        "its rows are still served"
    );
    // An answer without its rows carries no warning.
    let resp = server
        .http()
        .get(format!(
            "{}/v1/list?gvr=v1/configmaps&cluster={}&namespace={NS}&limit=0",
            server.url, env.clusters[0].name
        ))
        .bearer_auth(server.token())
        .send()
        .await
        .unwrap();
    assert!(resp.headers().get("warning").is_none());
    drop(restore);
    eventually("back once more", Duration::from_secs(60), || async {
        let (_, clusters) = server.get("/v1/clusters").await;
        let c = clusters.as_array()?.iter().find(|c| c["name"] == down.name.as_str())?.clone();
        (c["status"] == "Synced").then_some(())
    })
    .await;
    cms.delete("after-outage", &DeleteParams::default()).await.unwrap();
}

#[tokio::test]
async fn watch_streams_the_current_objects_then_changes_as_json_lines() {
    let env = TestEnv::from_env();
    let cluster = &env.clusters[0];
    let client = env.client(cluster).await.unwrap();
    ensure_namespace(&client, NS).await;
    let cms: Api<ConfigMap> = Api::namespaced(client, NS);
    let _ = cms.delete("watched", &DeleteParams::default()).await;
    let server = McServer::start(&env, "watch", Options::default()).await;
    let (content_type, mut lines) = open_watch(
        &server,
        &format!("/v1/list_with_cluster?gvr=v1/configmaps&namespace={NS}&name=watched&watch=true"),
    )
    .await;
    assert_eq!(content_type, "application/x-ndjson");

    let cm = serde_json::from_value(json!({"metadata": {"name": "watched"}, "data": {"v": "1"}})).unwrap();
    create_ignoring_conflict(&cms, cm).await;
    let ev = next(&mut lines).await;
    assert_eq!(ev["type"], "ADDED", "{ev}");
    assert_eq!(ev["clusterName"], cluster.name.as_str());
    assert_eq!(ev["object"]["metadata"]["name"], "watched");
    cms.delete("watched", &DeleteParams::default()).await.unwrap();
    let ev = next(&mut lines).await;
    assert_eq!(ev["type"], "DELETED", "{ev}");
}

#[tokio::test]
async fn watch_with_a_label_selector_deletes_an_object_whose_labels_stop_matching() {
    let env = TestEnv::from_env();
    let cluster = &env.clusters[0];
    let client = env.client(cluster).await.unwrap();
    ensure_namespace(&client, NS).await;
    let cms: Api<ConfigMap> = Api::namespaced(client, NS);
    let _ = cms.delete("relabeled", &DeleteParams::default()).await;
    let server = McServer::start(&env, "watch-relabel", Options::default()).await;
    let (_, mut lines) = open_watch(
        &server,
        &format!(
            "/v1/list?gvr=v1/configmaps&namespace={NS}&name=relabeled&labelSelector=tier%3Dfront&watch=true"
        ),
    )
    .await;
    let relabel = |tier: &str| json!({"metadata": {"labels": {"tier": tier}}});
    let patch = |tier: &str| {
        let body = relabel(tier);
        let cms = cms.clone();
        async move {
            cms.patch("relabeled", &kube::api::PatchParams::default(), &kube::api::Patch::Merge(&body))
                .await
                .unwrap();
        }
    };

    let cm = serde_json::from_value(json!({"metadata": {"name": "relabeled", "labels": {"tier": "front"}}}))
        .unwrap();
    create_ignoring_conflict(&cms, cm).await;
    let ev = next(&mut lines).await;
    assert_eq!(
        (ev["type"].as_str(), ev["object"]["metadata"]["labels"]["tier"].as_str()),
        (Some("ADDED"), Some("front"))
    );
    // Out of the selector: DELETED for this watch (as the API server does), nothing while out.
    patch("back").await;
    let ev = next(&mut lines).await;
    assert_eq!(ev["type"], "DELETED", "{ev}");
    patch("side").await;
    patch("front").await;
    let ev = next(&mut lines).await;
    assert_eq!(
        (ev["type"].as_str(), ev["object"]["metadata"]["labels"]["tier"].as_str()),
        (Some("ADDED"), Some("front"))
    );
    cms.delete("relabeled", &DeleteParams::default()).await.unwrap();
    let ev = next(&mut lines).await;
    assert_eq!(ev["type"], "DELETED", "{ev}");
}

/// A deletion the member cluster's watch never carried (made in etcd while its API server was
/// down) is found by the list after the outage: gone from the store, and `DELETED` on the watch
/// streams, which would otherwise show the object forever.
#[tokio::test]
async fn a_deletion_found_by_the_list_after_an_outage_reaches_watch_streams() {
    let env = TestEnv::from_env();
    let cluster = env.clusters.last().unwrap().clone();
    let client = env.client(&cluster).await.unwrap();
    ensure_namespace(&client, NS).await;
    let cms: Api<ConfigMap> = Api::namespaced(client, NS);
    for name in ["ghost", "stays"] {
        let _ = cms.delete(name, &DeleteParams::default()).await;
        create_ignoring_conflict(&cms, serde_json::from_value(json!({"metadata": {"name": name}})).unwrap())
            .await;
    }
    let server = McServer::start(&env, "watch-gap", Options::default()).await;
    let (_, mut lines) = open_watch(
        &server,
        &format!(
            "/v1/list_with_cluster?gvr=v1/configmaps&cluster={}&namespace={NS}&watch=true",
            cluster.name
        ),
    )
    .await;
    let mut added = Vec::new();
    while !(added.contains(&"ghost".to_string()) && added.contains(&"stays".to_string())) {
        let ev = next(&mut lines).await;
        assert_eq!(ev["type"], "ADDED", "{ev}");
        added.push(ev["object"]["metadata"]["name"].as_str().unwrap_or_default().to_string());
    }

    let dir = env.dir.display().to_string();
    crate::testenv::testenv_command(&["stop-apiserver", "--dir", &dir, &cluster.name]).unwrap();
    let restore = Restore(&env, cluster.name.clone());
    // Behind the API server's back: no watch event is ever sent for this deletion.
    let key = format!("/registry/configmaps/{NS}/ghost");
    let key = serde_json::to_value(k8s_openapi::ByteString(key.into_bytes())).unwrap();
    let answer: serde_json::Value = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{}/v3/kv/deleterange", cluster.etcd_port))
        .json(&json!({"key": key}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["deleted"], "1", "etcd deleted the key: {answer}");
    drop(restore);

    // The watch shows nothing else of the outage: the objects that stayed are unchanged.
    let deadline = Instant::now() + Duration::from_secs(90);
    let ev = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = tokio::time::timeout(left, lines.next_line())
            .await
            .expect("ghost DELETED within 90 s of the API server's restart");
        let ev: serde_json::Value = serde_json::from_str(&line.unwrap().expect("stream open")).unwrap();
        if ev["object"]["metadata"]["name"] == "ghost" {
            break ev;
        }
        assert_ne!(ev["type"], "DELETED", "only the ghost is gone: {ev}");
    };
    assert_eq!(ev["type"], "DELETED", "{ev}");
    assert_eq!(ev["clusterName"], cluster.name.as_str());
    let names = |body: serde_json::Value| -> Vec<String> {
        let items = body.as_array().cloned().unwrap_or_default();
        items.iter().filter_map(|o| o["metadata"]["name"].as_str().map(str::to_string)).collect()
    };
    let (_, body) = server
        .get(&format!("/v1/list?gvr=v1/configmaps&cluster={}&namespace={NS}&limit=0", cluster.name))
        .await;
    let stored = names(body);
    assert!(stored.contains(&"stays".to_string()) && !stored.contains(&"ghost".to_string()), "{stored:?}");
    cms.delete("stays", &DeleteParams::default()).await.unwrap();
}

/// Opens a watch of mc-server (`path` with its query) and checks it answered 200: its
/// content type and its lines.
pub(crate) async fn open_watch(
    server: &McServer,
    path: &str,
) -> (String, tokio::io::Lines<impl tokio::io::AsyncBufRead + Unpin + use<>>) {
    let url = format!("{}{path}", server.url);
    let resp = server.http().get(url).bearer_auth(server.token()).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let content_type = resp.headers()["content-type"].to_str().unwrap_or_default().to_string();
    let bytes = resp.bytes_stream().map(|r| r.map_err(std::io::Error::other));
    (content_type, tokio_util::io::StreamReader::new(bytes).lines())
}

async fn next<R: tokio::io::AsyncBufRead + Unpin>(lines: &mut tokio::io::Lines<R>) -> serde_json::Value {
    next_within(lines, Duration::from_secs(5)).await
}

/// The next event of a watch opened by [`open_watch`], within `within`.
pub(crate) async fn next_within<R: tokio::io::AsyncBufRead + Unpin>(
    lines: &mut tokio::io::Lines<R>,
    within: Duration,
) -> serde_json::Value {
    let line = tokio::time::timeout(within, lines.next_line())
        .await
        .unwrap_or_else(|_| panic!("an event within {within:?}"));
    serde_json::from_str(&line.unwrap().expect("stream open")).unwrap()
}
