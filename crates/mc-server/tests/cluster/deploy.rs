//! deploy/: the manifests and the Helm chart are accepted by a real API server, and the
//! RBAC they grant is enough for mc-server — and no more than it uses.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, PostParams};
use mc_types::config::ServerConfig;
use mc_types::crd::{MultiClusterResource, Phase};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::server::{Launch, McServer, Options};
use crate::testenv::{Cluster, TestEnv, bin_path, eventually, kubectl_path};

/// Namespace of deploy/rbac.yaml and deploy/deploy.yaml.
const NAMESPACE: &str = "multi-cluster-operator";
/// The ServiceAccount of deploy/rbac.yaml.
const SERVICE_ACCOUNT: &str = "multi-cluster-operator-sa";
/// Namespace the Helm chart is rendered for.
const HELM_NAMESPACE: &str = "mc-deploy-helm";
/// Namespace of the objects the RBAC test dispatches and lists.
const TEST_NAMESPACE: &str = "mc-deploy-test";
const JOINED_LABEL: &str = "mulitcluster.practice.com/joined-cluster";

fn deploy_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy")
}

fn chart_dir() -> PathBuf {
    deploy_dir().join("helm/kubectl-multicluster")
}

/// The `*.yaml` files of a directory, sorted.
fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

/// Runs a program with `stdin` fed in.
fn run(program: &Path, args: &[&str], envs: &[(&str, &Path)], stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("running {}: {e}", program.display()));
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or_default().as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// kubectl against one cluster; the output, whether it succeeded or not.
fn kubectl_output(cluster: &Cluster, args: &[&str], stdin: Option<&str>) -> Output {
    let kubeconfig = cluster.kubeconfig.display().to_string();
    let mut all = vec!["--kubeconfig", &kubeconfig];
    all.extend_from_slice(args);
    run(&kubectl_path().unwrap(), &all, &[], stdin)
}

/// kubectl against one cluster; stdout, or a panic with stderr.
fn kubectl(cluster: &Cluster, args: &[&str], stdin: Option<&str>) -> String {
    let out = kubectl_output(cluster, args, stdin);
    assert!(out.status.success(), "kubectl {args:?} failed: {}", text(&out.stderr));
    text(&out.stdout)
}

/// helm built by `scripts/testenv build`, with its state kept in the test directory.
fn helm(env: &TestEnv, args: &[&str]) -> Output {
    let helm = bin_path("helm").unwrap();
    assert!(helm.exists(), "{} is missing: run `scripts/testenv build`", helm.display());
    let home = env.dir.join("helm");
    let dirs = [
        ("HELM_CACHE_HOME", home.join("cache")),
        ("HELM_CONFIG_HOME", home.join("config")),
        ("HELM_DATA_HOME", home.join("data")),
    ];
    let envs: Vec<(&str, &Path)> = dirs.iter().map(|(k, v)| (*k, v.as_path())).collect();
    run(&helm, args, &envs, None)
}

/// `helm template` of the chart for [`HELM_NAMESPACE`], CRDs included; panics on failure.
fn helm_template(env: &TestEnv, extra: &[&str]) -> String {
    let chart = chart_dir().display().to_string();
    let mut args = vec!["template", "mc", &chart, "--namespace", HELM_NAMESPACE, "--include-crds"];
    args.extend_from_slice(extra);
    let out = helm(env, &args);
    assert!(out.status.success(), "helm {args:?} failed: {}", text(&out.stderr));
    text(&out.stdout)
}

/// Creates a namespace for real (dry-run cannot create objects inside a namespace it creates).
fn ensure_namespace(cluster: &Cluster, name: &str) {
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
    kubectl(cluster, &["apply", "-f", "-"], Some(&ns.to_string()));
}

/// `kubectl apply --dry-run=server`: every object must be accepted, as the output says.
fn server_dry_run(cluster: &Cluster, what: &str, manifests: &str) -> String {
    let out = kubectl_output(cluster, &["apply", "--dry-run=server", "-f", "-"], Some(manifests));
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{what}: rejected by the API server:\n{}{stdout}", text(&out.stderr));
    assert!(!stdout.trim().is_empty(), "{what}: nothing applied");
    for line in stdout.lines() {
        assert!(line.ends_with("(server dry run)"), "{what}: {line}");
    }
    stdout
}

/// The objects of a manifest stream as JSON (kubectl's client-side view: `stringData` kept).
fn objects(cluster: &Cluster, manifests: &str) -> Vec<Value> {
    let out = kubectl(cluster, &["create", "--dry-run=client", "-o", "json", "-f", "-"], Some(manifests));
    serde_json::Deserializer::from_str(&out).into_iter::<Value>().map(Result::unwrap).collect()
}

