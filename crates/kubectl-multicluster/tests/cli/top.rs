//! `top pods|nodes`: kubectl top's columns with CLUSTER first, from mc-server's
//! `metrics.k8s.io/v1beta1`; clusters without metrics said on stderr, an error only when no
//! cluster asked has any.

use crate::commands::{Home, stderr, stdout};
use crate::fake::FakeServer;

#[test]
fn top_pods_prints_each_pods_summed_usage_with_its_cluster_and_passes_the_selector() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["top", "pods", "-n", "shop", "-l", "app=web,tier!=db"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "CLUSTER    NAME    CPU(cores)   MEMORY(bytes)\n\
         tencent1   api-0   251m         127Mi\n\
         tencent1   web-1   13m          34Mi\n\
         tencent2   web-1   3m           24Mi\n"
    );
    assert_eq!(
        stderr(&out),
        "Warning: cluster(s) tencent4 serve no metrics API (metrics.k8s.io/v1beta1): they are left out\n"
    );
    let asked: Vec<String> = server.requests().into_iter().filter(|r| r.contains("metrics.k8s.io")).collect();
    assert_eq!(
        asked,
        ["GET /apis/metrics.k8s.io/v1beta1/namespaces/shop/pods?labelSelector=app%3Dweb%2Ctier%21%3Ddb"]
    );
}

#[test]
fn top_pods_in_every_namespace_adds_the_namespace_column() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["top", "pod", "-A", "-c", "tencent2"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "CLUSTER    NAMESPACE   NAME    CPU(cores)   MEMORY(bytes)\ntencent2   shop        web-1   3m           24Mi\n"
    );
    assert!(server.requests().iter().any(|r| r == "GET /clusters/tencent2/apis/metrics.k8s.io/v1beta1/pods"));
}

#[test]
fn top_nodes_prints_percentages_only_with_an_allocatable() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["top", "nodes", "-c", "tencent1,tencent4"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // The fixture nodes have no allocatable.
    assert_eq!(
        stdout(&out),
        "CLUSTER    NAME             CPU(cores)   CPU%        MEMORY(bytes)   MEMORY%\n\
         tencent1   vm-0-16-centos   184m         <unknown>   1532Mi          <unknown>\n"
    );
    assert_eq!(stderr(&out), "Warning: cluster(s) tencent4 serve no metrics API: they are left out\n");
}

#[test]
fn top_without_any_cluster_with_metrics_is_an_error() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["top", "pods", "-c", "tencent4"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: Metrics API not available: none of tencent4 serves metrics.k8s.io/v1beta1 (install \
         metrics-server in the members)\n"
    );
}
