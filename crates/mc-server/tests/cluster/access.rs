//! Per-caller access end to end: a ServiceAccount of the master cluster reads, through
//! mc-server and with plain kubectl, what each member cluster's own RBAC lets its user read.

use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;

use crate::kube_api::{kubeconfig_with_token, kubectl, start_https};
use crate::server::TEST_TOKEN;
use crate::testenv::{TestEnv, eventually};

/// The ServiceAccount (of the master's `default` namespace) the test acts as.
const SA: &str = "mc-access-alice";
/// Its user name, as a TokenReview and every member's RBAC name it.
const USER: &str = "system:serviceaccount:default:mc-access-alice";

fn apply(env: &TestEnv, cluster: usize, yaml: &str) {
    let file = env.dir.join(format!("access-{cluster}-{}.yaml", yaml.len()));
    std::fs::write(&file, yaml).unwrap();
    env.kubectl(&env.clusters[cluster], &["apply", "-f", &file.display().to_string()]).unwrap();
}

/// A namespace with one pod, and (when `bind`) the built-in `view` ClusterRole bound there to
/// alice's user.
fn namespace_with_pod(ns: &str, pod: &str, bind: bool) -> String {
    let mut yaml = format!(
        "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {ns}}}\n---\n\
         apiVersion: v1\nkind: Pod\nmetadata: {{name: {pod}, namespace: {ns}}}\n\
         spec: {{containers: [{{name: c, image: registry.invalid/none}}]}}\n"
    );
    if bind {
        yaml.push_str(&format!(
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\n\
             metadata: {{name: alice-view, namespace: {ns}}}\n\
             roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}}\n\
             subjects: [{{kind: User, apiGroup: rbac.authorization.k8s.io, name: \"{USER}\"}}]\n"
        ));
    }
    yaml
}

/// Rows of `kubectl get` without headers: (name, cluster).
fn rows(out: &std::process::Output) -> Vec<(String, String)> {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            (cells[1].to_string(), cells[2].to_string())
        })
        .collect()
}

