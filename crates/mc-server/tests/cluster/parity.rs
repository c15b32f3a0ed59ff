//! Printer parity with the real kubectl (the Tables of mc-server's Kubernetes API,
//! docs/kubernetes-api.md): for each of 42 built-in types and a custom resource,
//! `kubectl get T -A` (and `-o wide`) against a cluster and through mc-server's `/clusters/NAME`
//! print the same columns and values (ages within their rounding); over every cluster the same
//! rows come with a CLUSTER column, plus the other clusters' rows.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::kube_api::{kubeconfig, kubectl, start_https};
use crate::testenv::{TestEnv, eventually};

/// `kubectl get` names of the compared types.
const TYPES: &[&str] = &[
    "pods",
    "services",
    "endpoints",
    "configmaps",
    "secrets",
    "namespaces",
    "nodes",
    "persistentvolumes",
    "persistentvolumeclaims",
    "serviceaccounts",
    "events",
    "resourcequotas",
    "limitranges",
    "replicationcontrollers",
    "podtemplates",
    "deployments.apps",
    "statefulsets.apps",
    "daemonsets.apps",
    "replicasets.apps",
    "controllerrevisions.apps",
    "jobs.batch",
    "cronjobs.batch",
    "ingresses.networking.k8s.io",
    "ingressclasses.networking.k8s.io",
    "networkpolicies.networking.k8s.io",
    "endpointslices.discovery.k8s.io",
    "roles.rbac.authorization.k8s.io",
    "rolebindings.rbac.authorization.k8s.io",
    "clusterroles.rbac.authorization.k8s.io",
    "clusterrolebindings.rbac.authorization.k8s.io",
    "storageclasses.storage.k8s.io",
    "csidrivers.storage.k8s.io",
    "leases.coordination.k8s.io",
    "horizontalpodautoscalers.autoscaling",
    "poddisruptionbudgets.policy",
    "priorityclasses.scheduling.k8s.io",
    "customresourcedefinitions.apiextensions.k8s.io",
    "validatingwebhookconfigurations.admissionregistration.k8s.io",
    "mutatingwebhookconfigurations.admissionregistration.k8s.io",
    "flowschemas.flowcontrol.apiserver.k8s.io",
    "prioritylevelconfigurations.flowcontrol.apiserver.k8s.io",
    "widgets.parity.example.com",
];

const OBJECTS: &str = include_str!("parity_objects.yaml");

const WIDGETS: &str = "\
apiVersion: parity.example.com/v1
kind: Widget
metadata: {name: full, namespace: parity, labels: {topology.kubernetes.io/zone: eu-1a}}
spec: {size: 3, owner: alice}
status: {ready: true}
---
apiVersion: parity.example.com/v1
kind: Widget
metadata: {name: bare, namespace: parity}
";

