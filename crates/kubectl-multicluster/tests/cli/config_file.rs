//! `config set` and `config view`: the real binary writing and reading the CLI config file.

use std::path::Path;

use mc_types::config::CliConfig;

use crate::commands::{Home, stderr, stdout};
use crate::fake::FakeServer;

fn ca_file() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ca.crt"))
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn config_set_creates_a_private_file_with_the_given_keys() {
    let home = Home::new();
    let out = home
        .cmd()
        .args(["config", "set", "--server", "https://mc.example.com:8443", "--token", "s3cret"])
        .args(["--master-kubeconfig", "/etc/master.kubeconfig"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), format!("Config written: {}\n", home.config().display()));
    assert_eq!(
        std::fs::read_to_string(home.config()).unwrap(),
        "serverIP: https://mc.example.com\nserverPort: 8443\nmasterClusterKubeConfigPath: /etc/master.kubeconfig\ntoken: s3cret\n"
    );
    #[cfg(unix)]
    assert_eq!(mode(&home.config()), 0o600);
    assert_eq!(CliConfig::load(&home.config()).unwrap().server_url(), "https://mc.example.com:8443");
}

#[test]
fn a_second_config_set_keeps_the_other_keys() {
    let home = Home::new();
    let set = |args: &[&str]| {
        let out = home.cmd().args(["config", "set"]).args(args).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        std::fs::read_to_string(home.config()).unwrap()
    };
    set(&["--server", "10.0.0.9:31888", "--token", "s3cret"]);
    assert_eq!(
        set(&["--certificate-authority", ca_file().to_str().unwrap()]),
        format!(
            "serverIP: \"10.0.0.9\"\nserverPort: 31888\nmasterClusterKubeConfigPath: \"\"\ntoken: s3cret\ncertificateAuthority: {}\n",
            ca_file().display()
        )
    );
    // Insecure mode drops the CA, as `kubectl config set-cluster` does; an empty token removes it.
    assert_eq!(
        set(&["--insecure-skip-tls-verify", "--token", ""]),
        "serverIP: \"10.0.0.9\"\nserverPort: 31888\nmasterClusterKubeConfigPath: \"\"\ninsecureSkipTlsVerify: true\n"
    );
    assert_eq!(
        set(&["--server", "http://mc.local:8080"]),
        "serverIP: mc.local\nserverPort: 8080\nmasterClusterKubeConfigPath: \"\"\ninsecureSkipTlsVerify: true\n"
    );
    #[cfg(unix)]
    assert_eq!(mode(&home.config()), 0o600);
}

#[test]
fn config_set_writes_the_file_the_environment_names_and_the_plugin_then_uses_it() {
    let server = FakeServer::with_token(Some("config-set-token-0123"));
    let home = Home::new();
    let file = home.dir.join("elsewhere/nested/config");
    let out = home
        .cmd()
        .env("KUBECTL_MULTICLUSTER_CONFIG", &file)
        .args(["config", "set", "--server", &server.url, "--token", "config-set-token-0123"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!home.config().exists());
    let out = home
        .cmd()
        .env("KUBECTL_MULTICLUSTER_CONFIG", &file)
        .args(["list", "clusters", "-o", "name"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "cluster/tencent1\ncluster/tencent2\ncluster/tencent4\n");
}

#[test]
fn config_view_shows_the_file_with_the_token_redacted() {
    let home = Home::new();
    let out = home.cmd().args(["config", "set", "--server", "mc:1", "--token", "s3cret"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = home.cmd().args(["config", "view"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "# {}\nserverIP: mc\nserverPort: 1\nmasterClusterKubeConfigPath: \"\"\ntoken: <redacted>\n",
            home.config().display()
        )
    );
    assert!(!stdout(&out).contains("s3cret"));
}

#[test]
fn config_set_refuses_what_it_cannot_write_in_one_line() {
    let home = Home::new();
    let fails = |args: &[&str]| {
        let out = home.cmd().args(["config", "set"]).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        stderr(&out)
    };
    assert_eq!(
        fails(&[]),
        "error: nothing to set: pass --server, --token, --certificate-authority, --insecure-skip-tls-verify, --kubeconfig-user[=false] or --master-kubeconfig\n"
    );
    assert_eq!(
        fails(&["--token", "t"]),
        format!("error: no config file {} yet: pass --server URL to create it\n", home.config().display())
    );
    assert_eq!(
        fails(&["--server", "https://mc/prefix"]),
        "error: --server \"https://mc/prefix\": the config file holds only a scheme, host and port (no path)\n"
    );
    assert_eq!(
        fails(&["--certificate-authority", "ca.crt", "--insecure-skip-tls-verify"]),
        "error: --certificate-authority and --insecure-skip-tls-verify exclude each other\n"
    );
    assert!(!home.config().exists());
}