#[tokio::test]
async fn a_service_account_reads_through_mc_server_what_each_clusters_rbac_allows_it() {
    let env = TestEnv::from_env();
    let (c0, c1) = (env.clusters[0].name.clone(), env.clusters[1].name.clone());
    // Alice exists in the master only; members bind her user name.
    env.kubectl(&env.clusters[0], &["create", "serviceaccount", SA, "-n", "default"]).ok();
    let token = env.kubectl(&env.clusters[0], &["create", "token", SA, "-n", "default"]).unwrap();
    let token = token.trim().to_string();
    apply(&env, 0, &namespace_with_pod("acc-a", "pod-a", true));
    apply(&env, 0, &namespace_with_pod("acc-c", "pod-c0", false));
    apply(&env, 1, &namespace_with_pod("acc-b", "pod-b", true));
    apply(&env, 1, &namespace_with_pod("acc-c", "pod-c1", false));

    let (server, url, ca, https) = start_https(&env, "access").await;
    // Synced: the pods and bindings are in the store.
    eventually("pods and bindings synced", Duration::from_secs(60), || async {
        let (_, pods) = server.get("/v1/list_with_cluster?gvr=pods&limit=0").await;
        let (_, bindings) =
            server.get("/v1/list?gvr=rolebindings.rbac.authorization.k8s.io&name=alice-view&limit=0").await;
        let names: Vec<String> = pods
            .as_array()?
            .iter()
            .filter_map(|p| p["Object"]["metadata"]["name"].as_str().map(String::from))
            .collect();
        let all = ["pod-a", "pod-b", "pod-c0", "pod-c1"].iter().all(|p| names.iter().any(|n| n == p));
        (all && bindings.as_array()?.len() == 2).then_some(())
    })
    .await;

    let alice = kubeconfig_with_token(&env, &url, &ca, "alice", &token);
    let pods = rows(&kubectl(&alice, &["get", "pods", "-A", "--no-headers"]));
    assert_eq!(pods, [("pod-a".to_string(), c0.clone()), ("pod-b".to_string(), c1.clone())]);
    // Secrets are in no role of hers: nothing is shown, and the Warning says why.
    let secrets = kubectl(&alice, &["get", "secrets", "-A"]);
    assert!(secrets.status.success(), "{}", String::from_utf8_lossy(&secrets.stderr));
    assert!(String::from_utf8_lossy(&secrets.stdout).trim().is_empty(), "no secret shown");
    let said = String::from_utf8_lossy(&secrets.stderr);
    assert!(said.contains("No resources found") && said.contains("may not list secrets"), "{said}");
    let forbidden = kubectl(&alice, &["get", "pods", "-n", "acc-c"]);
    let err = String::from_utf8_lossy(&forbidden.stderr);
    assert!(!forbidden.status.success() && err.contains("Forbidden") && err.contains(USER), "{err}");
    // The admin token still reads all four pods.
    let admin = kubeconfig_with_token(&env, &url, &ca, "admin", TEST_TOKEN);
    assert!(rows(&kubectl(&admin, &["get", "pods", "-A", "--no-headers"])).len() >= 4);
    // The admin acting as alice (kubectl --as) sees what she sees; she may not act as anyone.
    let as_alice = rows(&kubectl(&admin, &["get", "pods", "-A", "--no-headers", "--as", USER]));
    assert_eq!(as_alice, [("pod-a".to_string(), c0.clone()), ("pod-b".to_string(), c1.clone())]);
    let refused = kubectl(&alice, &["get", "pods", "-A", "--as", "someone-else"]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && err.contains("cannot impersonate"), "{err}");

    // Forged, malformed: 401, never a panic or an open door.
    // One character of the signature changed (the last one may carry only padding bits).
    let mut forged = token.clone().into_bytes();
    let at = forged.len() - 20;
    forged[at] = if forged[at] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).unwrap();
    for bad in [forged.as_str(), "not-a-jwt-0123456789", "a.b.c"] {
        let resp = https.get(format!("{url}/api/v1/pods")).bearer_auth(bad).send().await.unwrap();
        assert_eq!(resp.status(), reqwest::StatusCode::UNAUTHORIZED, "{bad}");
    }

    // A watch started before the binding in the first cluster goes: its pods stop coming.
    let resp = https.get(format!("{url}/api/v1/pods?watch=true")).bearer_auth(&token).send().await.unwrap();
    assert!(resp.status().is_success());
    let mut body = Box::pin(resp.bytes_stream());
    let mut seen = String::new();
    assert!(read_until(&mut body, &mut seen, "pod-a", Duration::from_secs(10)).await, "{seen}");
    env.kubectl(&env.clusters[0], &["delete", "rolebinding", "alice-view", "-n", "acc-a"]).unwrap();
    // Synced within a few seconds; then a new pod there is not sent, one in the other cluster is.
    tokio::time::sleep(Duration::from_secs(5)).await;
    apply(
        &env,
        0,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: pod-a2, namespace: acc-a}\nspec: {containers: [{name: c, image: registry.invalid/none}]}\n",
    );
    apply(
        &env,
        1,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: pod-b2, namespace: acc-b}\nspec: {containers: [{name: c, image: registry.invalid/none}]}\n",
    );
    assert!(read_until(&mut body, &mut seen, "pod-b2", Duration::from_secs(15)).await, "{seen}");
    assert!(!seen.lines().any(|l| line_names(l, "pod-a2")), "{seen}");

    for (i, ns) in [(0, "acc-a"), (0, "acc-c"), (1, "acc-b"), (1, "acc-c")] {
        env.kubectl(&env.clusters[i], &["delete", "namespace", ns, "--wait=false"]).ok();
    }
    env.kubectl(&env.clusters[0], &["delete", "serviceaccount", SA, "-n", "default"]).ok();
}

/// Reads a watch's lines into `seen` until one is about `name`; `false` if none came `within`.
async fn read_until<S, B>(body: &mut S, seen: &mut String, name: &str, within: Duration) -> bool
where
    S: futures::Stream<Item = reqwest::Result<B>> + Unpin,
    B: AsRef<[u8]>,
{
    let deadline = tokio::time::Instant::now() + within;
    while !seen.lines().any(|l| line_names(l, name)) {
        match tokio::time::timeout_at(deadline, body.next()).await {
            Ok(Some(Ok(chunk))) => seen.push_str(&String::from_utf8_lossy(chunk.as_ref())),
            _ => return false,
        }
    }
    true
}

/// Whether a watch event line is about the object `name`.
fn line_names(line: &str, name: &str) -> bool {
    serde_json::from_str::<Value>(line).is_ok_and(|v| v["object"]["metadata"]["name"] == name)
}
