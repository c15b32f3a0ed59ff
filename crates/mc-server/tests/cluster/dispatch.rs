//! MultiClusterResources are dispatched to member clusters, kept there and cleaned up.

use std::path::Path;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod};
use k8s_openapi::api::rbac::v1::ClusterRole;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use mc_types::crd::{ConflictResolution, MultiClusterResource, OWNER_ANNOTATION, Phase};
use serde_json::json;

use crate::server::{McServer, Options, config_with};
use crate::testenv::{TestEnv, eventually};

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

async fn ensure_namespace(client: &Client, name: &str) {
    let api: Api<Namespace> = Api::all(client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    match api.create(&PostParams::default(), &ns).await {
        Ok(_) | Err(kube::Error::Api(_)) => {}
        Err(e) => panic!("{e}"),
    }
}

/// Phases by cluster once every listed cluster has one of the wanted phases.
async fn wait_phases(api: &Api<MultiClusterResource>, name: &str, want: &[(&str, Phase)], timeout: Duration) {
    eventually(&format!("{name}: phases {want:?}"), timeout, || async {
        let mcr = api.get(name).await.ok()?;
        let status = mcr.status?;
        want.iter().all(|(c, p)| status.clusters.iter().any(|r| r.name == *c && r.phase == *p)).then_some(())
    })
    .await;
}

async fn cm_data(
    client: &Client,
    ns: &str,
    name: &str,
) -> Option<std::collections::BTreeMap<String, String>> {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), ns);
    api.get_opt(name).await.ok()?.map(|c| c.data.unwrap_or_default())
}

fn mcr_configmap(name: &str, ns: &str, cm: &str, clusters: &[&str]) -> MultiClusterResource {
    serde_json::from_value(json!({
        "apiVersion": "mulitcluster.practice.com/v1alpha1",
        "kind": "MultiClusterResource",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": cm, "namespace": ns}, "data": {"k": "template"}},
            "placement": {"clusters": clusters.iter().map(|c| json!({"name": c})).collect::<Vec<_>>()}
        }
    }))
    .unwrap()
}

