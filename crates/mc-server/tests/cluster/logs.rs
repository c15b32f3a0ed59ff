//! `kubectl logs` through mc-server against real clusters, whose kwok pods serve their logs
//! from files (a kwok `Logs` object per pod, see `scripts/testenv`): what kubectl prints equals
//! what the member prints, followed lines arrive, a cluster that goes away ends the stream with
//! our line, exec is refused with the command for the member, and `pods/log` rights are the
//! member's.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use futures::StreamExt;

use crate::kube_api::{kubeconfig, kubeconfig_with_token, kubectl, start_https};
use crate::server::McServer;
use crate::testenv::{TestEnv, eventually, kubectl_path};

/// A log line in the CRI format kwok reads (`<time> stdout F <text>`), second `i` of a fixed day.
fn cri(i: usize, text: &str) -> String {
    format!("2026-01-01T00:{:02}:{:02}.000000000Z stdout F {text}\n", i / 60, i % 60)
}

/// Namespace `ns` in cluster `idx` with a Deployment `web` of one pod (containers `app` and
/// `side`), each container's log served from a file of its own; returns the pod's name and
/// the two files.
async fn web(env: &TestEnv, idx: usize, ns: &str) -> (String, PathBuf, PathBuf) {
    let cluster = &env.clusters[idx];
    let dir = env.dir.join("logs-test").join(ns);
    std::fs::create_dir_all(&dir).unwrap();
    let (app, side) = (dir.join("app.log"), dir.join("side.log"));
    let lines: String = (0..5).map(|i| cri(i, &format!("app line {i}"))).collect();
    std::fs::write(&app, lines).unwrap();
    std::fs::write(&side, cri(0, "side line 0") + &cri(1, "side line 1")).unwrap();
    env.kubectl(cluster, &["delete", "namespace", ns, "--ignore-not-found", "--wait=true"]).unwrap();
    apply(
        env,
        idx,
        &format!(
            "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {ns}}}\n---\n\
             apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: {ns}}}\n\
             spec:\n  replicas: 1\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    \
             metadata: {{labels: {{app: web}}}}\n    spec:\n      containers:\n      \
             - {{name: app, image: registry.invalid/app}}\n      - {{name: side, image: registry.invalid/side}}\n"
        ),
    );
    let pod = eventually("the web pod running", Duration::from_secs(60), || async {
        let out = env
            .kubectl(
                cluster,
                &[
                    "get",
                    "pods",
                    "-n",
                    ns,
                    "-l",
                    "app=web",
                    "-o",
                    "jsonpath={.items[0].metadata.name} {.items[0].status.phase}",
                ],
            )
            .ok()?;
        let (name, phase) = out.trim().split_once(' ')?;
        (phase == "Running").then(|| name.to_string())
    })
    .await;
    apply(
        env,
        idx,
        &format!(
            "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Logs\nmetadata: {{name: {pod}, namespace: {ns}}}\n\
             spec:\n  logs:\n  - {{containers: [app], logsFile: \"{}\", follow: true}}\n  \
             - {{containers: [side], logsFile: \"{}\", follow: true}}\n",
            app.display(),
            side.display()
        ),
    );
    // kwok reads its Logs objects through a watch: served once the member shows the file.
    let start = Instant::now();
    while !env
        .kubectl(cluster, &["logs", "-n", ns, &pod, "-c", "app"])
        .unwrap_or_default()
        .contains("app line 4")
    {
        assert!(start.elapsed() < Duration::from_secs(30), "kwok never served {}", app.display());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    (pod, app, side)
}

fn apply(env: &TestEnv, idx: usize, yaml: &str) {
    let file = env.dir.join(format!("logs-{idx}-{:x}.yaml", xxhash(yaml)));
    std::fs::write(&file, yaml).unwrap();
    env.kubectl(&env.clusters[idx], &["apply", "-f", &file.display().to_string()]).unwrap();
}

fn xxhash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// Waits until mc-server has synced the pod.
async fn synced(server: &McServer, ns: &str, pod: &str) {
    eventually("the pod synced", Duration::from_secs(60), || async {
        let (status, _) = server.get(&format!("/api/v1/namespaces/{ns}/pods/{pod}")).await;
        status.is_success().then_some(())
    })
    .await;
}

/// The lines of `text`, sorted (a container's lines sort in their order: they are numbered).
fn sorted_lines(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines.join("\n")
}

#[tokio::test]
async fn kubectl_logs_through_mc_server_prints_what_the_member_prints() {
    let env = TestEnv::from_env();
    let (ns, member) = ("logs-same", &env.clusters[1]);
    let (pod, _, _) = web(&env, 1, ns).await;
    let (server, url, ca, https) = start_https(&env, "logs-same").await;
    synced(&server, ns, &pod).await;
    let all = kubeconfig(&env, &url, &ca, "logs-all", "");
    let one = kubeconfig(&env, &url, &ca, "logs-one", &format!("/clusters/{}", member.name));
    for args in [
        vec!["logs", "deploy/web", "-n", ns],
        vec!["logs", "deploy/web", "-n", ns, "-c", "app", "--tail", "2"],
        vec!["logs", "deploy/web", "-n", ns, "-c", "side", "--timestamps"],
        vec!["logs", &pod, "-n", ns, "-c", "app", "--since-time", "2026-01-01T00:00:03Z", "--timestamps"],
        vec!["logs", &pod, "-n", ns, "--all-containers", "--prefix"],
        vec!["logs", &pod, "-n", ns, "-c", "app", "--limit-bytes", "20"],
    ] {
        let want = env.kubectl(member, &args).unwrap();
        assert!(!want.is_empty(), "{args:?}");
        for kc in [&all, &one] {
            let out = kubectl(kc, &args);
            assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
            let got = String::from_utf8_lossy(&out.stdout).into_owned();
            // kubectl reads every container at once with --all-containers: which comes first
            // differs from run to run, also straight from the member; each one's lines keep
            // their order.
            let (got, want) = if args.contains(&"--all-containers") {
                (sorted_lines(&got), sorted_lines(&want))
            } else {
                (got, want.clone())
            };
            assert_eq!(got, want, "{args:?} through {}", kc.display());
        }
    }
    // A container the pod does not have (kubectl checks that itself): the member's 400, said
    // in our words.
    let resp = https
        .get(format!("{url}/api/v1/namespaces/{ns}/pods/{pod}/log?container=nope"))
        .bearer_auth(crate::server::TEST_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), reqwest::StatusCode::BAD_REQUEST);
    let status: serde_json::Value = resp.json().await.unwrap();
    let message = status["message"].as_str().unwrap();
    assert!(message.contains("container \"nope\" of pod"), "{status}");
    // exec is refused, with the command for the member.
    let out = kubectl(&all, &["exec", "-n", ns, &pod, "-c", "app", "--", "ls"]);
    let err = String::from_utf8_lossy(&out.stderr);
    let wanted = format!("kubectl --context {} exec -n {ns} {pod} -- COMMAND", member.name);
    assert!(!out.status.success() && err.contains(&wanted), "{err}");
    env.kubectl(member, &["delete", "namespace", ns, "--wait=false"]).ok();
}

