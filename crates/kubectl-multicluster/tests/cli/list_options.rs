//! `list` output options kubectl users expect, through the real binary against the fake server:
//! NotFound for a name, several clusters, `-L`, `--sort-by`, `-o jsonpath=…` and
//! `-o custom-columns=…`.

use crate::commands::{Home, stderr, stdout};
use crate::fake::FakeServer;

/// Runs `kubectl multicluster ARGS` against a fresh fake server: the server (for its requests)
/// and the output.
fn run(args: &[&str]) -> (FakeServer, std::process::Output) {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(args).output().unwrap();
    (server, out)
}

/// Stdout of a run that must succeed without anything on stderr.
fn ok(args: &[&str]) -> String {
    let (_server, out) = run(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    assert_eq!(stderr(&out), "", "{args:?}");
    stdout(&out)
}

/// Stderr of a run that must fail with exit 1 and print nothing on stdout.
fn fails(args: &[&str]) -> String {
    let (_server, out) = run(args);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
    assert_eq!(stdout(&out), "", "{args:?}");
    stderr(&out)
}

#[test]
fn a_name_no_cluster_has_is_kubectl_s_not_found_with_exit_1() {
    assert_eq!(fails(&["list", "pods", "nope"]), "Error from server (NotFound): pods \"nope\" not found\n");
    assert_eq!(
        fails(&["list", "deploy", "--name", "nope", "-o", "json"]),
        "Error from server (NotFound): deployments.apps \"nope\" not found\n"
    );
    // Found in one cluster is found.
    assert_eq!(ok(&["list", "pods", "api-0", "-o", "name"]), "tencent1/pod/api-0\n");
}

#[test]
fn several_clusters_are_asked_one_request_each_and_printed_in_the_order_given() {
    let (server, out) = run(&["list", "pods", "--clusterName", "tencent4,tencent1", "-o", "name"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "tencent4/pod/multicluster-pod\ntencent4/pod/report-28123-abcde\ntencent1/pod/web-7dbf7cc5-8llgr\ntencent1/pod/api-0\n"
    );
    let clusters: Vec<String> = server
        .requests()
        .iter()
        .filter(|r| r.contains("list_with_cluster"))
        .map(|r| r.split("cluster=").nth(1).unwrap().split('&').next().unwrap().to_owned())
        .collect();
    assert_eq!(clusters, ["tencent4", "tencent1"]);
    // The flag repeats, under any of its spellings.
    assert_eq!(
        ok(&["list", "pods", "--clusterName", "tencent2", "--cluster=tencent4", "-o", "name"]),
        "tencent2/pod/pending-x\ntencent2/pod/migrate-db\ntencent4/pod/multicluster-pod\ntencent4/pod/report-28123-abcde\n"
    );
}

#[test]
fn an_unknown_cluster_among_several_is_the_servers_404() {
    assert_eq!(
        fails(&["list", "pods", "--clusterName", "tencent1,nope"]),
        "error: unknown cluster \"nope\" (known: tencent1, tencent2, tencent4)\n"
    );
}

#[test]
fn label_columns_add_one_column_per_key_headed_by_its_last_segment() {
    assert_eq!(
        ok(&["list", "pods", "--clusterName", "tencent1", "-L", "app,app.kubernetes.io/version", "-L", "tier"]),
        "\
CLUSTER    NAME                 NAMESPACE   NODE              POD IP       STATUS             CONTAINER   IMAGE                                 APP   VERSION   TIER
tencent1   web-7dbf7cc5-8llgr   default     tencent1-node-0   10.200.0.2   Running            web         nginx:1.27                            web   1.27
tencent1   api-0                shop        tencent1-node-1   10.200.1.7   CrashLoopBackOff   api,envoy   shop/api:2.1,envoyproxy/envoy:v1.31   api
"
    );
}

#[test]
fn sort_by_orders_rows_of_every_cluster_by_the_selected_value() {
    assert_eq!(
        ok(&["list", "pods", "--sort-by", ".metadata.creationTimestamp", "-o", "name"]),
        "\
tencent1/pod/api-0
tencent4/pod/multicluster-pod
tencent4/pod/report-28123-abcde
tencent1/pod/web-7dbf7cc5-8llgr
tencent2/pod/migrate-db
tencent2/pod/pending-x
"
    );
    // Numbers numerically, objects without the value first, ties in cluster order.
    assert_eq!(
        ok(&["list", "pods", "--sort-by", "{.status.containerStatuses[0].restartCount}", "-o", "name"]),
        "\
tencent2/pod/pending-x
tencent1/pod/web-7dbf7cc5-8llgr
tencent2/pod/migrate-db
tencent4/pod/multicluster-pod
tencent4/pod/report-28123-abcde
tencent1/pod/api-0
"
    );
    assert_eq!(
        ok(&["list", "configmaps", "--sort-by", ".metadata.name"]),
        "\
CLUSTER    NAME                             NAMESPACE     DATA
tencent4   empty                            default       0
tencent2   kube-root-ca.crt                 kube-system   2
tencent2   multiclusterresource-configmap   default       3
"
    );
}

#[test]
fn a_sort_path_outside_the_subset_is_one_line_with_exit_1() {
    assert_eq!(
        fails(&["list", "pods", "--sort-by", "..name"]),
        "error: --sort-by: unsupported JSONPath \"..name\": recursive descent (..) is not supported\n"
    );
}

#[test]
fn jsonpath_templates_run_over_the_json_list_with_cluster_annotations() {
    assert_eq!(
        ok(&["list", "pods", "--clusterName", "tencent2", "-o", "jsonpath={.items[*].metadata.name}"]),
        "pending-x migrate-db"
    );
    assert_eq!(
        ok(&[
            "list",
            "pods",
            "-o",
            r#"jsonpath={range .items[*]}{.metadata.annotations.mulitcluster\.practice\.com/cluster}{"\t"}{.metadata.name}{"\n"}{end}"#,
        ]),
        "\
tencent1\tweb-7dbf7cc5-8llgr
tencent1\tapi-0
tencent2\tpending-x
tencent2\tmigrate-db
tencent4\tmulticluster-pod
tencent4\treport-28123-abcde
"
    );
}

#[test]
fn custom_columns_print_the_headers_given_and_none_for_missing_values() {
    assert_eq!(
        ok(&[
            "list",
            "configmaps",
            "-o",
            r"custom-columns=NAME:.metadata.name,CLUSTER:.metadata.annotations.mulitcluster\.practice\.com/cluster,PROP:.data.example\.property\.1",
        ]),
        "\
NAME                             CLUSTER    PROP
multiclusterresource-configmap   tencent2   hello
kube-root-ca.crt                 tencent2   <none>
empty                            tencent4   <none>
"
    );
}

#[test]
fn unsupported_templates_and_columns_are_one_line_with_exit_1() {
    assert_eq!(
        fails(&["list", "pods", "-o", "jsonpath={.items[*].metadata.name"]),
        "error: -o jsonpath: unsupported JSONPath \"{.items[*].metadata.name\": unclosed {\n"
    );
    assert_eq!(
        fails(&["list", "pods", "-o", "jsonpath={.items[*].metadata.name,.kind}"]),
        "error: -o jsonpath: unsupported JSONPath \".items[*].metadata.name,.kind\": unions (a,b) are not supported\n"
    );
    assert_eq!(
        fails(&["list", "pods", "-o", "custom-columns=NAME"]),
        "error: custom-columns: unexpected column \"NAME\", expected HEADER:JSONPATH\n"
    );
}

#[test]
fn a_named_object_prints_as_the_object_not_a_list() {
    let json: serde_json::Value =
        serde_json::from_str(&ok(&["list", "pods", "api-0", "-o", "json"])).unwrap();
    assert_eq!(json["kind"], "Pod", "{json}");
    assert_eq!(json["metadata"]["name"], "api-0");
    assert_eq!(json["metadata"]["annotations"]["mulitcluster.practice.com/cluster"], "tencent1");
    assert!(ok(&["list", "pods", "api-0", "-o", "yaml"]).starts_with("apiVersion: v1\nkind: Pod\n"));
    assert_eq!(ok(&["list", "pods", "api-0", "-o", "jsonpath={.metadata.namespace}"]), "shop");
    // Without a name it stays a List.
    let all: serde_json::Value = serde_json::from_str(&ok(&["list", "pods", "-o", "json"])).unwrap();
    assert_eq!(all["kind"], "List");
    assert!(all["items"].as_array().unwrap().len() > 1);
}

#[test]
fn names_of_one_named_cluster_are_kubectl_s_own() {
    assert_eq!(ok(&["list", "pods", "api-0", "--clusterName", "tencent1", "-o", "name"]), "pod/api-0\n");
    assert_eq!(
        ok(&["list", "deploy", "--clusterName", "tencent2", "-o", "name"]).lines().next(),
        Some("deployment.apps/scaled-down")
    );
}

#[test]
fn csv_and_tsv_print_the_tables_columns_cluster_first() {
    assert_eq!(
        ok(&["list", "pods", "--clusterName", "tencent1,tencent2", "-o", "csv"]),
        "CLUSTER,NAME,NAMESPACE,NODE,POD IP,STATUS,CONTAINER,IMAGE\r\n\
         tencent1,web-7dbf7cc5-8llgr,default,tencent1-node-0,10.200.0.2,Running,web,nginx:1.27\r\n\
         tencent1,api-0,shop,tencent1-node-1,10.200.1.7,CrashLoopBackOff,\"api,envoy\",\"shop/api:2.1,envoyproxy/envoy:v1.31\"\r\n\
         tencent2,pending-x,default,<none>,<none>,Pending,main,busybox\r\n\
         tencent2,migrate-db,shop,tencent2-node-0,10.201.0.9,Init:0/1,migrate,shop/migrate:1\r\n"
    );
    assert_eq!(
        ok(&["list", "configmaps", "-o", "tsv", "--no-headers"]),
        "tencent2\tmulticlusterresource-configmap\tdefault\t3\n\
         tencent2\tkube-root-ca.crt\tkube-system\t2\n\
         tencent4\tempty\tdefault\t0\n"
    );
}

#[test]
fn sort_by_a_printed_column_orders_rows_of_every_cluster() {
    let statuses: Vec<String> = ok(&["list", "pods", "--sort-by", "status", "-o", "csv", "--no-headers"])
        .lines()
        .map(|l| l.split(',').nth(5).unwrap().to_owned())
        .collect();
    assert_eq!(statuses, ["Completed", "CrashLoopBackOff", "Init:0/1", "Pending", "Running", "Terminating"]);
    assert_eq!(
        fails(&["list", "pods", "--sort-by", "nope"]),
        "error: --sort-by \"nope\": no such column; the columns are CLUSTER, NAME, NAMESPACE, NODE, POD IP, STATUS, CONTAINER, IMAGE\n"
    );
    assert_eq!(
        fails(&["list", "pods", "--sort-by", "AGE", "-o", "json"]),
        "error: --sort-by \"AGE\" sorts by a printed column, and only tables, csv and tsv print columns: sort by a JSONPath instead (--sort-by .metadata.name)\n"
    );
}

#[test]
fn created_since_keeps_objects_created_at_or_after_the_time() {
    assert_eq!(
        ok(&["list", "pods", "--created-since", "2025-12-31T22:00:00Z", "-o", "name"]),
        "tencent1/pod/web-7dbf7cc5-8llgr\ntencent2/pod/pending-x\ntencent2/pod/migrate-db\ntencent4/pod/report-28123-abcde\n"
    );
    // Filtered here, so --limit is applied after the filter.
    let (server, out) = run(&["list", "pods", "--created-since", "2025-12-31T22:00:00Z", "--limit", "1"]);
    assert_eq!(stdout(&out).lines().nth(1).unwrap().split_whitespace().nth(1), Some("web-7dbf7cc5-8llgr"));
    assert!(stderr(&out).starts_with("Warning: --limit 1:"), "{}", stderr(&out));
    assert!(server.requests().iter().any(|r| r.contains("list_with_cluster") && r.contains("limit=0")));
    // A duration is counted back from now: the fixtures' pods are older than a day.
    let (_server, out) = run(&["list", "pods", "--created-since", "24h"]);
    assert_eq!((stdout(&out), stderr(&out)), (String::new(), "No resources found.\n".to_owned()));
    let (_server, out) = run(&["list", "pods", "--created-since", "yesterday"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(
            "error: invalid value 'yesterday' for '--created-since <DURATION|TIME>': \"yesterday\" is neither a duration (30m, 2h, 7d, 1h30m) nor an RFC 3339 time (2024-05-01T10:00:00Z)\n"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn several_types_print_one_table_each_with_kind_prefixed_names() {
    assert_eq!(
        ok(&["list", "deploy,cm", "--clusterName", "tencent2"]),
        "\
CLUSTER    NAME                          NAMESPACE     TOTAL   AVAILABLE   READY
tencent2   deployment.apps/scaled-down   kube-system   0       0           0

CLUSTER    NAME                                       NAMESPACE     DATA
tencent2   configmap/multiclusterresource-configmap   default       3
tencent2   configmap/kube-root-ca.crt                 kube-system   2
"
    );
    // One List of every object for -o json, asked for in one request of both types.
    let (server, out) = run(&["list", "cm,po", "-o", "json"]);
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<&str> =
        list["items"].as_array().unwrap().iter().map(|i| i["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, [vec!["ConfigMap"; 3], vec!["Pod"; 6]].concat());
    let lists: Vec<String> =
        server.requests().into_iter().filter(|r| r.starts_with("GET /v1/list_with_cluster")).collect();
    assert!(
        !lists.is_empty() && lists.iter().all(|r| r.contains("gvr=v1%2Fconfigmaps%2Cv1%2Fpods&")),
        "{lists:?}"
    );
    // A name missing in some types: kubectl's NotFound for each, exit 1.
    let (_server, out) = run(&["list", "deploy,cm", "empty"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "CLUSTER    NAME              NAMESPACE   DATA\ntencent4   configmap/empty   default     0\n"
    );
    assert_eq!(stderr(&out), "Error from server (NotFound): deployments.apps \"empty\" not found\n");
}

#[test]
fn all_falls_back_to_kubectls_types_when_discovery_has_no_categories() {
    // The fake's /v1/resources carries no categories, as an earlier mc-server's.
    assert_eq!(
        ok(&["list", "all", "--clusterName", "tencent2", "-o", "name"]),
        "pod/pending-x\npod/migrate-db\ndeployment.apps/scaled-down\n"
    );
}

#[test]
fn several_type_errors_are_kubectls_one_line() {
    assert_eq!(fails(&["list", "pods,nope"]), "error: the server doesn't have a resource type \"nope\"\n");
    assert_eq!(
        fails(&["list", "pods,cm", "-w"]),
        "error: watch is only supported on individual resources and resource collections, but 2 resources were found\n"
    );
}
