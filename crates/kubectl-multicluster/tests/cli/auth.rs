//! `auth can-i` and `--kubeconfig-user`: the real binary against the fake server, its columns,
//! exit codes and one-line errors, and the token it sends.

use std::path::PathBuf;

use crate::commands::{Home, stderr, stdout};
use crate::fake::{ADMIN_TOKEN, FakeServer};

/// The token of the kubeconfig user in [`kubeconfig`].
const KUBE_USER_TOKEN: &str = "kubeconfig-user-token-0123";

/// A kubeconfig in `home` whose current context's user has this `user:` body (YAML, indented by
/// four spaces).
fn kubeconfig(home: &Home, user: &str) -> PathBuf {
    let path = home.dir.join("kubeconfig");
    let text = format!(
        "apiVersion: v1
kind: Config
clusters:
- name: master
  cluster:
    server: https://127.0.0.1:6443
contexts:
- name: dev
  context:
    cluster: master
    user: alice
current-context: dev
users:
- name: alice
  user:
{user}
"
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn can_i_prints_a_line_per_cluster_and_exits_1_when_one_says_no() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let out = home.cmd().args(["auth", "can-i", "list", "pods", "-n", "team-a"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert_eq!(
        stdout(&out),
        "CLUSTER    ALLOWED   REASON
tencent1   yes       RoleBinding/team-a/alice-view
tencent2   no
tencent4   yes       ClusterRoleBinding/view
"
    );
    let asked = server.requests().into_iter().find(|r| r.contains("can-i")).unwrap();
    assert_eq!(asked, "GET /v1/auth/can-i?verb=list&gvr=pods&namespace=team-a");
}

#[test]
fn can_i_exits_0_when_allowed_in_every_cluster_asked() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    home.cmd().args(["auth", "can-i", "get", "configmaps"]).assert().success();
    // Only the clusters asked, in the order given.
    let args = ["auth", "can-i", "watch", "pods", "-c", "tencent4,tencent1", "-n", "team-a"];
    let out = home.cmd().args(args).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "CLUSTER    ALLOWED   REASON
tencent4   yes       ClusterRoleBinding/view
tencent1   yes       RoleBinding/team-a/alice-view
"
    );
    let asked: Vec<String> = server.requests().into_iter().filter(|r| r.contains("cluster=")).collect();
    assert_eq!(asked.len(), 2, "{asked:?}");
    // -q: the exit code answers alone.
    let quiet = home.cmd().args(["auth", "can-i", "get", "configmaps", "-q"]).output().unwrap();
    assert!(quiet.status.success());
    assert_eq!((stdout(&quiet), stderr(&quiet)), (String::new(), String::new()));
    let quiet = home.cmd().args(["auth", "can-i", "delete", "pods", "--quiet"]).output().unwrap();
    assert_eq!((quiet.status.code(), stdout(&quiet)), (Some(1), String::new()));
}

#[test]
fn can_i_sends_the_name_subresource_and_the_user_asked_about() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, Some(ADMIN_TOKEN));
    let out = home
        .cmd()
        .args(["auth", "can-i", "get", "v1/pods", "web-0", "-n", "team-a", "--subresource", "log"])
        .args(["--as", "bob", "--as-group", "devs", "--as-group", "ops"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("tencent2   yes       ClusterRoleBinding/devs"), "{}", stdout(&out));
    let asked = server.requests().into_iter().find(|r| r.contains("can-i")).unwrap();
    assert_eq!(
        asked,
        "GET /v1/auth/can-i?verb=get&gvr=v1%2Fpods&namespace=team-a&name=web-0&subresource=log&user=bob&group=devs&group=ops"
    );
}

