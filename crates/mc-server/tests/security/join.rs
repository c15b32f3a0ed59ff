//! Uploaded kubeconfigs are data, never code or paths; the probe of a joined server echoes
//! nothing of what it said and holds no lock while it waits.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;

use crate::hostile::Hostile;
use crate::server::{McServer, Options};
use crate::testenv::TestEnv;

async fn join(server: &McServer, name: &str, kubeconfig: &str, extra: &str) -> (StatusCode, Value) {
    server.join(name, kubeconfig.as_bytes(), extra).await
}

fn kubeconfig(server: &str, user: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {{cluster: k, user: attacker}}\nclusters:\n- name: k\n  cluster:\n    server: {server}\n    insecure-skip-tls-verify: true\nusers:\n- name: attacker\n  user:\n{user}\n"
    )
}

fn scratch(env: &TestEnv, name: &str) -> PathBuf {
    let dir = env.dir.join("security").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn exec_and_auth_provider_commands_never_run() {
    let env = TestEnv::from_env();
    let server = McServer::start(&env, "sec-exec", Options::default()).await;
    let dir = scratch(&env, "exec");
    let hostile = Hostile::start(200, "{}");
    let target = format!("https://127.0.0.1:{}", hostile.port);
    let marker = dir.join("ran");
    let exec = format!(
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/sh\n      args: [\"-c\", \"touch {}; echo STOLEN-BY-EXEC\"]\n      interactiveMode: Never",
        marker.display()
    );
    let provider = format!(
        "    auth-provider:\n      name: gcp\n      config:\n        cmd-path: /bin/touch\n        cmd-args: {}\n        token-key: '{{.access_token}}'",
        marker.display()
    );
    let mut refused = 0;
    for (user, field) in
        [(exec, "users[attacker].user.exec"), (provider, "users[attacker].user.auth-provider")]
    {
        for extra in ["", "&insecure=true"] {
            let (status, body) = join(&server, "evil", &kubeconfig(&target, &user), extra).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
            let error = body["error"].as_str().unwrap();
            assert!(error.contains(field), "{error}");
            assert!(!error.contains("STOLEN"), "{error}");
            refused += 1;
        }
    }
    assert_eq!(refused, 4);
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!marker.exists(), "a command from the upload ran");
    assert_eq!(hostile.connections(), 0, "a refused upload reaches no server");
}

#[tokio::test]
async fn file_paths_are_never_read_nor_probed() {
    let env = TestEnv::from_env();
    let server = McServer::start(&env, "sec-files", Options::default()).await;
    let dir = scratch(&env, "files");
    let secret = dir.join("sa-token");
    std::fs::write(&secret, "FILE-CONTENT-MUST-NOT-LEAVE\n").unwrap();
    let hostile = Hostile::start(200, "{}");
    let target = format!("http://127.0.0.1:{}", hostile.port);
    let missing = dir.join("no-such-file");
    let cases = [
        (format!("    tokenFile: {}", secret.display()), "tokenFile"),
        (format!("    tokenFile: {}", missing.display()), "tokenFile"),
        ("    client-certificate: /etc/passwd\n    client-key-data: AAAA".to_string(), "client-certificate"),
        ("    client-key: /etc/shadow\n    client-certificate-data: AAAA".to_string(), "client-key"),
    ];
    let mut messages = Vec::new();
    for (user, field) in &cases {
        let (status, body) = join(&server, "evil", &kubeconfig(&target, user), "&insecure=true").await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        let error = body["error"].as_str().unwrap().to_string();
        assert!(error.contains(field), "{error}");
        messages.push(error);
    }
    // Whether the named file exists changes nothing in the answer.
    assert_eq!(messages[0], messages[1]);
    let ca = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {{cluster: k, user: u}}\nclusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:{}\n    certificate-authority: {}\nusers:\n- name: u\n  user:\n    token: abc\n",
        hostile.port,
        secret.display()
    );
    let (status, body) = join(&server, "evil", &ca, "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body["error"].as_str().unwrap().contains("certificate-authority"), "{body}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(hostile.connections(), 0);
    assert!(!hostile.received().contains("FILE-CONTENT"));
}

#[tokio::test]
async fn plain_http_needs_insecure_and_never_carries_credentials() {
    let env = TestEnv::from_env();
    let server = McServer::start(&env, "sec-http", Options::default()).await;
    let hostile = Hostile::start(404, r#"{"kind":"Status","code":404}"#);
    let target = format!("http://127.0.0.1:{}", hostile.port);
    let user = "    token: INLINE-TOKEN-MUST-NOT-TRAVEL\n    username: admin\n    password: INLINE-PASSWORD";
    let (status, body) = join(&server, "plain", &kubeconfig(&target, user), "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["error"].as_str().unwrap().contains("clusters[k].cluster.server"), "{body}");
    assert_eq!(hostile.connections(), 0);
    // With insecure=true the probe goes out, without any credential.
    let (status, body) = join(&server, "plain", &kubeconfig(&target, user), "&insecure=true").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "the fake server answers 404: {body}");
    let received = hostile.received();
    assert!(hostile.connections() > 0 && received.contains("GET /version"), "{received}");
    assert!(!received.contains("INLINE-TOKEN") && !received.contains("INLINE-PASSWORD"), "{received}");
    assert!(!received.to_ascii_lowercase().contains("authorization:"), "{received}");
}

#[tokio::test]
async fn remote_answers_are_classified_never_echoed() {
    let env = TestEnv::from_env();
    let server = McServer::start(&env, "sec-echo", Options::default()).await;
    let user = "    token: abc";
    let mut seen = 0;
    for (code, class) in
        [(401, "401"), (403, "403"), (500, "HTTP 500"), (200, "did not answer like"), (404, "HTTP 404")]
    {
        let body = format!(
            r#"{{"kind":"Status","apiVersion":"v1","status":"Failure","message":"REMOTE-BODY-{code}","reason":"Forbidden","code":{code}}}"#
        );
        let hostile = Hostile::start(code, &body);
        let target = format!("http://127.0.0.1:{}", hostile.port);
        let (status, answer) = join(&server, "echo", &kubeconfig(&target, user), "&insecure=true").await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(error.contains(class), "{code}: {error}");
        assert!(!error.contains("REMOTE-BODY"), "{code}: the remote body is echoed: {error}");
        seen += 1;
    }
    assert_eq!(seen, 5);
    // A server that takes the request and hangs up was reached: not "unreachable".
    let hostile = Hostile::hanging_up();
    let target = format!("http://127.0.0.1:{}", hostile.port);
    let (status, answer) = join(&server, "echo", &kubeconfig(&target, user), "&insecure=true").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    let error = answer["error"].as_str().unwrap();
    assert!(error.contains("closed the connection before a complete answer"), "{error}");
    assert!(hostile.received().contains("GET /version"), "{}", hostile.received());
    // And one where nothing listens is.
    let target = "http://127.0.0.1:1";
    let (status, answer) = join(&server, "echo", &kubeconfig(target, user), "&insecure=true").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    let error = answer["error"].as_str().unwrap();
    assert!(error.contains("127.0.0.1:1 is unreachable"), "{error}");
}

#[tokio::test]
async fn a_silent_server_holds_no_lock_and_a_real_cluster_still_joins() {
    let env = TestEnv::from_env();
    let server = McServer::start(&env, "sec-lock", Options::default()).await;
    // Accepted by the kernel, never answered.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let target = format!("https://127.0.0.1:{}", silent.local_addr().unwrap().port());
    let silent_kubeconfig = kubeconfig(&target, "    token: abc");
    let slow = join(&server, "silent", &silent_kubeconfig, "");
    tokio::pin!(slow);
    // While that probe waits, an unjoin is answered: the join lock is not held.
    tokio::select! {
        _ = &mut slow => panic!("the silent server's join ended before the unjoin was tried"),
        _ = tokio::time::sleep(Duration::from_millis(300)) => {}
    }
    let unjoin = server.unjoin("nobody");
    let unjoined = tokio::select! {
        (status, _) = unjoin => status,
        _ = &mut slow => panic!("the unjoin waited for the silent server's probe"),
    };
    assert_eq!(unjoined, StatusCode::NOT_FOUND);
    let (status, body) = slow.await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let error = body["error"].as_str().unwrap();
    assert!(error.contains("within 5s") || error.contains("unreachable"), "{error}");
    drop(silent);
    // Inline credentials of a real cluster still join, and leave.
    let real = std::fs::read_to_string(&env.clusters.last().unwrap().kubeconfig).unwrap();
    let (status, body) = join(&server, "sec-real", &real, "").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = server.unjoin("sec-real").await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn a_stored_kubeconfig_that_carries_a_command_is_refused_at_restore() {
    use k8s_openapi::api::core::v1::Secret;
    use kube::api::{Api, DeleteParams, PostParams};

    let env = TestEnv::from_env();
    let dir = scratch(&env, "restore");
    let hostile = Hostile::start(200, "{}");
    let marker = dir.join("ran");
    let exec = format!(
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/sh\n      args: [\"-c\", \"touch {}\"]\n      interactiveMode: Never",
        marker.display()
    );
    // A joined cluster's Secret written before uploads were checked, or edited by hand.
    let secret: Secret = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "mc-cluster-stored-evil", "namespace": "default",
                     "labels": {"mulitcluster.practice.com/joined-cluster": "stored-evil"}},
        "stringData": {"kubeconfig": kubeconfig(&format!("https://127.0.0.1:{}", hostile.port), &exec),
                       "context": "", "insecure": "false"}
    }))
    .unwrap();
    let secrets: Api<Secret> = Api::namespaced(env.client(&env.clusters[0]).await.unwrap(), "default");
    let _ = secrets.delete("mc-cluster-stored-evil", &DeleteParams::default()).await;
    secrets.create(&PostParams::default(), &secret).await.unwrap();

    let server = McServer::start(&env, "sec-restore", Options::default()).await;
    let (status, clusters) = server.get("/v1/clusters").await;
    assert_eq!(status, StatusCode::OK);
    let evil = clusters.as_array().unwrap().iter().find(|c| c["name"] == "stored-evil").cloned();
    secrets.delete("mc-cluster-stored-evil", &DeleteParams::default()).await.unwrap();
    let evil = evil.expect("the refused cluster is shown, not silently skipped");
    assert_eq!(evil["status"], "NotReady", "{evil}");
    assert!(evil["message"].as_str().unwrap_or_default().contains("exec"), "{evil}");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!marker.exists(), "a command from a stored kubeconfig ran");
    assert_eq!(hostile.connections(), 0, "a refused kubeconfig reaches no server");
}

