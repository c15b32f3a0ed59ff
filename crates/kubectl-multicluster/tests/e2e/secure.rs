//! The plugin against a secured mc-server: HTTPS with the server's own CA, tokens, stale-cluster
//! warnings on stderr, `join --wait`, and no `apply` of an object read back redacted.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::{Env, eventually, free_port, plugin_command};

struct Killed(std::process::Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn run(config: &Path, args: &[&str]) -> (i32, String, String) {
    let out = plugin_command(config, args, &[]).stdin(Stdio::null()).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The namespace of this test's server in the master (Leases, joined clusters).
const SERVER_NS: &str = "mc-e2e-secure";

#[test]
fn the_plugin_speaks_https_with_the_servers_ca_and_shows_server_warnings() {
    let env = Env::get();
    let dir = env.dir.join("mc-cli").join("secure");
    let _ = std::fs::remove_dir_all(&dir);
    let (ca, cert, key) = crate::certs::issue(&dir.join("tls"), "e2e");
    let port = free_port();
    let log = std::fs::File::create(env.dir.join("logs").join("mc-server-cli-secure.log")).unwrap();
    // A namespace of its own in the master: the shared server follows the joins of its own
    // namespace, and must not pick up (and briefly sync) the cluster this test joins.
    env.kubectl_stdin(
        env.master(),
        &["apply", "-f", "-"],
        Some(&format!("apiVersion: v1\nkind: Namespace\nmetadata: {{name: {SERVER_NS}}}\n")),
    );
    // The test CA signs client certificates too: they identify their users.
    let shared = std::fs::read_to_string(env.dir.join("config.yaml")).unwrap();
    let server_config = dir.join("config.yaml");
    std::fs::write(&server_config, format!("{shared}\nauthentication:\n  clientCAFile: {}\n", ca.display()))
        .unwrap();
    let server = Command::new(&env.mc_server)
        .arg("--config")
        .arg(&server_config)
        .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--no-cli-config"])
        .args(["--namespace", SERVER_NS])
        .arg("--data-dir")
        .arg(&dir)
        .arg("--storage")
        .arg(format!("sqlite://{}", dir.join("mc.db").display()))
        .arg("--tls-cert-file")
        .arg(&cert)
        .arg("--tls-key-file")
        .arg(&key)
        .env_remove("MC_TOKEN")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let _server = Killed(server);
    let token_file = dir.join("token");
    eventually("the generated token", Duration::from_secs(30), || token_file.exists().then_some(()));
    let token = std::fs::read_to_string(&token_file).unwrap().trim().to_string();
    let config = dir.join("cli-config");
    let write = |extra: &str| {
        std::fs::write(
            &config,
            format!(
                "serverIP: https://127.0.0.1\nserverPort: {port}\nmasterClusterKubeConfigPath: {}\ntoken: {token}\n{extra}",
                env.kubeconfig(env.master()).display()
            ),
        )
        .unwrap()
    };
    write(&format!("certificateAuthority: {}\n", ca.display()));
    let rows = eventually("every cluster Synced over HTTPS", Duration::from_secs(120), || {
        let (code, stdout, _) = run(&config, &["list", "clusters"]);
        (code == 0 && stdout.lines().skip(1).filter(|l| l.contains("Synced")).count() == env.clusters.len())
            .then_some(stdout)
    });
    assert!(rows.starts_with("NAME"), "{rows}");

    // Without the CA: one line saying TLS verification failed and what to do.
    write("");
    let (code, _, stderr) = run(&config, &["list", "clusters"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("TLS verification") && stderr.contains("--certificate-authority"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    // The flag does what the config key does; an unreadable CA file is named.
    let ca_arg = ca.display().to_string();
    let (code, _, stderr) = run(&config, &["--certificate-authority", &ca_arg, "list", "clusters"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = run(&config, &["--certificate-authority", "/no/such/ca.crt", "list", "clusters"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("/no/such/ca.crt"), "{stderr}");
    let (code, _, stderr) = run(&config, &["--insecure-skip-tls-verify", "list", "clusters"]);
    assert_eq!(code, 0, "{stderr}");

    // A wrong token: 401, with how to give the right one.
    write(&format!("certificateAuthority: {}\n", ca.display()));
    let (code, _, stderr) =
        plugin_command(&config, &["list", "clusters"], &[("MC_TOKEN", "wrong-token-wrong-token")])
            .output()
            .map(|o| {
                (
                    o.status.code().unwrap_or(-1),
                    String::new(),
                    String::from_utf8_lossy(&o.stderr).into_owned(),
                )
            })
            .unwrap();
    assert_eq!(code, 1);
    assert!(stderr.contains("token"), "{stderr}");

    // The kubeconfig user's client certificate (--kubeconfig-user): the plugin reads as that
    // user, whom the master's RBAC lets read one namespace only.
    let (crt, crt_key) =
        crate::certs::client(&dir.join("tls"), "e2e", "cert-alice", "/CN=cert-alice/O=e2e-team");
    env.kubectl_stdin(
        env.master(),
        &["apply", "-f", "-"],
        Some(
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: mc-e2e-cert}\n---\n\
             apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cert-visible, namespace: mc-e2e-cert}\n---\n\
             apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\n\
             metadata: {name: cert-alice-view, namespace: mc-e2e-cert}\n\
             roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}\n\
             subjects: [{kind: Group, apiGroup: rbac.authorization.k8s.io, name: e2e-team}]\n",
        ),
    );
    let kubeconfig = dir.join("cert-kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {{cluster: m, user: alice}}\n\
             clusters:\n- name: m\n  cluster: {{server: \"https://127.0.0.1:6443\"}}\n\
             users:\n- name: alice\n  user: {{client-certificate: \"{}\", client-key: \"{}\"}}\n",
            crt.display(),
            crt_key.display()
        ),
    )
    .unwrap();
    let kube_env = [("KUBECONFIG", kubeconfig.to_str().unwrap())];
    let as_alice = |args: &[&str]| {
        let out =
            plugin_command(&config, &[&["--kubeconfig-user"], args].concat(), &kube_env).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let shown = eventually("the certificate's user reads its namespace", Duration::from_secs(60), || {
        let (code, stdout, _) = as_alice(&["list", "configmaps", "-n", "mc-e2e-cert"]);
        (code == 0 && stdout.contains("cert-visible")).then_some(stdout)
    });
    assert!(shown.contains(env.master()), "{shown}");
    let (code, _, stderr) = as_alice(&["list", "configmaps", "-n", "default"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("cert-alice") && stderr.contains("forbidden"), "{stderr}");

    // A cluster that goes down: the plugin prints the server's warning on stderr, as kubectl does.
    let down = env.clusters.last().unwrap().clone();
    let testenv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/testenv");
    let dir_arg = env.dir.display().to_string();
    assert!(
        Command::new(&testenv).args(["stop-apiserver", "--dir", &dir_arg, &down]).status().unwrap().success()
    );
    struct Restart(PathBuf, String, String);
    impl Drop for Restart {
        fn drop(&mut self) {
            let _ = Command::new(&self.0).args(["start", "--dir", &self.1, &self.2]).status();
        }
    }
    let restart = Restart(testenv, dir_arg, down.clone());
    let stderr = eventually("a Warning naming the cluster", Duration::from_secs(60), || {
        let (code, _, stderr) = run(&config, &["list", "namespaces", "-A"]);
        (code == 0 && stderr.contains(&format!("Warning: cluster {down} is NotReady since")))
            .then_some(stderr)
    });
    assert_eq!(stderr.lines().filter(|l| l.starts_with("Warning: ")).count(), 1, "{stderr}");
    drop(restart);

    // join --wait returns once the joined cluster is Synced.
    let joined = "secure-joined";
    let kubeconfig = env.kubeconfig(&env.clusters[1]).display().to_string();
    let start = Instant::now();
    let (code, stdout, stderr) =
        run(&config, &["join", joined, "--file", &kubeconfig, "--wait", "--timeout", "120s"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(&format!("cluster/{joined} synced:")), "{stdout}");
    eprintln!("join --wait took {:?}", start.elapsed());
    let (code, _, stderr) = run(&config, &["unjoin", joined]);
    assert_eq!(code, 0, "{stderr}");

    // An object read back redacted is not applied.
    let secret = dir.join("secret.yaml");
    std::fs::write(
        &secret,
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: read-back\n  namespace: default\n  annotations:\n    mulitcluster.practice.com/redacted: \"true\"\ndata:\n  password: PHJlZGFjdGVkPg==\n",
    )
    .unwrap();
    let (code, stdout, stderr) = run(&config, &["apply", "-f", &secret.display().to_string()]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stderr.contains("redacted") && stderr.contains("edit the original manifest"), "{stderr}");
    assert!(
        Command::new(&env.kubectl)
            .arg("--kubeconfig")
            .arg(env.kubeconfig(env.master()))
            .args(["get", "secret", "read-back", "-n", "default"])
            .output()
            .map(|o| !o.status.success())
            .unwrap(),
        "nothing was applied"
    );
}
