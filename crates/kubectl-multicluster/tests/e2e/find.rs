//! Several types in one `list`, `list all`, `-o csv`, `--created-since`, `--sort-by COLUMN` and
//! `--limit` through kubectl against real clusters.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use crate::harness::{Env, NS, Server, eventually, split_row, workloads};

/// Beside [`workloads`]: a Service `web` with two ports (its `PORT(S)` cell holds a comma) and a
/// ConfigMap `web-config`, both labelled `app=web`, in [`NS`] of every cluster.
fn service_and_config() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        workloads();
        let env = Env::get();
        let manifest = format!(
            "apiVersion: v1\nkind: Service\nmetadata: {{name: web, namespace: {NS}, labels: {{app: web}}}}\n\
             spec:\n  selector: {{app: web}}\n  ports: [{{name: http, port: 80}}, {{name: https, port: 443}}]\n---\n\
             apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: web-config, namespace: {NS}, labels: {{app: web}}}}\n\
             data: {{greeting: hello}}\n"
        );
        for cluster in &env.clusters {
            env.kubectl_stdin(cluster, &["apply", "-f", "-"], Some(&manifest));
        }
    });
}

/// Blocks of a several-type table: the rows of each table, split at the blank lines.
fn tables(stdout: &str) -> Vec<Vec<Vec<String>>> {
    stdout.split("\n\n").map(|block| block.lines().map(split_row).collect()).collect()
}

#[test]
fn several_types_print_one_table_per_type_with_every_clusters_objects() {
    service_and_config();
    let env = Env::get();
    let server = Server::shared();
    let blocks =
        eventually("deployments, services and configmaps of 3 clusters", Duration::from_secs(90), || {
            let run = server.plugin(&["list", "deploy,svc,cm", "-n", NS, "-l", "app=web"]);
            let blocks = tables(&run.stdout);
            (run.code == Some(0) && blocks.len() == 3 && blocks.iter().all(|b| b.len() == 4))
                .then_some(blocks)
        });
    let expected = [
        (["CLUSTER", "NAME", "NAMESPACE", "TOTAL", "AVAILABLE", "READY"].as_slice(), "deployment.apps/web"),
        (
            &["CLUSTER", "NAME", "NAMESPACE", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
            "service/web",
        ),
        (&["CLUSTER", "NAME", "NAMESPACE", "DATA"], "configmap/web-config"),
    ];
    for (block, (headers, name)) in blocks.iter().zip(expected) {
        assert_eq!(block[0], headers);
        let clusters: Vec<&str> = block[1..].iter().map(|r| r[0].as_str()).collect();
        assert_eq!(clusters, env.clusters, "{block:?}");
        assert!(block[1..].iter().all(|r| r[1] == name && r[2] == NS), "{block:?}");
    }
    assert!(blocks[1][1..].iter().all(|r| r[6] == "80/TCP,443/TCP"), "{:?}", blocks[1]);

    // -o json: one List of every object of the three types.
    let json = server.plugin(&["list", "deploy,svc,cm", "-n", NS, "-l", "app=web", "-o", "json"]).ok();
    let list: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let kinds: Vec<&str> =
        list["items"].as_array().unwrap().iter().map(|i| i["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, [["Deployment"; 3], ["Service"; 3], ["ConfigMap"; 3]].concat());
}

#[test]
fn list_all_prints_the_types_of_the_category_all() {
    service_and_config();
    let server = Server::shared();
    let run = eventually("pods, services, deployments and replicasets", Duration::from_secs(90), || {
        let run = server.plugin(&["list", "all", "-n", NS]);
        let names: Vec<String> =
            tables(&run.stdout).iter().map(|b| b.get(1).map(|r| r[1].clone()).unwrap_or_default()).collect();
        let kinds: Vec<&str> = names.iter().map(|n| n.split('/').next().unwrap_or_default()).collect();
        (kinds == ["pod", "service", "deployment.apps", "replicaset.apps"]).then_some(run)
    });
    assert!(!run.stdout.contains("configmap/"), "a ConfigMap is not in the category all: {}", run.stdout);
}

#[test]
fn csv_reads_back_through_pythons_csv_module_as_the_tables_cells() {
    service_and_config();
    let server = Server::shared();
    for (resource, objects) in [("pods", 6), ("svc", 3)] {
        let args = ["list", resource, "-n", NS, "-l", "app=web"];
        // Ages may tick between the two runs: read both until they agree.
        eventually(&format!("{resource}: the csv rows equal the table's"), Duration::from_secs(60), || {
            let table = server.plugin(&args).ok();
            let csv = server.plugin(&[&args[..], &["-o", "csv"]].concat()).ok();
            let table_rows: Vec<Vec<String>> = table.rows();
            let csv_rows = python_csv(&csv.stdout);
            assert!(csv.stdout.ends_with("\r\n"), "CRLF line ends: {:?}", csv.stdout);
            assert_eq!(table_rows.len(), objects + 1, "a header and a row per object: {table_rows:?}");
            (csv_rows == table_rows).then_some(())
        });
    }
    let csv = server.plugin(&["list", "svc", "-n", NS, "-l", "app=web", "-o", "csv", "--no-headers"]).ok();
    assert!(csv.stdout.contains(",\"80/TCP,443/TCP\","), "the comma cell is quoted: {}", csv.stdout);
    assert_eq!(python_csv(&csv.stdout).len(), 3, "no header");
}

/// Rows as Python's `csv` module reads them.
fn python_csv(text: &str) -> Vec<Vec<String>> {
    let script = "import csv, io, json, sys\n\
                  rows = list(csv.reader(io.TextIOWrapper(sys.stdin.buffer, encoding='utf-8', newline='')))\n\
                  json.dump(rows, sys.stdout)";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python3 csv failed");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn created_since_sort_by_a_column_and_limit_work_across_clusters() {
    service_and_config();
    let server = Server::shared();
    let rows = |args: &[&str]| -> Vec<Vec<String>> {
        let all = [&["list", "deploy", "-n", NS][..], args].concat();
        server.plugin(&all).ok().rows().into_iter().skip(1).collect()
    };
    assert_eq!(rows(&["--created-since", "24h"]).len(), 3);
    assert_eq!(rows(&["--created-since", "2020-01-01T00:00:00Z"]).len(), 3);
    let future = server.plugin(&["list", "deploy", "-n", NS, "--created-since", "2999-01-01T00:00:00Z"]).ok();
    assert_eq!(
        (future.stdout.as_str(), future.stderr.as_str()),
        ("", "No resources found in mc-cli-e2e namespace.\n")
    );

    // Pod names differ in every cluster: sorted by NAME, the clusters interleave.
    let pods = server.plugin(&["list", "pods", "-n", NS, "-l", "app=web", "--sort-by", "name"]).ok().rows();
    let names: Vec<&str> = pods[1..].iter().map(|r| r[1].as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!((names.len(), &names), (6, &sorted));

    let cut = server.plugin(&["list", "pods", "-n", NS, "-l", "app=web", "--limit", "4"]).ok();
    assert_eq!(cut.rows().len(), 5, "a header and 4 rows of the 6: {}", cut.stdout);
    assert_eq!(cut.stderr, "Warning: --limit 4: only the first 4 objects are printed; more match\n");
}

#[test]
fn an_unknown_type_among_several_is_kubectls_error() {
    let run = Server::shared().plugin(&["list", "deploy,nope,cm"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str()),
        ("", "error: the server doesn't have a resource type \"nope\"\n")
    );
}
