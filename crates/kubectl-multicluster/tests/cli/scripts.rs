//! `generate-config.sh` at the repository root writes a config the plugin reads.

use std::path::{Path, PathBuf};
use std::process::Command;

use mc_types::config::CliConfig;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../generate-config.sh")
}

fn home(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kmc-script-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn generate(home: &Path, args: &[&str]) -> std::process::Output {
    Command::new("bash")
        .arg(script())
        .args(args)
        .env("HOME", home)
        .env_remove("KUBECTL_MULTICLUSTER_CONFIG")
        .output()
        .unwrap()
}

#[test]
fn generate_config_writes_the_go_projects_file_and_refuses_to_overwrite_it() {
    let home = home("generate");
    let file = home.join(".multi-cluster-operator/config");
    let out = generate(&home, &["--ip", "localhost", "--port", "31888", "--config", "/root/.kube/config"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("Config written: {}\n", file.display()));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "serverIP: localhost\nserverPort: 31888\nmasterClusterKubeConfigPath: /root/.kube/config\n"
    );

    let out = generate(&home, &["--ip", "10.0.0.9", "--port", "8080", "--config", "/k"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists; pass --force"));

    let out = generate(&home, &["--ip=::1", "--port=8080", "--config=/a b/k", "--token", "it's", "--force"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let config = CliConfig::load(&file).unwrap();
    assert_eq!(config.server_url(), "http://[::1]:8080");
    assert_eq!(config.master_cluster_kube_config_path, "/a b/k");
    assert_eq!(config.token.as_deref(), Some("it's"));
    std::fs::remove_dir_all(home).unwrap();
}

#[test]
fn generate_config_checks_its_arguments() {
    let home = home("args");
    let out = generate(&home, &["--ip", "x", "--port", "99999", "--config", "/k"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--port must be a number from 1 to 65535"));
    let out = generate(&home, &["--ip", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage:"));
    std::fs::remove_dir_all(home).unwrap();
}
