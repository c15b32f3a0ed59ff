//! The real binary against a fake mc-server: arguments, requests, output and exit codes.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};

use assert_cmd::Command;
use insta::assert_snapshot;
use serde_json::Value;

use crate::fake::FakeServer;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-multicluster");

/// A private home directory with a CLI config, removed on drop.
pub struct Home {
    pub dir: PathBuf,
}

impl Home {
    pub fn new() -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "kmc-cli-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Home { dir }
    }

    /// A home whose config points at `url` (`http://127.0.0.1:PORT`).
    pub fn for_server(url: &str, token: Option<&str>) -> Self {
        let home = Self::new();
        let (host, port) = url.trim_start_matches("http://").rsplit_once(':').unwrap();
        let mut text = format!(
            "serverIP: {host}\nserverPort: {port}\nmasterClusterKubeConfigPath: /nonexistent/kubeconfig\n"
        );
        if let Some(t) = token {
            text.push_str(&format!("token: {t}\n"));
        }
        std::fs::create_dir_all(home.dir.join(".multi-cluster-operator")).unwrap();
        std::fs::write(home.config(), text).unwrap();
        home
    }

    pub fn config(&self) -> PathBuf {
        self.dir.join(".multi-cluster-operator/config")
    }

    pub fn cmd(&self) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.env("HOME", &self.dir)
            .env_remove("KUBECTL_MULTICLUSTER_CONFIG")
            .env_remove("MC_SERVER")
            .env_remove("MC_TOKEN")
            .env_remove("MC_KUBECONFIG_USER")
            .env_remove("KUBECONFIG")
            .env_remove("RUST_LOG")
            .timeout(std::time::Duration::from_secs(30));
        cmd
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn stdout(output: &std::process::Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

pub fn stderr(output: &std::process::Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn port_nobody_listens_on() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[test]
fn list_pods_prints_one_row_per_pod_with_its_cluster() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["list", "pods"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert_snapshot!("cli-list-pods", stdout(&out));
}

#[test]
fn the_go_projects_command_lines_work_unchanged() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["list", "core/v1/pods", "--clusterName=tencent2"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).lines().skip(1).all(|l| l.starts_with("tencent2 ")), "{}", stdout(&out));
    // The README once left out `list`.
    let out = home
        .cmd()
        .args([
            "v1/configmaps",
            "--clusterName=tencent2",
            "--name=kube-root-ca.crt",
            "--namespace=kube-system",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "CLUSTER    NAME               NAMESPACE     DATA\ntencent2   kube-root-ca.crt   kube-system   2\n"
    );
    let list = server.requests().into_iter().rfind(|r| r.contains("list_with_cluster")).unwrap();
    assert!(list.contains("namespace=kube-system") && list.contains("cluster=tencent2"), "{list}");
}

#[test]
fn filters_and_selectors_are_sent_to_the_server() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    home.cmd()
        .args([
            "list",
            "pods",
            "-n",
            "shop",
            "-l",
            "app in (web,api)",
            "--field-selector",
            "status.phase=Running",
        ])
        .args(["--cluster-name", "tencent1", "--name", "api-0"])
        .assert()
        .success();
    let request = server.requests().into_iter().find(|r| r.starts_with("GET /v1/list_with_cluster")).unwrap();
    for part in [
        "gvr=pods",
        "cluster=tencent1",
        "namespace=shop",
        "name=api-0",
        "labelSelector=app+in+%28web%2Capi%29",
        "fieldSelector=status.phase%3DRunning",
        "limit=0",
    ] {
        assert!(request.contains(part), "{part} missing in {request}");
    }
}

#[test]
fn pages_are_followed_until_the_last_one() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["list", "configmaps"]).output().unwrap();
    assert_eq!(stdout(&out).lines().count(), 4, "{}", stdout(&out));
    let lists: Vec<String> =
        server.requests().into_iter().filter(|r| r.contains("list_with_cluster")).collect();
    assert_eq!(lists.len(), 2, "{lists:?}");
    assert!(lists[1].contains("continue=page2"), "{lists:?}");
}

