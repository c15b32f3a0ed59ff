//! k9s browses every cluster through mc-server: the real k9s (built by `scripts/testenv build`)
//! runs in a tmux session of its own, with the kubeconfig `kubectl multicluster kubeconfig`
//! prints, and the test reads its screen.
//!
//! Skipped, saying why, only when tmux or the k9s binary is missing: `scripts/test.sh` provides
//! both.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::kube_api::start_https;
use crate::server::TEST_TOKEN;
use crate::testenv::{TestEnv, bin_path, eventually};

/// The namespace of the test's Deployments: not the context's (`default`), so that they show
/// only once k9s lists every namespace.
const NAMESPACE: &str = "mc-k9s";

/// The test's Deployment in `cluster`: a name of its own per cluster.
fn deployment(cluster: &str) -> String {
    format!("k9s-web-{cluster}")
}

/// A tmux server of the test's own (its own socket), killed on drop and its socket removed: the
/// user's tmux and other tests' are never touched.
struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    /// Runs `command` in a detached 200×50 session named `k9s`.
    fn start(command: &str) -> Tmux {
        let socket = std::env::temp_dir().join(format!("mc-k9s-test-{}.tmux", std::process::id()));
        let tmux = Tmux { socket };
        let size = ["-x", "200", "-y", "50"];
        let status = tmux.command().args(["new-session", "-d", "-s", "k9s"]).args(size).arg(command).status();
        assert!(status.unwrap().success(), "tmux new-session failed");
        tmux
    }

    fn command(&self) -> Command {
        let mut c = Command::new("tmux");
        c.arg("-S").arg(&self.socket);
        c
    }

    /// Types `keys` (tmux key names: `Enter`, `Escape`, or text).
    fn send(&self, keys: &[&str]) {
        let status = self.command().args(["send-keys", "-t", "k9s"]).args(keys).status().unwrap();
        assert!(status.success(), "tmux send-keys {keys:?} failed");
    }

    /// What the screen shows now.
    fn screen(&self) -> String {
        let out = self.command().args(["capture-pane", "-p", "-t", "k9s"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Reads the screen until `done` holds for it; panics with the screen (and k9s's log) when
    /// it does not within `timeout`.
    fn wait_for(&self, what: &str, timeout: Duration, log: &Path, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            if start.elapsed() > timeout {
                let log = std::fs::read_to_string(log).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(30).collect();
                panic!(
                    "k9s did not show {what} within {timeout:?}; its screen:\n{screen}\nthe end of its log:\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command().arg("kill-server").status();
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// Whether `program` runs (`version`-like `args` succeed).
fn runs(program: &Path, args: &[&str]) -> bool {
    Command::new(program).args(args).output().is_ok_and(|o| o.status.success())
}

/// The plugin binary, built next to mc-server (`cargo build --workspace`, as scripts/test.sh
/// does, builds both).
pub(crate) fn plugin_path() -> PathBuf {
    let plugin = Path::new(env!("CARGO_BIN_EXE_mc-server")).with_file_name("kubectl-multicluster");
    assert!(
        plugin.exists(),
        "{} is missing: build it with `cargo build -p kubectl-multicluster` (scripts/test.sh builds every binary)",
        plugin.display()
    );
    plugin
}

/// The kubeconfig `kubectl multicluster kubeconfig` prints for this server, written to `file`.
pub(crate) fn plugin_kubeconfig(url: &str, ca: &Path, token: &str, file: &Path) {
    let out = Command::new(plugin_path())
        .args(["--server", url, "--token", token, "--certificate-authority"])
        .arg(ca)
        .arg("kubeconfig")
        // Not the user's plugin config.
        .env("KUBECTL_MULTICLUSTER_CONFIG", file.with_extension("plugin-config"))
        .env_remove("MC_SERVER")
        .env_remove("MC_TOKEN")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kubectl multicluster kubeconfig: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(file, &out.stdout).unwrap();
}

/// k9s's settings in a directory of the test's: no look for a newer k9s (no network beyond
/// loopback), no splash, and the Deployment view with a CLUSTER column read from the
/// annotation (k9s renders Deployments itself; the server's Table columns show for types it
/// has no renderer for).
fn k9s_config(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("config.yaml"),
        "k9s:\n  skipLatestRevCheck: true\n  ui:\n    logoless: true\n    splashless: true\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("views.yaml"),
        "views:\n  apps/v1/deployments:\n    columns:\n      - NAMESPACE\n      - NAME\n      \
         - CLUSTER:.metadata.annotations.mulitcluster\\.practice\\.com/cluster\n      - READY\n      - AGE\n",
    )
    .unwrap();
}

/// The row of a screen that shows `name` with `cluster` as a cell of its own.
fn row_of<'a>(screen: &'a str, name: &str, cluster: &str) -> Option<&'a str> {
    screen.lines().find(|l| {
        let cells: Vec<&str> = l.split(['│', ' ']).filter(|c| !c.is_empty()).collect();
        cells.contains(&name) && cells.contains(&cluster)
    })
}

#[tokio::test]
async fn k9s_lists_the_deployments_of_every_cluster_with_their_cluster() {
    let k9s = bin_path("k9s").unwrap();
    if !runs(Path::new("tmux"), &["-V"]) || !runs(&k9s, &["version", "-s"]) {
        eprintln!(
            "skipped: needs tmux and {} (scripts/test.sh installs tmux and builds k9s with `scripts/testenv build`)",
            k9s.display()
        );
        return;
    }
    let env = TestEnv::from_env();
    let manifest = |cluster: &str| {
        format!(
            "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {NAMESPACE}}}\n---\n\
             apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {}, namespace: {NAMESPACE}}}\n\
             spec:\n  replicas: 1\n  selector: {{matchLabels: {{app: k9s}}}}\n  template:\n    \
             metadata: {{labels: {{app: k9s}}}}\n    spec: {{containers: [{{name: c, image: registry.invalid/none}}]}}\n",
            deployment(cluster)
        )
    };
    for c in &env.clusters {
        let file = env.dir.join(format!("k9s-{}.yaml", c.name));
        std::fs::write(&file, manifest(&c.name)).unwrap();
        env.kubectl(c, &["apply", "-f", &file.display().to_string()]).unwrap();
    }
    let (server, url, ca, _) = start_https(&env, "k9s").await;
    eventually("the Deployments synced", Duration::from_secs(60), || async {
        let (_, list) = server.get(&format!("/v1/list?gvr=deployments&namespace={NAMESPACE}&limit=0")).await;
        (list.as_array()?.len() == env.clusters.len()).then_some(())
    })
    .await;

    let home = env.dir.join("k9s-home");
    let _ = std::fs::remove_dir_all(&home);
    k9s_config(&home.join("config"));
    let kubeconfig = home.join("kubeconfig");
    plugin_kubeconfig(&url, &ca, TEST_TOKEN, &kubeconfig);
    let log = home.join("k9s.log");
    let xdg = |name: &str| format!("{name}={}", home.join(name.to_lowercase()).display());
    let command = format!(
        "env K9S_CONFIG_DIR='{}' {} {} {} {} TERM=xterm-256color '{}' --kubeconfig '{}' --readonly \
         --logLevel debug --logFile '{}'; echo \"k9s exited with $?\"; sleep 600",
        home.join("config").display(),
        xdg("XDG_CONFIG_HOME"),
        xdg("XDG_DATA_HOME"),
        xdg("XDG_STATE_HOME"),
        xdg("XDG_CACHE_HOME"),
        k9s.display(),
        kubeconfig.display(),
        log.display(),
    );
    let tmux = Tmux::start(&command);
    let connected =
        tmux.wait_for("its header with mc-server's version", Duration::from_secs(60), &log, |s| {
            s.contains("K8s Rev: v1.35") && s.contains("+mc-server")
        });
    assert!(connected.contains("Context: multicluster"), "{connected}");

    tmux.send(&[":"]);
    tmux.send(&["deploy", "Enter"]);
    tmux.wait_for("the Deployment view", Duration::from_secs(30), &log, |s| s.contains("deployments("));
    // Every namespace (the `0` favorite), then each cluster's Deployment with its cluster.
    tmux.send(&["0"]);
    let screen = tmux.wait_for("every cluster's Deployment", Duration::from_secs(60), &log, |s| {
        env.clusters.iter().all(|c| row_of(s, &deployment(&c.name), &c.name).is_some())
    });
    assert!(screen.contains("CLUSTER"), "{screen}");
    assert!(screen.contains("deployments(all)"), "{screen}");

    // A type k9s has no renderer for shows the server's Table, CLUSTER column included: the
    // MultiCluster objects, which live in the master.
    tmux.send(&[":"]);
    tmux.send(&["multiclusters", "Enter"]);
    let master = &env.clusters[0].name;
    tmux.wait_for("the MultiClusters with the server's CLUSTER column", Duration::from_secs(30), &log, |s| {
        s.lines().any(|l| l.contains("NAME") && l.contains("CLUSTER") && l.contains("ISMASTER"))
            && env.clusters.iter().all(|c| row_of(s, &c.name, master).is_some())
    });
    drop(tmux);
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!log.contains("Unable to fetch server version"), "{log}");
    for c in &env.clusters {
        env.kubectl(c, &["delete", "namespace", NAMESPACE, "--wait=false"]).ok();
    }
}
