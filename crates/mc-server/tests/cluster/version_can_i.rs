//! `kubectl version` and `kubectl auth can-i` through mc-server, with the kubeconfig the plugin
//! prints: the master's version, and SelfSubjectAccessReviews answered from the caller's rights.

use std::process::Output;

use crate::k9s::plugin_kubeconfig;
use crate::kube_api::{kubectl, start_https};
use crate::server::TEST_TOKEN;
use crate::testenv::TestEnv;

/// A ServiceAccount of the master bound to nothing.
const NOBODY: &str = "mc-can-i-nobody";

fn said(out: &Output) -> (bool, String, String) {
    let text = |b: &[u8]| String::from_utf8_lossy(b).trim().to_string();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

#[tokio::test]
async fn kubectl_version_and_auth_can_i_work_through_mc_server() {
    let env = TestEnv::from_env();
    let (_server, url, ca, _) = start_https(&env, "version-can-i").await;
    let admin = env.dir.join("mc-kubeconfig-version-admin");
    plugin_kubeconfig(&url, &ca, TEST_TOKEN, &admin);

    let (ok, out, err) = said(&kubectl(&admin, &["version"]));
    assert!(ok, "{err}");
    let master = env.kubectl(&env.clusters[0], &["version", "-o", "json"]).unwrap();
    let master: serde_json::Value = serde_json::from_str(&master).unwrap();
    let git_version = master["serverVersion"]["gitVersion"].as_str().unwrap();
    assert!(out.contains(&format!("Server Version: {git_version}+mc-server")), "{out}");
    assert!(!err.contains("version difference"), "the same release as kubectl: {err}");
    // One cluster's context: that cluster's version.
    let one = kubectl(&admin, &["--context", &format!("multicluster-{}", env.clusters[1].name), "version"]);
    assert!(said(&one).1.contains("+mc-server"), "{:?}", said(&one));

    for args in
        [&["list", "pods"][..], &["list", "pods", "-A"], &["watch", "deployments.apps", "-n", "kube-system"]]
    {
        let can_i = [&["auth", "can-i"][..], args].concat();
        assert_eq!(said(&kubectl(&admin, &can_i)), (true, "yes".into(), String::new()), "{args:?}");
    }
    // A write: the API is read-only, whoever asks.
    let (ok, out, _) = said(&kubectl(&admin, &["auth", "can-i", "delete", "pods"]));
    assert!(!ok && out.starts_with("no") && out.contains("read-only"), "{out}");

    // A ServiceAccount of the master that nothing binds: reviewed by the master, denied by RBAC.
    env.kubectl(&env.clusters[0], &["create", "serviceaccount", NOBODY, "-n", "default"]).ok();
    let token = env.kubectl(&env.clusters[0], &["create", "token", NOBODY, "-n", "default"]).unwrap();
    // The plugin's kubeconfig with the ServiceAccount's token instead of the admin's.
    let nobody = env.dir.join("mc-kubeconfig-version-nobody");
    let text = std::fs::read_to_string(&admin).unwrap();
    assert!(text.contains(TEST_TOKEN), "{text}");
    std::fs::write(&nobody, text.replace(TEST_TOKEN, token.trim())).unwrap();
    let (ok, out, err) = said(&kubectl(&nobody, &["auth", "can-i", "list", "pods"]));
    assert!(!ok && out == "no", "{out} / {err}");
    let (ok, out, err) = said(&kubectl(&nobody, &["version"]));
    assert!(ok && out.contains("+mc-server"), "any authenticated caller reads /version: {out} / {err}");
}
