//! Drop-in replacement of the Go project (docs/migrating-from-go.md): a master that holds the
//! Go project's CRDs and objects, an mc-server on a shared MariaDB, and every request the Go
//! project's CLI sends.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, PostParams};
use kube::{Client, ResourceExt};
use mc_types::crd::{MultiCluster, MultiClusterResource};
use reqwest::StatusCode;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::server::{Launch, McServer, Options, config_with};
use crate::testenv::{TestEnv, eventually};

/// The Go project's CRDs, as its repository ships them.
const GO_PROJECT_CRDS: &str = include_str!("go_project_crds.yaml");
const MC_CRD: &str = "multiclusters.mulitcluster.practice.com";
const MCR_CRD: &str = "multiclusterresources.mulitcluster.practice.com";

fn mariadb() -> String {
    std::env::var("MC_TEST_MYSQL_URL").unwrap_or_else(|_| {
        panic!(
            "MC_TEST_MYSQL_URL is not set: run scripts/test.sh, or `eval \"$(scripts/testdb up --dir DIR)\"`"
        )
    })
}

/// One element of `/v1/list_with_cluster` as the Go project's type decodes it.
#[derive(Debug, Deserialize)]
struct GoItem<T> {
    #[serde(rename = "clusterName")]
    cluster_name: String,
    #[serde(rename = "Object")]
    object: T,
}

/// GET without a token (the Go project's CLI sends none), decoded as the Go project's types would.
async fn go_project_get<T: DeserializeOwned>(server: &McServer, query: &str) -> Vec<T> {
    let (status, body) = server.get_anonymous(query).await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    serde_json::from_value(body.clone()).unwrap_or_else(|e| panic!("{query}: {e}: {body}"))
}

async fn crd(client: &Client, name: &str) -> Option<CustomResourceDefinition> {
    Api::<CustomResourceDefinition>::all(client.clone()).get_opt(name).await.unwrap()
}

/// Deletes the MultiCluster CRD (and so its objects) and waits until it is gone.
async fn delete_multicluster_crd(env: &TestEnv) {
    let master = &env.clusters[0];
    env.kubectl(master, &["delete", "crd", MC_CRD, "--ignore-not-found", "--wait=true", "--timeout=60s"])
        .unwrap();
    let client = env.client(master).await.unwrap();
    eventually("the MultiCluster CRD is gone", Duration::from_secs(60), || async {
        crd(&client, MC_CRD).await.is_none().then_some(())
    })
    .await;
}

/// Puts the Go project's CRDs in place exactly as it installed them (a MultiClusterResource CRD
/// already there is replaced, so its objects stay), and MultiCluster objects as it wrote them.
async fn install_the_go_project(env: &TestEnv) {
    let master = &env.clusters[0];
    delete_multicluster_crd(env).await;
    let file = env.dir.join("go_project_crds.yaml");
    std::fs::write(&file, GO_PROJECT_CRDS).unwrap();
    let file = file.display().to_string();
    // `create` makes what is missing, `replace` turns what exists into the Go project's shape.
    let _ = env.kubectl(master, &["create", "-f", &file]);
    env.kubectl(master, &["replace", "-f", &file]).unwrap();
    let client = env.client(master).await.unwrap();
    for name in [MC_CRD, MCR_CRD] {
        let c = crd(&client, name).await.unwrap();
        assert_eq!(c.spec.scope, "Namespaced");
        let schema = serde_json::to_value(&c.spec.versions[0].schema).unwrap();
        assert_eq!(schema["openAPIV3Schema"]["x-kubernetes-preserve-unknown-fields"], true, "{schema}");
        assert!(
            schema["openAPIV3Schema"].get("properties").is_none(),
            "the Go project's schemaless shape: {schema}"
        );
    }
    eventually("the Go project's MultiCluster CRD serves", Duration::from_secs(30), || async {
        let api: Api<MultiCluster> = Api::namespaced(client.clone(), "default");
        api.list(&Default::default()).await.ok().map(|_| ())
    })
    .await;
    for (i, c) in env.clusters.iter().enumerate() {
        let object = json!({
            "apiVersion": "mulitcluster.practice.com/v1alpha1", "kind": "MultiCluster",
            "metadata": {"name": c.name, "namespace": "default"},
            "spec": {"name": c.name, "host": "https://old-host:6443", "version": "v1.27.3",
                     "platform": "linux/amd64", "isMaster": if i == 0 { "true" } else { "false" },
                     "region": "shanghai"}
        });
        let path = env.dir.join(format!("go-project-mc-{}.json", c.name));
        std::fs::write(&path, object.to_string()).unwrap();
        env.kubectl(master, &["create", "-f", &path.display().to_string()]).unwrap();
        let patch = r#"{"status":{"status":"Healthy"}}"#;
        let target = format!("multiclusters.mulitcluster.practice.com/{}", c.name);
        env.kubectl(
            master,
            &["patch", &target, "-n", "default", "--subresource=status", "--type=merge", "-p", patch],
        )
        .unwrap();
    }
}