#[tokio::test]
async fn the_go_projects_examples_apply_verbatim_with_their_customizations() {
    let env = TestEnv::from_env();
    let _server = McServer::start(&env, "examples", Options::default()).await;
    let master = &env.clusters[0];
    let out = env.kubectl(master, &["apply", "-f", &examples().display().to_string()]).unwrap();
    assert!(out.contains("multiclusterresource.mulitcluster.practice.com/mypod.pod"), "{out}");
    let mcrs: Api<MultiClusterResource> = Api::namespaced(env.client(master).await.unwrap(), "default");
    let all: Vec<(&str, Phase)> = env.clusters.iter().map(|c| (c.name.as_str(), Phase::Applied)).collect();
    for name in ["mydeployment.deployment", "myconfigmap.configmap", "mypod.pod"] {
        wait_phases(&mcrs, name, &all, Duration::from_secs(30)).await;
    }
    let table = env.kubectl(master, &["get", "multiclusterresources", "-n", "default"]).unwrap();
    assert!(table.lines().next().unwrap().contains("READY"), "{table}");
    assert!(table.contains("3/3"), "{table}");

    // Deployment: replicas 2/1/3, images, annotations, label app removed in tencent1.
    let want = [
        ("tencent1", 2, "nginx:1.19.0-alpine", None),
        ("tencent2", 1, "nginx:latest", Some(("foo", "bar"))),
        ("tencent4", 3, "nginx:1.19.0-alpine", Some(("app", "bar"))),
    ];
    for (name, replicas, image, annotation) in want {
        let cluster = env.clusters.iter().find(|c| c.name == name).expect("tencent1, tencent2, tencent4");
        let client = env.client(cluster).await.unwrap();
        let d = Api::<Deployment>::namespaced(client.clone(), "default")
            .get("multiclusterresource-deployment")
            .await
            .unwrap();
        let spec = d.spec.clone().unwrap();
        assert_eq!(spec.replicas, Some(replicas), "{name}");
        assert_eq!(spec.template.spec.unwrap().containers[0].image.as_deref(), Some(image), "{name}");
        let labels = d.labels();
        assert_eq!(labels.contains_key("app"), name != "tencent1", "{name}: {labels:?}");
        if let Some((k, v)) = annotation {
            assert_eq!(d.annotations().get(k).map(String::as_str), Some(v), "{name}");
        }
        assert_eq!(
            d.annotations().get(OWNER_ANNOTATION).map(String::as_str),
            Some("default/mydeployment.deployment")
        );

        let data = cm_data(&client, "default", "multiclusterresource-configmap").await.unwrap();
        if name == "tencent1" {
            assert_eq!(data["example.property.1"], "patch-configmaps-test");
            assert_eq!(data["cluster1test"], "patch-configmaps-test");
        } else {
            assert_eq!(data["example.property.1"], "hello");
            assert!(!data.contains_key("cluster1test"));
        }
        assert_eq!(data["example.property.2"], "world");

        let pod = Api::<Pod>::namespaced(client, "default").get("multicluster-pod").await.unwrap();
        let image = pod.spec.as_ref().unwrap().containers[0].image.clone().unwrap();
        let want_image = if name == "tencent4" { "nginx:1.17.0-alpine" } else { "nginx:1.19.0-alpine" };
        assert_eq!(image, want_image, "{name}");
        assert_eq!(pod.annotations().get("example").is_some(), name == "tencent2", "{name}");
    }

    // Deleting the resources removes every copy, then the resources themselves.
    env.kubectl(master, &["delete", "-f", &examples().display().to_string(), "--wait=true", "--timeout=60s"])
        .unwrap();
    for cluster in &env.clusters {
        let client = env.client(cluster).await.unwrap();
        eventually(&format!("{}: copies gone", cluster.name), Duration::from_secs(30), || async {
            let cm = cm_data(&client, "default", "multiclusterresource-configmap").await;
            let d = Api::<Deployment>::namespaced(client.clone(), "default")
                .get_opt("multiclusterresource-deployment")
                .await
                .ok()?;
            (cm.is_none() && d.is_none()).then_some(())
        })
        .await;
    }
}

#[tokio::test]
async fn placement_changes_and_hand_edits_are_corrected_within_seconds() {
    let env = TestEnv::from_env();
    let _server = McServer::start(&env, "drift", Options::default()).await;
    let ns = "mc-dispatch";
    let names: Vec<&str> = env.clusters.iter().map(|c| c.name.as_str()).collect();
    let mut clients = Vec::new();
    for c in &env.clusters {
        let client = env.client(c).await.unwrap();
        ensure_namespace(&client, ns).await;
        clients.push(client);
    }
    let mcrs: Api<MultiClusterResource> = Api::namespaced(clients[0].clone(), ns);
    let _ = mcrs.delete("drift", &DeleteParams::default()).await;
    eventually("old drift gone", Duration::from_secs(30), || async {
        mcrs.get_opt("drift").await.ok()?.is_none().then_some(())
    })
    .await;
    mcrs.create(&PostParams::default(), &mcr_configmap("drift", ns, "drift-cm", &names)).await.unwrap();
    let all: Vec<(&str, Phase)> = names.iter().map(|c| (*c, Phase::Applied)).collect();
    wait_phases(&mcrs, "drift", &all, Duration::from_secs(20)).await;

    // Drop the last cluster from the placement: its copy goes.
    let last = clients.last().unwrap().clone();
    let keep: Vec<serde_json::Value> = names[..names.len() - 1].iter().map(|c| json!({"name": c})).collect();
    let t = Instant::now();
    mcrs.patch(
        "drift",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"placement": {"clusters": keep}}})),
    )
    .await
    .unwrap();
    eventually("copy removed from the dropped cluster", Duration::from_secs(2), || async {
        cm_data(&last, ns, "drift-cm").await.is_none().then_some(())
    })
    .await;
    eprintln!("copy removed {:?} after the placement change", t.elapsed());

    // A hand edit is restored.
    let second = clients[1].clone();
    let cms: Api<ConfigMap> = Api::namespaced(second.clone(), ns);
    let t = Instant::now();
    cms.patch("drift-cm", &PatchParams::default(), &Patch::Merge(json!({"data": {"k": "edited by hand"}})))
        .await
        .unwrap();
    eventually("hand edit restored", Duration::from_secs(5), || async {
        (cm_data(&second, ns, "drift-cm").await?.get("k")? == "template").then_some(())
    })
    .await;
    eprintln!("hand edit restored after {:?}", t.elapsed());

    // A deleted copy is recreated.
    let t = Instant::now();
    cms.delete("drift-cm", &DeleteParams::default()).await.unwrap();
    eventually("deleted copy recreated", Duration::from_secs(5), || async {
        cm_data(&second, ns, "drift-cm").await.map(|_| ())
    })
    .await;
    eprintln!("deleted copy recreated after {:?}", t.elapsed());

    // Deleting the resource removes every copy and then the resource.
    mcrs.delete("drift", &DeleteParams::default()).await.unwrap();
    eventually("resource and copies gone", Duration::from_secs(20), || async {
        if mcrs.get_opt("drift").await.ok()?.is_some() {
            return None;
        }
        for c in &clients {
            if cm_data(c, ns, "drift-cm").await.is_some() {
                return None;
            }
        }
        Some(())
    })
    .await;
}

