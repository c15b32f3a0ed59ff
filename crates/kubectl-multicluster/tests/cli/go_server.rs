//! The real binary against a stand-in for the Go project's server (our CLI during a migration,
//! docs/migrating-from-go.md): every form of resource type, `describe` with the Go project's
//! flags, `list clusters` from MultiCluster objects, selectors applied by the plugin — and
//! against our own server, nothing of this happens.

use serde_json::Value;

use crate::commands::{Home, stderr, stdout};
use crate::fake::FakeServer;
use crate::fake_go_server::{FakeGoServer, Received};
use crate::fake_master::FakeMaster;

const LIST: &str = "/v1/list_with_cluster";

/// Every form of type a user of the Go project may write (names, short names, dotted and slash
/// forms), with the slash form its server must get and whether the plugin can know it before it
/// knows the server (explicit forms: yes; names: only afterwards).
const FORMS: [(&str, &str, bool); 5] = [
    ("pods", "v1/pods", false),
    ("deploy", "apps/v1/deployments", false),
    ("v1.configmaps", "v1/configmaps", true),
    ("apps.v1.deployments", "apps/v1/deployments", true),
    ("core/v1/pods", "v1/pods", true),
];

fn gvrs(requests: &[Received]) -> Vec<&str> {
    requests.iter().map(|r| r.param("gvr").unwrap_or_default()).collect()
}

#[test]
fn every_type_form_lists_the_same_rows_from_the_go_projects_server_as_from_ours() {
    let go_server = FakeGoServer::start();
    let ours = FakeServer::start();
    let (at_go_server, at_ours) = (Home::for_server(&go_server.url, None), Home::for_server(&ours.url, None));
    for (typed, _, _) in FORMS {
        let out = at_go_server.cmd().args(["list", typed]).output().unwrap();
        assert!(out.status.success(), "{typed}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{typed}: no noise on stderr");
        let expected = at_ours.cmd().args(["list", typed]).output().unwrap();
        assert!(expected.status.success(), "{typed}: {}", stderr(&expected));
        assert_eq!(stdout(&out), stdout(&expected), "{typed}");
        assert!(stdout(&out).lines().count() >= 3, "{typed}: {}", stdout(&out));
    }
    let out = at_go_server.cmd().args(["list", "pods"]).output().unwrap();
    let rows = stdout(&out);
    assert!(rows.starts_with("CLUSTER    NAME                 NAMESPACE   NODE"), "{rows}");
    assert!(rows.contains("\ntencent2   migrate-db           shop        tencent2-node-0"), "{rows}");
    assert_eq!(rows.lines().count(), 7, "{rows}");
    let out = at_go_server.cmd().args(["list", "v1.configmaps", "-o", "name"]).output().unwrap();
    assert_eq!(
        stdout(&out),
        "tencent2/configmap/multiclusterresource-configmap\ntencent2/configmap/kube-root-ca.crt\ntencent4/configmap/empty\n"
    );
}

#[test]
fn the_go_projects_server_answers_only_slash_types_and_is_asked_once() {
    for (typed, slash, explicit) in FORMS {
        let go_server = FakeGoServer::start();
        let home = Home::for_server(&go_server.url, None);
        home.cmd().args(["list", typed]).assert().success();
        let lists = go_server.received_at(LIST);
        let (answered, refused): (Vec<Received>, Vec<Received>) =
            lists.into_iter().partition(|r| r.status == 200);
        // One answered list: no `continue` header came back, and the plugin did not loop.
        assert_eq!(gvrs(&answered), [slash], "{typed}");
        assert_eq!(answered[0].param("limit"), Some("0"), "{typed}: all objects, not the Go project's 10");
        if explicit {
            assert_eq!(refused, [], "{typed}: the slash form went out first");
        } else {
            // A name goes out as typed, for our server to resolve, alongside /v1/resources; the
            // Go project's server refuses it, and that 404 makes the plugin resolve it and ask
            // again.
            assert_eq!(gvrs(&refused), [typed], "{typed}");
            assert!(refused.iter().all(|r| r.status == 400), "{refused:?}");
        }
        let discovery = go_server.received_at("/v1/resources");
        assert_eq!(discovery.iter().map(|r| r.status).collect::<Vec<_>>(), [404], "{typed}");
    }
}