/// Status the API server keeps as written (no kubelet runs here): pods in every state kubectl
/// words differently, a node with its info, load balancer addresses.
fn statuses(now: &str, ten_minutes_ago: &str) -> Vec<(&'static str, &'static str, String)> {
    let terminated = |code: i32, reason: &str| {
        format!(
            r#"{{"terminated": {{"exitCode": {code}, "reason": "{reason}", "startedAt": "{ten_minutes_ago}", "finishedAt": "{ten_minutes_ago}"}}}}"#
        )
    };
    vec![
        ("pod", "web-0", format!(
            r#"{{"status": {{"phase": "Running", "podIP": "10.244.0.5", "podIPs": [{{"ip": "10.244.0.5"}}],
              "conditions": [{{"type": "Initialized", "status": "True"}}, {{"type": "Ready", "status": "True"}},
                             {{"type": "example.com/ready", "status": "False"}}],
              "initContainerStatuses": [{{"name": "init", "image": "busybox:1.36", "imageID": "", "ready": false, "restartCount": 0, "state": {}}}],
              "containerStatuses": [
                {{"name": "app", "image": "nginx:1.27", "imageID": "", "ready": true, "restartCount": 3, "state": {{"running": {{"startedAt": "{now}"}}}}, "lastState": {}}},
                {{"name": "sidecar", "image": "envoy:1.30", "imageID": "", "ready": true, "restartCount": 0, "state": {{"running": {{"startedAt": "{now}"}}}}}}]}}}}"#,
            terminated(0, "Completed"), terminated(1, "Error"))),
        ("pod", "crash-0", format!(
            r#"{{"status": {{"phase": "Running", "podIP": "10.244.0.6",
              "containerStatuses": [{{"name": "app", "image": "busybox:1.36", "imageID": "", "ready": false, "restartCount": 7,
                "state": {{"waiting": {{"reason": "CrashLoopBackOff"}}}}, "lastState": {}}}]}}}}"#,
            terminated(2, ""))),
        ("pod", "done-0", format!(
            r#"{{"status": {{"phase": "Succeeded",
              "containerStatuses": [{{"name": "app", "image": "busybox:1.36", "imageID": "", "ready": false, "restartCount": 0, "state": {}}}]}}}}"#,
            terminated(0, "Completed"))),
        ("service", "lb", r#"{"status": {"loadBalancer": {"ingress": [{"ip": "203.0.113.7"}, {"hostname": "lb.example.com"}]}}}"#.into()),
        ("ingress", "site", r#"{"status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.50"}]}}}"#.into()),
    ]
}

const NODE_STATUS: &str = r#"{"status": {
  "addresses": [{"type": "InternalIP", "address": "10.0.0.5"}, {"type": "ExternalIP", "address": "198.51.100.5"}, {"type": "Hostname", "address": "parity-node"}],
  "nodeInfo": {"kubeletVersion": "v1.35.4", "osImage": "Debian GNU/Linux 13 (trixie)", "kernelVersion": "6.12.0", "containerRuntimeVersion": "containerd://2.1.0",
               "machineID": "", "systemUUID": "", "bootID": "", "kubeProxyVersion": "", "operatingSystem": "linux", "architecture": "amd64"},
  "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}"#;

/// Cells of a kubectl table line: runs of two or more spaces separate them.
fn cells(line: &str) -> Vec<String> {
    line.split("  ").map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect()
}

/// Seconds of a kubectl duration (`5m3s`, `3h`, `2y10d`), if the text is one.
fn seconds(text: &str) -> Option<i64> {
    let mut total = 0;
    let mut digits = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let n: i64 = std::mem::take(&mut digits).parse().ok()?;
        total += n * match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86400,
            'y' => 365 * 86400,
            _ => return None,
        };
    }
    digits.is_empty().then_some(total)
}

/// Equal, or equal but for durations a few seconds apart (each side read at its own moment).
fn same_cell(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let words = |s: &str| s.split([' ', '(', ')']).map(String::from).collect::<Vec<_>>();
    let (wa, wb) = (words(a), words(b));
    wa.len() == wb.len() && wa.iter().zip(&wb).all(|(x, y)| {
        x == y
            || matches!((seconds(x), seconds(y)), (Some(p), Some(q)) if (p - q).abs() <= 3.max(p.max(q) / 10))
    })
}

/// The same header and the same rows. Row order is not compared: the API server lists in etcd
/// key order (`mc-a-b` before `mc-a`), the store in (namespace, name) order. Rows are paired
/// by their cells with durations masked, so two reads a second apart (`3m1s`, `3m2s`) still
/// pair the same rows (an events table has its age second).
fn same_rows(a: &[Vec<String>], b: &[Vec<String>]) -> bool {
    let masked = |row: &Vec<String>| -> Vec<String> {
        row.iter()
            .map(|cell| {
                let words: Vec<&str> =
                    cell.split([' ', '(', ')']).map(|w| if seconds(w).is_some() { "~" } else { w }).collect();
                words.join(" ")
            })
            .collect()
    };
    let sorted = |rows: &[Vec<String>]| {
        let mut rows = rows.to_vec();
        if rows.len() > 1 {
            rows[1..].sort_by_cached_key(|r| (masked(r), r.clone()));
        }
        rows
    };
    let (a, b) = (sorted(a), sorted(b));
    a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_cell(p, q)))
}