#[tokio::test]
async fn an_object_that_is_not_ours_is_a_conflict_unless_overwrite_is_asked() {
    let env = TestEnv::from_env();
    let _server = McServer::start(&env, "conflict", Options::default()).await;
    let ns = "mc-conflict";
    let master = env.client(&env.clusters[0]).await.unwrap();
    let member = env.client(&env.clusters[1]).await.unwrap();
    ensure_namespace(&master, ns).await;
    ensure_namespace(&member, ns).await;
    // What an earlier run left goes first: its resources would take the object at once.
    let mcrs: Api<MultiClusterResource> = Api::namespaced(master.clone(), ns);
    for old in ["conflict", "rival"] {
        let _ = mcrs.delete(old, &DeleteParams::default()).await;
        eventually("old resources gone", Duration::from_secs(30), || async {
            mcrs.get_opt(old).await.ok()?.is_none().then_some(())
        })
        .await;
    }
    let cms: Api<ConfigMap> = Api::namespaced(member.clone(), ns);
    let _ = cms.delete("theirs", &DeleteParams::default()).await;
    let theirs: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "theirs"}, "data": {"k": "not yours"}})).unwrap();
    cms.create(&PostParams::default(), &theirs).await.unwrap();

    let member_name = env.clusters[1].name.as_str();
    mcrs.create(&PostParams::default(), &mcr_configmap("conflict", ns, "theirs", &[member_name]))
        .await
        .unwrap();
    wait_phases(&mcrs, "conflict", &[(member_name, Phase::Conflict)], Duration::from_secs(20)).await;
    assert_eq!(cm_data(&member, ns, "theirs").await.unwrap()["k"], "not yours", "untouched");
    let status = mcrs.get("conflict").await.unwrap().status.unwrap();
    assert!(status.clusters[0].message.contains("Overwrite"), "{:?}", status.clusters[0]);

    mcrs.patch(
        "conflict",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"conflictResolution": "Overwrite"}})),
    )
    .await
    .unwrap();
    wait_phases(&mcrs, "conflict", &[(member_name, Phase::Applied)], Duration::from_secs(20)).await;
    assert_eq!(cm_data(&member, ns, "theirs").await.unwrap()["k"], "template");

    // Another resource never takes it from this one, Overwrite or not.
    let _ = mcrs.delete("rival", &DeleteParams::default()).await;
    let mut rival = mcr_configmap("rival", ns, "theirs", &[member_name]);
    rival.spec.conflict_resolution = Some(ConflictResolution::Overwrite);
    mcrs.create(&PostParams::default(), &rival).await.unwrap();
    wait_phases(&mcrs, "rival", &[(member_name, Phase::Conflict)], Duration::from_secs(20)).await;
    let status = mcrs.get("rival").await.unwrap().status.unwrap();
    assert!(
        status.clusters[0].message.contains(&format!("belongs to MultiClusterResource {ns}/conflict")),
        "{:?}",
        status.clusters[0]
    );
    let copy: ConfigMap = cms.get("theirs").await.unwrap();
    assert_eq!(
        copy.annotations().get(OWNER_ANNOTATION).map(String::as_str),
        Some(format!("{ns}/conflict").as_str())
    );
    mcrs.delete("rival", &DeleteParams::default()).await.unwrap();
    mcrs.delete("conflict", &DeleteParams::default()).await.unwrap();
}

