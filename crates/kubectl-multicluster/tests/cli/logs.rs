//! `logs`: every container of the pods named, in every cluster that has them, merged line by
//! line with a `[CLUSTER/POD/CONTAINER]` prefix; a stream that cannot be read is said on stderr
//! and the exit code is 1, the others printed all the same.

use crate::commands::{Home, stderr, stdout};
use crate::fake::FakeServer;

#[test]
fn logs_of_a_pod_read_every_container_and_one_failing_does_not_stop_the_others() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out =
        home.cmd().args(["logs", "pod/api-0", "-n", "shop", "--tail", "5", "--timestamps"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "[tencent1/api-0/api] tencent1 api-0 api line 1\n[tencent1/api-0/api] tencent1 api-0 api line 2\n"
    );
    assert_eq!(
        stderr(&out),
        "error: [tencent1/api-0/envoy] cluster \"tencent1\" cannot serve the log of container \"envoy\"\n"
    );
    let asked: Vec<String> = server.requests().into_iter().filter(|r| r.contains("/log")).collect();
    assert!(
        asked.contains(
            &"GET /clusters/tencent1/api/v1/namespaces/shop/pods/api-0/log?tailLines=5&timestamps=true&container=api"
                .to_string()
        ),
        "{asked:?}"
    );
}

#[test]
fn logs_of_a_deployment_read_the_pods_its_selector_selects_in_its_cluster() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home
        .cmd()
        .args(["logs", "deploy/scaled-down", "-n", "kube-system", "-f", "--since", "2m", "--prefix=false"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // Two pods of tencent2 (the fake ignores the selector), merged; without prefixes.
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "tencent2 migrate-db migrate line 1",
            "tencent2 migrate-db migrate line 2",
            "tencent2 pending-x main line 1",
            "tencent2 pending-x main line 2",
        ]
    );
    let requests = server.requests();
    let pods = requests.iter().find(|r| r.contains("labelSelector")).unwrap();
    assert!(pods.contains("cluster=tencent2"), "{pods}");
    assert!(pods.contains("labelSelector=app%3Dx%2Ctier+in+%28a%2Cb%29%2C%21canary"), "{pods}");
    assert!(
        requests
            .iter()
            .any(|r| r.ends_with("/pods/pending-x/log?follow=true&sinceSeconds=120&container=main"))
    );
}

#[test]
fn the_container_is_chosen_with_container_and_the_cluster_with_c() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home
        .cmd()
        .args(["logs", "api-0", "-n", "shop", "-c", "tencent1", "--container", "api"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
    let out = home.cmd().args(["logs", "api-0", "-n", "shop", "-c", "tencent2"]).output().unwrap();
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("pod \"api-0\" not found in namespace shop in cluster(s) tencent2"),
        "{}",
        stderr(&out)
    );
    let out = home.cmd().args(["logs", "svc/web"]).output().unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("logs are read of pods and of deployments"), "{}", stderr(&out));
}
