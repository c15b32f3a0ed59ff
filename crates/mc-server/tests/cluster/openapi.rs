//! `kubectl explain` through mc-server: the master's OpenAPI documents, a CRD only a member has,
//! `--api-version`, and one cluster's own documents under `/clusters/NAME/`.

use std::time::Duration;

use serde_json::Value;

use crate::kube_api::{kubeconfig, kubectl, start_https};
use crate::server::TEST_TOKEN;
use crate::testenv::{TestEnv, eventually};

/// A CRD of a group no other test uses, created in one member only.
const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.explain.example.com}
spec:
  group: explain.example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              sprockets: {type: integer, description: How many sprockets the gizmo turns.}
";

fn stdout(out: std::process::Output, what: &str) -> String {
    assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test]
async fn kubectl_explain_reads_the_masters_schemas_and_a_crd_only_a_member_has() {
    let env = TestEnv::from_env();
    let (master, member) = (&env.clusters[0], &env.clusters[1]);
    let file = env.dir.join("openapi-crd.yaml");
    std::fs::write(&file, CRD).unwrap();
    env.kubectl(member, &["apply", "-f", &file.display().to_string()]).unwrap();
    env.kubectl(member, &["wait", "--for=condition=Established", "crd/gizmos.explain.example.com"]).unwrap();

    let (_server, url, ca, https) = start_https(&env, "openapi").await;
    let all = kubeconfig(&env, &url, &ca, "openapi", "");

    // A built-in field: the same text as straight from the master.
    let through =
        stdout(kubectl(&all, &["explain", "deployment.spec.replicas"]), "explain through mc-server");
    let direct = env.kubectl(master, &["explain", "deployment.spec.replicas"]).unwrap();
    assert_eq!(through, direct);
    assert!(through.contains("FIELD: replicas <integer>"), "{through}");

    // The member's CRD, once mc-server's discovery has its type (kubectl keeps discovery) and
    // its OpenAPI index names the group-version: the documents are read again a few seconds
    // after a CRD appears, as kube-apiserver's own lag behind a new CRD.
    eventually("the member's CRD discovered and described", Duration::from_secs(60), || async {
        let resp =
            https.get(format!("{url}/apis/explain.example.com/v1")).bearer_auth(TEST_TOKEN).send().await;
        resp.ok()?.status().is_success().then_some(())?;
        let index: Value = https
            .get(format!("{url}/openapi/v3"))
            .bearer_auth(TEST_TOKEN)
            .send()
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        index["paths"].get("apis/explain.example.com/v1").map(|_| ())
    })
    .await;
    let explained = stdout(kubectl(&all, &["explain", "gizmos.spec.sprockets"]), "explain the member's CRD");
    assert!(explained.contains("How many sprockets"), "{explained}");
    assert!(explained.contains("GROUP:      explain.example.com"), "{explained}");
    let versioned = kubectl(&all, &["explain", "gizmos", "--api-version=explain.example.com/v1"]);
    assert!(stdout(versioned, "explain --api-version").contains("KIND:       Gizmo"));
    let apps = kubectl(&all, &["explain", "deployments", "--api-version=apps/v1"]);
    assert!(stdout(apps, "explain --api-version=apps/v1").contains("KIND:       Deployment"));

    // Under /clusters/NAME/: that cluster's own groups.
    let index = |cluster: &str| {
        let https = https.clone();
        let url = format!("{url}/clusters/{cluster}/openapi/v3");
        async move {
            let index: Value =
                https.get(url).bearer_auth(TEST_TOKEN).send().await.unwrap().json().await.unwrap();
            index["paths"].as_object().unwrap().keys().cloned().collect::<Vec<String>>()
        }
    };
    let of_member = index(&member.name).await;
    assert!(of_member.iter().any(|p| p == "apis/explain.example.com/v1"), "{of_member:?}");
    assert!(of_member.iter().any(|p| p == "apis/apps/v1"), "{of_member:?}");
    let of_master = index(&master.name).await;
    assert!(!of_master.iter().any(|p| p.contains("explain.example.com")), "{of_master:?}");
    let one = kubeconfig(&env, &url, &ca, "openapi-member", &format!("/clusters/{}", member.name));
    let explained = stdout(kubectl(&one, &["explain", "gizmos.spec.sprockets"]), "explain under /clusters/");
    assert!(explained.contains("How many sprockets"), "{explained}");

    env.kubectl(member, &["delete", "-f", &file.display().to_string(), "--wait=false"]).ok();
}