fn find<'a>(objects: &'a [Value], kind: &str) -> Vec<&'a Value> {
    objects.iter().filter(|o| o["kind"] == kind).collect()
}

fn one<'a>(objects: &'a [Value], kind: &str) -> &'a Value {
    let found = find(objects, kind);
    assert_eq!(found.len(), 1, "exactly one {kind} expected");
    found[0]
}

/// The config file a ConfigMap or Secret carries, loaded as mc-server would.
fn server_config(holder: &Value) -> ServerConfig {
    let text = holder["data"]["config.yaml"]
        .as_str()
        .or_else(|| holder["stringData"]["config.yaml"].as_str())
        .expect("config.yaml in the ConfigMap/Secret");
    ServerConfig::from_yaml(text, Path::new("/etc/mc/config.yaml"))
        .unwrap_or_else(|e| panic!("the shipped server config does not load: {e}"))
}

/// What every mc-server Deployment must have: the probes, the namespace from the downward API,
/// a non-root user, resource requests, the config, and one kubeconfig file per member cluster.
fn check_deployment(deployment: &Value, config: &ServerConfig, service_account: &str) {
    let pod = &deployment["spec"]["template"]["spec"];
    assert_eq!(pod["serviceAccountName"], service_account);
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    let c = &pod["containers"][0];
    assert_eq!(c["readinessProbe"]["httpGet"]["path"], "/readyz");
    assert_eq!(c["livenessProbe"]["httpGet"]["path"], "/healthz");
    // The probes speak what the port speaks: HTTPS unless plain http is asked for.
    let scheme = if config.server.plain_http { Value::Null } else { json!("HTTPS") };
    assert_eq!(c["readinessProbe"]["httpGet"]["scheme"], scheme);
    assert_eq!(c["livenessProbe"]["httpGet"]["scheme"], scheme);
    assert!(
        c["resources"]["requests"]["cpu"].is_string() && c["resources"]["requests"]["memory"].is_string()
    );
    assert_eq!(c["securityContext"]["allowPrivilegeEscalation"], false);
    let env = c["env"].as_array().unwrap();
    let ns = env.iter().find(|e| e["name"] == "MC_NAMESPACE").expect("MC_NAMESPACE");
    assert_eq!(ns["valueFrom"]["fieldRef"]["fieldPath"], "metadata.namespace");
    let args: Vec<&str> = c["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert!(args.contains(&"--config=/etc/mc/config.yaml"), "{args:?}");
    assert!(args.contains(&"--data-dir=/var/lib/mc-server"), "{args:?}");
    let mounts = c["volumeMounts"].as_array().unwrap();
    assert!(mounts.iter().any(|m| m["mountPath"] == "/var/lib/mc-server"));

    let master = config.master().unwrap();
    assert_eq!(master.kubeconfig_path(), None, "the master must use the in-cluster ServiceAccount");
    let projected: Vec<String> = pod["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|v| v["projected"]["sources"].as_array().cloned().unwrap_or_default())
        .flat_map(|s| s["secret"]["items"].as_array().cloned().unwrap_or_default())
        .map(|i| format!("/etc/mc/kubeconfigs/{}", i["path"].as_str().unwrap()))
        .collect();
    for member in config.clusters.iter().map(|c| &c.metadata).filter(|m| !m.is_master) {
        assert!(
            projected.contains(&member.config_path),
            "{}: {} is not mounted ({projected:?})",
            member.cluster_name,
            member.config_path
        );
    }
}

fn rules(objects: &[Value], kind: &str) -> Value {
    one(objects, kind)["rules"].clone()
}

#[test]
fn the_chart_ships_the_generated_crds() {
    let generated = yaml_files(&deploy_dir().join("crds"));
    let shipped = yaml_files(&chart_dir().join("crds"));
    let names = |files: &[PathBuf]| -> Vec<String> {
        files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect()
    };
    assert_eq!(names(&shipped), names(&generated));
    for (g, s) in generated.iter().zip(&shipped) {
        assert!(
            std::fs::read(g).unwrap() == std::fs::read(s).unwrap(),
            "{} differs from deploy/crds: run `cargo run -p mc-server --bin crdgen`",
            s.display()
        );
    }
}

#[test]
fn every_manifest_in_deploy_is_accepted_by_the_api_server() {
    let env = TestEnv::from_env();
    let master = &env.clusters[0];
    ensure_namespace(master, NAMESPACE);
    let mut files = yaml_files(&deploy_dir().join("crds"));
    files.extend(yaml_files(&deploy_dir()));
    assert!(files.len() >= 4, "{files:?}");
    for file in &files {
        let manifests = std::fs::read_to_string(file).unwrap();
        let out = server_dry_run(master, &file.display().to_string(), &manifests);
        eprintln!("{}:\n{out}", file.display());
    }

    let rbac = objects(master, &std::fs::read_to_string(deploy_dir().join("rbac.yaml")).unwrap());
    assert_eq!(one(&rbac, "ServiceAccount")["metadata"]["name"], SERVICE_ACCOUNT);
    assert_eq!(one(&rbac, "ClusterRole")["metadata"]["name"], "multi-cluster-operator-clusterrole");
    for binding in [one(&rbac, "ClusterRoleBinding"), one(&rbac, "RoleBinding")] {
        assert_eq!(binding["subjects"][0]["name"], SERVICE_ACCOUNT);
        assert_eq!(binding["subjects"][0]["namespace"], NAMESPACE);
    }

    let deploy = objects(master, &std::fs::read_to_string(deploy_dir().join("deploy.yaml")).unwrap());
    let config = server_config(one(&deploy, "ConfigMap"));
    assert!(config.clusters.len() >= 2, "the example should show a member cluster");
    check_deployment(one(&deploy, "Deployment"), &config, SERVICE_ACCOUNT);
    let svc = one(&deploy, "Service");
    assert_eq!(svc["metadata"]["name"], "multi-cluster-operator-svc");
    assert_eq!(svc["spec"]["type"], "NodePort");
    assert_eq!(svc["spec"]["ports"][0]["nodePort"], 31888);
}

#[test]
fn the_helm_chart_renders_what_the_api_server_accepts() {
    let env = TestEnv::from_env();
    let master = &env.clusters[0];
    let lint = helm(&env, &["lint", "--strict", &chart_dir().display().to_string()]);
    assert!(lint.status.success(), "helm lint:\n{}{}", text(&lint.stdout), text(&lint.stderr));
    ensure_namespace(master, HELM_NAMESPACE);
    let rbac = objects(master, &std::fs::read_to_string(deploy_dir().join("rbac.yaml")).unwrap());

    // Defaults: one replica on SQLite on a PersistentVolumeClaim, NodePort 31888.
    let rendered = helm_template(&env, &[]);
    server_dry_run(master, "helm template (defaults)", &rendered);
    let objs = objects(master, &rendered);
    assert_eq!(find(&objs, "CustomResourceDefinition").len(), 2);
    assert_eq!(rules(&objs, "ClusterRole"), rules(&rbac, "ClusterRole"), "chart and deploy/rbac.yaml differ");
    assert_eq!(rules(&objs, "Role"), rules(&rbac, "Role"), "chart and deploy/rbac.yaml differ");
    let deployment = one(&objs, "Deployment");
    assert_eq!(deployment["spec"]["replicas"], 1);
    assert_eq!(deployment["spec"]["strategy"]["type"], "Recreate");
    let pvc = one(&objs, "PersistentVolumeClaim");
    let volumes = deployment["spec"]["template"]["spec"]["volumes"].as_array().unwrap();
    assert!(volumes.iter().any(|v| v["persistentVolumeClaim"]["claimName"] == pvc["metadata"]["name"]));
    let config_secret =
        find(&objs, "Secret").into_iter().find(|s| s["stringData"]["config.yaml"].is_string()).unwrap();
    let config = server_config(config_secret);
    assert_eq!(config.server.token(), None, "the token is not in the config file");
    // HTTPS with the CA mc-server makes, its certificate naming the Service.
    assert!(!config.server.plain_http && config.server.tls().is_none());
    assert!(
        config.server.tls_sans.iter().any(|s| s.ends_with(&format!(".{HELM_NAMESPACE}.svc"))),
        "{:?}",
        config.server.tls_sans
    );
    // A generated 48-character token in its own Secret, handed to mc-server as MC_TOKEN.
    let token_secret = find(&objs, "Secret")
        .into_iter()
        .find(|s| s["stringData"]["token"].is_string())
        .expect("a token Secret");
    assert_eq!(token_secret["stringData"]["token"].as_str().unwrap().len(), 48);
    let env_vars = deployment["spec"]["template"]["spec"]["containers"][0]["env"].as_array().unwrap();
    let token_env = env_vars.iter().find(|e| e["name"] == "MC_TOKEN").expect("MC_TOKEN");
    assert_eq!(token_env["valueFrom"]["secretKeyRef"]["name"], token_secret["metadata"]["name"]);
    assert_eq!(token_env["valueFrom"]["secretKeyRef"]["key"], "token");
    let sa = one(&objs, "ServiceAccount")["metadata"]["name"].as_str().unwrap().to_string();
    check_deployment(deployment, &config, &sa);
    assert_eq!(one(&objs, "Service")["spec"]["ports"][0]["nodePort"], 31888);

    // Two replicas on PostgreSQL, a token and member clusters.
    let values = env.dir.join("helm-values-ha.yaml");
    std::fs::write(
        &values,
        r#"
replicas: 2
storage:
  url: postgres://mc:secret@postgres.db.svc:5432/mc
token: s3cret-s3cret-s3cret
tokens: [{token: reader-reader-reader, role: read}]
anonymousRead: true
master: {name: tencent1, labels: {role: master}}
members:
  - {name: tencent2, kubeconfigSecret: mc-kubeconfig-tencent2, labels: {region: eu}}
  - {name: tencent4, kubeconfigSecret: mc-kubeconfig-tencent4, kubeconfigKey: config, insecure: true}
service: {type: ClusterIP}
"#,
    )
    .unwrap();
    let rendered = helm_template(&env, &["--values", &values.display().to_string()]);
    server_dry_run(master, "helm template (2 replicas, postgres)", &rendered);
    let objs = objects(master, &rendered);
    assert!(find(&objs, "PersistentVolumeClaim").is_empty(), "no volume with an external database");
    let deployment = one(&objs, "Deployment");
    assert_eq!(deployment["spec"]["replicas"], 2);
    let secrets = find(&objs, "Secret");
    let storage = secrets.iter().find(|s| s["stringData"]["url"].is_string()).expect("storage Secret");
    assert_eq!(storage["stringData"]["url"], "postgres://mc:secret@postgres.db.svc:5432/mc");
    let env_vars = deployment["spec"]["template"]["spec"]["containers"][0]["env"].as_array().unwrap();
    let url = env_vars.iter().find(|e| e["name"] == "MC_STORAGE").expect("MC_STORAGE");
    assert_eq!(url["valueFrom"]["secretKeyRef"]["name"], storage["metadata"]["name"]);
    let config = server_config(secrets.iter().find(|s| s["stringData"]["config.yaml"].is_string()).unwrap());
    assert_eq!(config.server.token(), None);
    assert_eq!(
        config.server.all_tokens(),
        vec![("reader-reader-reader".to_string(), mc_types::config::Role::Read)]
    );
    assert!(config.server.anonymous_read);
    let token_secret = secrets.iter().find(|s| s["stringData"]["token"].is_string()).expect("token Secret");
    assert_eq!(token_secret["stringData"]["token"], "s3cret-s3cret-s3cret");
    let names: Vec<&str> = config.clusters.iter().map(|c| c.metadata.cluster_name.as_str()).collect();
    assert_eq!(names, ["tencent1", "tencent2", "tencent4"]);
    assert_eq!(config.master().unwrap().labels.get("role").map(String::as_str), Some("master"));
    assert!(config.cluster("tencent4").unwrap().insecure);
    check_deployment(deployment, &config, &sa);
    assert_eq!(one(&objs, "Service")["spec"]["type"], "ClusterIP");
}

#[test]
fn a_short_token_fails_to_render_and_tls_serves_https_only() {
    let env = TestEnv::from_env();
    let chart = chart_dir().display().to_string();
    let out = helm(&env, &["template", "mc", &chart, "--set", "token=short"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("token must be at least 16 characters"), "{}", text(&out.stderr));

    let rendered = helm_template(&env, &["--set", "tls.secretName=mc-tls"]);
    let objs = objects(&env.clusters[0], &rendered);
    let deployment = one(&objs, "Deployment");
    let pod = &deployment["spec"]["template"]["spec"];
    let c = &pod["containers"][0];
    let env_vars = c["env"].as_array().unwrap();
    let value = |name: &str| env_vars.iter().find(|e| e["name"] == name).map(|e| e["value"].clone());
    assert_eq!(value("MC_TLS_CERT_FILE"), Some(serde_json::json!("/etc/mc/tls/tls.crt")));
    assert_eq!(value("MC_TLS_KEY_FILE"), Some(serde_json::json!("/etc/mc/tls/tls.key")));
    assert_eq!(c["readinessProbe"]["httpGet"]["scheme"], "HTTPS");
    assert_eq!(c["livenessProbe"]["httpGet"]["scheme"], "HTTPS");
    let volume = pod["volumes"].as_array().unwrap().iter().find(|v| v["name"] == "tls").expect("tls volume");
    assert_eq!(volume["secret"]["secretName"], "mc-tls");
    let mount = c["volumeMounts"].as_array().unwrap().iter().find(|m| m["name"] == "tls").expect("tls mount");
    assert_eq!(mount["readOnly"], true);
    assert!(mount.get("subPath").is_none(), "a renewed certificate must show up in the pod");
    let config = server_config(
        find(&objs, "Secret").into_iter().find(|s| s["stringData"]["config.yaml"].is_string()).unwrap(),
    );
    assert!(config.server.tls_sans.is_empty(), "no names for a certificate it does not make");

    // Plain http only when asked for, and never beside a certificate.
    let rendered = helm_template(&env, &["--set", "tls.plainHTTP=true"]);
    let objs = objects(&env.clusters[0], &rendered);
    let config = server_config(
        find(&objs, "Secret").into_iter().find(|s| s["stringData"]["config.yaml"].is_string()).unwrap(),
    );
    assert!(config.server.plain_http);
    let sa = one(&objs, "ServiceAccount")["metadata"]["name"].as_str().unwrap().to_string();
    check_deployment(one(&objs, "Deployment"), &config, &sa);
    let both =
        helm(&env, &["template", "mc", &chart, "--set", "tls.plainHTTP=true", "--set", "tls.secretName=x"]);
    assert!(!both.status.success());
    assert!(
        text(&both.stderr).contains("tls.plainHTTP and tls.secretName exclude each other"),
        "{}",
        text(&both.stderr)
    );
}

#[test]
fn replicas_without_an_external_database_fail_to_render_with_a_clear_message() {
    let env = TestEnv::from_env();
    let chart = chart_dir().display().to_string();
    for extra in
        [&["--set", "replicas=2"][..], &["--set", "replicas=3", "--set", "storage.url=sqlite:///x.db"]]
    {
        let mut args = vec!["template", "mc", &chart];
        args.extend_from_slice(extra);
        let out = helm(&env, &args);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{extra:?} rendered");
        assert!(
            stderr.contains("needs an external database: set storage.url to a mysql:// or postgres:// URL"),
            "{stderr}"
        );
    }
}

/// `kubectl auth can-i` as the ServiceAccount.
fn can_i(master: &Cluster, args: &[&str]) -> bool {
    let who = format!("--as=system:serviceaccount:{NAMESPACE}:{SERVICE_ACCOUNT}");
    let mut all = vec!["auth", "can-i"];
    all.extend_from_slice(args);
    all.push(&who);
    let out = kubectl_output(master, &all, None);
    match text(&out.stdout).trim() {
        "yes" => true,
        "no" => false,
        other => panic!("kubectl auth can-i {args:?}: {other} {}", text(&out.stderr)),
    }
}

#[test]
fn the_service_account_may_do_what_mc_server_does_and_nothing_more() {
    let env = TestEnv::from_env();
    let master = &env.clusters[0];
    kubectl(master, &["apply", "-f", &deploy_dir().join("rbac.yaml").display().to_string()], None);
    let allowed: &[&[&str]] = &[
        // sync: every type, every namespace
        &["list", "pods", "-A"],
        &["watch", "secrets", "-A"],
        &["watch", "customresourcedefinitions.apiextensions.k8s.io"],
        &["get", "nodes"],
        // dispatch: any kind, created by apply, removed by delete
        &["create", "deployments.apps", "-n", "default"],
        &["patch", "clusterroles.rbac.authorization.k8s.io"],
        &["delete", "configmaps", "-n", "kube-system"],
        // own objects
        &["patch", "customresourcedefinitions.apiextensions.k8s.io"],
        &["patch", "multiclusterresources.mulitcluster.practice.com", "--subresource=status", "-A"],
        &["patch", "multiclusters.mulitcluster.practice.com", "--subresource=status"],
        &["create", "events.events.k8s.io", "-n", "default"],
        &["create", "leases.coordination.k8s.io", "-n", NAMESPACE],
        &["update", "leases.coordination.k8s.io/mc-server-leader", "-n", NAMESPACE],
        // sharded sync: a Lease per cluster (RBAC has no name prefixes: every Lease of the
        // server's namespace, and of no other)
        &["update", "leases.coordination.k8s.io/mc-sync-tencent2", "-n", NAMESPACE],
        &["update", "secrets", "-n", NAMESPACE],
        &["delete", "secrets", "-n", NAMESPACE],
    ];
    let denied: &[&[&str]] = &[
        &["update", "deployments.apps", "-n", "default"],
        &["update", "secrets", "-n", "default"],
        &["update", "leases.coordination.k8s.io/mc-server-leader", "-n", "default"],
        &["update", "leases.coordination.k8s.io/mc-sync-tencent2", "-n", "default"],
        &["deletecollection", "pods", "-n", "default"],
        &["escalate", "clusterroles.rbac.authorization.k8s.io"],
        &["bind", "clusterroles.rbac.authorization.k8s.io"],
        &["impersonate", "serviceaccounts", "-A"],
    ];
    for args in allowed {
        assert!(can_i(master, args), "mc-server needs: {args:?}");
    }
    for args in denied {
        assert!(!can_i(master, args), "mc-server never does, so must not be granted: {args:?}");
    }
}

/// Readies the master for a server running as the ServiceAccount: deploy/rbac.yaml applied for
/// real, the test namespace with a probe pod, no joined cluster left from an earlier run.
/// Returns a token of the ServiceAccount.
fn prepare_master(master: &Cluster, test: &str) -> String {
    kubectl(master, &["apply", "-f", &deploy_dir().join("rbac.yaml").display().to_string()], None);
    ensure_namespace(master, TEST_NAMESPACE);
    let joined = format!("{JOINED_LABEL}={test}-join");
    kubectl(master, &["delete", "secrets", "-n", NAMESPACE, "-l", &joined, "--ignore-not-found"], None);
    let probe = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("{test}-probe"), "namespace": TEST_NAMESPACE},
        "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10"}]}
    });
    kubectl(master, &["apply", "-f", "-"], Some(&probe.to_string()));
    let token =
        kubectl(master, &["create", "token", SERVICE_ACCOUNT, "-n", NAMESPACE, "--duration", "1h"], None);
    token.trim().to_string()
}

