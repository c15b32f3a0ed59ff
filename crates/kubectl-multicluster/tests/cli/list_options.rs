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
