//! Access to the clusters of a `scripts/testenv up` directory.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use kube::Client;
use kube::config::{KubeConfigOptions, Kubeconfig};

/// One cluster of the test environment.
#[derive(Clone, Debug)]
pub struct Cluster {
    pub name: String,
    pub kubeconfig: PathBuf,
    /// Its etcd's client port on 127.0.0.1 (the first of its ports).
    pub etcd_port: u16,
}

/// The clusters of `MC_TESTENV_DIR`.
#[derive(Clone, Debug)]
pub struct TestEnv {
    pub dir: PathBuf,
    pub clusters: Vec<Cluster>,
}

impl TestEnv {
    /// Reads `MC_TESTENV_DIR`; a missing variable is a failure, never a skip.
    pub fn from_env() -> TestEnv {
        let dir = std::env::var_os("MC_TESTENV_DIR").map(PathBuf::from).unwrap_or_else(|| {
            panic!(
                "MC_TESTENV_DIR is not set: these tests need real clusters. Run scripts/test.sh, or \
                 `scripts/testenv up --clusters 3 --dir DIR` and export MC_TESTENV_DIR=DIR"
            )
        });
        Self::open(&dir).unwrap_or_else(|e| panic!("MC_TESTENV_DIR={}: {e:#}", dir.display()))
    }

    fn open(dir: &Path) -> Result<TestEnv> {
        let list = std::fs::read_to_string(dir.join("clusters"))
            .context("no clusters file: is `scripts/testenv up` done for this directory?")?;
        let clusters = list
            .lines()
            .filter_map(|l| {
                let mut fields = l.split_whitespace().skip(1);
                Some((fields.next()?, fields.next()?.parse().ok()?))
            })
            .map(|(name, etcd_port)| Cluster {
                name: name.to_string(),
                kubeconfig: dir.join(format!("{name}.kubeconfig")),
                etcd_port,
            })
            .collect::<Vec<_>>();
        if clusters.is_empty() {
            bail!("the clusters file lists no cluster");
        }
        Ok(TestEnv { dir: dir.to_path_buf(), clusters })
    }

    /// A kube client for one cluster.
    pub async fn client(&self, cluster: &Cluster) -> Result<Client> {
        let kubeconfig = Kubeconfig::read_from(&cluster.kubeconfig)?;
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
        Ok(Client::try_from(config)?)
    }

    /// Runs the testenv-built kubectl against one cluster and returns its stdout.
    pub fn kubectl(&self, cluster: &Cluster, args: &[&str]) -> Result<String> {
        let out = Command::new(kubectl_path()?)
            .arg("--kubeconfig")
            .arg(&cluster.kubeconfig)
            .args(args)
            .output()
            .context("running kubectl")?;
        if !out.status.success() {
            bail!("kubectl {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(String::from_utf8(out.stdout)?)
    }
}

/// The kubectl built by `scripts/testenv build` (`MC_TESTENV_BIN`, else asks the script).
pub fn kubectl_path() -> Result<PathBuf> {
    bin_path("kubectl")
}

/// A binary built by `scripts/testenv build` (`MC_TESTENV_BIN`, else asks the script).
pub fn bin_path(name: &str) -> Result<PathBuf> {
    if let Some(bin) = std::env::var_os("MC_TESTENV_BIN") {
        return Ok(PathBuf::from(bin).join(name));
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/testenv");
    let out = Command::new(script).arg("bin").output().context("running scripts/testenv bin")?;
    Ok(PathBuf::from(String::from_utf8(out.stdout)?.trim()).join(name))
}

/// Polls `check` every 250 ms until it returns `Some` or `timeout` passes.
pub async fn eventually<T, F, Fut>(what: &str, timeout: std::time::Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let start = std::time::Instant::now();
    loop {
        if let Some(v) = check().await {
            return v;
        }
        if start.elapsed() > timeout {
            panic!("timed out after {timeout:?} waiting for {what}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
}

/// Runs `scripts/testenv` with arguments.
pub fn testenv_command(args: &[&str]) -> Result<()> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/testenv");
    let status = Command::new(script).args(args).status().context("running scripts/testenv")?;
    if !status.success() {
        bail!("scripts/testenv {args:?} failed with {status}");
    }
    Ok(())
}