#[test]
fn describe_finds_the_object_in_the_go_projects_server_with_either_flag_spelling() {
    let go_server = FakeGoServer::start();
    let home = Home::for_server(&go_server.url, None);
    let spellings: [&[&str]; 3] = [
        &["describe", "pods", "--name", "api-0", "--namespace", "shop", "--clusterName", "tencent1"],
        &["describe", "pods", "--name=api-0", "--namespace=shop", "--clusterName=tencent1"],
        &["describe", "po", "api-0", "-n", "shop", "--cluster-name", "tencent1"],
    ];
    for args in spellings {
        let out = home.cmd().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.starts_with("# cluster: tencent1\napiVersion: v1\nkind: Pod\n"), "{text}");
        assert!(text.contains("  name: api-0\n  namespace: shop\n"), "{text}");
        assert_eq!(text.matches("# cluster:").count(), 1, "{text}");
        // The pod's list, then its events' (for the Events section).
        let mut lists = go_server.received_at(LIST);
        let events = lists.pop().unwrap();
        assert_eq!(events.params[0], ("gvr".into(), "v1/events".into()), "{:?}", events.params);
        let last = lists.pop().unwrap();
        assert_eq!(last.status, 200);
        assert_eq!(
            last.params,
            [
                ("gvr", "v1/pods"),
                ("cluster", "tencent1"),
                ("namespace", "shop"),
                ("name", "api-0"),
                ("limit", "0")
            ]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
    }
    let out = home.cmd().args(["describe", "apps.v1.deployments", "scaled-down"]).output().unwrap();
    assert!(
        stdout(&out).starts_with("# cluster: tencent2\napiVersion: apps/v1\nkind: Deployment\n"),
        "{}",
        stdout(&out)
    );
    let out = home.cmd().args(["describe", "pods", "missing", "--clusterName", "tencent2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "error: pods \"missing\" not found in cluster tencent2\n");
}

#[test]
fn list_clusters_prints_the_go_projects_multicluster_objects_as_the_cluster_table() {
    let go_server = FakeGoServer::start();
    let home = Home::for_server(&go_server.url, None);
    let out = home.cmd().args(["list", "clusters"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "NAME       VERSION   HOST                     PLATFORM      ISMASTER   STATUS\n\
         tencent1   v1.27.3   https://10.0.0.16:6443   linux/amd64   true       Healthy\n\
         tencent2   v1.26.1   https://10.0.0.17:6443   linux/amd64   false      Healthy\n"
    );
    assert_eq!(
        stderr(&out),
        format!(
            "Warning: mc-server at {} is an earlier version without /v1/clusters; listing its MultiCluster objects instead\n",
            go_server.url
        )
    );
    assert_eq!(go_server.received_at("/v1/clusters").iter().map(|r| r.status).collect::<Vec<_>>(), [404]);
    let asked = go_server.received_at(LIST);
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0].params,
        [
            ("gvr", "mulitcluster.practice.com/v1alpha1/multiclusters"),
            ("namespace", "default"),
            ("limit", "0")
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned())),
        "what the Go project's CLI sends"
    );

    let out = home.cmd().args(["list", "clusters", "-o", "name"]).output().unwrap();
    assert_eq!(stdout(&out), "cluster/tencent1\ncluster/tencent2\n");
    let out = home.cmd().args(["list", "clusters", "tencent2", "--no-headers"]).output().unwrap();
    assert_eq!(stdout(&out), "tencent2   v1.26.1   https://10.0.0.17:6443   linux/amd64   false   Healthy\n");
    let out = home.cmd().args(["list", "clusters", "-o", "json"]).output().unwrap();
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list["kind"], "List");
    assert_eq!(list["items"][0]["kind"], "MultiCluster");
    assert_eq!(list["items"][0]["spec"]["isMaster"], "true");
    assert_eq!(list["items"].as_array().unwrap().len(), 2);
    let out = home.cmd().args(["list", "clusters", "-o", "yaml"]).output().unwrap();
    assert!(
        stdout(&out).contains("    isMaster: 'true'\n") || stdout(&out).contains("    isMaster: \"true\"\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn selectors_are_applied_by_the_plugin_because_the_go_projects_server_ignores_them() {
    let go_server = FakeGoServer::start();
    let home = Home::for_server(&go_server.url, None);
    let out = home.cmd().args(["list", "pods", "-l", "app=web", "-o", "name"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "tencent1/pod/web-7dbf7cc5-8llgr\n");
    let last = go_server.received_at(LIST).pop().unwrap();
    assert_eq!(last.param("gvr"), Some("v1/pods"));
    assert_eq!(last.param("labelSelector"), None);
    assert_eq!(last.param("limit"), Some("0"));

    let out = home
        .cmd()
        .args(["list", "po", "--field-selector", "status.phase=Running", "-o", "name"])
        .output()
        .unwrap();
    assert_eq!(
        stdout(&out),
        "tencent1/pod/web-7dbf7cc5-8llgr\ntencent1/pod/api-0\ntencent4/pod/multicluster-pod\n"
    );
    // The limit counts selected objects, so the server is asked for all of them.
    let out = home
        .cmd()
        .args(["list", "core/v1/pods", "-l", "app in (api,busybox)", "--limit", "1", "-o", "name"])
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "tencent1/pod/api-0\n");
    assert_eq!(go_server.received_at(LIST).pop().unwrap().param("limit"), Some("0"));
    let out = home.cmd().args(["describe", "v1/pods", "-l", "app=migrate"]).output().unwrap();
    assert!(stdout(&out).starts_with("# cluster: tencent2\n"), "{}", stdout(&out));
    assert_eq!(stdout(&out).matches("# cluster:").count(), 1, "{}", stdout(&out));

    let out = home.cmd().args(["list", "pods", "-l", "app in (web"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("error: invalid label selector"), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
}

#[test]
fn a_custom_resource_name_is_resolved_through_the_master_clusters_discovery() {
    let go_server = FakeGoServer::start();
    let master = FakeMaster::start();
    let home = Home::for_server(&go_server.url, None);
    let kubeconfig = home.dir.join("master.kubeconfig");
    master.write_kubeconfig(&kubeconfig);
    let config = std::fs::read_to_string(home.config()).unwrap();
    std::fs::write(
        home.config(),
        config.replace("/nonexistent/kubeconfig", &kubeconfig.display().to_string()),
    )
    .unwrap();
    let out = home.cmd().args(["list", "wd"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "No resources found.\n");
    assert_eq!(gvrs(&go_server.received_at(LIST)), ["wd", "example.com/v1/widgets"]);
}

#[test]
fn a_name_neither_built_in_nor_discoverable_fails_in_one_line() {
    let go_server = FakeGoServer::start();
    let home = Home::for_server(&go_server.url, None);
    let out = home.cmd().args(["list", "widgets"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.starts_with("error: resource type \"widgets\" is not a built-in type, and the server (an earlier mc-server) cannot resolve names"),
        "{message}"
    );
    assert!(message.contains("cannot read kubeconfig /nonexistent/kubeconfig"), "{message}");
    assert_eq!(message.lines().count(), 1, "{message}");
    assert_eq!(gvrs(&go_server.received_at(LIST)), ["widgets"], "nothing sent after it failed");
}

#[test]
fn watch_against_the_go_projects_server_says_it_has_none() {
    let go_server = FakeGoServer::start();
    let home = Home::for_server(&go_server.url, None);
    let out = home.cmd().args(["list", "pods", "-w"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("error: list --watch needs a newer mc-server"), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1);
}

#[test]
fn join_and_unjoin_work_against_the_go_projects_server() {
    let go_server = FakeGoServer::start();
    let home = Home::for_server(&go_server.url, None);
    let kubeconfig = home.dir.join("k.yaml");
    std::fs::write(&kubeconfig, "apiVersion: v1\nkind: Config\n").unwrap();
    let out = home.cmd().args(["join", "tencent5", "--file"]).arg(&kubeconfig).output().unwrap();
    assert_eq!(stdout(&out), "cluster/tencent5 joined (join cluster successful)\n", "{}", stderr(&out));
    let out = home.cmd().args(["unjoin", "tencent5"]).output().unwrap();
    assert_eq!(stdout(&out), "cluster/tencent5 unjoined (unjoin cluster successful)\n", "{}", stderr(&out));
}

#[test]
fn against_our_server_the_typed_name_goes_out_unresolved_in_one_round_trip() {
    let ours = FakeServer::start();
    let home = Home::for_server(&ours.url, None);
    home.cmd().args(["list", "deploy"]).assert().success();
    let lists: Vec<String> = ours.requests().into_iter().filter(|r| r.contains(LIST)).collect();
    assert_eq!(lists, ["GET /v1/list_with_cluster?gvr=deploy&limit=0"]);
    assert_eq!(ours.requests().iter().filter(|r| r.starts_with("GET /v1/resources")).count(), 1);

    // describe asks nothing but the list when it succeeds (and the events of what it found).
    let ours = FakeServer::start();
    let home = Home::for_server(&ours.url, None);
    home.cmd().args(["describe", "deploy", "scaled-down"]).assert().success();
    assert_eq!(
        ours.requests(),
        [
            "GET /v1/list_with_cluster?gvr=deploy&name=scaled-down&limit=0",
            "GET /v1/list_with_cluster?gvr=v1%2Fevents&cluster=tencent2&namespace=kube-system&limit=0"
        ]
    );

    // list clusters: /v1/clusters answers, so no MultiCluster listing and no warning.
    let ours = FakeServer::start();
    let home = Home::for_server(&ours.url, None);
    let out = home.cmd().args(["list", "clusters"]).output().unwrap();
    assert_eq!(stderr(&out), "");
    assert_eq!(ours.requests(), ["GET /v1/clusters"]);
}

#[test]
fn several_types_ask_the_go_projects_server_once_per_type_in_its_slash_form() {
    let go_server = FakeGoServer::start();
    let home = Home::for_server(&go_server.url, None);
    let out = home.cmd().args(["list", "deploy,cm", "-o", "json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<&str> =
        list["items"].as_array().unwrap().iter().map(|i| i["kind"].as_str().unwrap()).collect();
    assert!(kinds.starts_with(&["Deployment"]) && kinds.ends_with(&["ConfigMap"]), "{kinds:?}");
    let asked = go_server.received_at(LIST);
    let mut types = gvrs(&asked);
    types.dedup();
    assert_eq!(types, ["apps/v1/deployments", "v1/configmaps"]);
}