#[tokio::test]
async fn a_placed_cluster_that_is_down_fails_alone_and_is_applied_when_back() {
    let env = TestEnv::from_env();
    let server = McServer::start(&env, "dispatch-down", Options::default()).await;
    let ns = "mc-outage";
    let down = env.clusters.last().unwrap().clone();
    let mut clients = Vec::new();
    for c in &env.clusters {
        let client = env.client(c).await.unwrap();
        ensure_namespace(&client, ns).await;
        clients.push(client);
    }
    let dir = env.dir.display().to_string();
    crate::testenv::testenv_command(&["stop-apiserver", "--dir", &dir, &down.name]).unwrap();
    let restore = crate::sync::Restore(&env, down.name.clone());
    let names: Vec<&str> = env.clusters.iter().map(|c| c.name.as_str()).collect();
    let mcrs: Api<MultiClusterResource> = Api::namespaced(clients[0].clone(), ns);
    let _ = mcrs.delete("outage", &DeleteParams::default()).await;
    eventually("old outage gone", Duration::from_secs(30), || async {
        mcrs.get_opt("outage").await.ok()?.is_none().then_some(())
    })
    .await;
    mcrs.create(&PostParams::default(), &mcr_configmap("outage", ns, "outage-cm", &names)).await.unwrap();
    let mut want: Vec<(&str, Phase)> =
        names[..names.len() - 1].iter().map(|c| (*c, Phase::Applied)).collect();
    want.push((down.name.as_str(), Phase::Failed));
    wait_phases(&mcrs, "outage", &want, Duration::from_secs(40)).await;

    drop(restore);
    let t = Instant::now();
    wait_phases(&mcrs, "outage", &[(down.name.as_str(), Phase::Applied)], Duration::from_secs(60)).await;
    eprintln!("applied {:?} after the cluster came back", t.elapsed());
    assert!(cm_data(clients.last().unwrap(), ns, "outage-cm").await.is_some());
    mcrs.delete("outage", &DeleteParams::default()).await.unwrap();
    eventually("outage resource gone", Duration::from_secs(30), || async {
        mcrs.get_opt("outage").await.ok()?.is_none().then_some(())
    })
    .await;
    drop(server);
}

