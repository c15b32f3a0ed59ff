//! A real mc-server process for end-to-end tests.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::Value;

use crate::testenv::TestEnv;

/// Storage backends every store test runs on.
pub fn backends(env: &TestEnv, test: &str) -> Vec<(&'static str, String)> {
    let mysql = std::env::var("MC_TEST_MYSQL_URL").unwrap_or_else(|_| {
        panic!(
            "MC_TEST_MYSQL_URL is not set: run scripts/test.sh, or `eval \"$(scripts/testdb up --dir DIR)\"`"
        )
    });
    let postgres = std::env::var("MC_TEST_POSTGRES_URL").unwrap_or_else(|_| {
        panic!("MC_TEST_POSTGRES_URL is not set: run scripts/test.sh, or `eval \"$(scripts/testdb up --dir DIR)\"`")
    });
    vec![("sqlite", sqlite_url(env, test)), ("mariadb", mysql), ("postgres", postgres)]
}

/// A fresh SQLite file for one test.
pub fn sqlite_url(env: &TestEnv, test: &str) -> String {
    let dir = env.dir.join("mc-server").join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    format!("sqlite://{}", dir.join("mc.db").display())
}

/// How to start the server.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Storage URL (default: a fresh SQLite file).
    pub storage: Option<String>,
    /// Config file (default: the testenv's config.yaml).
    pub config: Option<PathBuf>,
    /// Port (default: a free one).
    pub port: Option<u16>,
}

/// More ways to start the server than [`Options`] has.
#[derive(Clone, Copy, Debug, Default)]
pub struct Launch<'a> {
    /// Further command-line arguments, e.g. `--namespace NS`.
    pub args: &'a [&'a str],
    /// Further environment variables.
    pub envs: &'a [(&'a str, &'a str)],
    /// A program that runs the server: called with the mc-server binary and its arguments, it
    /// must `exec` them (so the process id stays the server's).
    pub wrapper: Option<&'a Path>,
    /// Let the server write the CLI config of `$HOME` (tests set `HOME` in [`Launch::envs`]).
    pub write_cli_config: bool,
    /// Serve plain http (`--plain-http`), for the tests about plain http; by default the server
    /// serves HTTPS with its own CA, which this handle trusts.
    pub plain_http: bool,
    /// The CA to trust when the test configures a certificate of its own (`--tls-cert-file`).
    pub ca: Option<&'a Path>,
}

/// A running mc-server, killed on drop.
pub struct McServer {
    child: Option<Child>,
    /// Base URL, `https://127.0.0.1:PORT` (`http://` with [`Launch::plain_http`]).
    pub url: String,
    /// Log file.
    pub log: PathBuf,
    /// Its data directory; the CA it made is `tls/ca.crt` there.
    #[allow(dead_code)] // read by the security tests
    pub data_dir: PathBuf,
    /// The CA this handle trusts, `None` over plain http.
    ca: Option<PathBuf>,
    /// A client for `url`, made once the CA exists (the server writes it at start).
    http: OnceLock<reqwest::Client>,
    token: Option<String>,
}

/// The admin token every test server gets unless a test gives another (`MC_TOKEN` in
/// [`Launch::envs`]).
pub const TEST_TOKEN: &str = "mc-test-admin-token-0123456789";

pub use crate::ports::free_port;

impl McServer {
    /// Starts the server; does not wait for readiness.
    pub fn spawn(env: &TestEnv, test: &str, opts: Options) -> McServer {
        Self::spawn_with(env, test, opts, Launch::default())
    }