#[tokio::test]
async fn kubectl_logs_follow_through_mc_server_gets_a_new_line_within_2s() {
    let env = TestEnv::from_env();
    let ns = "logs-follow";
    let (pod, app, _) = web(&env, 1, ns).await;
    let (server, url, ca, _) = start_https(&env, "logs-follow").await;
    synced(&server, ns, &pod).await;
    let all = kubeconfig(&env, &url, &ca, "logs-follow", "");
    let mut child = Command::new(kubectl_path().unwrap())
        .args(["--kubeconfig", &all.display().to_string(), "logs", "-f", "-n", ns, &pod, "-c", "app"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send((line, Instant::now())).is_err() {
                break;
            }
        }
    });
    for i in 0..5 {
        let (line, _) = rx.recv_timeout(Duration::from_secs(20)).expect("the lines already there");
        assert_eq!(line, format!("app line {i}"));
    }
    let appended = Instant::now();
    let mut file = std::fs::OpenOptions::new().append(true).open(&app).unwrap();
    file.write_all(cri(5, "appended while followed").as_bytes()).unwrap();
    drop(file);
    let (line, at) = rx.recv_timeout(Duration::from_secs(2)).expect("the appended line within 2 s");
    assert_eq!(line, "appended while followed");
    eprintln!("the appended line arrived after {:?}", at - appended);
    assert!(at - appended < Duration::from_secs(2));
    child.kill().ok();
    child.wait().ok();
    env.kubectl(&env.clusters[1], &["delete", "namespace", ns, "--wait=false"]).ok();
}