#[tokio::test]
async fn when_the_leader_dies_another_replica_dispatches_within_the_lease() {
    let env = TestEnv::from_env();
    let postgres = std::env::var("MC_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| panic!("MC_TEST_POSTGRES_URL is not set: run scripts/test.sh"));
    let opts = Options { storage: Some(postgres), ..Default::default() };
    let mut first = McServer::start(&env, "leader-a", opts.clone()).await;
    // Give the first replica the lease before the second starts.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let second = McServer::start(&env, "leader-b", opts).await;
    let ns = "mc-leader";
    let master = env.client(&env.clusters[0]).await.unwrap();
    ensure_namespace(&master, ns).await;
    let mcrs: Api<MultiClusterResource> = Api::namespaced(master.clone(), ns);
    for n in ["before", "after"] {
        let _ = mcrs.delete(n, &DeleteParams::default()).await;
    }
    let first_cluster = env.clusters[0].name.as_str();
    mcrs.create(&PostParams::default(), &mcr_configmap("before", ns, "before-cm", &[first_cluster]))
        .await
        .unwrap();
    wait_phases(&mcrs, "before", &[(first_cluster, Phase::Applied)], Duration::from_secs(20)).await;

    first.kill();
    let t = Instant::now();
    mcrs.create(&PostParams::default(), &mcr_configmap("after", ns, "after-cm", &[first_cluster]))
        .await
        .unwrap();
    wait_phases(&mcrs, "after", &[(first_cluster, Phase::Applied)], Duration::from_secs(25)).await;
    eprintln!("the second replica dispatched {:?} after the leader died", t.elapsed());
    // The second replica also took over the first's clusters (their sync Leases expired with
    // the leader's) and writes their changes to the shared database.
    let cms: Api<ConfigMap> = Api::namespaced(master.clone(), ns);
    let _ = cms.delete("written-by-new-leader", &DeleteParams::default()).await;
    let cm: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "written-by-new-leader"}})).unwrap();
    cms.create(&PostParams::default(), &cm).await.unwrap();
    let query = format!("/v1/list?gvr=v1/configmaps&namespace={ns}&name=written-by-new-leader");
    eventually("the surviving replica writes sync data", Duration::from_secs(30), || async {
        let (_, b) = second.get(&query).await;
        (b.as_array()?.len() == 1).then_some(())
    })
    .await;
    cms.delete("written-by-new-leader", &DeleteParams::default()).await.unwrap();
    for n in ["before", "after"] {
        mcrs.delete(n, &DeleteParams::default()).await.unwrap();
    }
}

/// A resource placed on `clusters` that takes over what exists (`Overwrite`).
fn mcr_of(name: &str, ns: &str, template: serde_json::Value, clusters: &[&str]) -> MultiClusterResource {
    serde_json::from_value(json!({
        "apiVersion": "mulitcluster.practice.com/v1alpha1",
        "kind": "MultiClusterResource",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "template": template,
            "conflictResolution": "Overwrite",
            "placement": {"clusters": clusters.iter().map(|c| json!({"name": c})).collect::<Vec<_>>()}
        }
    }))
    .unwrap()
}

/// A ConfigMap in kube-public: outside any tenant.
fn public_configmap(name: &str) -> serde_json::Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "kube-public"}, "data": {"k": "planted"}})
}

/// A cluster-scoped kind that would hand out every right.
fn cluster_role(name: &str) -> serde_json::Value {
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": name},
        "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]
    })
}

/// Deletes a resource (if any) and waits until it is gone, finalizer included.
async fn delete_and_wait(mcrs: &Api<MultiClusterResource>, name: &str) {
    let _ = mcrs.delete(name, &DeleteParams::default()).await;
    eventually(&format!("{name} gone"), Duration::from_secs(30), || async {
        mcrs.get_opt(name).await.ok()?.is_none().then_some(())
    })
    .await;
}

async fn delete_copies(clients: &[Client], configmap: &str, role: &str) {
    for c in clients {
        let _ = Api::<ConfigMap>::namespaced(c.clone(), "kube-public")
            .delete(configmap, &DeleteParams::default())
            .await;
        let _ = Api::<ClusterRole>::all(c.clone()).delete(role, &DeleteParams::default()).await;
    }
}

