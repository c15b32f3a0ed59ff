//! The test clusters are real: Deployments roll out to Running pods with node names and IPs.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Pod};
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use serde_json::json;

use crate::testenv::{Cluster, TestEnv, eventually};

const NS: &str = "mc-foundation";

async fn deploy_and_check(env: &TestEnv, cluster: &Cluster) {
    let client = env.client(cluster).await.unwrap();
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": NS}})).unwrap();
    match namespaces.create(&PostParams::default(), &ns).await {
        Ok(_) => {}
        Err(kube::Error::Api(s)) if s.code == 409 => {}
        Err(e) => panic!("{}: creating namespace: {e}", cluster.name),
    }
    // The namespace's default ServiceAccount must exist before pods can be admitted.
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), NS);
    let deployment: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}
            }
        }
    }))
    .unwrap();
    let _ = deployments.delete("web", &DeleteParams::default()).await;
    eventually("the old deployment to go", Duration::from_secs(30), || async {
        deployments.get_opt("web").await.unwrap().is_none().then_some(())
    })
    .await;
    deployments.create(&PostParams::default(), &deployment).await.unwrap();

    eventually(&format!("{}: 2 ready replicas", cluster.name), Duration::from_secs(90), || async {
        let d = deployments.get("web").await.ok()?;
        (d.status?.ready_replicas? == 2).then_some(())
    })
    .await;

    let pods: Api<Pod> = Api::namespaced(client, NS);
    let list = pods.list(&ListParams::default().labels("app=web")).await.unwrap();
    let running: Vec<_> = list
        .items
        .iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .filter(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"))
        .collect();
    assert_eq!(running.len(), 2, "{}: running pods", cluster.name);
    for pod in running {
        let ip = pod.status.as_ref().and_then(|s| s.pod_ip.clone()).unwrap_or_default();
        let node = pod.spec.as_ref().and_then(|s| s.node_name.clone()).unwrap_or_default();
        assert!(!ip.is_empty(), "{}: pod without IP", cluster.name);
        assert!(!node.is_empty(), "{}: pod without node", cluster.name);
    }

    let out = env.kubectl(cluster, &["get", "ns", NS, "-o", "name"]).unwrap();
    assert_eq!(out.trim(), format!("namespace/{NS}"));
}

#[tokio::test]
async fn a_deployment_rolls_out_to_running_pods_in_every_cluster() {
    let env = TestEnv::from_env();
    assert!(env.clusters.len() >= 3, "the foundation test wants 3 clusters");
    let checks = env.clusters.iter().map(|c| deploy_and_check(&env, c));
    futures::future::join_all(checks).await;
}