#[test]
fn can_i_errors_are_one_line() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, Some("not-an-admin-token"));
    let out = home.cmd().args(["auth", "can-i", "get", "pods", "--as", "bob"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope; asking for another user (user=, group=) needs the right to impersonate it\n"
    );
    let out = home.cmd().args(["auth", "can-i", "get", "gizmos"]).output().unwrap();
    assert_eq!(
        (out.status.code(), stderr(&out)),
        (Some(1), "error: unknown resource type \"gizmos\"\n".into())
    );
    let out = home.cmd().args(["auth", "can-i", "get", "pods", "-c", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("error: unknown cluster \"nope\""), "{}", stderr(&out));
    let out = home.cmd().args(["auth", "can-i", "get"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "bad usage is clap's");
    let out = home.cmd().args(["auth", "can-i", "get", "pods", "--as-group", "devs"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "--as-group needs --as");
    let out =
        home.cmd().args(["--server", "http://127.0.0.1:1", "auth", "can-i", "get", "pods"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("error: cannot reach mc-server at http://127.0.0.1:1"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stderr(&out).lines().count(), 1);
}

#[test]
fn can_i_has_help_and_completion() {
    let home = Home::new();
    let out = home.cmd().args(["auth", "can-i", "--help"]).output().unwrap();
    assert!(out.status.success());
    for text in
        ["<VERB> <TYPE> [NAME]", "--as <USER>", "--as-group <GROUP>", "--subresource", "--quiet", "exits 0"]
    {
        assert!(stdout(&out).contains(text), "{text}: {}", stdout(&out));
    }
    let out = home.cmd().args(["__complete", "auth", ""]).output().unwrap();
    assert_eq!(
        stdout(&out),
        "can-i\tWhether an action is allowed, cluster by cluster, as each cluster's RBAC decides\n:4\n"
    );
}

#[test]
fn kubeconfig_user_sends_the_kubeconfig_users_token_instead_of_the_configured_one() {
    let server = FakeServer::with_token(Some(KUBE_USER_TOKEN));
    let home = Home::for_server(&server.url, Some("the-plugins-own-token"));
    let kubeconfig = kubeconfig(&home, &format!("    token: {KUBE_USER_TOKEN}"));
    let can_i = ["auth", "can-i", "get", "configmaps"];
    let out = home.cmd().env("KUBECONFIG", &kubeconfig).args(can_i).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "without the switch, the configured token: {}", stderr(&out));
    assert!(stderr(&out).contains("missing bearer token"), "{}", stderr(&out));
    let out =
        home.cmd().env("KUBECONFIG", &kubeconfig).arg("--kubeconfig-user").args(can_i).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = home.cmd().env("KUBECONFIG", &kubeconfig).env("MC_KUBECONFIG_USER", "1").args(can_i).output();
    assert!(out.unwrap().status.success());
    // From the config file, where --kubeconfig-user=false turns it off again.
    home.cmd().args(["config", "set", "--kubeconfig-user"]).assert().success();
    assert!(std::fs::read_to_string(home.config()).unwrap().contains("useKubeconfigUser: true"));
    home.cmd().env("KUBECONFIG", &kubeconfig).args(["list", "pods"]).assert().success();
    let out = home.cmd().env("KUBECONFIG", &kubeconfig).arg("--kubeconfig-user=false").args(can_i).output();
    assert_eq!(out.unwrap().status.code(), Some(1));
}

#[test]
fn a_token_the_server_refuses_says_it_came_from_the_kubeconfig() {
    let server = FakeServer::with_token(Some(KUBE_USER_TOKEN));
    let home = Home::for_server(&server.url, None);
    let kubeconfig = kubeconfig(&home, "    token: someone-elses-token");
    let out = home
        .cmd()
        .env("KUBECONFIG", &kubeconfig)
        .args(["--kubeconfig-user", "auth", "can-i", "get", "pods"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.contains("did not accept the token of the current kubeconfig context's user"),
        "{message}"
    );
    assert!(message.contains("(--kubeconfig-user asks for it)"), "{message}");
    assert_eq!(message.lines().count(), 1, "{message}");
}

#[test]
fn a_client_certificate_that_cannot_be_one_is_said_before_anything_is_sent() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let kubeconfig = kubeconfig(&home, "    client-certificate-data: Y2VydA==\n    client-key-data: a2V5");
    let out = home
        .cmd()
        .env("KUBECONFIG", &kubeconfig)
        .args(["--kubeconfig-user", "auth", "can-i", "get", "pods"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: --kubeconfig-user: the client certificate of kubeconfig user \"alice\" (context \"dev\"): client-certificate holds no PEM certificate\n"
    );
    assert!(server.requests().is_empty(), "nothing is sent: {:?}", server.requests());
}

#[test]
fn kubeconfig_as_the_kubeconfig_user_writes_that_users_credentials() {
    let server = FakeServer::with_token(Some(KUBE_USER_TOKEN));
    let home = Home::for_server(&server.url, Some("the-plugins-own-token"));
    let kubeconfig = kubeconfig(&home, &format!("    token: {KUBE_USER_TOKEN}"));
    let out = home.cmd().env("KUBECONFIG", &kubeconfig).args(["--kubeconfig-user", "kubeconfig"]).output();
    let out = out.unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let printed: serde_json::Value = serde_saphyr::from_str(&stdout(&out)).unwrap();
    assert_eq!(printed["users"][0]["user"], serde_json::json!({"token": KUBE_USER_TOKEN}));
}