/// The `server:` URL of a testenv kubeconfig.
fn api_server_url(cluster: &Cluster) -> String {
    let kubeconfig = std::fs::read_to_string(&cluster.kubeconfig).unwrap();
    let line = kubeconfig.lines().find_map(|l| l.trim().strip_prefix("server:")).expect("a server: line");
    line.trim().to_string()
}

/// A kubeconfig for the master cluster that authenticates with the ServiceAccount's token.
fn service_account_kubeconfig(env: &TestEnv, master: &Cluster, token: &str) -> PathBuf {
    let admin = std::fs::read_to_string(&master.kubeconfig).unwrap();
    let mut replaced = 0;
    let lines: Vec<String> = admin
        .lines()
        .map(|line| match line.split_once("token:") {
            Some((indent, _)) if indent.trim().is_empty() => {
                replaced += 1;
                format!("{indent}token: {token}")
            }
            _ => line.to_string(),
        })
        .collect();
    assert_eq!(replaced, 1, "one token in {}", master.kubeconfig.display());
    let path = env.dir.join(format!("{}-{SERVICE_ACCOUNT}.kubeconfig", master.name));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// A server config: the master with this `configPath` (empty: in-cluster), the other testenv
/// clusters as members with their admin kubeconfigs.
fn config_with_master(env: &TestEnv, test: &str, master_config_path: &str) -> PathBuf {
    let mut config = format!(
        "clusters:\n  - metadata:\n      clusterName: {}\n      configPath: \"{master_config_path}\"\n      isMaster: true\n",
        env.clusters[0].name
    );
    for member in &env.clusters[1..] {
        config.push_str(&format!(
            "  - metadata:\n      clusterName: {}\n      configPath: {}\n",
            member.name,
            member.kubeconfig.display()
        ));
    }
    let path = env.dir.join(format!("config-{test}.yaml"));
    std::fs::write(&path, config).unwrap();
    path
}

/// What mc-server does in the master, checked end to end: sync, leader election, dispatch,
/// join and unjoin, cleanup — and nothing in its log was refused.
async fn check_syncs_and_dispatches(env: &TestEnv, server: &McServer, test: &str) {
    let master = &env.clusters[0];
    let pid = server.pid().unwrap();

    // Sync: the master's pods are listed.
    let path = format!("/v1/list?gvr=v1/pods&cluster={}&namespace={TEST_NAMESPACE}&limit=0", master.name);
    let probe = format!("{test}-probe");
    eventually("the probe pod listed", Duration::from_secs(20), || async {
        let (status, body) = server.get(&path).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body.as_array()?.iter().any(|p| p["metadata"]["name"] == probe.as_str()).then_some(())
    })
    .await;

    // Leader election: this server holds the Lease in its namespace (get, create, update).
    let lease_holder = || {
        let args =
            ["get", "lease", "mc-server-leader", "-n", NAMESPACE, "-o", "jsonpath={.spec.holderIdentity}"];
        text(&kubectl_output(master, &args, None).stdout)
    };
    eventually("this server leads", Duration::from_secs(40), || async {
        lease_holder().contains(&format!("-{pid}-")).then_some(())
    })
    .await;

    // Dispatch: a ConfigMap placed on the master is applied and reported Applied.
    let client = env.client(master).await.unwrap();
    let mcrs: Api<MultiClusterResource> = Api::namespaced(client.clone(), TEST_NAMESPACE);
    if mcrs.get_opt(test).await.unwrap().is_some() {
        mcrs.delete(test, &DeleteParams::default()).await.unwrap();
        eventually("the old resource gone", Duration::from_secs(30), || async {
            mcrs.get_opt(test).await.ok()?.is_none().then_some(())
        })
        .await;
    }
    let cm_name = format!("{test}-cm");
    let mcr: MultiClusterResource = serde_json::from_value(json!({
        "apiVersion": "mulitcluster.practice.com/v1alpha1",
        "kind": "MultiClusterResource",
        "metadata": {"name": test, "namespace": TEST_NAMESPACE},
        "spec": {
            "template": {"apiVersion": "v1", "kind": "ConfigMap",
                         "metadata": {"name": cm_name, "namespace": TEST_NAMESPACE},
                         "data": {"k": "v"}},
            "placement": {"clusters": [{"name": master.name}]}
        }
    }))
    .unwrap();
    mcrs.create(&PostParams::default(), &mcr).await.unwrap();
    eventually("status Applied on the master", Duration::from_secs(30), || async {
        let status = mcrs.get(test).await.ok()?.status?;
        status.clusters.iter().any(|c| c.name == master.name && c.phase == Phase::Applied).then_some(())
    })
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), TEST_NAMESPACE);
    assert_eq!(cms.get(&cm_name).await.unwrap().data.unwrap()["k"], "v");

    // Join and unjoin: the kubeconfig Secret is written to and removed from its namespace.
    let join_name = format!("{test}-join");
    let kubeconfig = std::fs::read(&env.clusters.last().unwrap().kubeconfig).unwrap();
    let form = reqwest::multipart::Form::new()
        .part("kubeconfig", reqwest::multipart::Part::bytes(kubeconfig).file_name("config"));
    let http = server.http();
    let resp = http
        .post(format!("{}/v1/join?cluster={join_name}", server.url))
        .bearer_auth(server.token())
        .multipart(form)
        .send()
        .await
        .unwrap();
    let status = resp.status();
    assert_eq!(status, StatusCode::OK, "join: {}", resp.text().await.unwrap_or_default());
    let selector = format!("{JOINED_LABEL}={join_name}");
    let secrets =
        || kubectl(master, &["get", "secrets", "-n", NAMESPACE, "-l", &selector, "-o", "name"], None);
    assert_eq!(secrets().lines().count(), 1, "the joined cluster's Secret");
    let resp = http
        .delete(format!("{}/v1/unjoin?cluster={join_name}", server.url))
        .bearer_auth(server.token())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(secrets().trim(), "");

    // Deleting the resource removes the copy (delete, finalizer patch).
    mcrs.delete(test, &DeleteParams::default()).await.unwrap();
    eventually("resource and copy gone", Duration::from_secs(30), || async {
        let gone = mcrs.get_opt(test).await.ok()?.is_none() && cms.get_opt(&cm_name).await.ok()?.is_none();
        gone.then_some(())
    })
    .await;

    // Nothing the server did was refused.
    let log = std::fs::read_to_string(&server.log).unwrap();
    let run = &log[log.rfind("store ready").unwrap_or(0)..];
    let refused: Vec<&str> = run.lines().filter(|l| l.to_lowercase().contains("forbidden")).collect();
    assert!(refused.is_empty(), "mc-server was refused:\n{}", refused.join("\n"));
}

