//! The test environment: clusters from `MC_TESTENV_DIR`, the real kubectl, a real mc-server, and
//! `kubectl multicluster` run through kubectl's plugin mechanism.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Namespace of the workloads these tests create.
pub const NS: &str = "mc-cli-e2e";

/// The clusters and tools.
pub struct Env {
    pub dir: PathBuf,
    /// Cluster names, the master first.
    pub clusters: Vec<String>,
    pub kubectl: PathBuf,
    pub mc_server: PathBuf,
    /// Directory holding the built `kubectl-multicluster`.
    pub plugin_dir: PathBuf,
}

impl Env {
    /// The environment, read once; a missing `MC_TESTENV_DIR` is a failure, never a skip.
    pub fn get() -> &'static Env {
        static ENV: OnceLock<Env> = OnceLock::new();
        ENV.get_or_init(|| {
            let dir = std::env::var_os("MC_TESTENV_DIR").map(PathBuf::from).unwrap_or_else(|| {
                panic!(
                    "MC_TESTENV_DIR is not set: these tests need real clusters. Run scripts/test.sh, or \
                     `scripts/testenv up --clusters 3 --names tencent1,tencent2,tencent4 --dir DIR` and export MC_TESTENV_DIR=DIR"
                )
            });
            let list = std::fs::read_to_string(dir.join("clusters")).unwrap_or_else(|e| {
                panic!("MC_TESTENV_DIR={}: no clusters file ({e}): is `scripts/testenv up` done?", dir.display())
            });
            let clusters: Vec<String> =
                list.lines().filter_map(|l| l.split_whitespace().nth(1)).map(str::to_owned).collect();
            assert!(clusters.len() >= 3, "these tests want 3 clusters, {} has {}", dir.display(), clusters.len());
            let plugin = PathBuf::from(env!("CARGO_BIN_EXE_kubectl-multicluster"));
            Env {
                kubectl: kubectl_path(),
                mc_server: mc_server_path(),
                plugin_dir: plugin.parent().unwrap().to_owned(),
                clusters,
                dir,
            }
        })
    }

    pub fn kubeconfig(&self, cluster: &str) -> PathBuf {
        self.dir.join(format!("{cluster}.kubeconfig"))
    }

    pub fn master(&self) -> &str {
        &self.clusters[0]
    }

    /// The real kubectl against one cluster; panics on failure.
    pub fn kubectl(&self, cluster: &str, args: &[&str]) -> String {
        self.kubectl_stdin(cluster, args, None)
    }

    /// Same, with standard input.
    pub fn kubectl_stdin(&self, cluster: &str, args: &[&str], stdin: Option<&str>) -> String {
        let mut child = Command::new(&self.kubectl)
            .arg("--kubeconfig")
            .arg(self.kubeconfig(cluster))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if let Some(text) = stdin {
            child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        }
        drop(child.stdin.take());
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "kubectl {args:?} on {cluster}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

/// The kubectl of `scripts/testenv build` (`MC_TESTENV_BIN`, else asks the script).
fn kubectl_path() -> PathBuf {
    if let Some(bin) = std::env::var_os("MC_TESTENV_BIN") {
        return PathBuf::from(bin).join("kubectl");
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/testenv");
    let out = Command::new(script).arg("bin").output().expect("running scripts/testenv bin");
    let path = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()).join("kubectl");
    assert!(path.exists(), "no kubectl at {}: run scripts/testenv build", path.display());
    path
}

/// `MC_SERVER_BIN`, else the `mc-server` built next to this test (`target/debug/mc-server`).
fn mc_server_path() -> PathBuf {
    if let Some(bin) = std::env::var_os("MC_SERVER_BIN") {
        return PathBuf::from(bin);
    }
    let exe = std::env::current_exe().unwrap();
    // target/debug/deps/e2e-HASH → target/debug/mc-server
    let path = exe.parent().and_then(Path::parent).unwrap().join("mc-server");
    assert!(
        path.exists(),
        "no mc-server binary at {}: run `cargo build -p mc-server` first (or set MC_SERVER_BIN)",
        path.display()
    );
    path
}

/// Polls `check` every 300 ms until it returns `Some`, or panics after `timeout`.
pub fn eventually<T>(what: &str, timeout: Duration, mut check: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(start.elapsed() < timeout, "timed out after {timeout:?} waiting for {what}");
        std::thread::sleep(Duration::from_millis(300));
    }
}

pub use crate::ports::free_port;

/// A running mc-server and a CLI config that points at it.
pub struct Server {
    child: Option<Child>,
    pub port: u16,
    pub log: PathBuf,
    /// The `~/.multi-cluster-operator/config` for this server.
    pub cli_config: PathBuf,
    /// The CA the server made for its HTTPS (`<data-dir>/tls/ca.crt`).
    pub ca: PathBuf,
}

