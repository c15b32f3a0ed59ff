//! `list -w`: a row for an object created after the watch started.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::harness::{Env, Server};

const WATCH_NS: &str = "mc-cli-watch";

#[test]
fn watch_prints_a_row_for_an_object_created_after_it_started() {
    let env = Env::get();
    let server = Server::shared();
    // An object of the test's own in every cluster, visible through the server before the watch
    // starts: the snapshot must then hold one row per cluster. (Another test stops and restarts a
    // cluster's API server; the server may still be reconnecting to it when this test begins.)
    for cluster in &env.clusters {
        env.kubectl_stdin(
            cluster,
            &["apply", "-f", "-"],
            Some(&format!(
                "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {WATCH_NS}}}\n---\n\
                 apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: early, namespace: {WATCH_NS}}}\n\
                 data: {{a: b}}\n"
            )),
        );
        let _ = std::process::Command::new(&env.kubectl)
            .arg("--kubeconfig")
            .arg(env.kubeconfig(cluster))
            .args(["delete", "configmap", "late", "-n", WATCH_NS, "--ignore-not-found"])
            .output();
    }
    let start = Instant::now();
    loop {
        let run = server.plugin(&["list", "configmaps", "-n", WATCH_NS]);
        let rows = run.rows();
        let early = rows.iter().filter(|r| r.get(1).map(String::as_str) == Some("early")).count();
        let late = rows.iter().filter(|r| r.get(1).map(String::as_str) == Some("late")).count();
        if run.code == Some(0) && early == env.clusters.len() && late == 0 {
            break;
        }
        let clusters = server.plugin(&["list", "clusters", "-o", "wide"]);
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "every cluster's early configmap and no late one through the server: {run:?}\n{clusters:?}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let mut child = server
        .plugin_command(&["list", "configmaps", "-n", WATCH_NS, "-w", "--output-watch-events"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // The snapshot (the early configmap of every cluster) comes first.
    let mut seen = Vec::new();
    let start = Instant::now();
    while seen.iter().filter(|l: &&String| l.contains(" early ")).count() < env.clusters.len() {
        assert!(start.elapsed() < Duration::from_secs(30), "no snapshot rows: {seen:?}");
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(500)) {
            seen.push(line);
        }
    }
    assert!(seen[0].starts_with("EVENT"), "{seen:?}");

    env.kubectl(&env.clusters[1], &["create", "configmap", "late", "-n", WATCH_NS, "--from-literal=a=b"]);
    let start = Instant::now();
    let row = loop {
        assert!(start.elapsed() < Duration::from_secs(30), "no row for the new configmap: {seen:?}");
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(500)) {
            if line.contains(" late ") {
                break line;
            }
            seen.push(line);
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    let cells = crate::harness::split_row(&row);
    assert!(cells[0] == "ADDED" || cells[0] == "MODIFIED", "{row}");
    assert_eq!(cells[1..4], [env.clusters[1].as_str(), "late", WATCH_NS], "{row}");
    env.kubectl(&env.clusters[1], &["delete", "configmap", "late", "-n", WATCH_NS]);
}
