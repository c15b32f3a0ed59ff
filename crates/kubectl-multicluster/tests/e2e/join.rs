//! `join` and `unjoin` through the server, on a server of their own. The joined cluster gets a
//! new name, so the configured clusters (and what other servers see of them) stay untouched.

use std::time::Duration;

use crate::harness::{Env, NS, Server, eventually, workloads};

const JOINED: &str = "cli-joined";

#[test]
fn a_cluster_joins_under_a_new_name_and_leaves_again() {
    workloads();
    let env = Env::get();
    let server = Server::start("join");
    let _ = server.plugin(&["unjoin", JOINED]);
    let source = env.clusters[2].as_str();
    let kubeconfig = env.kubeconfig(source);
    let kubeconfig = kubeconfig.to_str().unwrap();

    let run = server.plugin(&["join", JOINED, "--file", kubeconfig]).ok();
    assert_eq!(run.stdout, format!("cluster/{JOINED} joined (join cluster successful)\n"));
    eventually("the joined cluster Ready", Duration::from_secs(60), || {
        let rows = server.plugin(&["list", "clusters"]).rows();
        rows.iter().any(|r| r[0] == JOINED && r[4] == "false" && r[5] == "Synced").then_some(())
    });
    eventually("pods of the joined cluster", Duration::from_secs(60), || {
        let rows = server.plugin(&["list", "pods", "-n", NS, "--clusterName", JOINED]).rows();
        (rows.len() == 3).then_some(())
    });
    let taken = server.plugin(&["join", JOINED, "--file", kubeconfig]);
    assert_eq!(taken.code, Some(1), "{taken:?}");
    assert!(taken.stderr.starts_with("error: ") && taken.stderr.contains(JOINED), "{taken:?}");

    let run = server.plugin(&["unjoin", JOINED]).ok();
    assert_eq!(run.stdout, format!("cluster/{JOINED} unjoined (unjoin cluster successful)\n"));
    let clusters = server.plugin(&["list", "clusters", "-o", "name"]).ok().stdout;
    assert!(!clusters.contains(JOINED), "{clusters}");
    let gone = server.plugin(&["list", "pods", "-n", NS, "--clusterName", JOINED]);
    assert_eq!(gone.code, Some(1), "the cluster is unknown now: {gone:?}");
    let again = server.plugin(&["unjoin", JOINED]);
    assert_eq!(again.code, Some(1), "{again:?}");
    assert!(again.stderr.contains(JOINED), "{again:?}");
}
