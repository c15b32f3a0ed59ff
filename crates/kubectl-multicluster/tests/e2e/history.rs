//! `history`, `diff`, `list --deleted`, `list --at` and `events` through kubectl against real
//! clusters.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::harness::{Env, Server, eventually};

const NS: &str = "mc-cli-history";

fn rfc3339(ms: u128) -> String {
    k8s_openapi::jiff::Timestamp::from_millisecond(ms as i64).unwrap().to_string()
}

fn now_ms() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis()
}

#[test]
fn a_configmaps_past_is_printed_as_history_diff_and_lists() {
    let env = Env::get();
    let server = Server::shared();
    let cluster = env.clusters[1].as_str();
    let manifest = format!("apiVersion: v1\nkind: Namespace\nmetadata: {{name: {NS}}}\n");
    env.kubectl_stdin(cluster, &["apply", "-f", "-"], Some(&manifest));
    // A name of its own: the shared server keeps the history of earlier runs' objects.
    let conf = format!("conf-{}", now_ms());
    let conf = conf.as_str();
    let target = format!("cm/{conf}");
    env.kubectl(cluster, &["create", "configmap", conf, "-n", NS, "--from-literal=a=1"]);
    let shows = |what: &str, check: &dyn Fn(&str) -> bool| {
        eventually(what, Duration::from_secs(30), || {
            let run = server.plugin(&["list", "cm", conf, "-n", NS, "--cluster", cluster, "-o", "yaml"]);
            (run.code == Some(0) && check(&run.stdout)).then_some(())
        })
    };
    shows("created", &|y| y.contains("a: '1'") || y.contains("a: \"1\""));
    env.kubectl(cluster, &["patch", "cm", conf, "-n", NS, "-p", r#"{"data":{"a":"2"}}"#]);
    shows("changed", &|y| y.contains("a: '2'") || y.contains("a: \"2\""));
    std::thread::sleep(Duration::from_millis(1500));
    let between = now_ms();
    std::thread::sleep(Duration::from_millis(1500));
    env.kubectl(cluster, &["label", "cm", conf, "-n", NS, "tier=front"]);
    shows("labelled", &|y| y.contains("tier: front"));

    // history: three revisions, oldest first, with the fields each touched.
    let run = server.plugin(&["history", &target, "-n", NS, "--cluster", cluster]).ok();
    let rows = run.rows();
    assert_eq!(rows[0], ["CLUSTER", "REVISION", "TIME", "CHANGE", "FIELDS"], "{}", run.stdout);
    let changes: Vec<(&str, Option<&str>)> =
        rows[1..].iter().map(|r| (r[3].as_str(), r.get(4).map(String::as_str))).collect();
    assert_eq!(
        changes,
        [("ADDED", None), ("MODIFIED", Some("data.a")), ("MODIFIED", Some("metadata.labels"))],
        "{}",
        run.stdout
    );
    let data_change = rows[2][1].clone();

    // diff of the data change against the revision before it: exactly the one line.
    let run =
        server.plugin(&["diff", &target, "-n", NS, "--cluster", cluster, "--revision", &data_change]).ok();
    let changed: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| {
            (l.starts_with('-') || l.starts_with('+')) && !l.starts_with("---") && !l.starts_with("+++")
        })
        .collect();
    assert_eq!(changed.len(), 2, "{}", run.stdout);
    assert!(changed[0].starts_with("-  a: ") && changed[0].contains('1'), "{}", run.stdout);
    assert!(changed[1].starts_with("+  a: ") && changed[1].contains('2'), "{}", run.stdout);

    // As it stood between the data change and the label.
    let at = rfc3339(between);
    let run =
        server.plugin(&["list", "cm", conf, "-n", NS, "--cluster", cluster, "--at", &at, "-o", "yaml"]).ok();
    assert!(
        run.stdout.contains(&format!("name: {conf}")) && !run.stdout.contains("tier: front"),
        "{}",
        run.stdout
    );
    let run = server.plugin(&["list", "cm", "-n", NS, "--cluster", cluster, "--at", &at]).ok();
    assert!(run.rows().iter().any(|r| r.get(1).is_some_and(|n| n == conf)), "{}", run.stdout);

    // Deleted: listed with when, and its last state.
    env.kubectl(cluster, &["delete", "cm", conf, "-n", NS]);
    let run = eventually("conf listed as deleted", Duration::from_secs(30), || {
        let run = server.plugin(&["list", "cm", "-n", NS, "--deleted", "--since", "10m"]);
        (run.code == Some(0) && run.stdout.contains(conf)).then_some(run)
    });
    let rows = run.rows();
    assert_eq!(rows[0].last().map(String::as_str), Some("DELETED"), "{}", run.stdout);
    let run = server.plugin(&["list", "cm", conf, "-n", NS, "--deleted", "-o", "yaml"]).ok();
    assert!(run.stdout.contains("tier: front"), "{}", run.stdout);
    let run = server.plugin(&["history", &target, "-n", NS, "--cluster", cluster]).ok();
    assert_eq!(run.rows().last().unwrap()[3], "DELETED", "{}", run.stdout);

    // Events of every cluster, about one object.
    let event = format!(
        "apiVersion: v1\nkind: Event\nmetadata: {{name: {conf}.probe, namespace: {NS}}}\n\
         involvedObject: {{kind: ConfigMap, name: {conf}, namespace: {NS}}}\n\
         reason: Probed\nmessage: looked at\ntype: Normal\nsource: {{component: e2e}}\n"
    );
    env.kubectl_stdin(cluster, &["apply", "-f", "-"], Some(&event));
    let run = eventually("the Event listed", Duration::from_secs(30), || {
        let run = server.plugin(&["events", "-n", NS, "--for", &target]);
        (run.code == Some(0) && run.stdout.contains("Probed")).then_some(run)
    });
    let rows = run.rows();
    assert_eq!(rows[0], ["CLUSTER", "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], "{}", run.stdout);
    let row =
        rows.iter().find(|r| r.last().is_some_and(|m| m == "looked at") && r[4].ends_with(conf)).unwrap();
    assert_eq!(row[0], cluster);
    assert_eq!(row[2..], ["Normal", "Probed", &format!("configmap/{conf}"), "looked at"]);
    let run = server.plugin(&["events", "-n", NS, "--for", &format!("pod/{conf}")]).ok();
    assert!(!run.stdout.contains("Probed"), "{}", run.stdout);
    // Bad input: one line, exit 1.
    let run = server.plugin(&["list", "cm", "-n", NS, "--at", "yesterday"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stderr.contains("invalid time"), "{}", run.stderr);
}