fn table(kubeconfig: &PathBuf, args: &[&str]) -> Result<Vec<Vec<String>>, String> {
    let out = kubectl(kubeconfig, args);
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8(out.stdout).unwrap();
    Ok(text.lines().map(cells).collect())
}

/// What one comparison found.
#[derive(Debug)]
struct Mismatch {
    args: Vec<String>,
    cluster: Result<Vec<Vec<String>>, String>,
    through: Result<Vec<Vec<String>>, String>,
}

/// Direct vs through mc-server's `/clusters/NAME`, retried while either side moves.
async fn compare(direct: &PathBuf, through: &PathBuf, args: &[&str]) -> Result<usize, Mismatch> {
    let mut last = None;
    for _ in 0..6 {
        let (a, b) = (table(direct, args), table(through, args));
        if let (Ok(x), Ok(y)) = (&a, &b)
            && same_rows(x, y)
        {
            return Ok(x.len());
        }
        last = Some(Mismatch { args: args.iter().map(|s| s.to_string()).collect(), cluster: a, through: b });
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    Err(last.unwrap())
}

#[tokio::test]
async fn plain_kubectl_prints_every_type_through_mc_server_as_the_cluster_does() {
    let env = TestEnv::from_env();
    let cluster = &env.clusters[0];
    let dir = env.dir.join("parity");
    std::fs::create_dir_all(&dir).unwrap();

    // The objects, their statuses, then the custom resources once their CRD serves.
    let objects = dir.join("objects.yaml");
    std::fs::write(&objects, OBJECTS).unwrap();
    env.kubectl(cluster, &["apply", "-f", &objects.display().to_string()]).unwrap();
    env.kubectl(cluster, &["wait", "--for=condition=Established", "crd/widgets.parity.example.com"]).unwrap();
    let widgets = dir.join("widgets.yaml");
    std::fs::write(&widgets, WIDGETS).unwrap();
    env.kubectl(cluster, &["apply", "-f", &widgets.display().to_string()]).unwrap();
    let now = k8s_openapi::jiff::Timestamp::now();
    let earlier = now - k8s_openapi::jiff::SignedDuration::from_secs(600);
    let (now, earlier) =
        (now.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(), earlier.strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
    for (kind, name, status) in statuses(&now, &earlier) {
        env.kubectl(
            cluster,
            &["patch", kind, name, "-n", "parity", "--subresource=status", "--type=merge", "-p", &status],
        )
        .unwrap();
    }
    env.kubectl(
        cluster,
        &["patch", "node", "parity-node", "--subresource=status", "--type=merge", "-p", NODE_STATUS],
    )
    .unwrap();
    env.kubectl(
        cluster,
        &["patch", "widget", "full", "-n", "parity", "--type=merge", "-p", r#"{"status": {"ready": true}}"#],
    )
    .unwrap();

    let (_server, url, ca, _https) = start_https(&env, "parity").await;
    let through = kubeconfig(&env, &url, &ca, "parity-one", &format!("/clusters/{}", cluster.name));
    let fleet = kubeconfig(&env, &url, &ca, "parity-all", "");
    // Synced once the last object created is served.
    eventually("the widgets are served", Duration::from_secs(60), || async {
        let rows = table(&through, &["get", "widgets.parity.example.com", "-A", "--no-headers"]).ok()?;
        (rows.len() == 2).then_some(())
    })
    .await;

    let mut mismatches = Vec::new();
    let mut compared = BTreeMap::new();
    for t in TYPES {
        for wide in [false, true] {
            let mut args = vec!["get", t, "-A"];
            if wide {
                args.extend(["-o", "wide"]);
            }
            match compare(&cluster.kubeconfig, &through, &args).await {
                Ok(rows) => {
                    compared.insert(format!("{t}{}", if wide { " -o wide" } else { "" }), rows);
                }
                Err(m) => mismatches.push(m),
            }
        }
    }
    for m in &mismatches {
        eprintln!(
            "--- kubectl {}\ncluster:    {:?}\nmc-server:  {:?}",
            m.args.join(" "),
            m.cluster,
            m.through
        );
    }
    assert!(mismatches.is_empty(), "{} of {} tables differ (above)", mismatches.len(), TYPES.len() * 2);
    // Non-empty: the parity namespace's objects are among the rows of every type it holds.
    let empty: Vec<&String> = compared.iter().filter(|(_, rows)| **rows < 2).map(|(t, _)| t).collect();
    assert!(empty.len() <= 4, "types without rows compare nothing: {empty:?}");

    // Over every cluster: CLUSTER after NAME, this cluster's rows as above, the others' too.
    for t in ["namespaces", "pods", "deployments.apps", "clusterroles.rbac.authorization.k8s.io"] {
        let direct = table(&cluster.kubeconfig, &["get", t, "-A"]).unwrap();
        let all = eventually(&format!("{t} over every cluster"), Duration::from_secs(30), || async {
            let all = table(&fleet, &["get", t, "-A"]).ok()?;
            let mine: Vec<Vec<String>> = all
                .iter()
                .skip(1)
                .filter(|r| r.contains(&cluster.name))
                .map(|r| r.iter().filter(|c| **c != cluster.name).cloned().collect())
                .collect();
            same_rows(&[direct[0].clone()].into_iter().chain(mine).collect::<Vec<_>>(), &direct)
                .then_some(all)
        })
        .await;
        let mut header = direct[0].clone();
        let at = header.iter().position(|h| h == "NAME").unwrap() + 1;
        header.insert(at, "CLUSTER".into());
        assert_eq!(all[0], header, "{t}");
        let mut total = 0;
        for c in &env.clusters {
            let n = env
                .kubectl(c, &["get", t, "-A", "--no-headers", "--ignore-not-found"])
                .unwrap()
                .lines()
                .count();
            total += n;
        }
        assert_eq!(all.len() - 1, total, "{t}: every cluster's rows");
    }
    // Leave no widgets or parity objects to other tests (a second `widgets` type).
    let _ = env.kubectl(
        cluster,
        &["delete", "-f", &objects.display().to_string(), "--ignore-not-found", "--wait=false"],
    );
}

#[test]
fn rows_read_a_second_apart_still_pair() {
    let row = |cells: &[&str]| cells.iter().map(|c| c.to_string()).collect::<Vec<_>>();
    let header = row(&["NAMESPACE", "LAST SEEN", "REASON", "MESSAGE"]);
    // The CI failure: the ages moved by a second between the two reads and sorted the rows apart.
    // Each row's age ticks at its own moment: one moved from 3m1s to 3m2s, the other not yet.
    let direct = vec![
        header.clone(),
        row(&["ns", "3m1s", "Applied", "applied to tencent4"]),
        row(&["ns", "3m2s", "Applied", "applied to tencent2"]),
        row(&["ns", "2m35s", "Applied", "applied to tencent1"]),
    ];
    let through = vec![
        header.clone(),
        row(&["ns", "2m35s", "Applied", "applied to tencent1"]),
        row(&["ns", "3m2s", "Applied", "applied to tencent4"]),
        row(&["ns", "3m2s", "Applied", "applied to tencent2"]),
    ];
    assert!(same_rows(&direct, &through));
    let other = vec![
        header,
        row(&["ns", "3m1s", "Applied", "applied to tencent9"]),
        direct[2].clone(),
        direct[3].clone(),
    ];
    assert!(!same_rows(&direct, &other), "a different message is a difference");
}