#[test]
fn limit_caps_the_number_of_objects() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["list", "pods", "--limit", "2", "-o", "name"]).output().unwrap();
    assert_eq!(stdout(&out), "tencent1/pod/web-7dbf7cc5-8llgr\ntencent1/pod/api-0\n");
    // One more is asked for, to know whether the answer is cut, and a cut answer says so.
    assert!(server.requests().iter().any(|r| r.contains("limit=3")), "{:?}", server.requests());
    assert_eq!(stderr(&out), "Warning: --limit 2: only the first 2 objects are printed; more match\n");
    // Across clusters: the whole answer, not each cluster's.
    let out = home
        .cmd()
        .args(["list", "pods", "--clusterName", "tencent4,tencent1", "--limit", "3", "-o", "name"])
        .output()
        .unwrap();
    assert_eq!(
        stdout(&out),
        "tencent4/pod/multicluster-pod\ntencent4/pod/report-28123-abcde\ntencent1/pod/web-7dbf7cc5-8llgr\n"
    );
    assert!(stderr(&out).starts_with("Warning: --limit 3:"), "{}", stderr(&out));
    // As many as there are: no warning.
    let out =
        home.cmd().args(["list", "pods", "--clusterName", "tencent4", "--limit", "2"]).output().unwrap();
    assert_eq!((stdout(&out).lines().count(), stderr(&out)), (3, String::new()));
}

#[test]
fn json_output_parses_and_names_each_cluster() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["list", "po", "-o", "json"]).output().unwrap();
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list["kind"], "List");
    let clusters: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["annotations"]["mulitcluster.practice.com/cluster"].as_str().unwrap())
        .collect();
    assert_eq!(clusters, ["tencent1", "tencent1", "tencent2", "tencent2", "tencent4", "tencent4"]);
}

#[test]
fn custom_resources_print_their_crd_columns() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["list", "widgets"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("CLUSTER    NAME      NAMESPACE   SIZE   COLOR   READY   BORN\n"),
        "{}",
        stdout(&out)
    );
    assert!(server.requests().iter().any(|r| r.contains("name=widgets.example.com")));
}

#[test]
fn no_resources_found_goes_to_stderr_with_exit_0() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["list", "nothing", "-n", "x"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(stdout(&out), "");
    assert_eq!(stderr(&out), "No resources found in x namespace.\n");
    let out = home.cmd().args(["list", "nothing"]).output().unwrap();
    assert_eq!(stderr(&out), "No resources found.\n");
    let out = home.cmd().args(["list", "nothing", "-o", "json"]).output().unwrap();
    assert_eq!(stderr(&out), "");
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list["items"], serde_json::json!([]));
}

#[test]
fn an_unknown_resource_type_shows_the_servers_candidates() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["list", "podz"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert_eq!(stderr(&out), "error: unknown resource type \"podz\"; did you mean: v1/pods\n");
}

#[test]
fn describe_prints_yaml_headed_by_the_cluster() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["describe", "pods", "--name", "web-7dbf7cc5-8llgr"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("# cluster: tencent1\napiVersion: v1\nkind: Pod\n"), "{text}");
    let out = home.cmd().args(["describe", "pods", "missing", "--clusterName", "tencent2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "error: pods \"missing\" not found in cluster tencent2\n");
}

#[test]
fn list_clusters_prints_the_cluster_table() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["list", "clusters"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_snapshot!("cli-list-clusters", stdout(&out));
}