#[tokio::test]
async fn over_the_go_projects_crds_and_objects_on_a_shared_mariadb_everything_works() {
    let env = TestEnv::from_env();
    install_the_go_project(&env).await;
    let master = &env.clusters[0];
    let client = env.client(master).await.unwrap();

    // What the Go project's CLI needs: no token, plain http.
    let config = config_with(&env, "go-project", "server:\n  anonymousRead: true\n  plainHTTP: true");
    let server = McServer::start_with(
        &env,
        "go-project",
        Options { storage: Some(mariadb()), config: Some(config), ..Default::default() },
        Launch { plain_http: true, ..Default::default() },
    )
    .await;

    // Our CRDs were applied over the Go project's: an update, same scope, its names kept.
    let mc_crd =
        eventually("our MultiCluster CRD over the Go project's", Duration::from_secs(30), || async {
            let c = crd(&client, MC_CRD).await?;
            let schema = serde_json::to_value(&c.spec.versions[0].schema).ok()?;
            schema["openAPIV3Schema"].get("properties").is_some().then_some(c)
        })
        .await;
    assert_eq!(mc_crd.spec.scope, "Namespaced");
    assert!(mc_crd.spec.names.short_names.clone().unwrap_or_default().contains(&"cl".to_string()));
    let columns: Vec<String> = mc_crd.spec.versions[0]
        .additional_printer_columns
        .clone()
        .unwrap_or_default()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(columns, ["Version", "Host", "Platform", "IsMaster", "Status", "Age"]);
    let mcr_crd = crd(&client, MCR_CRD).await.unwrap();
    let short = mcr_crd.spec.names.short_names.clone().unwrap_or_default();
    assert!(short.contains(&"rr".to_string()) && short.contains(&"mcr".to_string()), "{short:?}");

    // The MultiCluster objects: in `default`, strings as the Go project wrote them, kept current;
    // a field only the Go project knew is kept.
    let mcs: Api<MultiCluster> = Api::namespaced(client.clone(), "default");
    let objects = eventually("MultiCluster objects brought up to date", Duration::from_secs(60), || async {
        let list = mcs.list(&Default::default()).await.ok()?.items;
        let current = env.clusters.iter().all(|c| {
            list.iter().any(|m| {
                m.name_any() == c.name
                    && m.spec.host.starts_with("https://127.0.0.1:")
                    && m.status.as_ref().is_some_and(|s| s.status == "Synced")
            })
        });
        current.then_some(list)
    })
    .await;
    assert_eq!(objects.len(), env.clusters.len(), "{objects:?}");
    for m in &objects {
        let want = if m.name_any() == master.name { "true" } else { "false" };
        assert_eq!(m.spec.is_master, want, "{m:?}");
        assert!(m.spec.version.starts_with("v1."), "{m:?}");
    }
    let raw = env.kubectl(master, &["get", "cl", &master.name, "-n", "default", "-o", "json"]).unwrap();
    let raw: Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(raw["spec"]["isMaster"], "true", "a string: {raw}");
    assert_eq!(raw["spec"]["region"], "shanghai", "unknown fields kept: {raw}");
    assert_eq!(raw["status"]["conditions"][0]["type"], "Ready", "{raw}");
    let table = env.kubectl(master, &["get", "cl", "-n", "default"]).unwrap();
    assert!(table.lines().next().unwrap().contains("ISMASTER"), "{table}");

    // Sync on the shared database: every cluster's namespaces are stored.
    let namespaces = server.keys("v1/namespaces").await;
    for c in &env.clusters {
        assert!(namespaces.iter().any(|(cl, _, n)| cl == &c.name && n == "kube-system"), "{namespaces:?}");
    }

    // Dispatch: a Deployment placed by a selector over the MultiCluster objects' labels.
    let mcrs: Api<MultiClusterResource> = Api::namespaced(client.clone(), "default");
    let mcr: MultiClusterResource = serde_json::from_value(json!({
        "apiVersion": "mulitcluster.practice.com/v1alpha1", "kind": "MultiClusterResource",
        "metadata": {"name": "drop-in", "namespace": "default"},
        "spec": {
            "template": {"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "drop-in", "namespace": "default"},
                "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "drop-in"}},
                    "template": {"metadata": {"labels": {"app": "drop-in"}},
                        "spec": {"containers": [{"name": "web", "image": "nginx:1.19.0-alpine"}]}}}},
            "placement": {"clusterSelector": {"matchLabels": {"mulitcluster.practice.com/managed-by": "kubectl-multicluster"}}}
        }
    }))
    .unwrap();
    let _ = mcrs.delete("drop-in", &DeleteParams::default()).await;
    eventually("an earlier drop-in resource gone", Duration::from_secs(30), || async {
        mcrs.get_opt("drop-in").await.ok()?.is_none().then_some(())
    })
    .await;
    mcrs.create(&PostParams::default(), &mcr).await.unwrap();
    for c in &env.clusters {
        let member = env.client(c).await.unwrap();
        eventually(&format!("the Deployment in {}", c.name), Duration::from_secs(30), || async {
            Api::<Deployment>::namespaced(member.clone(), "default")
                .get_opt("drop-in")
                .await
                .ok()?
                .map(|_| ())
        })
        .await;
    }

    // Every request the Go project's CLI sends, without a token, decoded into its types' shape.
    // `list clusters`:
    let clusters: Vec<GoItem<Value>> = eventually("MultiCluster objects in the store", Duration::from_secs(30), || async {
        let q = "/v1/list_with_cluster?gvr=mulitcluster.practice.com/v1alpha1/multiclusters&namespace=default&limit=0";
        let items: Vec<GoItem<Value>> = go_project_get(&server, q).await;
        let synced = items.len() == env.clusters.len()
            && items.iter().all(|i| i.object["status"]["status"] == "Synced" && i.object["spec"]["host"] != "https://old-host:6443");
        synced.then_some(items)
    })
    .await;
    for item in &clusters {
        assert_eq!(item.cluster_name, master.name, "MultiCluster objects live in the master");
        for field in ["name", "host", "version", "platform", "isMaster"] {
            assert!(item.object["spec"][field].is_string(), "spec.{field} must be a string: {}", item.object);
        }
    }
    assert_eq!(clusters.iter().filter(|i| i.object["spec"]["isMaster"] == "true").count(), 1);

    // `list` with each GVR form; pods of the dispatched Deployment, by the Go project's labels[k]=v.
    let member = &env.clusters[1].name;
    let pods = eventually("the dispatched Deployment's pods", Duration::from_secs(60), || async {
        let q = format!("/v1/list_with_cluster?gvr=v1/pods&clusterName={member}&labels[app]=drop-in&limit=0");
        let pods: Vec<GoItem<Pod>> = go_project_get(&server, &q).await;
        (!pods.is_empty()).then_some(pods)
    })
    .await;
    let pod_names = |items: &[GoItem<Pod>]| {
        let mut names: Vec<String> = items.iter().map(|i| i.object.name_any()).collect();
        names.sort();
        names
    };
    for gvr in ["v1/pods", "core/v1/pods", "v1.pods"] {
        for cluster_param in ["clusterName", "cluster"] {
            let q = format!(
                "/v1/list_with_cluster?gvr={gvr}&{cluster_param}={member}&labels[app]=drop-in&limit=0"
            );
            let items: Vec<GoItem<Pod>> = go_project_get(&server, &q).await;
            assert_eq!(pod_names(&items), pod_names(&pods), "{q}");
            assert!(items.iter().all(|i| &i.cluster_name == member), "{q}");
        }
    }
    let deployments: Vec<GoItem<Deployment>> =
        go_project_get(&server, "/v1/list_with_cluster?gvr=apps/v1/deployments&name=drop-in&limit=0").await;
    let mut where_: Vec<&str> = deployments.iter().map(|d| d.cluster_name.as_str()).collect();
    where_.sort();
    let mut want: Vec<&str> = env.clusters.iter().map(|c| c.name.as_str()).collect();
    want.sort();
    assert_eq!(where_, want);
    // `list` on /v1/list: plain objects.
    let plain: Vec<Deployment> =
        go_project_get(&server, "/v1/list?gvr=v1/apps/deployments&name=drop-in&limit=0").await;
    assert_eq!(plain.len(), env.clusters.len());

    // `describe configmaps --clusterName --namespace --name` sends `v1./configmaps`.
    let q = format!(
        "/v1/list_with_cluster?gvr=v1./configmaps&clusterName={member}&namespace=default&name=kube-root-ca.crt"
    );
    let described: Vec<GoItem<ConfigMap>> = go_project_get(&server, &q).await;
    assert_eq!(described.len(), 1, "{q}");
    assert_eq!(described[0].object.name_any(), "kube-root-ca.crt");
    assert!(described[0].object.data.as_ref().is_some_and(|d| d.contains_key("ca.crt")));

    // No limit: the Go project's default page of 10; order=newest: newest first, as it answered.
    let page: Vec<GoItem<Value>> = go_project_get(&server, "/v1/list_with_cluster?gvr=v1/configmaps").await;
    assert_eq!(page.len(), 10);
    let newest: Vec<GoItem<ConfigMap>> =
        go_project_get(&server, "/v1/list_with_cluster?gvr=v1/configmaps&order=newest&limit=0").await;
    assert!(newest.len() > 10);
    let times: Vec<_> =
        newest.iter().map(|i| i.object.metadata.creation_timestamp.clone().unwrap().0).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first");
    assert!(times.first() > times.last(), "objects of different ages");

    mcrs.delete("drop-in", &DeleteParams::default()).await.unwrap();
    eventually("drop-in copies removed", Duration::from_secs(30), || async {
        let member = env.client(&env.clusters[1]).await.ok()?;
        Api::<Deployment>::namespaced(member, "default")
            .get_opt("drop-in")
            .await
            .ok()?
            .is_none()
            .then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_crd_that_cannot_be_installed_is_reported_and_stops_neither_sync_nor_leadership() {
    let env = TestEnv::from_env();
    let master = &env.clusters[0];
    let client = env.client(master).await.unwrap();

    // Someone else's MultiCluster CRD of another scope: never deleted by us, reported.
    delete_multicluster_crd(&env).await;
    let foreign = GO_PROJECT_CRDS
        .split("\n---\n")
        .find(|doc| doc.contains(&format!("name: {MC_CRD}")))
        .unwrap()
        .replace("scope: Namespaced", "scope: Cluster");
    let path = env.dir.join("foreign-crd.yaml");
    std::fs::write(&path, foreign).unwrap();
    env.kubectl(master, &["create", "-f", &path.display().to_string()]).unwrap();

    let mut server =
        McServer::spawn(&env, "crd-refused", Options { storage: Some(mariadb()), ..Default::default() });
    let why = eventually("/readyz says why", Duration::from_secs(60), || async {
        // The server may not listen yet.
        let resp = server.client()?.get(format!("{}/readyz", server.url)).send().await.ok()?;
        let status = resp.status();
        let body: Value = resp.json().await.ok()?;
        (status == StatusCode::SERVICE_UNAVAILABLE && body["error"].as_str()?.contains("scope"))
            .then_some(body)
    })
    .await;
    let why = why["error"].as_str().unwrap();
    assert!(why.contains(MC_CRD) && why.contains("kubectl delete crd"), "{why}");
    let (_, clusters) = server.get("/v1/clusters").await;
    let on_master = clusters.as_array().unwrap().iter().find(|c| c["isMaster"] == true).unwrap().clone();
    assert!(on_master["message"].as_str().unwrap_or_default().contains("CRDs not installed"), "{on_master}");
    // Sync goes on (on a shared database only the leader writes: leadership was not held up).
    eventually("every cluster synced despite the CRD", Duration::from_secs(60), || async {
        let (_, clusters) = server.get("/v1/clusters").await;
        clusters.as_array()?.iter().all(|c| c["status"] == "Synced").then_some(())
    })
    .await;
    let keys = server.keys("v1/namespaces").await;
    assert!(env.clusters.iter().all(|c| keys.iter().any(|(cl, _, _)| cl == &c.name)), "{keys:?}");
    assert_eq!(crd(&client, MC_CRD).await.unwrap().spec.scope, "Cluster", "someone else's CRD is left alone");

    // Once the operator deletes it, ours is installed and the server becomes ready.
    env.kubectl(master, &["delete", "crd", MC_CRD, "--wait=true"]).unwrap();
    server.wait_ready(Duration::from_secs(90)).await;
    assert_eq!(crd(&client, MC_CRD).await.unwrap().spec.scope, "Namespaced");
    server.stop();

    // An earlier version of ours installed it cluster-scoped: that one is replaced at start.
    delete_multicluster_crd(&env).await;
    let mut ours = serde_json::to_value(<MultiCluster as kube::CustomResourceExt>::crd()).unwrap();
    ours["spec"]["scope"] = json!("Cluster");
    let path = env.dir.join("earlier-crd.json");
    std::fs::write(&path, ours.to_string()).unwrap();
    let file = path.display().to_string();
    env.kubectl(master, &["apply", "--server-side", "--field-manager=kubectl-multicluster", "-f", &file])
        .unwrap();
    assert_eq!(crd(&client, MC_CRD).await.unwrap().spec.scope, "Cluster");
    let _server = McServer::start(&env, "crd-upgraded", Options::default()).await;
    assert_eq!(crd(&client, MC_CRD).await.unwrap().spec.scope, "Namespaced");
    let mcs: Api<MultiCluster> = Api::namespaced(client.clone(), "default");
    let mut seen = Vec::new();
    for _ in 0..240 {
        seen = mcs
            .list(&Default::default())
            .await
            .map(|l| l.items.iter().map(|m| m.name_any()).collect())
            .unwrap_or_default();
        if seen.len() == env.clusters.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(seen.len(), env.clusters.len(), "MultiCluster objects written again: {seen:?}");
}