/// A listener on 127.0.0.1 that answers every request with 200 and a body of `size` bytes,
/// written as it goes (never held whole), announced with Content-Length or sent chunked.
/// Returns its port; stops writing once the reader hangs up.
fn huge_answer(size: usize, chunked: bool) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                use std::io::{Read, Write};
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let framing = if chunked {
                    "Transfer-Encoding: chunked".to_string()
                } else {
                    format!("Content-Length: {size}")
                };
                let head = format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{framing}\r\n\r\n");
                if stream.write_all(head.as_bytes()).is_err() {
                    return;
                }
                let piece = vec![b' '; 64 * 1024];
                let mut sent = 0;
                while sent < size {
                    let n = piece.len().min(size - sent);
                    let written = if chunked {
                        stream
                            .write_all(format!("{n:x}\r\n").as_bytes())
                            .and_then(|()| stream.write_all(&piece[..n]))
                            .and_then(|()| stream.write_all(b"\r\n"))
                    } else {
                        stream.write_all(&piece[..n])
                    };
                    if written.is_err() {
                        return;
                    }
                    sent += n;
                }
                let _ = stream.write_all(if chunked { &b"0\r\n\r\n"[..] } else { &b""[..] });
            });
        }
    });
    port
}

/// The resident memory of a process, in KiB (`VmRSS` of `/proc/PID/status`).
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_200_mib_version_answer_is_refused_as_too_large_without_reading_it() {
    const HUGE: usize = 200 * 1024 * 1024;
    let env = TestEnv::from_env();
    let server = McServer::start(&env, "sec-huge", Options::default()).await;
    let pid = server.pid().unwrap();
    let user = "    token: abc";
    // A probe first, so that the memory of a probe's client is counted before the baseline.
    let small = Hostile::start(200, "{}");
    let (status, _) = join(
        &server,
        "huge",
        &kubeconfig(&format!("http://127.0.0.1:{}", small.port), user),
        "&insecure=true",
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    tokio::time::sleep(Duration::from_secs(1)).await;
    for chunked in [false, true] {
        let port = huge_answer(HUGE, chunked);
        let before = rss_kib(pid);
        // The highest RSS seen while the join runs, sampled every 10 ms.
        let (done_tx, mut done_rx) = tokio::sync::oneshot::channel::<()>();
        let sampler = tokio::spawn(async move {
            let mut peak = rss_kib(pid);
            while done_rx.try_recv().is_err() {
                peak = peak.max(rss_kib(pid));
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            peak.max(rss_kib(pid))
        });
        let target = format!("http://127.0.0.1:{port}");
        let (status, answer) = join(&server, "huge", &kubeconfig(&target, user), "&insecure=true").await;
        let _ = done_tx.send(());
        let peak = sampler.await.unwrap();
        let rise_mib = peak.saturating_sub(before) as f64 / 1024.0;
        eprintln!(
            "chunked={chunked}: RSS {before} KiB before, peak {peak} KiB during the join: +{rise_mib:.1} MiB"
        );
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(error.contains(&target) && error.contains("answer too large"), "{error}");
        assert!(!error.contains('\n') && error.len() < 300, "one short line: {error}");
        assert!(rise_mib <= 16.0, "chunked={chunked}: RSS rose by {rise_mib:.1} MiB");
    }
}
