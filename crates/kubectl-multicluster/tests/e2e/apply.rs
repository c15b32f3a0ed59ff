//! `apply -f` and `delete` against the master cluster.

use std::time::Duration;

use crate::harness::{Env, NS, Server, eventually, workloads};

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let dir = Env::get().dir.join("mc-cli").join("manifests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn apply_creates_configures_and_leaves_unchanged_then_delete_removes() {
    workloads();
    let env = Env::get();
    let server = Server::shared();
    let manifest = |value: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: {NS}\ndata:\n  key: {value}\n"
        )
    };
    let file = write("applied.yaml", &manifest("one"));
    let file = file.to_str().unwrap();
    let _ = server.plugin(&["delete", "-f", file, "--ignore-not-found"]);

    assert_eq!(server.plugin(&["apply", "-f", file]).ok().stdout, "configmap/applied created\n");
    assert_eq!(server.plugin(&["apply", "-f", file]).ok().stdout, "configmap/applied unchanged\n");
    write("applied.yaml", &manifest("two"));
    assert_eq!(server.plugin(&["apply", "--file", file]).ok().stdout, "configmap/applied configured\n");
    let data =
        env.kubectl(env.master(), &["get", "configmap", "applied", "-n", NS, "-o", "jsonpath={.data.key}"]);
    assert_eq!(data, "two");
    let managers = env.kubectl(
        env.master(),
        &[
            "get",
            "configmap",
            "applied",
            "-n",
            NS,
            "--show-managed-fields",
            "-o",
            "jsonpath={.metadata.managedFields[*].manager}",
        ],
    );
    assert!(managers.contains("kubectl-multicluster"), "{managers}");

    // The server sees it in the master cluster only.
    eventually("the applied configmap in the list", Duration::from_secs(30), || {
        let rows = server.plugin(&["list", "configmaps", "--name", "applied", "-n", NS]).rows();
        (rows.len() == 2 && rows[1][..4] == [env.master(), "applied", NS, "1"]).then_some(())
    });

    assert_eq!(
        server.plugin(&["delete", "-f", file]).ok().stdout,
        format!("configmap \"applied\" deleted from {NS} namespace\n")
    );
    let again = server.plugin(&["delete", "-f", file]);
    assert_eq!(again.code, Some(1));
    assert_eq!(
        again.stderr,
        format!(
            "Error from server (NotFound): error when deleting \"{file}\": configmaps \"applied\" not found\n"
        )
    );
    let by_name = server.plugin(&["delete", "configmaps", "applied", "-n", NS]);
    assert_eq!(by_name.code, Some(1));
    assert_eq!(by_name.stderr, "Error from server (NotFound): configmaps \"applied\" not found\n");
    server.plugin(&["delete", "cm", "applied", "-n", NS, "--ignore-not-found"]).ok();
}

#[test]
fn apply_reads_directories_and_stdin_and_reports_each_object() {
    workloads();
    let server = Server::shared();
    let dir = Env::get().dir.join("mc-cli").join("manifest-dir");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["a", "b"] {
        let text = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: dir-{name}}}\n---\napiVersion: v1\nkind: Secret\nmetadata: {{name: dir-{name}}}\nstringData: {{k: v}}\n"
        );
        std::fs::write(dir.join(format!("{name}.yaml")), text).unwrap();
    }
    std::fs::write(dir.join("README.md"), "not a manifest").unwrap();
    let dir = dir.to_str().unwrap();
    let _ = server.plugin(&["delete", "-f", dir, "-n", NS, "--ignore-not-found"]);
    let run = server.plugin(&["apply", "-f", dir, "-n", NS]).ok();
    assert_eq!(
        run.stdout,
        "configmap/dir-a created\nsecret/dir-a created\nconfigmap/dir-b created\nsecret/dir-b created\n"
    );
    let run = server.plugin(&["delete", "-f", dir, "-n", NS]).ok();
    assert_eq!(run.stdout.lines().count(), 4, "{run:?}");

    let mut child = server
        .plugin_command(&["apply", "-f", "-", "-n", NS])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-stdin}\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "configmap/from-stdin created\n");
    server.plugin(&["delete", "configmap", "from-stdin", "-n", NS]).ok();
}

#[test]
fn an_unknown_kind_is_reported_and_the_rest_still_applies() {
    workloads();
    let server = Server::shared();
    let file = write(
        "mixed.yaml",
        &format!(
            "apiVersion: example.com/v1\nkind: Nope\nmetadata: {{name: x}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: mixed, namespace: {NS}}}\n"
        ),
    );
    let file = file.to_str().unwrap();
    let run = server.plugin(&["apply", "-f", file]);
    assert_eq!(run.code, Some(1));
    assert_eq!(run.stdout, "configmap/mixed created\n");
    assert!(run.stderr.contains("no matches for kind \"Nope\" in version \"example.com/v1\""), "{run:?}");
    server.plugin(&["delete", "cm", "mixed", "-n", NS]).ok();
}

/// The Go project's example: a MultiClusterResource placing a Pod in three clusters.
#[test]
fn the_go_projects_example_is_applied_dispatched_and_deleted() {
    let env = Env::get();
    let server = Server::shared();
    let example =
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/multi_cluster_resource_pod_example.yaml");
    let _ = server.plugin(&["delete", "-f", example, "--ignore-not-found", "--timeout", "60s"]);
    let run = server.plugin(&["apply", "-f", example]).ok();
    assert_eq!(run.stdout, "multiclusterresource.mulitcluster.practice.com/mypod.pod created\n");
    assert_eq!(
        server.plugin(&["apply", "-f", example]).ok().stdout,
        "multiclusterresource.mulitcluster.practice.com/mypod.pod unchanged\n"
    );

    // The dispatch controller places the Pod in every cluster, with each cluster's image customized.
    let rows = eventually("multicluster-pod in every cluster", Duration::from_secs(120), || {
        let rows = server.plugin(&["list", "pods", "--name", "multicluster-pod", "-n", "default"]).rows();
        (rows.len() == env.clusters.len() + 1).then_some(rows)
    });
    let images: Vec<(&str, &str)> = rows[1..].iter().map(|r| (r[0].as_str(), r[7].as_str())).collect();
    assert_eq!(
        images,
        [
            ("tencent1", "nginx:1.19.0-alpine"),
            ("tencent2", "nginx:1.19.0-alpine"),
            ("tencent4", "nginx:1.17.0-alpine")
        ]
    );
    let mcr = server.plugin(&["list", "multiclusterresources", "-n", "default", "--name", "mypod.pod"]).ok();
    assert!(mcr.stdout.contains("Pod/multicluster-pod"), "{mcr:?}");

    let run = server.plugin(&["delete", "-f", example, "--timeout", "90s"]).ok();
    assert_eq!(
        run.stdout,
        "multiclusterresource.mulitcluster.practice.com \"mypod.pod\" deleted from default namespace\n"
    );
    eventually("multicluster-pod gone everywhere", Duration::from_secs(90), || {
        // A name no cluster has is kubectl's NotFound, exit 1.
        let run = server.plugin(&["list", "pods", "--name", "multicluster-pod", "-n", "default"]);
        (run.code == Some(1)
            && run.stderr == "Error from server (NotFound): pods \"multicluster-pod\" not found\n")
            .then_some(())
    });
}
