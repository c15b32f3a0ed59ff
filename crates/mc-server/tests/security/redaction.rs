//! No secret value reaches an answer: Secrets, Secret-kind MultiClusterResource templates and
//! their last-applied copies are served redacted and marked so.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, ListParams};
use reqwest::StatusCode;

use crate::server::{Launch, McServer, Options, TEST_TOKEN};
use crate::testenv::{TestEnv, eventually, kubectl_path};

const NS: &str = "sec-redaction";
/// `<redacted>` in base64: what a redacted Secret `data` value is served as.
const REDACTED_DATA: &str = "PHJlZGFjdGVkPg==";

#[tokio::test]
async fn secrets_and_secret_templates_are_served_redacted_and_marked() {
    let env = TestEnv::from_env();
    let master = &env.clusters[0];
    let _ = env.kubectl(master, &["create", "namespace", NS]);
    let secret = format!(
        r#"{{"apiVersion":"v1","kind":"Secret","metadata":{{"name":"db","namespace":"{NS}","annotations":{{"note":"ANNOTATION-SECRET","kubernetes.io/service-account.name":"builder"}}}},"stringData":{{"password":"STRINGDATA-SECRET"}},"data":{{"key":"REFUQS1TRUNSRVQ="}}}}"#
    );
    let mcr = format!(
        r#"{{"apiVersion":"mulitcluster.practice.com/v1alpha1","kind":"MultiClusterResource","metadata":{{"name":"sec-secret","namespace":"default"}},"spec":{{"template":{{"apiVersion":"v1","kind":"Secret","metadata":{{"name":"sec-copy","namespace":"default","annotations":{{"note":"TEMPLATE-ANNOTATION-SECRET"}}}},"stringData":{{"password":"TEMPLATE-SECRET"}}}},"placement":{{"clusters":[{{"name":"{}"}}]}},"customize":{{"clusters":[{{"name":"{}","action":[{{"op":"add","path":"/stringData/extra","value":["CUSTOMIZE-SECRET"]}}]}}]}}}}}}"#,
        master.name, master.name
    );
    for manifest in [&secret, &mcr] {
        let path = env.dir.join("security").join("manifest.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, manifest).unwrap();
        // `kubectl apply` leaves the last-applied annotation with every value in it.
        env.kubectl(master, &["apply", "-f", &path.display().to_string()]).unwrap();
    }
    let server = McServer::start(&env, "sec-redaction", Options::default()).await;
    let queries = [
        format!("/v1/list?gvr=v1/secrets&namespace={NS}&name=db&limit=0"),
        "/v1/list?gvr=multiclusterresources&namespace=default&name=sec-secret&limit=0".to_string(),
        "/v1/list?gvr=v1/secrets&namespace=default&name=sec-copy&limit=0".to_string(),
    ];
    let mut checked = 0;
    for q in &queries {
        let items = eventually(q, Duration::from_secs(60), || async {
            let (status, body) = server.get(q).await;
            (status == StatusCode::OK).then_some(())?;
            let items = body.as_array()?.clone();
            (!items.is_empty()).then_some(items)
        })
        .await;
        for item in items {
            let text = item.to_string();
            for secret in ["SECRET", "REFUQS1TRUNSRVQ"] {
                assert!(!text.contains(secret), "{q}: a secret value is served: {text}");
            }
            assert!(text.contains("<redacted>"), "{text}");
            // Each value keeps its type: data stays base64 ("<redacted>" encoded), stringData text.
            let secret = if item["kind"] == "Secret" { &item } else { &item["spec"]["template"] };
            for (field, redacted) in [("data", REDACTED_DATA), ("stringData", "<redacted>")] {
                for (key, value) in secret[field].as_object().into_iter().flatten() {
                    assert_eq!(value, redacted, "{q}: {field}.{key}: {text}");
                }
            }
            assert_eq!(
                item["metadata"]["annotations"]["mulitcluster.practice.com/redacted"], "true",
                "{text}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 3, "{checked} objects checked");
    // Allowed annotations stay readable.
    let (_, body) = server.get(&queries[0]).await;
    assert_eq!(body[0]["metadata"]["annotations"]["kubernetes.io/service-account.name"], "builder");
    assert_eq!(body[0]["data"]["key"], REDACTED_DATA);
    assert_eq!(body[0]["data"]["password"], REDACTED_DATA, "stringData written is data read");
    let _ = env
        .kubectl(master, &["delete", "multiclusterresource", "sec-secret", "-n", "default", "--wait=false"]);
    let _ = env.kubectl(master, &["delete", "namespace", NS, "--wait=false"]);
}

/// A kubeconfig whose only context points at mc-server over HTTPS (kubectl sends a bearer token
/// only over HTTPS), with the server's token.
fn kubeconfig_of(env: &TestEnv, url: &str, ca: &Path, name: &str) -> PathBuf {
    let file = env.dir.join("security").join(format!("kubeconfig-{name}"));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let text = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: mc\ncontexts:\n- name: mc\n  context: {{cluster: mc, user: mc}}\n\
         clusters:\n- name: mc\n  cluster: {{server: \"{url}\", certificate-authority: \"{}\"}}\n\
         users:\n- name: mc\n  user: {{token: {TEST_TOKEN}}}\n",
        ca.display()
    );
    std::fs::write(&file, text).unwrap();
    file
}

/// Runs the testenv's kubectl against mc-server; exit status, stdout and stderr.
fn kubectl(kubeconfig: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(kubectl_path().unwrap())
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["--cache-dir", &kubeconfig.with_extension("cache").display().to_string()])
        .args(args)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).to_string();
    (out.status.success(), text(out.stdout), text(out.stderr))
}

/// Every `data` value of a Secret decoded by a typed client reads `<redacted>`.
fn assert_redacted(secret: &Secret) {
    let name = secret.metadata.name.as_deref().unwrap_or_default();
    let data = secret.data.as_ref().unwrap_or_else(|| panic!("{name}: data is served"));
    assert!(!data.is_empty(), "{name}: keys stay");
    for (key, value) in data {
        assert_eq!(value.0, b"<redacted>", "{name}: data.{key}");
    }
}

#[tokio::test]
async fn redacted_secrets_decode_in_typed_clients_and_kubectl_describe() {
    use futures::StreamExt;
    use kube::runtime::watcher;

    const TYPED_NS: &str = "sec-redaction-typed";
    let env = TestEnv::from_env();
    let master = &env.clusters[0];
    let _ = env.kubectl(master, &["create", "namespace", TYPED_NS]);
    let _ = env.kubectl(master, &["delete", "secrets", "--all", "-n", TYPED_NS]);
    let create = |name: &str| {
        env.kubectl(
            master,
            &["create", "secret", "generic", name, "-n", TYPED_NS, "--from-literal=password=TYPED-SECRET"],
        )
        .unwrap();
    };
    create("typed");

    // Over HTTPS: kubectl sends its token only there.
    let (ca, crt, key) = crate::certs::issue(&env.dir.join("sec-redaction-typed-tls"), "sec-redaction-typed");
    let (crt_arg, key_arg) = (crt.display().to_string(), key.display().to_string());
    let launch =
        Launch { args: &["--tls-cert-file", &crt_arg, "--tls-key-file", &key_arg], ..Default::default() };
    let server = McServer::spawn_with(&env, "sec-redaction-typed", Options::default(), launch);
    let url = server.url.replace("http://", "https://");
    let kubeconfig = kubeconfig_of(&env, &url, &ca, "typed");
    let config = kube::Config::from_custom_kubeconfig(
        kube::config::Kubeconfig::read_from(&kubeconfig).unwrap(),
        &Default::default(),
    )
    .await
    .unwrap();
    let api: Api<Secret> = Api::namespaced(kube::Client::try_from(config).unwrap(), TYPED_NS);

    // A typed list: every Secret decodes, every value redacted.
    let listed = eventually("the Secret is listed through mc-server", Duration::from_secs(90), || async {
        let list = match api.list(&ListParams::default()).await {
            Ok(list) => list,
            // Not ready yet, or not synced yet; a decoding error is a failure, not a wait.
            Err(kube::Error::SerdeError(e)) => panic!("a typed list does not decode: {e}"),
            Err(_) => return None,
        };
        list.items.iter().any(|s| s.metadata.name.as_deref() == Some("typed")).then_some(list.items)
    })
    .await;
    listed.iter().for_each(assert_redacted);

    // A typed watch (list, then watch from its version): the Secret created after the list
    // arrives decoded and redacted.
    let mut events = watcher(api.clone(), watcher::Config::default()).boxed();
    let watched = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(event) = events.next().await {
            match event.unwrap_or_else(|e| panic!("a typed watch fails: {e}")) {
                watcher::Event::InitApply(secret) => assert_redacted(&secret),
                watcher::Event::InitDone => create("typed-later"),
                watcher::Event::Apply(secret) if secret.metadata.name.as_deref() == Some("typed-later") => {
                    return secret;
                }
                _ => {}
            }
        }
        panic!("the watch ended");
    })
    .await
    .expect("the Secret created during the watch arrives");
    assert_redacted(&watched);

    // kubectl describe decodes every value (it counts their bytes): one Secret, and all of them.
    let (ok, stdout, stderr) = kubectl(&kubeconfig, &["describe", "secret", "-n", TYPED_NS, "typed"]);
    assert!(ok, "kubectl describe secret: {stderr}");
    assert!(stdout.contains("password:  10 bytes"), "\"<redacted>\" is 10 bytes: {stdout}");
    let (ok, stdout, stderr) = kubectl(&kubeconfig, &["describe", "secrets", "-n", TYPED_NS]);
    assert!(ok, "kubectl describe secrets: {stderr}");
    for name in ["typed", "typed-later"] {
        assert!(stdout.contains(&format!("Name:         {name}\n")), "{stdout}");
    }
    assert!(!stdout.contains("TYPED-SECRET") && !stderr.contains("illegal base64"), "{stdout}{stderr}");
    drop(server);
    let _ = env.kubectl(master, &["delete", "namespace", TYPED_NS, "--wait=false"]);
}