impl Server {
    /// Starts a server on the testenv's config with a fresh SQLite store and waits for /readyz.
    pub fn start(name: &str) -> Server {
        let env = Env::get();
        let port = free_port();
        let data = env.dir.join("mc-cli").join(name);
        let _ = std::fs::remove_dir_all(&data);
        std::fs::create_dir_all(&data).unwrap();
        std::fs::create_dir_all(env.dir.join("logs")).unwrap();
        let log = env.dir.join("logs").join(format!("mc-server-cli-{name}.log"));
        let log_file = std::fs::File::create(&log).unwrap();
        let child = Command::new(&env.mc_server)
            .arg("--config")
            .arg(env.dir.join("config.yaml"))
            .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--no-cli-config"])
            // No token and no certificate given: the server generates a token and a CA into the
            // data directory, as at a first start, and the CLI config below carries them.
            .arg("--data-dir")
            .arg(&data)
            .env_remove("MC_TOKEN")
            .arg("--storage")
            .arg(format!("sqlite://{}", data.join("mc.db").display()))
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .expect("starting mc-server");
        let ca = data.join("tls").join("ca.crt");
        let mut server = Server { child: Some(child), port, log, cli_config: data.join("cli-config"), ca };
        server.wait_ready(Duration::from_secs(120));
        let token = std::fs::read_to_string(data.join("token")).expect("the server's generated token");
        let text = format!(
            "serverIP: https://127.0.0.1\nserverPort: {port}\nmasterClusterKubeConfigPath: {}\ntoken: {}\n\
             certificateAuthority: {}\n",
            env.kubeconfig(env.master()).display(),
            token.trim(),
            server.ca.display()
        );
        std::fs::write(&server.cli_config, text).unwrap();
        server
    }

    /// One server for every test of this binary, stopped by a watchdog when the tests end
    /// (statics are never dropped).
    pub fn shared() -> &'static Server {
        static SHARED: OnceLock<Server> = OnceLock::new();
        SHARED.get_or_init(|| {
            let server = Server::start("shared");
            let pid = server.child.as_ref().unwrap().id();
            let script =
                format!("while kill -0 {} 2>/dev/null; do sleep 1; done; kill {pid}", std::process::id());
            let mut watchdog = Command::new("sh")
                .args(["-c", &script])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            std::thread::spawn(move || watchdog.wait());
            server
        })
    }

    fn wait_ready(&mut self, timeout: Duration) {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.as_mut().unwrap().try_wait() {
                panic!("mc-server exited with {status}; log {}:\n{}", self.log.display(), tail(&self.log));
            }
            if https_get(&self.ca, self.port, "/readyz").is_some_and(|(code, _)| code == 200) {
                return;
            }
            if start.elapsed() > timeout {
                panic!(
                    "mc-server not ready after {timeout:?}; log {}:\n{}",
                    self.log.display(),
                    tail(&self.log)
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// `kubectl multicluster ARGS` through the real kubectl.
    pub fn plugin(&self, args: &[&str]) -> Run {
        self.plugin_with(args, &[])
    }

    /// The same with extra environment variables.
    pub fn plugin_with(&self, args: &[&str], env_vars: &[(&str, &str)]) -> Run {
        let out = plugin_command(&self.cli_config, args, env_vars).output().unwrap();
        Run::from(out)
    }

    /// The command line of `kubectl multicluster ARGS`, to spawn.
    pub fn plugin_command(&self, args: &[&str]) -> Command {
        plugin_command(&self.cli_config, args, &[])
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill").arg(child.id().to_string()).status();
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(10) {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `kubectl multicluster ARGS` with a given CLI config and the plugin on PATH.
pub fn plugin_command(cli_config: &Path, args: &[&str], env_vars: &[(&str, &str)]) -> Command {
    let env = Env::get();
    let path = std::env::join_paths(
        [env.plugin_dir.clone(), env.kubectl.parent().unwrap().to_owned()]
            .into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let mut cmd = Command::new(&env.kubectl);
    cmd.arg("multicluster")
        .args(args)
        .env("PATH", path)
        .env("KUBECTL_MULTICLUSTER_CONFIG", cli_config)
        .env_remove("MC_SERVER")
        .env_remove("MC_TOKEN")
        .env_remove("RUST_LOG");
    for (k, v) in env_vars {
        cmd.env(k, v);
    }
    cmd
}

/// The result of one run.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Self {
        Run {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Run {
    /// Panics unless the run succeeded.
    pub fn ok(self) -> Self {
        assert_eq!(self.code, Some(0), "failed: {self:?}");
        self
    }

    /// Table rows split into cells (columns are separated by at least 3 spaces; a single space
    /// stays inside a header like `POD IP`).
    pub fn rows(&self) -> Vec<Vec<String>> {
        self.stdout.lines().map(split_row).collect()
    }
}

pub fn split_row(line: &str) -> Vec<String> {
    line.split("   ").map(str::trim).filter(|c| !c.is_empty()).map(str::to_owned).collect()
}

/// An HTTPS GET on 127.0.0.1 trusting only `ca`: status and body; `None` while the CA is not
/// written yet or nothing answers.
pub fn https_get(ca: &Path, port: u16, path: &str) -> Option<(u16, String)> {
    let pem = std::fs::read(ca).ok()?;
    let client = reqwest::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(&pem).ok()?)
        .timeout(Duration::from_secs(10))
        .build()
        .ok()?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
    runtime.block_on(async {
        let resp = client.get(format!("https://127.0.0.1:{port}{path}")).send().await.ok()?;
        let code = resp.status().as_u16();
        Some((code, resp.text().await.ok()?))
    })
}

fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

/// A Deployment `web` with 2 replicas in namespace [`NS`] of every cluster, rolled out, once.
pub fn workloads() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let env = Env::get();
        let manifest = format!(
            "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {NS}}}\n---\n\
             apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: {NS}, labels: {{app: web}}}}\n\
             spec:\n  replicas: 2\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n\
             \x20   spec: {{containers: [{{name: web, image: \"nginx:1.27\"}}]}}\n"
        );
        std::thread::scope(|s| {
            for cluster in &env.clusters {
                let manifest = manifest.clone();
                s.spawn(move || {
                    env.kubectl_stdin(cluster, &["apply", "-f", "-"], Some(&manifest));
                    env.kubectl(cluster, &["rollout", "status", "deployment/web", "-n", NS, "--timeout=120s"]);
                });
            }
        });
    });
}