#[tokio::test]
async fn a_log_stream_whose_cluster_goes_away_ends_with_our_line() {
    let env = TestEnv::from_env();
    let ns = "logs-away";
    let idx = env.clusters.len() - 1;
    let down = env.clusters[idx].name.clone();
    let (pod, _, _) = web(&env, idx, ns).await;
    let (server, url, _, https) = start_https(&env, "logs-away").await;
    synced(&server, ns, &pod).await;
    let resp = https
        .get(format!("{url}/clusters/{down}/api/v1/namespaces/{ns}/pods/{pod}/log?follow=true&container=app"))
        .bearer_auth(crate::server::TEST_TOKEN)
        .send()
        .await
        .unwrap();
    assert!(resp.status().is_success(), "{}", resp.status());
    let mut body = Box::pin(resp.bytes_stream());
    let mut seen = String::new();
    while !seen.contains("app line 4") {
        let chunk = tokio::time::timeout(Duration::from_secs(20), body.next()).await.unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk.unwrap().unwrap()));
    }
    let dir = env.dir.display().to_string();
    crate::testenv::testenv_command(&["stop-apiserver", "--dir", &dir, &down]).unwrap();
    let restore = crate::sync::Restore(&env, down.clone());
    let ended = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(chunk) = body.next().await {
            match chunk {
                Ok(bytes) => seen.push_str(&String::from_utf8_lossy(&bytes)),
                Err(e) => panic!("the answer broke instead of ending: {e}; {seen}"),
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the stream hangs: {seen}");
    let last = seen.lines().last().unwrap_or_default();
    assert!(last.starts_with(&format!("mc-server: the log stream from cluster {down} ended: ")), "{seen}");
    drop(restore);
    env.kubectl(&env.clusters[idx], &["delete", "namespace", ns, "--wait=false"]).ok();
}

#[tokio::test]
async fn an_identity_without_pods_log_rights_gets_403() {
    const SA: &str = "mc-logs-reader";
    const USER: &str = "system:serviceaccount:default:mc-logs-reader";
    let env = TestEnv::from_env();
    let ns = "logs-rights";
    let (pod, _, _) = web(&env, 1, ns).await;
    // The ServiceAccount lives in the master (whose TokenReview names it); the member binds
    // its user to pods, not pods/log.
    env.kubectl(&env.clusters[0], &["create", "serviceaccount", SA, "-n", "default"]).ok();
    let token = env.kubectl(&env.clusters[0], &["create", "token", SA, "-n", "default"]).unwrap();
    apply(
        &env,
        1,
        &format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {{name: pods, namespace: {ns}}}\n\
             rules: [{{apiGroups: [\"\"], resources: [pods], verbs: [get, list]}}]\n---\n\
             apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: pods, namespace: {ns}}}\n\
             roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: pods}}\n\
             subjects: [{{kind: User, apiGroup: rbac.authorization.k8s.io, name: \"{USER}\"}}]\n"
        ),
    );
    let (server, url, ca, _) = start_https(&env, "logs-rights").await;
    synced(&server, ns, &pod).await;
    let reader = kubeconfig_with_token(&env, &url, &ca, "logs-reader", token.trim());
    let out = eventually("the binding synced", Duration::from_secs(30), || async {
        let out = kubectl(&reader, &["logs", &pod, "-n", ns, "-c", "app"]);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        err.contains("is forbidden").then_some(out)
    })
    .await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "pods \"{pod}\" is forbidden: User \"{USER}\" cannot get resource \"pods/log\" in API group \"\" in the namespace \"{ns}\""
        )),
        "{err}"
    );
    env.kubectl(&env.clusters[1], &["delete", "namespace", ns, "--wait=false"]).ok();
    env.kubectl(&env.clusters[0], &["delete", "serviceaccount", SA, "-n", "default"]).ok();
}
