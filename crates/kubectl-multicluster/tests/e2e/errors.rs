//! Error cases, each with its message and exit code, through kubectl.

use crate::harness::{Env, Server, free_port, plugin_command};

#[test]
fn an_unknown_resource_type_lists_candidates_and_exits_1() {
    let run = Server::shared().plugin(&["list", "podz"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with("error: unknown resource type \"podz\"; did you mean: v1/pods"),
        "{run:?}"
    );
    assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
}

#[test]
fn an_unknown_cluster_is_named() {
    let run = Server::shared().plugin(&["list", "pods", "--clusterName", "tencent9"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.starts_with("error: unknown cluster \"tencent9\""), "{run:?}");
}

#[test]
fn an_unreachable_server_names_the_address_and_the_config_file() {
    let env = Env::get();
    let port = free_port();
    let config = env.dir.join("mc-cli").join("unreachable-config");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, format!("serverIP: 127.0.0.1\nserverPort: {port}\n")).unwrap();
    let run: crate::harness::Run = plugin_command(&config, &["list", "pods"], &[]).output().unwrap().into();
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(
        run.stderr,
        format!(
            "error: cannot reach mc-server at http://127.0.0.1:{port} (from serverIP/serverPort in {}): connection refused\n",
            config.display()
        )
    );
}

#[test]
fn a_missing_config_says_how_to_create_it() {
    let env = Env::get();
    let config = env.dir.join("mc-cli").join("no-such-config");
    let run: crate::harness::Run = plugin_command(&config, &["list", "pods"], &[]).output().unwrap().into();
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("create it with `kubectl multicluster config set --server URL --token TOKEN`"),
        "{run:?}"
    );
}

#[test]
fn bad_usage_exits_2() {
    let run = Server::shared().plugin(&["list", "pods", "-o", "table"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("invalid value 'table'"), "{run:?}");
}

#[test]
fn the_version_comes_through_kubectl() {
    let run = Server::shared().plugin(&["--version"]).ok();
    assert_eq!(run.stdout, format!("kubectl-multicluster {}\n", env!("CARGO_PKG_VERSION")));
}
