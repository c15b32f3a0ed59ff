//! A tenant's MultiClusterResource writes only into its own namespace: another namespace or a
//! cluster-scoped kind is `Forbidden`, nothing is written, and Overwrite takes nothing over.

use std::time::Duration;

use serde_json::Value;

use crate::server::{McServer, Options};
use crate::testenv::{TestEnv, eventually};

const TENANT: &str = "sec-tenant-a";
const VICTIM: &str = "sec-victim";

fn mcr(name: &str, template: &str, clusters: &[&str]) -> String {
    let placed: Vec<String> = clusters.iter().map(|c| format!(r#"{{"name":"{c}"}}"#)).collect();
    format!(
        r#"{{"apiVersion":"mulitcluster.practice.com/v1alpha1","kind":"MultiClusterResource","metadata":{{"name":"{name}","namespace":"{TENANT}"}},"spec":{{"conflictResolution":"Overwrite","template":{template},"placement":{{"clusters":[{}]}}}}}}"#,
        placed.join(",")
    )
}

#[tokio::test]
async fn a_tenant_resource_writes_nothing_outside_its_namespace() {
    let env = TestEnv::from_env();
    let master = &env.clusters[0];
    let names: Vec<&str> = env.clusters.iter().map(|c| c.name.as_str()).collect();
    for c in &env.clusters {
        for ns in [TENANT, VICTIM] {
            let _ = env.kubectl(c, &["create", "namespace", ns]);
        }
        // Another namespace's object, which Overwrite must not take over.
        let _ =
            env.kubectl(c, &["-n", VICTIM, "create", "configmap", "theirs", "--from-literal=owner=victim"]);
    }
    let server = McServer::start(&env, "sec-tenant", Options::default()).await;
    let attacks = [
        (
            "into-kube-public",
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"planted","namespace":"kube-public"},"data":{"x":"y"}}"#,
        ),
        (
            "take-over",
            &format!(
                r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"theirs","namespace":"{VICTIM}"}},"data":{{"owner":"tenant"}}}}"#
            ),
        ),
        (
            "cluster-scoped",
            r#"{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"sec-tenant-escalate"},"rules":[{"apiGroups":["*"],"resources":["*"],"verbs":["*"]}]}"#,
        ),
    ];
    let dir = env.dir.join("security");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, template) in &attacks {
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, mcr(name, template, &names)).unwrap();
        env.kubectl(master, &["apply", "-f", &path.display().to_string()]).unwrap();
    }
    let mut refused = 0;
    for (name, _) in &attacks {
        let status: Value =
            eventually(&format!("{name}: Forbidden everywhere"), Duration::from_secs(60), || async {
                let out = env
                    .kubectl(master, &["-n", TENANT, "get", "multiclusterresource", name, "-o", "json"])
                    .ok()?;
                let mcr: Value = serde_json::from_str(&out).ok()?;
                let clusters = mcr["status"]["clusters"].as_array()?;
                (clusters.len() == names.len() && clusters.iter().all(|c| c["phase"] == "Forbidden"))
                    .then(|| mcr["status"].clone())
            })
            .await;
        let ready = status["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "Ready").unwrap();
        assert_eq!(ready["status"], "False", "{status}");
        refused += status["clusters"].as_array().unwrap().len();
    }
    assert_eq!(refused, attacks.len() * names.len());
    let _ = server;
    // Nothing was written anywhere.
    for c in &env.clusters {
        assert!(env.kubectl(c, &["-n", "kube-public", "get", "configmap", "planted"]).is_err(), "{}", c.name);
        assert!(env.kubectl(c, &["get", "clusterrole", "sec-tenant-escalate"]).is_err(), "{}", c.name);
        let theirs = env
            .kubectl(c, &["-n", VICTIM, "get", "configmap", "theirs", "-o", "jsonpath={.data.owner}"])
            .unwrap();
        assert_eq!(theirs, "victim", "{}", c.name);
    }
    // Deleting the resources leaves the victim's object alone too.
    for (name, _) in &attacks {
        env.kubectl(
            master,
            &["-n", TENANT, "delete", "multiclusterresource", name, "--wait=true", "--timeout=60s"],
        )
        .unwrap();
    }
    for c in &env.clusters {
        let theirs = env
            .kubectl(c, &["-n", VICTIM, "get", "configmap", "theirs", "-o", "jsonpath={.data.owner}"])
            .unwrap();
        assert_eq!(theirs, "victim", "{}", c.name);
    }
}
