//! Sharded sync: replicas on one PostgreSQL split the clusters through one Lease per cluster;
//! when a replica is killed, the others take its clusters over and the store equals the
//! clusters again.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use kube::{Client, ResourceExt};
use serde_json::{Value, json};

use crate::server::{McServer, Options};
use crate::sync::ensure_namespace;
use crate::testenv::{TestEnv, eventually};

const NS: &str = "mc-shard";
/// Lease namespace of this test's replicas (apart from other tests' servers).
const LEASES: &str = "mc-shard-leases";
const MAX_PER_REPLICA: usize = 3;

/// Six clusters: every testenv cluster under its own name and a second one.
fn six_clusters(env: &TestEnv) -> Vec<(String, usize)> {
    (0..env.clusters.len())
        .flat_map(|i| [(env.clusters[i].name.clone(), i), (format!("{}-twin", env.clusters[i].name), i)])
        .collect()
}

fn config(env: &TestEnv, clusters: &[(String, usize)]) -> std::path::PathBuf {
    let mut yaml = String::from("clusters:\n");
    for (n, (name, i)) in clusters.iter().enumerate() {
        yaml.push_str(&format!(
            "  - metadata:\n      clusterName: {name}\n      configPath: {}\n      isMaster: {}\n      \
             resources: [{{rType: v1/configmaps}}, {{rType: v1/namespaces}}]\n",
            env.clusters[*i].kubeconfig.display(),
            n == 0
        ));
    }
    yaml.push_str(&format!("sync: {{maxClustersPerReplica: {MAX_PER_REPLICA}}}\n"));
    let path = env.dir.join("config-shard.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}

/// `cluster → (status, syncedBy)` as one replica shows them.
async fn holders(server: &McServer) -> BTreeMap<String, (String, String)> {
    let (_, body) = server.get("/v1/clusters").await;
    body.as_array()
        .map(|a| {
            a.iter()
                .map(|c| {
                    let s = |k: &str| c[k].as_str().unwrap_or("").to_string();
                    (s("name"), (s("status"), s("syncedBy")))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `(cluster, name) → data` of the test's ConfigMaps, as the clusters hold them.
async fn in_clusters(clients: &[Client], clusters: &[(String, usize)]) -> BTreeMap<(String, String), Value> {
    let mut want = BTreeMap::new();
    for (name, i) in clusters {
        let api: Api<ConfigMap> = Api::namespaced(clients[*i].clone(), NS);
        for cm in api.list(&ListParams::default()).await.unwrap() {
            if cm.name_any().starts_with("shard-") {
                want.insert((name.clone(), cm.name_any()), json!(cm.data));
            }
        }
    }
    want
}

/// The same, as one replica serves them from the shared store.
async fn in_store(server: &McServer) -> BTreeMap<(String, String), Value> {
    let (_, body) =
        server.get(&format!("/v1/list_with_cluster?gvr=v1/configmaps&namespace={NS}&limit=0")).await;
    body.as_array()
        .map(|a| {
            a.iter()
                .filter(|o| o["Object"]["metadata"]["name"].as_str().is_some_and(|n| n.starts_with("shard-")))
                .map(|o| {
                    let cluster = o["clusterName"].as_str().unwrap_or("").to_string();
                    let name = o["Object"]["metadata"]["name"].as_str().unwrap_or("").to_string();
                    ((cluster, name), o["Object"]["data"].clone())
                })
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn replicas_split_the_clusters_and_take_over_those_of_a_killed_replica() {
    let env = TestEnv::from_env();
    let postgres = std::env::var("MC_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| panic!("MC_TEST_POSTGRES_URL is not set: run scripts/test.sh"));
    let clusters = six_clusters(&env);
    let mut clients = Vec::new();
    for c in &env.clusters {
        let client = env.client(c).await.unwrap();
        ensure_namespace(&client, NS).await;
        let api: Api<ConfigMap> = Api::namespaced(client.clone(), NS);
        for i in 0..5 {
            let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("shard-{i}")}, "data": {"v": "1"}});
            api.patch(&format!("shard-{i}"), &PatchParams::apply("mc-shard-test").force(), &Patch::Apply(cm))
                .await
                .unwrap();
        }
        let _ = api.delete("shard-new", &DeleteParams::default()).await;
        clients.push(client);
    }
    ensure_namespace(&clients[0], LEASES).await;
    let opts =
        Options { storage: Some(postgres), config: Some(config(&env, &clusters)), ..Default::default() };
    let args = ["--namespace", LEASES];
    let launch = crate::server::Launch { args: &args, ..Default::default() };
    let mut replicas = Vec::new();
    for r in 0..3 {
        replicas.push(McServer::spawn_with(&env, &format!("shard-{r}"), opts.clone(), launch));
    }
    for replica in &mut replicas {
        replica.wait_ready(Duration::from_secs(120)).await;
    }

    // Every cluster synced by exactly one replica, none by more than the limit, and every
    // replica shows the same holders.
    let split = eventually("six clusters split between three replicas", Duration::from_secs(120), || async {
        let views = futures::future::join_all(replicas.iter().map(holders)).await;
        let first = views[0].clone();
        let all_synced = first.len() == clusters.len()
            && first.values().all(|(status, by)| status == "Synced" && !by.is_empty());
        (all_synced && views.iter().all(|v| *v == first)).then_some(first)
    })
    .await;
    let mut per_replica: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (cluster, (_, by)) in &split {
        per_replica.entry(by.clone()).or_default().push(cluster.clone());
    }
    eprintln!("split: {per_replica:?}");
    assert!(per_replica.values().all(|c| c.len() <= MAX_PER_REPLICA), "{per_replica:?}");
    let want = in_clusters(&clients, &clusters).await;
    assert_eq!(want.len(), 5 * clusters.len());
    for replica in &replicas {
        assert_eq!(in_store(replica).await, want, "every replica serves every cluster");
    }

    // A watch on a replica streams the changes of every cluster: of its own from its watches,
    // of the others' from the store's change feed (it does not watch them).
    let pid = replicas[0].pid().unwrap();
    let not_mine: Vec<&String> =
        split.iter().filter(|(_, (_, by))| !by.contains(&format!("-{pid}-"))).map(|(c, _)| c).collect();
    assert!(!not_mine.is_empty(), "with 3 per replica at most, replica 0 leaves some to the others");
    let (_, mut lines) = crate::sync::open_watch(
        &replicas[0],
        &format!("/v1/list_with_cluster?gvr=v1/configmaps&namespace={NS}&name=shard-1&watch=true"),
    )
    .await;
    let mut snapshot = BTreeSet::new();
    while snapshot.len() < clusters.len() {
        let ev = crate::sync::next_within(&mut lines, Duration::from_secs(10)).await;
        assert_eq!(ev["type"], "ADDED", "{ev}");
        snapshot.insert(ev["clusterName"].as_str().unwrap_or_default().to_string());
    }
    for client in &clients {
        let api: Api<ConfigMap> = Api::namespaced(client.clone(), NS);
        let patch = json!({"data": {"v": "2"}});
        api.patch("shard-1", &PatchParams::default(), &Patch::Merge(&patch)).await.unwrap();
    }
    let mut modified = BTreeSet::new();
    while modified.len() < clusters.len() {
        let ev = crate::sync::next_within(&mut lines, Duration::from_secs(30)).await;
        assert_eq!(
            (ev["type"].as_str(), ev["object"]["data"]["v"].as_str()),
            (Some("MODIFIED"), Some("2")),
            "{ev}"
        );
        modified.insert(ev["clusterName"].as_str().unwrap_or_default().to_string());
    }
    assert_eq!(modified, snapshot, "every cluster's change, also of {not_mine:?}");

    // A cluster joined through one replica is known to all, synced by one of them, and gone
    // from all once unjoined through another.
    let joined = "shard-joined";
    let kubeconfig = std::fs::read(&env.clusters[1].kubeconfig).unwrap();
    let (status, body) = replicas[0].join(joined, kubeconfig, "").await;
    assert!(status.is_success(), "{status} {body}");
    eventually("every replica shows the joined cluster synced", Duration::from_secs(90), || async {
        let views = futures::future::join_all(replicas.iter().map(holders)).await;
        views
            .iter()
            .all(|v| v.get(joined).is_some_and(|(status, by)| status == "Synced" && !by.is_empty()))
            .then_some(())
    })
    .await;
    let (status, body) = replicas[1].unjoin(joined).await;
    assert!(status.is_success(), "{status} {body}");
    eventually("every replica forgets the unjoined cluster", Duration::from_secs(60), || async {
        let views = futures::future::join_all(replicas.iter().map(holders)).await;
        views.iter().all(|v| v.len() == clusters.len() && !v.contains_key(joined)).then_some(())
    })
    .await;

    // Kill -9 the replica that syncs the most clusters; change every cluster while its
    // clusters have nobody watching them.
    let (victim_id, victim_clusters) = per_replica.iter().max_by_key(|(_, c)| c.len()).unwrap();
    let victim = replicas
        .iter()
        .position(|r| r.pid().is_some_and(|pid| victim_id.contains(&format!("-{pid}-"))))
        .unwrap_or_else(|| panic!("no replica with the identity {victim_id}"));
    replicas[victim].kill();
    let killed = Instant::now();
    for client in &clients {
        let api: Api<ConfigMap> = Api::namespaced(client.clone(), NS);
        api.delete("shard-0", &DeleteParams::default()).await.unwrap();
        let patch = json!({"data": {"v": "2"}});
        api.patch("shard-1", &PatchParams::default(), &Patch::Merge(patch)).await.unwrap();
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shard-new"}, "data": {"v": "new"}});
        api.patch("shard-new", &PatchParams::apply("mc-shard-test").force(), &Patch::Apply(cm))
            .await
            .unwrap();
    }
    let survivors: Vec<&McServer> =
        replicas.iter().enumerate().filter(|(i, _)| *i != victim).map(|(_, r)| r).collect();
    let want = in_clusters(&clients, &clusters).await;
    assert_eq!(want.len(), 5 * clusters.len());
    let taken_over =
        eventually("the killed replica's clusters taken over", Duration::from_secs(90), || async {
            let view = holders(survivors[0]).await;
            let moved = victim_clusters.iter().all(|c| {
                view.get(c)
                    .is_some_and(|(status, by)| status == "Synced" && !by.is_empty() && by != victim_id)
            });
            moved.then(|| killed.elapsed())
        })
        .await;
    eprintln!("{} clusters taken over {taken_over:?} after the kill -9", victim_clusters.len());
    for survivor in &survivors {
        let got = eventually("the store equals the clusters", Duration::from_secs(30), || async {
            let got = in_store(survivor).await;
            (got == want).then_some(got)
        })
        .await;
        let changed: BTreeSet<&String> =
            got.keys().filter(|(_, n)| n == "shard-new").map(|(c, _)| c).collect();
        assert_eq!(changed.len(), clusters.len(), "a new object in every cluster");
    }
    drop(replicas);
}
