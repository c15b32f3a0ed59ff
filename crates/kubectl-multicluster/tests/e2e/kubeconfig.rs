//! A new user's first steps: mc-server started with nothing but its cluster list, then
//! `kubectl multicluster kubeconfig` and plain kubectl through it — over the HTTPS the server
//! set up itself, with no other step.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::harness::{Env, NS, eventually, free_port, plugin_command, workloads};

struct Killed(std::process::Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The namespace of this test's server in the master (Leases, joined clusters), apart from the
/// shared server's.
const SERVER_NS: &str = "mc-e2e-newcomer";

#[test]
fn plain_kubectl_reads_every_cluster_through_a_default_server_with_the_plugins_kubeconfig() {
    let env = Env::get();
    workloads();
    let dir = env.dir.join("mc-cli").join("newcomer");
    let _ = std::fs::remove_dir_all(&dir);
    let (home, data) = (dir.join("home"), dir.join("data"));
    std::fs::create_dir_all(&home).unwrap();
    env.kubectl_stdin(
        env.master(),
        &["apply", "-f", "-"],
        Some(&format!("apiVersion: v1\nkind: Namespace\nmetadata: {{name: {SERVER_NS}}}\n")),
    );
    let port = free_port();
    let log = std::fs::File::create(env.dir.join("logs").join("mc-server-cli-newcomer.log")).unwrap();
    // No token, no certificate, no CLI config: the server makes all three at its first start.
    let server = Command::new(&env.mc_server)
        .arg("--config")
        .arg(env.dir.join("config.yaml"))
        .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--namespace", SERVER_NS])
        .arg("--data-dir")
        .arg(&data)
        .arg("--storage")
        .arg(format!("sqlite://{}", data.join("mc.db").display()))
        .env("HOME", &home)
        .env_remove("MC_TOKEN")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let _server = Killed(server);
    let cli_config = home.join(".multi-cluster-operator").join("config");
    eventually("the CLI config the server writes", Duration::from_secs(60), || {
        cli_config.exists().then_some(())
    });
    let written = std::fs::read_to_string(&cli_config).unwrap();
    assert!(written.contains("serverIP: https://127.0.0.1"), "{written}");
    assert!(
        written.contains(&format!("certificateAuthority: {}", data.join("tls/ca.crt").display())),
        "{written}"
    );

    // The plugin's own view: every cluster synced, over HTTPS with the server's CA.
    let plugin = |args: &[&str]| {
        plugin_command(&cli_config, args, &[("HOME", home.to_str().unwrap())]).output().unwrap()
    };
    eventually("every cluster Synced", Duration::from_secs(120), || {
        let out = plugin(&["list", "clusters"]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (out.status.success()
            && text.lines().skip(1).filter(|l| l.contains("Synced")).count() == env.clusters.len())
        .then_some(())
    });

    // kubectl multicluster kubeconfig > mc.kubeconfig
    let out = plugin(&["kubeconfig"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("Warning"), "no plain-http warning: {stderr}");
    let kubeconfig = dir.join("mc.kubeconfig");
    std::fs::write(&kubeconfig, &out.stdout).unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("certificate-authority-data:"), "{text}");
    assert!(!text.contains("insecure-skip-tls-verify"), "{text}");

    // kubectl --kubeconfig mc.kubeconfig --context multicluster get pods -A
    let kubectl = |args: &[&str]| {
        Command::new(&env.kubectl)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(["--cache-dir", &dir.join("kube-cache").display().to_string()])
            .args(args)
            .output()
            .unwrap()
    };
    let table = eventually("the workloads' pods through plain kubectl", Duration::from_secs(60), || {
        let out = kubectl(&["--context", "multicluster", "get", "pods", "-A"]);
        assert!(
            out.status.success(),
            "plain kubectl through mc-server: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let table = String::from_utf8(out.stdout).unwrap();
        let clusters: Vec<&str> = table
            .lines()
            .filter(|l| l.starts_with(NS) && l.contains(" web-"))
            .filter_map(|l| l.split_whitespace().nth(2))
            .collect();
        env.clusters.iter().all(|c| clusters.contains(&c.as_str())).then_some(table)
    });
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(&header[..3], ["NAMESPACE", "NAME", "CLUSTER"], "{table}");

    // One cluster through its own context: kubectl's own table of that cluster's pods.
    let one = &env.clusters[1];
    let out =
        kubectl(&["--context", &format!("multicluster-{one}"), "get", "pods", "-n", NS, "--no-headers"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = String::from_utf8(out.stdout).unwrap();
    assert_eq!(rows.lines().filter(|l| l.starts_with("web-")).count(), 2, "{rows}");

    // kubectl get all: the category all comes with the served discovery.
    let out = kubectl(&["--context", &format!("multicluster-{one}"), "get", "all", "-n", NS]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let all = String::from_utf8(out.stdout).unwrap();
    for name in ["pod/web-", "deployment.apps/web", "replicaset.apps/web-"] {
        assert!(all.lines().any(|l| l.starts_with(name)), "{name} in {all}");
    }
}
