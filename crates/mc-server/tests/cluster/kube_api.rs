//! The read-only Kubernetes API: plain kubectl and kube-rs read every cluster through
//! mc-server, on the same port and token.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams};
use serde_json::Value;

use crate::server::{McServer, Options, TEST_TOKEN};
use crate::testenv::{TestEnv, kubectl_path};

/// A kubeconfig whose only context points at mc-server (or one of its `/clusters/NAME` paths).
pub(crate) fn kubeconfig(env: &TestEnv, url: &str, ca: &std::path::Path, name: &str, path: &str) -> PathBuf {
    kubeconfig_with_token(env, &format!("{url}{path}"), ca, name, TEST_TOKEN)
}

/// A kubeconfig whose only context points at `server` (mc-server) and sends `token`.
pub(crate) fn kubeconfig_with_token(
    env: &TestEnv,
    server: &str,
    ca: &std::path::Path,
    name: &str,
    token: &str,
) -> PathBuf {
    let file = env.dir.join(format!("mc-kubeconfig-{name}"));
    let text = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: mc\ncontexts:\n- name: mc\n  context: {{cluster: mc, user: mc}}\n\
         clusters:\n- name: mc\n  cluster: {{server: \"{server}\", certificate-authority: \"{}\"}}\n\
         users:\n- name: mc\n  user: {{token: \"{token}\"}}\n",
        ca.display()
    );
    std::fs::write(&file, text).unwrap();
    file
}

pub(crate) fn kubectl(kubeconfig: &PathBuf, args: &[&str]) -> Output {
    Command::new(kubectl_path().unwrap())
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["--cache-dir", &kubeconfig.with_extension("cache").display().to_string()])
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: Output, what: &str) -> String {
    assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Rows of a kubectl table, split on runs of spaces.
fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines().map(|l| l.split_whitespace().map(String::from).collect()).collect()
}

/// An mc-server as it starts without TLS settings, ready: HTTPS with the CA it made itself
/// (kubectl sends a bearer token only over HTTPS). The server, its https URL, its CA file and a
/// client trusting it.
pub(crate) async fn start_https(env: &TestEnv, test: &str) -> (McServer, String, PathBuf, reqwest::Client) {
    let server = McServer::start(env, test, Options::default()).await;
    let (url, ca) = (server.url.clone(), server.ca().unwrap().to_path_buf());
    assert!(url.starts_with("https://"), "{url}");
    let https = server.http().clone();
    (server, url, ca, https)
}

