//! `__complete` and the `kubectl_complete-multicluster` script kubectl runs for
//! `kubectl multicluster <TAB>`: cobra's format, one candidate per line, then `:DIRECTIVE`.

use std::path::Path;

use crate::commands::{Home, stderr, stdout};
use crate::fake::FakeServer;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-multicluster");
const TOKEN: &str = "completion-token-0123";

fn complete(home: &Home, words: &[&str]) -> String {
    let out = home.cmd().arg("__complete").args(words).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "", "completion must not write on the terminal");
    stdout(&out)
}

#[test]
fn the_first_word_completes_to_the_verbs() {
    let home = Home::new();
    assert_eq!(
        complete(&home, &[""]),
        "list\tList objects of one or more resource types in every cluster, or `list clusters`
describe\tPrint objects as YAML, one document per cluster, headed `# cluster: NAME`
apply\tCreate or update objects in the master cluster (server-side apply)
delete\tDelete objects from the master cluster, by file or by type and name
join\tRegister a cluster with mc-server; it is synced from then on
unjoin\tRemove a cluster from mc-server and forget its objects
auth\tAsk what a user may do in each cluster (`auth can-i`)
logs\tPrint the logs of a pod, or of a workload's pods, in every cluster that has it
top\tPrint the CPU and memory use of pods or nodes in every cluster (kubectl top's columns)
tree\tPrint an object and what is related to it, one tree per cluster
search\tFind objects of every type by free text, in every cluster
history\tPrint the changes of an object, oldest first, in every cluster that has it
diff\tPrint two revisions of an object as a unified YAML diff
events\tPrint the Events of every cluster, kept after their cluster expired them, newest last
count\tCount objects of one type in every cluster, by cluster, namespace, fields or columns
kubeconfig\tPrint a kubeconfig for mc-server's read-only Kubernetes API
config\tWrite or show the config file (~/.multi-cluster-operator/config)
completion\tPrint a shell completion script
:4
"
    );
    assert_eq!(
        complete(&home, &["de"]),
        "describe\tPrint objects as YAML, one document per cluster, headed `# cluster: NAME`\ndelete\tDelete objects from the master cluster, by file or by type and name\n:4\n"
    );
}

#[test]
fn list_completes_the_servers_resource_types_and_clusters() {
    let server = FakeServer::with_token(Some(TOKEN));
    let home = Home::for_server(&server.url, Some(TOKEN));
    assert_eq!(
        complete(&home, &["list", ""]),
        "clusters\ncm\nconfigmaps\ndeploy\ndeployments\npo\npods\nwidgets\n:4\n"
    );
    assert_eq!(complete(&home, &["describe", "-n", "default", "w"]), "widgets\n:4\n");
    assert_eq!(complete(&home, &["count", "w"]), "widgets\n:4\n");
    assert!(server.requests().iter().any(|r| r == "GET /v1/resources"), "{:?}", server.requests());
}

#[test]
fn cluster_flags_complete_to_the_servers_cluster_names() {
    let server = FakeServer::with_token(Some(TOKEN));
    let home = Home::for_server(&server.url, Some(TOKEN));
    assert_eq!(complete(&home, &["list", "pods", "--clusterName", ""]), "tencent1\ntencent2\ntencent4\n:4\n");
    assert_eq!(complete(&home, &["pods", "--cluster-name=tencent",]), "tencent1\ntencent2\ntencent4\n:4\n");
    assert_eq!(complete(&home, &["unjoin", "tencent2"]), "tencent2\n:4\n");
}

#[test]
fn without_a_server_types_come_from_the_built_in_table() {
    let home = Home::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let server = format!("http://127.0.0.1:{port}");
    assert_eq!(complete(&home, &["--server", &server, "list", "po"]), "po\npoddisruptionbudgets\npods\n:4\n");
    // No config at all: still the built-in table, and no cluster names.
    assert_eq!(complete(&home, &["get", "deploy"]), "deploy\ndeployments\n:4\n");
    assert_eq!(complete(&home, &["list", "pods", "--clusterName", ""]), ":4\n");
}

#[test]
fn flag_values_and_files_follow_the_command_definitions() {
    let home = Home::new();
    assert_eq!(
        complete(&home, &["list", "pods", "-o", "y"]),
        "yaml\tA YAML `List`; each item carries its cluster in an annotation\n:4\n"
    );
    assert_eq!(
        complete(&home, &["config", ""]),
        "set\tWrite the config file, creating it (mode 0600) or changing only the settings given\nview\tPrint the config file, with the token shown as <redacted>\n:4\n"
    );
    // A manifest is a file: no candidates, and directive 0 lets the shell complete file names.
    assert_eq!(complete(&home, &["apply", "-f", ""]), ":0\n");
    assert_eq!(complete(&home, &["list", "pods", "--no-h"]), "--no-headers\tLeave out the header line\n:4\n");
}

#[test]
fn the_kubectl_complete_script_runs_the_plugin_on_path() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("kubectl_complete-multicluster");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&script).unwrap().permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "kubectl runs it only when it is executable");
    }
    let server = FakeServer::with_token(Some(TOKEN));
    let home = Home::for_server(&server.url, Some(TOKEN));
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:/usr/bin:/bin", bin_dir.display());
    // kubectl runs `kubectl_complete-multicluster WORDS… CURRENT`.
    let out = std::process::Command::new(&script)
        .args(["list", "pods", "--clusterName", "tencent"])
        .env("HOME", &home.dir)
        .env("PATH", path)
        .env_remove("KUBECTL_MULTICLUSTER_CONFIG")
        .env_remove("MC_SERVER")
        .env_remove("MC_TOKEN")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "tencent1\ntencent2\ntencent4\n:4\n");
}