    /// As [`McServer::spawn`], with further arguments, environment or a wrapper.
    pub fn spawn_with(env: &TestEnv, test: &str, opts: Options, launch: Launch<'_>) -> McServer {
        let port = opts.port.unwrap_or_else(free_port);
        let storage = opts.storage.unwrap_or_else(|| sqlite_url(env, test));
        // The test's own data directory, else one next to its SQLite file (never the user's).
        let given =
            launch.args.iter().position(|a| *a == "--data-dir").map(|i| PathBuf::from(launch.args[i + 1]));
        let data_dir = given.clone().unwrap_or_else(|| env.dir.join("mc-server").join(test).join("data"));
        let data_arg = data_dir.display().to_string();
        let data_args: Vec<&str> = if given.is_some() { vec![] } else { vec!["--data-dir", &data_arg] };
        let config = opts.config.unwrap_or_else(|| env.dir.join("config.yaml"));
        let logs = env.dir.join("logs");
        std::fs::create_dir_all(&logs).unwrap();
        let log = logs.join(format!("mc-server-{test}.log"));
        let out = std::fs::OpenOptions::new().create(true).append(true).open(&log).unwrap();
        let binary = env!("CARGO_BIN_EXE_mc-server");
        let mut command = match launch.wrapper {
            Some(wrapper) => {
                let mut c = Command::new(wrapper);
                c.arg(binary);
                c
            }
            None => Command::new(binary),
        };
        let child = command
            .args(["--config", &config.display().to_string(), "--bind", "127.0.0.1"])
            .args(["--port", &port.to_string(), "--storage", &storage])
            .args(if launch.write_cli_config { &[][..] } else { &["--no-cli-config"][..] })
            .args(&data_args)
            .args(if launch.plain_http { &["--plain-http"][..] } else { &[][..] })
            .args(launch.args)
            .env("RUST_LOG", "info,mc_server=debug")
            .env("MC_TOKEN", TEST_TOKEN)
            .envs(launch.envs.iter().copied())
            .stdout(Stdio::null())
            .stderr(out)
            .spawn()
            .expect("starting mc-server");
        let scheme = if launch.plain_http { "http" } else { "https" };
        let ca = match (launch.plain_http, launch.ca) {
            (true, _) => None,
            (false, Some(ca)) => Some(ca.to_path_buf()),
            (false, None) => Some(data_dir.join("tls").join("ca.crt")),
        };
        McServer {
            child: Some(child),
            url: format!("{scheme}://127.0.0.1:{port}"),
            log,
            data_dir,
            ca,
            http: OnceLock::new(),
            token: Some(
                launch.envs.iter().find(|(k, _)| *k == "MC_TOKEN").map_or(TEST_TOKEN, |(_, v)| v).to_string(),
            ),
        }
    }

    /// Starts the server and waits for `/readyz`.
    pub async fn start(env: &TestEnv, test: &str, opts: Options) -> McServer {
        let mut s = Self::spawn(env, test, opts);
        s.wait_ready(Duration::from_secs(90)).await;
        s
    }

    /// As [`McServer::start`], with further arguments, environment or a wrapper.
    pub async fn start_with(env: &TestEnv, test: &str, opts: Options, launch: Launch<'_>) -> McServer {
        let mut s = Self::spawn_with(env, test, opts, launch);
        s.wait_ready(Duration::from_secs(90)).await;
        s
    }

    /// The CA file this handle trusts (the server's own unless the test gave one); `None` over
    /// plain http.
    pub fn ca(&self) -> Option<&Path> {
        self.ca.as_deref()
    }

    /// A client for [`McServer::url`] that trusts the server's CA (no idle connections kept:
    /// the server closes those after its header timeout). Panics before the CA exists: wait for
    /// readiness first, or use [`McServer::client`].
    pub fn http(&self) -> &reqwest::Client {
        self.client().unwrap_or_else(|| panic!("no CA at {:?} yet; log: {}", self.ca, self.log.display()))
    }

    /// As [`McServer::http`], `None` while the server has not made its CA yet.
    pub fn client(&self) -> Option<&reqwest::Client> {
        if let Some(client) = self.http.get() {
            return Some(client);
        }
        let mut builder = reqwest::Client::builder().pool_max_idle_per_host(0);
        if let Some(ca) = &self.ca {
            let pem = std::fs::read(ca).ok()?;
            builder = builder
                .tls_built_in_root_certs(false)
                .add_root_certificate(reqwest::Certificate::from_pem(&pem).ok()?);
        }
        let _ = self.http.set(builder.build().unwrap());
        self.http.get()
    }

    /// The process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Sends this bearer token from now on.
    pub fn with_token(mut self, token: &str) -> Self {
        self.token = Some(token.to_string());
        self
    }