#[tokio::test]
async fn plain_kubectl_discovers_lists_and_gets_across_every_cluster_and_cannot_write() {
    let env = TestEnv::from_env();
    let (_server, url, ca, https) = start_https(&env, "kube-api").await;
    let all = kubeconfig(&env, &url, &ca, "all", "");

    // Discovery: core, named groups and CRDs, with short names.
    let resources = ok(kubectl(&all, &["api-resources", "--no-headers"]), "api-resources");
    let names: Vec<&str> = resources.lines().filter_map(|l| l.split_whitespace().next()).collect();
    for want in ["pods", "configmaps", "namespaces", "deployments", "multiclusterresources", "multiclusters"]
    {
        assert!(names.contains(&want), "{want} in {names:?}");
    }
    assert!(resources.lines().any(|l| l.starts_with("deployments") && l.contains("deploy")), "{resources}");
    // In the aggregated form kubectl asks for first: two requests, not one per group version.
    let verbose = kubectl(&all, &["api-resources", "--no-headers", "-v=6"]);
    let log = String::from_utf8_lossy(&verbose.stderr);
    let gets: Vec<&str> = log.lines().filter(|l| l.contains("verb=\"GET\"")).collect();
    assert!(gets.iter().any(|l| l.contains("/apis?") && l.contains("200 OK")), "{log}");
    assert!(!gets.iter().any(|l| l.contains("/apis/apps/v1")), "no legacy discovery: {log}");
    let discovery: Value = https
        .get(format!("{url}/apis"))
        .bearer_auth(TEST_TOKEN)
        .header(
            "Accept",
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(discovery["kind"], "APIGroupDiscoveryList");
    let apps =
        discovery["items"].as_array().unwrap().iter().find(|g| g["metadata"]["name"] == "apps").unwrap();
    let deployments =
        apps["versions"][0]["resources"].as_array().unwrap().iter().find(|r| r["resource"] == "deployments");
    assert_eq!(deployments.unwrap()["verbs"], serde_json::json!(["get", "list", "watch"]), "{apps}");

    // A list over every cluster: one kube-system per cluster, with its cluster.
    let table = ok(kubectl(&all, &["get", "namespaces"]), "get namespaces");
    let ns_rows = rows(&table);
    assert_eq!(ns_rows[0], ["NAME", "CLUSTER", "STATUS", "AGE"], "kubectl's columns with CLUSTER: {table}");
    for c in &env.clusters {
        assert!(ns_rows.iter().any(|r| r[0] == "kube-system" && r[1] == c.name), "{} in {table}", c.name);
    }
    let in_ns = ok(kubectl(&all, &["get", "configmaps", "-n", "kube-system", "--no-headers"]), "get cm -n");
    let clusters: std::collections::BTreeSet<&str> =
        in_ns.lines().filter_map(|l| l.split_whitespace().nth(1)).collect();
    assert_eq!(clusters.len(), env.clusters.len(), "{in_ns}");
    let wide = ok(kubectl(&all, &["get", "configmaps", "-A", "--no-headers"]), "get cm -A");
    assert!(wide.lines().all(|l| l.split_whitespace().count() == 5), "NAMESPACE added by kubectl: {wide}");

    // A custom resource: its CRD's printer columns, evaluated as the API server does.
    let table = ok(kubectl(&all, &["get", "multiclusters", "-n", "default"]), "get multiclusters");
    let crs = rows(&table);
    assert_eq!(
        crs[0],
        ["NAME", "CLUSTER", "VERSION", "HOST", "PLATFORM", "ISMASTER", "STATUS", "AGE"],
        "{table}"
    );
    let master = crs.iter().find(|r| r[0] == env.clusters[0].name).unwrap_or_else(|| panic!("{table}"));
    assert_eq!(master[1], env.clusters[0].name, "MultiCluster objects live in the master: {table}");
    assert_eq!(master[5], "true", "{table}");
    assert!(master[3].starts_with("https://127.0.0.1:"), "{table}");

    // JSON: objects carry their cluster; a name in several clusters says which one it shows.
    let out = kubectl(&all, &["get", "namespace", "kube-system", "-o", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let object: Value = serde_json::from_str(&ok(out, "get ns -o json")).unwrap();
    assert_eq!(
        object["metadata"]["annotations"]["mulitcluster.practice.com/cluster"],
        env.clusters[0].name.as_str()
    );
    assert!(stderr.contains("also exists in"), "{stderr}");
    let list: Value =
        serde_json::from_str(&ok(kubectl(&all, &["get", "configmaps", "-A", "-o", "json"]), "json")).unwrap();
    let items = list["items"].as_array().unwrap();
    assert!(items.len() >= env.clusters.len(), "{list}");
    assert!(
        items.iter().all(|i| i["metadata"]["annotations"]["mulitcluster.practice.com/cluster"].is_string())
    );

    // One cluster under /clusters/NAME.
    let second = &env.clusters[1].name;
    let one = kubeconfig(&env, &url, &ca, "one", &format!("/clusters/{second}"));
    // The Table that cluster's API server answers: no CLUSTER column, its namespaces only
    // (asked again while a namespace an earlier test deleted is still going away).
    let names = |text: &str| {
        let mut names: Vec<String> =
            text.lines().filter_map(|l| l.split_whitespace().next().map(String::from)).collect();
        names.sort();
        names
    };
    let mut table = String::new();
    for _ in 0..20 {
        table = ok(kubectl(&one, &["get", "namespaces", "--no-headers"]), "get ns of one cluster");
        let direct = env.kubectl(&env.clusters[1], &["get", "namespaces", "--no-headers"]).unwrap();
        if !table.is_empty() && names(&table) == names(&direct) {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let direct = env.kubectl(&env.clusters[1], &["get", "namespaces", "--no-headers"]).unwrap();
    assert_eq!(names(&table), names(&direct), "{table}");
    assert!(
        !table.is_empty()
            && table.lines().all(|l| matches!(l.split_whitespace().nth(1), Some("Active" | "Terminating"))),
        "{table}"
    );

    // Pagination with limit and continue, as `get --raw` shows it: every object exactly once.
    let mut seen = Vec::new();
    let mut token = String::new();
    let mut pages = 0;
    loop {
        let path = format!("/api/v1/configmaps?limit=3&continue={token}");
        let page: Value =
            serde_json::from_str(&ok(kubectl(&all, &["get", "--raw", &path]), "raw page")).unwrap();
        pages += 1;
        for i in page["items"].as_array().unwrap() {
            seen.push(format!(
                "{}/{}/{}",
                i["metadata"]["annotations"]["mulitcluster.practice.com/cluster"],
                i["metadata"]["namespace"],
                i["metadata"]["name"]
            ));
        }
        token = page["metadata"]["continue"].as_str().unwrap_or_default().to_string();
        if token.is_empty() {
            break;
        }
    }
    let total = items.len();
    assert!(pages > 1, "{pages} pages");
    assert_eq!(seen.len(), total);
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), total, "no object twice");

    // Errors are Status objects; writes are refused and say where to write.
    let out = kubectl(&all, &["get", "configmap", "no-such-configmap", "-n", "default"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("NotFound"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = kubectl(&all, &["delete", "namespace", "kube-public"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("MethodNotAllowed") && stderr.contains("read-only"), "{stderr}");
    let out = kubectl(&all, &["create", "configmap", "nope", "-n", "default"]);
    assert!(!out.status.success(), "creating through mc-server is refused");
    let out = kubectl(&all, &["get", "--raw", "/clusters/no-such-cluster/api/v1/namespaces"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-cluster"));

    // Without the token: 401.
    let anonymous = https.get(format!("{url}/api/v1/namespaces")).send().await.unwrap();
    assert_eq!(anonymous.status(), reqwest::StatusCode::UNAUTHORIZED);

    // A kube-rs client lists through mc-server as from one cluster.
    let kubeconfig = kube::config::Kubeconfig::read_from(&all).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default()).await.unwrap();
    let client = kube::Client::try_from(config).unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(client, "kube-system");
    let list = cms.list(&ListParams::default()).await.unwrap();
    let clusters: std::collections::BTreeSet<String> = list
        .items
        .iter()
        .map(|c| {
            c.metadata.annotations.clone().unwrap_or_default()["mulitcluster.practice.com/cluster"].clone()
        })
        .collect();
    assert_eq!(clusters.len(), env.clusters.len(), "{clusters:?}");
}

/// The body of a GET with the test token (the whole stream, for a watch with a timeout).
async fn get_text(https: &reqwest::Client, url: &str) -> String {
    https.get(url).bearer_auth(TEST_TOKEN).send().await.unwrap().text().await.unwrap()
}

/// A GET with the test token as JSON; `None` when it fails (for polling).
async fn get_json(https: &reqwest::Client, url: &str) -> Option<Value> {
    https.get(url).bearer_auth(TEST_TOKEN).send().await.ok()?.json().await.ok()
}

#[tokio::test]
async fn kubectl_get_w_and_a_kube_rs_watcher_follow_changes_from_a_resource_version() {
    use futures::StreamExt;
    use kube::runtime::watcher;
    use std::io::BufRead;

    let env = TestEnv::from_env();
    let (_server, url, ca, https) = start_https(&env, "kube-watch").await;
    let all = kubeconfig(&env, &url, &ca, "watch", "");
    let member = &env.clusters[1];
    let ns = "mc-kube-watch";
    let _ = env.kubectl(member, &["create", "namespace", ns]);
    let _ = env.kubectl(member, &["delete", "configmaps", "--all", "-n", ns]);

    // kubectl get -w: the list, then a row for an object created after it started.
    let mut child = Command::new(kubectl_path().unwrap())
        .arg("--kubeconfig")
        .arg(&all)
        .args(["get", "configmaps", "-n", ns, "-w", "--no-headers"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    tokio::time::sleep(Duration::from_secs(2)).await;
    env.kubectl(member, &["create", "configmap", "watched-by-kubectl", "-n", ns]).unwrap();
    let row = (|| {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match rx.recv_timeout(left) {
                Ok(line) if line.contains("watched-by-kubectl") => return Some(line),
                Ok(_) => continue,
                Err(_) => return None,
            }
        }
        None
    })();
    let _ = child.kill();
    let _ = child.wait();
    let row = row.expect("kubectl get -w printed the new object");
    assert!(row.contains(&member.name), "{row}");

    // A kube-rs watcher (list, then watch from the list's resourceVersion) sees a create and a delete.
    let kubeconfig = kube::config::Kubeconfig::read_from(&all).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default()).await.unwrap();
    let client = kube::Client::try_from(config).unwrap();
    let api: Api<ConfigMap> = Api::namespaced(client, ns);
    let mut events = watcher(api, watcher::Config::default()).boxed();
    let mut created = false;
    let mut seen = Vec::new();
    let outcome = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(event) = events.next().await {
            match event.unwrap() {
                watcher::Event::InitDone => {
                    env.kubectl(member, &["create", "configmap", "watched-by-kube-rs", "-n", ns]).unwrap();
                }
                watcher::Event::Apply(cm) if cm.metadata.name.as_deref() == Some("watched-by-kube-rs") => {
                    let rv = cm.metadata.resource_version.clone().unwrap_or_default();
                    assert!(rv.starts_with("mc."), "our resourceVersion: {rv}");
                    seen.push("apply");
                    if !created {
                        created = true;
                        env.kubectl(member, &["delete", "configmap", "watched-by-kube-rs", "-n", ns])
                            .unwrap();
                    }
                }
                watcher::Event::Delete(cm) if cm.metadata.name.as_deref() == Some("watched-by-kube-rs") => {
                    seen.push("delete");
                    return;
                }
                _ => {}
            }
        }
    })
    .await;
    assert!(outcome.is_ok(), "watcher events: {seen:?}");
    assert_eq!(seen.first(), Some(&"apply"));
    assert_eq!(seen.last(), Some(&"delete"));

    // A watch resumed from a list's version: an object that stopped matching the label selector
    // in between is DELETED (the watch cannot know whether its client holds it, so it says so).
    env.kubectl(member, &["create", "configmap", "selected", "-n", ns]).unwrap();
    env.kubectl(member, &["label", "configmap", "selected", "-n", ns, "tier=front"]).unwrap();
    let list = format!("{url}/api/v1/namespaces/{ns}/configmaps?labelSelector=tier%3Dfront");
    let rv = crate::testenv::eventually("the labelled object listed", Duration::from_secs(30), || async {
        let list = get_json(&https, &list).await?;
        let names: Vec<&str> =
            list["items"].as_array()?.iter().filter_map(|o| o["metadata"]["name"].as_str()).collect();
        (names == ["selected"])
            .then(|| list["metadata"]["resourceVersion"].as_str().unwrap_or("").to_string())
    })
    .await;
    env.kubectl(member, &["label", "configmap", "selected", "-n", ns, "tier=back", "--overwrite"]).unwrap();
    crate::testenv::eventually(
        "the relabelled object out of the selector",
        Duration::from_secs(30),
        || async {
            let list = get_json(&https, &list).await?;
            list["items"].as_array()?.is_empty().then_some(())
        },
    )
    .await;
    let body = get_text(&https, &format!("{list}&watch=1&resourceVersion={rv}&timeoutSeconds=2")).await;
    let events: Vec<(String, String)> = body
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|e| {
            (
                e["type"].as_str().unwrap_or("").into(),
                e["object"]["metadata"]["name"].as_str().unwrap_or("").into(),
            )
        })
        .collect();
    // A list's version is read before its objects, so the watch may first replay the labelling
    // the list already showed (MODIFIED, harmless to a client that holds the object); then DELETED.
    let deleted = ("DELETED".to_string(), "selected".to_string());
    assert_eq!(events.last(), Some(&deleted), "{body}");
    assert!(events.len() <= 2, "{body}");
    assert!(events.iter().all(|(t, n)| n == "selected" && (t == "MODIFIED" || t == "DELETED")), "{body}");

    // Resumed from a list's version, a change of a listed object is MODIFIED (as a watch without
    // a version tells it) and an object made later is ADDED.
    let plain = format!("{url}/api/v1/namespaces/{ns}/configmaps");
    let names_of = |list: &Value| -> Vec<String> {
        let items = list["items"].as_array().cloned().unwrap_or_default();
        items.iter().filter_map(|o| o["metadata"]["name"].as_str().map(str::to_string)).collect()
    };
    env.kubectl(member, &["create", "configmap", "listed", "-n", ns]).unwrap();
    crate::testenv::eventually("the object listed", Duration::from_secs(30), || async {
        names_of(&get_json(&https, &plain).await?).contains(&"listed".to_string()).then_some(())
    })
    .await;
    // The version of a list taken once the object is in: nothing of it comes after.
    let rv =
        get_json(&https, &plain).await.unwrap()["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    env.kubectl(member, &["label", "configmap", "listed", "-n", ns, "changed=yes"]).unwrap();
    env.kubectl(member, &["create", "configmap", "made-later", "-n", ns]).unwrap();
    crate::testenv::eventually("the change and the new object stored", Duration::from_secs(30), || async {
        let list = get_json(&https, &plain).await?;
        let items = list["items"].as_array()?;
        let labelled = items.iter().any(|o| o["metadata"]["labels"]["changed"] == "yes");
        (labelled && names_of(&list).contains(&"made-later".to_string())).then_some(())
    })
    .await;
    let body = get_text(&https, &format!("{plain}?watch=1&resourceVersion={rv}&timeoutSeconds=2")).await;
    let events: Vec<(String, String)> = body
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|e| {
            let name = e["object"]["metadata"]["name"].as_str().unwrap_or("").to_string();
            (e["type"].as_str().unwrap_or("").to_string(), name)
        })
        .collect();
    let of =
        |name: &str| events.iter().filter(|(_, n)| n == name).map(|(t, _)| t.as_str()).collect::<Vec<_>>();
    assert_eq!(of("listed"), ["MODIFIED"], "{body}");
    assert_eq!(of("made-later"), ["ADDED"], "{body}");

    // A version that is not ours (a member's) or no longer kept: 410 Expired, so clients list again.
    let body =
        get_text(&https, &format!("{url}/api/v1/namespaces/{ns}/configmaps?watch=1&resourceVersion=12345"))
            .await;
    let event: Value = serde_json::from_str(body.lines().next().unwrap()).unwrap();
    assert_eq!(event["type"], "ERROR", "{body}");
    assert_eq!(event["object"]["code"], 410, "{body}");
    let _ = env.kubectl(member, &["delete", "namespace", ns, "--wait=false"]);
}

/// kubectl's own paging (`--chunk-size`) sends each continue token back with the query that made
/// it, with a selector, over every cluster and under `/clusters/NAME/`: every object once, as
/// one unpaged list shows them. A token of another query is refused in kubectl's words.
#[tokio::test]
async fn kubectl_pages_through_continue_tokens_of_its_own_query() {
    let env = TestEnv::from_env();
    let (_server, url, ca, _https) = start_https(&env, "kube-chunks").await;
    let all = kubeconfig(&env, &url, &ca, "chunks", "");
    let one = kubeconfig(&env, &url, &ca, "chunks-one", &format!("/clusters/{}", env.clusters[1].name));
    // Namespaces every cluster has, labelled by their API servers: stable while other tests run.
    let list = [
        "get",
        "namespaces",
        "-l",
        "kubernetes.io/metadata.name in (default,kube-system,kube-public)",
        "-o",
        "jsonpath={range .items[*]}{.metadata.annotations.mulitcluster\\.practice\\.com/cluster}/{.metadata.name}{\"\\n\"}{end}",
    ];
    for (config, clusters) in [(&all, env.clusters.len()), (&one, 1)] {
        let whole = ok(kubectl(config, &[&list[..], &["--chunk-size=0"]].concat()), "unpaged");
        let paged = ok(kubectl(config, &[&list[..], &["--chunk-size=2", "-v=6"]].concat()), "paged");
        assert_eq!(whole.lines().count(), 3 * clusters, "{whole}");
        assert_eq!(paged, whole);
    }
    let verbose = kubectl(&all, &[&list[..], &["--chunk-size=2", "-v=6"]].concat());
    let log = String::from_utf8_lossy(&verbose.stderr);
    assert!(log.lines().filter(|l| l.contains("continue=")).count() >= 2, "kubectl paged: {log}");

    let page: Value = serde_json::from_str(&ok(
        kubectl(&all, &["get", "--raw", "/api/v1/namespaces?limit=1"]),
        "first page",
    ))
    .unwrap();
    let token = page["metadata"]["continue"].as_str().unwrap();
    let other = kubectl(&all, &["get", "--raw", &format!("/api/v1/configmaps?limit=1&continue={token}")]);
    assert!(!other.status.success());
    let said = String::from_utf8_lossy(&other.stderr);
    assert!(said.contains("BadRequest") || said.contains("another query"), "{said}");
}
