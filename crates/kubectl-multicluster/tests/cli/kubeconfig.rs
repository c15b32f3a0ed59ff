//! `kubeconfig`: the real binary against the fake server, its output read back as a kubeconfig.

use std::path::Path;

use serde_json::Value;

use crate::commands::{Home, stderr, stdout};
use crate::fake::FakeServer;

const TOKEN: &str = "kubeconfig-test-token-0123";

fn ca_file() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ca.crt"))
}

#[test]
fn kubeconfig_has_one_context_for_all_clusters_and_one_per_cluster() {
    let server = FakeServer::with_token(Some(TOKEN));
    let home = Home::for_server(&server.url, Some(TOKEN));
    let out = home.cmd().arg("kubeconfig").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let url = &server.url;
    let expected = format!(
        "apiVersion: v1
clusters:
- cluster:
    server: {url}
  name: multicluster
- cluster:
    server: {url}/clusters/tencent1
  name: multicluster-tencent1
- cluster:
    server: {url}/clusters/tencent2
  name: multicluster-tencent2
- cluster:
    server: {url}/clusters/tencent4
  name: multicluster-tencent4
contexts:
- context:
    cluster: multicluster
    user: multicluster
  name: multicluster
- context:
    cluster: multicluster-tencent1
    user: multicluster
  name: multicluster-tencent1
- context:
    cluster: multicluster-tencent2
    user: multicluster
  name: multicluster-tencent2
- context:
    cluster: multicluster-tencent4
    user: multicluster
  name: multicluster-tencent4
current-context: multicluster
kind: Config
preferences: {{}}
users:
- name: multicluster
  user:
    token: {TOKEN}
"
    );
    assert_eq!(stdout(&out), expected);
    // kube-rs (client-go's format) reads it, and finds each context's server.
    let kubeconfig = kube::config::Kubeconfig::from_yaml(&stdout(&out)).unwrap();
    assert_eq!(kubeconfig.current_context.as_deref(), Some("multicluster"));
    let server_of = |context: &str| {
        let ctx = kubeconfig.contexts.iter().find(|c| c.name == context).unwrap();
        let cluster_name = &ctx.context.as_ref().unwrap().cluster;
        let cluster = kubeconfig.clusters.iter().find(|c| &c.name == cluster_name).unwrap();
        cluster.cluster.as_ref().unwrap().server.clone().unwrap()
    };
    assert_eq!(server_of("multicluster-tencent2"), format!("{url}/clusters/tencent2"));
    assert_eq!(server_of("multicluster"), *url);
    assert_eq!(
        stderr(&out),
        format!(
            "Warning: {url} is plain http and kubectl sends no token over http; use the server's https:// URL and its CA (mc-server serves HTTPS unless server.plainHTTP is set)\n"
        )
    );
}

#[test]
fn kubeconfig_embeds_the_configured_certificate_authority() {
    let server = FakeServer::start();
    let home = Home::for_server(&server.url, None);
    let config = std::fs::read_to_string(home.config()).unwrap();
    std::fs::write(home.config(), format!("{config}certificateAuthority: {}\n", ca_file().display()))
        .unwrap();
    let out = home.cmd().arg("kubeconfig").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_saphyr::from_str(&stdout(&out)).unwrap();
    let clusters = doc["clusters"].as_array().unwrap();
    assert_eq!(clusters.len(), 4);
    let pem = std::fs::read(ca_file()).unwrap();
    for cluster in clusters {
        let data = cluster["cluster"]["certificate-authority-data"].clone();
        let decoded: k8s_openapi::ByteString = serde_json::from_value(data).unwrap();
        assert_eq!(decoded.0, pem, "{cluster}");
        assert_eq!(cluster["cluster"].get("insecure-skip-tls-verify"), None);
    }
    assert_eq!(
        doc["users"][0],
        serde_json::json!({"name": "multicluster", "user": {}}),
        "no token configured"
    );

    // A flag names another CA; insecure mode leaves the CA out (kubectl refuses both).
    let out = home.cmd().args(["--insecure-skip-tls-verify", "kubeconfig"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_saphyr::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        doc["clusters"][3]["cluster"],
        serde_json::json!({"server": format!("{}/clusters/tencent4", server.url), "insecure-skip-tls-verify": true})
    );
}

#[test]
fn kubeconfig_fails_in_one_line_when_the_server_is_down() {
    let home = Home::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let out = home.cmd().args(["--server", &format!("127.0.0.1:{port}"), "kubeconfig"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        format!(
            "error: cannot reach mc-server at http://127.0.0.1:{port} (from --server): connection refused\n"
        )
    );
}