#[tokio::test]
async fn mc_server_syncs_and_dispatches_with_only_the_deploy_rbac() {
    let env = TestEnv::from_env();
    let master = &env.clusters[0];
    let test = "deploy-rbac";
    let token = prepare_master(master, test);
    let kubeconfig = service_account_kubeconfig(&env, master, &token);
    let config = config_with_master(&env, test, &kubeconfig.display().to_string());
    let launch = Launch { args: &["--namespace", NAMESPACE], ..Default::default() };
    let server =
        McServer::start_with(&env, test, Options { config: Some(config), ..Default::default() }, launch)
            .await;
    check_syncs_and_dispatches(&env, &server, test).await;
}

/// Runs its arguments as if in a pod: in a private mount namespace where the ServiceAccount's
/// files are at the in-cluster path, without touching the host's /var/run.
fn in_pod_wrapper(env: &TestEnv, test: &str, token: &str, master: &Cluster) -> PathBuf {
    let check = Command::new("unshare").args(["--mount", "--propagation", "private", "true"]).output();
    assert!(
        check.as_ref().is_ok_and(|o| o.status.success()),
        "the in-cluster test runs mc-server in a private mount namespace and needs `unshare --mount` \
         (util-linux, as root): {check:?}"
    );
    let dir = env.dir.join(test);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("token"), token).unwrap();
    std::fs::write(dir.join("namespace"), NAMESPACE).unwrap();
    // The CA of the cluster's serving certificate, as scripts/testenv made it.
    std::fs::copy(env.dir.join(&master.name).join("ca.crt"), dir.join("ca.crt")).unwrap();
    let script = dir.join("run-in-pod");
    let sa = "/var/run/secrets/kubernetes.io/serviceaccount";
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nexec unshare --mount --propagation private sh -c 'set -e\n\
             mount -t tmpfs tmpfs /var/run\nmkdir -p {sa}\ncp {dir}/token {dir}/ca.crt {dir}/namespace {sa}/\n\
             exec \"$@\"' sh \"$@\"\n",
            dir = dir.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    script
}