#[tokio::test]
async fn a_tenant_resource_is_forbidden_outside_its_namespace_and_an_admin_one_is_applied() {
    let env = TestEnv::from_env();
    let tenant = "mc-dispatch-tenant";
    let admin = "mc-dispatch-admin";
    let config = config_with(&env, "dispatch-tenant", &format!("dispatch: {{adminNamespaces: [{admin}]}}"));
    let _server =
        McServer::start(&env, "dispatch-tenant", Options { config: Some(config), ..Default::default() })
            .await;
    let names: Vec<&str> = env.clusters.iter().map(|c| c.name.as_str()).collect();
    let mut clients = Vec::new();
    for c in &env.clusters {
        let client = env.client(c).await.unwrap();
        ensure_namespace(&client, tenant).await;
        ensure_namespace(&client, admin).await;
        clients.push(client);
    }
    let (cm, role) = ("mc-dispatch-planted", "mc-dispatch-escalate");
    let tenant_mcrs: Api<MultiClusterResource> = Api::namespaced(clients[0].clone(), tenant);
    let admin_mcrs: Api<MultiClusterResource> = Api::namespaced(clients[0].clone(), admin);
    for n in ["into-kube-public", "cluster-scoped"] {
        delete_and_wait(&tenant_mcrs, n).await;
        delete_and_wait(&admin_mcrs, n).await;
    }
    delete_copies(&clients, cm, role).await;

    // From the tenant's namespace: refused in every placed cluster, before anything is written.
    let attempts = [
        ("into-kube-public", public_configmap(cm), "ConfigMap kube-public/"),
        ("cluster-scoped", cluster_role(role), "ClusterRole "),
    ];
    for (name, template, target) in &attempts {
        tenant_mcrs
            .create(&PostParams::default(), &mcr_of(name, tenant, template.clone(), &names))
            .await
            .unwrap();
        let all: Vec<(&str, Phase)> = names.iter().map(|c| (*c, Phase::Forbidden)).collect();
        wait_phases(&tenant_mcrs, name, &all, Duration::from_secs(30)).await;
        let status = tenant_mcrs.get(name).await.unwrap().status.unwrap();
        assert_eq!(status.clusters.len(), names.len(), "{status:?}");
        for c in &status.clusters {
            assert!(
                c.message.starts_with(target)
                    && c.message.contains(&format!("namespace {tenant}"))
                    && c.message.contains("dispatch.adminNamespaces"),
                "{c:?}"
            );
        }
        assert_eq!(status.ready, format!("0/{}", names.len()));
        let ready = status.conditions.iter().find(|c| c.type_ == "Ready").unwrap();
        assert_eq!(ready.status, "False", "{ready:?}");
    }
    let master = &env.clusters[0];
    eventually("a Warning Event with reason Forbidden", Duration::from_secs(20), || async {
        let out = env
            .kubectl(
                master,
                &[
                    "-n",
                    tenant,
                    "get",
                    "events",
                    "--field-selector",
                    "reason=Forbidden,type=Warning",
                    "-o",
                    "json",
                ],
            )
            .ok()?;
        let events: serde_json::Value = serde_json::from_str(&out).ok()?;
        (events["items"].as_array()?.len() >= names.len()).then_some(())
    })
    .await;
    let mut absent = 0;
    for (cluster, client) in names.iter().zip(&clients) {
        assert!(cm_data(client, "kube-public", cm).await.is_none(), "{cluster}: ConfigMap written");
        assert!(
            Api::<ClusterRole>::all(client.clone()).get_opt(role).await.unwrap().is_none(),
            "{cluster}: ClusterRole written"
        );
        absent += 1;
    }
    assert_eq!(absent, 3, "every cluster checked");

    // The same resources from an admin namespace are applied.
    for (name, template, _) in &attempts {
        admin_mcrs
            .create(&PostParams::default(), &mcr_of(name, admin, template.clone(), &names))
            .await
            .unwrap();
        let all: Vec<(&str, Phase)> = names.iter().map(|c| (*c, Phase::Applied)).collect();
        wait_phases(&admin_mcrs, name, &all, Duration::from_secs(30)).await;
    }
    for (cluster, client) in names.iter().zip(&clients) {
        assert_eq!(cm_data(client, "kube-public", cm).await.unwrap()["k"], "planted", "{cluster}");
        let r = Api::<ClusterRole>::all(client.clone()).get(role).await.unwrap();
        assert_eq!(
            r.annotations().get(OWNER_ANNOTATION).map(String::as_str),
            Some("mc-dispatch-admin/cluster-scoped")
        );
    }

    // Deleting the tenant's resources touches nothing; deleting the admin's removes its copies.
    for (name, _, _) in &attempts {
        delete_and_wait(&tenant_mcrs, name).await;
    }
    for client in &clients {
        assert!(cm_data(client, "kube-public", cm).await.is_some());
        assert!(Api::<ClusterRole>::all(client.clone()).get_opt(role).await.unwrap().is_some());
    }
    for (name, _, _) in &attempts {
        delete_and_wait(&admin_mcrs, name).await;
    }
    for (cluster, client) in names.iter().zip(&clients) {
        assert!(cm_data(client, "kube-public", cm).await.is_none(), "{cluster}");
        assert!(Api::<ClusterRole>::all(client.clone()).get_opt(role).await.unwrap().is_none(), "{cluster}");
    }
}