    /// Waits until `/readyz` answers 200.
    pub async fn wait_ready(&mut self, timeout: Duration) {
        let start = Instant::now();
        loop {
            if let Some(c) = self.child.as_mut()
                && let Ok(Some(status)) = c.try_wait()
            {
                panic!("mc-server exited with {status}; log: {}\n{}", self.log.display(), tail(&self.log));
            }
            if let Some(http) = self.client()
                && let Ok(r) = http.get(format!("{}/readyz", self.url)).send().await
                && r.status() == StatusCode::OK
            {
                return;
            }
            if start.elapsed() > timeout {
                panic!(
                    "mc-server not ready after {timeout:?}; log: {}\n{}",
                    self.log.display(),
                    tail(&self.log)
                );
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// GET a path; returns status and JSON body.
    pub async fn get(&self, path_and_query: &str) -> (StatusCode, Value) {
        let mut req = self.http().get(format!("{}{path_and_query}", self.url));
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        let resp = req.send().await.expect("request to mc-server");
        let status = resp.status();
        let text = resp.text().await.unwrap_or_default();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, body)
    }

    /// GET a path; returns status, the `Warning` headers and the JSON body.
    pub async fn get_warned(&self, path_and_query: &str) -> (StatusCode, Vec<String>, Value) {
        let mut req = self.http().get(format!("{}{path_and_query}", self.url));
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        let resp = req.send().await.expect("request to mc-server");
        let status = resp.status();
        let warnings = resp
            .headers()
            .get_all("warning")
            .iter()
            .map(|v| v.to_str().unwrap_or_default().to_string())
            .collect();
        let text = resp.text().await.unwrap_or_default();
        (status, warnings, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    /// The bearer token this handle sends.
    pub fn token(&self) -> &str {
        self.token.as_deref().unwrap_or_default()
    }

    /// `POST /v1/join?cluster=NAME{query}` with the kubeconfig as multipart upload, with this
    /// handle's token; status and JSON body.
    pub async fn join(&self, name: &str, kubeconfig: impl Into<Vec<u8>>, query: &str) -> (StatusCode, Value) {
        let part = reqwest::multipart::Part::bytes(kubeconfig.into()).file_name("config");
        let form = reqwest::multipart::Form::new().part("kubeconfig", part);
        let req = self.http().post(format!("{}/v1/join?cluster={name}{query}", self.url)).multipart(form);
        let resp = req.bearer_auth(self.token()).send().await.expect("request to mc-server");
        let status = resp.status();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    /// `DELETE /v1/unjoin?cluster=NAME` with this handle's token; status and JSON body.
    pub async fn unjoin(&self, name: &str) -> (StatusCode, Value) {
        let req = self.http().delete(format!("{}/v1/unjoin?cluster={name}", self.url));
        let resp = req.bearer_auth(self.token()).send().await.expect("request to mc-server");
        let status = resp.status();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    /// GET a path without any token.
    pub async fn get_anonymous(&self, path_and_query: &str) -> (StatusCode, Value) {
        let resp = self.http().get(format!("{}{path_and_query}", self.url)).send().await.unwrap();
        let status = resp.status();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    /// `(cluster, namespace, name)` of every object of a type, through `/v1/list_with_cluster`.
    pub async fn keys(&self, gvr: &str) -> Vec<(String, String, String)> {
        let (status, body) = self.get(&format!("/v1/list_with_cluster?gvr={gvr}&limit=0")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let mut keys: Vec<_> = body
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                let o = &i["Object"]["metadata"];
                (
                    i["clusterName"].as_str().unwrap().to_string(),
                    o["namespace"].as_str().unwrap_or("").to_string(),
                    o["name"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        keys.sort();
        keys
    }

    /// Kills the server at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Stops the server with SIGTERM (graceful), then waits.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = Command::new("kill").arg("-TERM").arg(c.id().to_string()).status();
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(10) {
                if let Ok(Some(_)) = c.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for McServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The last lines of a log, for failure messages.
pub fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

/// Writes a config file: the testenv's clusters plus extra YAML sections.
pub fn config_with(env: &TestEnv, name: &str, extra: &str) -> PathBuf {
    let base = std::fs::read_to_string(env.dir.join("config.yaml")).unwrap();
    let path = env.dir.join(format!("config-{name}.yaml"));
    std::fs::write(&path, format!("{base}\n{extra}\n")).unwrap();
    path
}