#[tokio::test]
async fn in_cluster_mode_uses_the_pods_service_account() {
    let env = TestEnv::from_env();
    let master = &env.clusters[0];
    let test = "deploy-incluster";
    let token = prepare_master(master, test);
    let wrapper = in_pod_wrapper(&env, test, &token, master);
    // What the kubelet gives every pod: the API server's Service address.
    let url = api_server_url(master);
    let (host, port) = url.trim_start_matches("https://").rsplit_once(':').unwrap();
    let config = config_with_master(&env, test, "");
    // No token configured: in-cluster, the generated token is kept in the Secret mc-server-token
    // of the server's namespace (so replicas and restarts share it), and the CA it makes for
    // HTTPS in the Secret mc-server-tls.
    kubectl(master, &["delete", "secret", "mc-server-token", "-n", NAMESPACE, "--ignore-not-found"], None);
    kubectl(master, &["delete", "secret", "mc-server-tls", "-n", NAMESPACE, "--ignore-not-found"], None);
    let data = env.dir.join(test).join("data").display().to_string();
    let launch = Launch {
        args: &["--namespace", NAMESPACE, "--data-dir", &data],
        envs: &[("KUBERNETES_SERVICE_HOST", host), ("KUBERNETES_SERVICE_PORT", port), ("MC_TOKEN", "")],
        wrapper: Some(&wrapper),
        ..Default::default()
    };
    let server =
        McServer::start_with(&env, test, Options { config: Some(config), ..Default::default() }, launch)
            .await;
    let shared = kubectl(
        master,
        &["get", "secret", "mc-server-token", "-n", NAMESPACE, "-o", "jsonpath={.data.token}"],
        None,
    );
    let shared = String::from_utf8(base64_decode(shared.trim())).unwrap();
    assert!(shared.len() >= 16, "a generated token in the Secret: {shared:?}");
    let (status, _) = server.get("/v1/clusters").await;
    assert_eq!(status, reqwest::StatusCode::UNAUTHORIZED, "no token configured still means closed");
    // The CA clients trust is the Secret's: a pod that starts with an empty volume (a restart,
    // another replica) serves a certificate from the same CA.
    let secret_ca = |key: &str| {
        let jsonpath = format!("jsonpath={{.data.{}}}", key.replace('.', "\\."));
        let out =
            kubectl(master, &["get", "secret", "mc-server-tls", "-n", NAMESPACE, "-o", &jsonpath], None);
        base64_decode(out.trim())
    };
    let ca = std::fs::read(server.ca().unwrap()).unwrap();
    assert_eq!(secret_ca("ca.crt"), ca, "the CA is kept in the Secret mc-server-tls");
    assert!(String::from_utf8(secret_ca("ca.key")).unwrap().contains("PRIVATE KEY"));
    let secret_type =
        kubectl(master, &["get", "secret", "mc-server-tls", "-n", NAMESPACE, "-o", "jsonpath={.type}"], None);
    assert_eq!(secret_type.trim(), "kubernetes.io/tls");
    let server = server.with_token(&shared);
    let (_, clusters) = server.get("/v1/clusters").await;
    let me = clusters.as_array().unwrap().iter().find(|c| c["name"] == master.name.as_str()).unwrap().clone();
    assert_eq!(me["isMaster"], true, "{me}");
    check_syncs_and_dispatches(&env, &server, test).await;
    drop(server);

    // A pod on an empty volume takes the Secret's CA and signs its own certificate with it.
    let fresh = env.dir.join(test).join("data-fresh").display().to_string();
    let launch = Launch { args: &["--namespace", NAMESPACE, "--data-dir", &fresh], ..launch };
    let options = Options { config: Some(config_with_master(&env, test, "")), ..Default::default() };
    let again = McServer::start_with(&env, test, options, launch).await.with_token(&shared);
    assert_eq!(std::fs::read(again.ca().unwrap()).unwrap(), ca, "the same CA after a restart");
    let (status, _) = again.get("/v1/clusters").await;
    assert_eq!(status, reqwest::StatusCode::OK, "served over HTTPS from the Secret's CA");
}

/// Standard base64 (what kubectl prints for Secret data).
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let bytes: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    bytes
        .chunks(4)
        .flat_map(|c| {
            let n = c.iter().enumerate().fold(0u32, |acc, (i, &v)| acc | (u32::from(v) << (18 - 6 * i)));
            let all = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            all[..c.len().saturating_sub(1)].to_vec()
        })
        .collect()
}