#[tokio::test]
async fn a_copy_applied_while_allowed_is_neither_changed_nor_deleted_once_forbidden() {
    let env = TestEnv::from_env();
    let ns = "mc-dispatch-demoted";
    let names: Vec<&str> = env.clusters.iter().map(|c| c.name.as_str()).collect();
    let mut clients = Vec::new();
    for c in &env.clusters {
        let client = env.client(c).await.unwrap();
        ensure_namespace(&client, ns).await;
        clients.push(client);
    }
    // First the namespace is an admin namespace: the copy in kube-public is applied. (The
    // server installs the CRD, so it starts before anything is cleaned up.)
    let config = config_with(&env, "dispatch-demoted", &format!("dispatch: {{adminNamespaces: [{ns}]}}"));
    let mut allowed =
        McServer::start(&env, "dispatch-allowed", Options { config: Some(config), ..Default::default() })
            .await;
    let cm = "mc-dispatch-earlier";
    let mcrs: Api<MultiClusterResource> = Api::namespaced(clients[0].clone(), ns);
    delete_and_wait(&mcrs, "earlier").await;
    delete_copies(&clients, cm, "mc-dispatch-none").await;
    mcrs.create(&PostParams::default(), &mcr_of("earlier", ns, public_configmap(cm), &names)).await.unwrap();
    let applied: Vec<(&str, Phase)> = names.iter().map(|c| (*c, Phase::Applied)).collect();
    wait_phases(&mcrs, "earlier", &applied, Duration::from_secs(30)).await;
    allowed.stop();

    // Then it is not (defaults: only the server's namespace): Forbidden, and the copy stays as it is.
    let _server = McServer::start(&env, "dispatch-demoted", Options::default()).await;
    let forbidden: Vec<(&str, Phase)> = names.iter().map(|c| (*c, Phase::Forbidden)).collect();
    wait_phases(&mcrs, "earlier", &forbidden, Duration::from_secs(30)).await;
    mcrs.patch(
        "earlier",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"template": {"data": {"k": "changed"}}}})),
    )
    .await
    .unwrap();
    eventually("the new generation observed", Duration::from_secs(30), || async {
        let mcr = mcrs.get("earlier").await.ok()?;
        let status = mcr.status?;
        (status.observed_generation == mcr.metadata.generation
            && status.clusters.iter().all(|c| c.phase == Phase::Forbidden))
        .then_some(())
    })
    .await;
    delete_and_wait(&mcrs, "earlier").await;
    for (cluster, client) in names.iter().zip(&clients) {
        let data = cm_data(client, "kube-public", cm).await;
        assert_eq!(data.as_ref().map(|d| d["k"].as_str()), Some("planted"), "{cluster}: {data:?}");
    }
    delete_copies(&clients, cm, "mc-dispatch-none").await;
}