#[test]
fn the_token_from_the_config_is_sent_and_a_wrong_one_is_explained() {
    let server = FakeServer::with_token(Some("s3cret"));
    let home = Home::for_server(&server.url, Some("s3cret"));
    home.cmd().args(["list", "pods"]).assert().success();
    let out = home.cmd().args(["list", "pods", "--token", "wrong"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(message.starts_with("error: missing bearer token"), "{message}");
    assert!(message.contains("pass --token or set MC_TOKEN"), "{message}");
    let out = home.cmd().env("MC_TOKEN", "s3cret").args(["list", "pods"]).output().unwrap();
    assert!(out.status.success());
}

#[test]
fn an_unreachable_server_names_the_address_and_where_it_came_from() {
    let port = port_nobody_listens_on();
    let home = Home::for_server(&format!("http://127.0.0.1:{port}"), None);
    let out = home.cmd().args(["list", "pods"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "error: cannot reach mc-server at http://127.0.0.1:{port} (from serverIP/serverPort in {}): connection refused\n",
            home.config().display()
        )
    );
    let out =
        home.cmd().env("MC_SERVER", format!("127.0.0.1:{port}")).args(["list", "pods"]).output().unwrap();
    assert!(stderr(&out).contains("(from $MC_SERVER)"), "{}", stderr(&out));
    let out =
        home.cmd().args(["--server", &format!("http://127.0.0.1:{port}"), "list", "pods"]).output().unwrap();
    assert!(stderr(&out).contains("(from --server)"), "{}", stderr(&out));
}

#[test]
fn a_missing_config_says_how_to_create_one() {
    let home = Home::new();
    let out = home.cmd().args(["list", "pods"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "error: no config file {}: create it with `kubectl multicluster config set --server URL --token TOKEN` (or generate-config.sh --ip IP --port PORT --config KUBECONFIG), or pass --server URL (or set MC_SERVER)\n",
            home.config().display()
        )
    );
}

#[test]
fn a_broken_config_is_one_line() {
    let home = Home::new();
    std::fs::create_dir_all(home.config().parent().unwrap()).unwrap();
    std::fs::write(home.config(), "serverIP: [oops\n").unwrap();
    let out = home.cmd().args(["list", "pods"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.starts_with(&format!("error: config {}:", home.config().display())), "{message}");
}

#[test]
fn bad_usage_exits_2_with_clap_s_message() {
    let home = Home::new();
    let out = home.cmd().args(["list"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("required arguments were not provided"), "{}", stderr(&out));
    let out = home.cmd().args(["list", "pods", "-o", "xml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("invalid value 'xml'"), "{}", stderr(&out));
    let out = home.cmd().args(["list", "pods", "-A", "-n", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn version_and_help_exit_0() {
    let home = Home::new();
    let out = home.cmd().arg("--version").output().unwrap();
    assert!(out.status.success());
    assert_eq!(stdout(&out), format!("kubectl-multicluster {}\n", env!("CARGO_PKG_VERSION")));
    let out = home.cmd().args(["list", "--help"]).output().unwrap();
    assert!(out.status.success());
    assert!(stdout(&out).contains("--clusterName <CLUSTER>"), "{}", stdout(&out));
}

#[test]
fn completion_scripts_are_printed_for_each_shell() {
    let home = Home::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = home.cmd().args(["completion", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        assert!(stdout(&out).contains("kubectl-multicluster"), "{shell}");
    }
}

#[test]
fn verbose_logs_requests_on_stderr_only() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["-v", "list", "pods", "-o", "name"]).output().unwrap();
    assert!(out.status.success());
    assert!(stderr(&out).contains("mc-server answered"), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 6);
}

#[test]
fn join_uploads_the_kubeconfig_and_unjoin_removes_the_cluster() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let kubeconfig = home.dir.join("k.yaml");
    std::fs::write(&kubeconfig, "apiVersion: v1\nkind: Config\n").unwrap();
    let out = home
        .cmd()
        .args(["join", "tencent5", "--file"])
        .arg(&kubeconfig)
        .args(["--insecure", "--context", "ctx"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "cluster/tencent5 joined (join cluster successful)\n");
    let join = server.requests().into_iter().find(|r| r.starts_with("POST /v1/join")).unwrap();
    assert_eq!(join, "POST /v1/join?cluster=tencent5&insecure=true&context=ctx");

    let out = home.cmd().args(["join", "tencent1", "--file"]).arg(&kubeconfig).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "error: cluster \"tencent1\" is already joined\n");
    let out = home.cmd().args(["join", "x", "--file=/nonexistent/k"]).output().unwrap();
    assert!(stderr(&out).starts_with("error: cannot read kubeconfig /nonexistent/k: "), "{}", stderr(&out));

    let out = home.cmd().args(["unjoin", "tencent5"]).output().unwrap();
    assert_eq!(stdout(&out), "cluster/tencent5 unjoined (unjoin cluster successful)\n");
    assert!(server.requests().contains(&"DELETE /v1/unjoin?cluster=tencent5".to_owned()));
    let out = home.cmd().args(["unjoin", "nope"]).output().unwrap();
    assert_eq!(stderr(&out), "error: unknown cluster \"nope\"\n");
}

#[test]
fn watch_prints_the_snapshot_then_a_row_per_change() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home
        .cmd()
        .args(["list", "pods", "--watch", "--output-watch-events", "--clusterName", "tencent1"])
        .output()
        .unwrap();
    // The fake server ends the stream after one change; a real watch runs until interrupted.
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("the watch ended"), "{}", stderr(&out));
    assert_snapshot!("cli-watch", stdout(&out));
    assert!(server.requests().iter().any(|r| r.contains("watch=true")));
}

#[test]
fn a_closed_stdout_ends_the_program_quietly() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let mut child = std::process::Command::new(BIN)
        .args(["list", "many"])
        .env("HOME", &home.dir)
        .env_remove("KUBECTL_MULTICLUSTER_CONFIG")
        .env_remove("MC_SERVER")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("CLUSTER"), "{first}");
    // The reader is dropped here, like `| head -1` exiting.
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(stderr(&out), "");
}
