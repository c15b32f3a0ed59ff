//! How to reach a cluster: kubeconfig (file or uploaded) and context, or the in-cluster account.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

use super::transport::{Addresses, Protocols};

/// Errors building a cluster's client configuration.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The kubeconfig file could not be read or parsed (not retryable).
    #[error("kubeconfig {path}: {reason}")]
    Kubeconfig {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The requested context is not in the kubeconfig (not retryable).
    #[error("context \"{context}\" not found in kubeconfig (it has: {available})")]
    UnknownContext {
        /// The context asked for.
        context: String,
        /// Contexts that exist.
        available: String,
    },
    /// The configuration could not be turned into a client (not retryable).
    #[error("{0}")]
    Config(String),
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything needed to connect to one cluster.
#[derive(Clone, Debug)]
pub struct ClusterSpec {
    /// Unique name.
    pub name: String,
    /// The master cluster holds the MultiClusterResources.
    pub is_master: bool,
    /// Skip TLS verification of the API server.
    pub insecure: bool,
    /// Parsed kubeconfig; `None` means the in-cluster service account.
    pub kubeconfig: Option<Kubeconfig>,
    /// Where the kubeconfig came from (for messages).
    pub source: String,
    /// Context to use (`None`: current-context).
    pub context: Option<String>,
    /// API server URL of that context.
    pub host: String,
    /// Labels for placement by selector.
    pub labels: BTreeMap<String, String>,
    /// The Go project's per-cluster allow-list of types (`rType`).
    pub allow: Vec<String>,
    /// Which addresses its API server may have: any for a configured cluster, no link-local one
    /// for a joined cluster unless the server's config allows it.
    pub addresses: Addresses,
}

impl ClusterSpec {
    /// A spec for unit tests: not the master, nothing to connect to (127.0.0.1:1).
    #[cfg(test)]
    pub fn for_test(name: &str) -> Self {
        ClusterSpec {
            name: name.into(),
            is_master: false,
            insecure: false,
            kubeconfig: None,
            source: "test".into(),
            context: None,
            host: "https://127.0.0.1:1".into(),
            labels: Default::default(),
            allow: Vec::new(),
            addresses: Addresses::Any,
        }
    }

    /// Reads and checks a kubeconfig file; an empty path means in-cluster.
    pub fn from_file(name: &str, path: &Path, context: Option<String>, insecure: bool) -> Result<Self> {
        if path.as_os_str().is_empty() {
            return Ok(ClusterSpec {
                name: name.to_string(),
                is_master: false,
                insecure,
                kubeconfig: None,
                source: "in-cluster service account".into(),
                context: None,
                host: in_cluster_host(),
                labels: BTreeMap::new(),
                allow: Vec::new(),
                addresses: Addresses::Any,
            });
        }
        let kubeconfig = Kubeconfig::read_from(path)
            .map_err(|e| Error::Kubeconfig { path: path.display().to_string(), reason: one_line(&e) })?;
        Self::from_kubeconfig(name, kubeconfig, path.display().to_string(), context, insecure)
    }

    /// Checks an already parsed kubeconfig (e.g. uploaded by join).
    pub fn from_kubeconfig(
        name: &str,
        kubeconfig: Kubeconfig,
        source: String,
        context: Option<String>,
        insecure: bool,
    ) -> Result<Self> {
        let ctx_name = context.clone().or_else(|| kubeconfig.current_context.clone()).ok_or_else(|| {
            Error::Kubeconfig {
                path: source.clone(),
                reason: "no context given and no current-context set".into(),
            }
        })?;
        let ctx =
            kubeconfig.contexts.iter().find(|c| c.name == ctx_name).ok_or_else(|| Error::UnknownContext {
                context: ctx_name.clone(),
                available: kubeconfig.contexts.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "),
            })?;
        let cluster_ref = ctx.context.as_ref().map(|c| c.cluster.clone()).unwrap_or_default();
        let host = kubeconfig
            .clusters
            .iter()
            .find(|c| c.name == cluster_ref)
            .and_then(|c| c.cluster.as_ref())
            .and_then(|c| c.server.clone())
            .ok_or_else(|| Error::Kubeconfig {
                path: source.clone(),
                reason: format!("context \"{ctx_name}\" names cluster \"{cluster_ref}\" which has no server"),
            })?;
        Ok(ClusterSpec {
            name: name.to_string(),
            is_master: false,
            insecure,
            kubeconfig: Some(kubeconfig),
            source,
            context: Some(ctx_name),
            host,
            labels: BTreeMap::new(),
            allow: Vec::new(),
            addresses: Addresses::Any,
        })
    }

    /// The client configuration (timeouts suited to long watches).
    pub async fn config(&self) -> Result<Config> {
        let mut config = match &self.kubeconfig {
            None => Config::incluster().map_err(|e| Error::Config(one_line(&e)))?,
            Some(kc) => {
                let opts = KubeConfigOptions { context: self.context.clone(), ..Default::default() };
                Config::from_custom_kubeconfig(kc.clone(), &opts)
                    .await
                    .map_err(|e| Error::Config(one_line(&e)))?
            }
        };
        config.connect_timeout = Some(Duration::from_secs(5));
        if self.insecure {
            config.accept_invalid_certs = true;
        }
        Ok(config)
    }
}

/// The API server address of the in-cluster service account.
fn in_cluster_host() -> String {
    match (std::env::var("KUBERNETES_SERVICE_HOST"), std::env::var("KUBERNETES_SERVICE_PORT")) {
        (Ok(h), Ok(p)) if h.contains(':') => format!("https://[{h}]:{p}"),
        (Ok(h), Ok(p)) => format!("https://{h}:{p}"),
        _ => "https://kubernetes.default.svc".into(),
    }
}

/// A client for the cluster (HTTP/2 when its API server offers it: see [`super::transport`]).
pub async fn connect(spec: &ClusterSpec) -> Result<Client> {
    connect_with(spec, Protocols::Http2Offered).await
}

/// A client for the cluster speaking `protocols` (a probe: [`Protocols::Http1Only`]).
pub async fn connect_with(spec: &ClusterSpec, protocols: Protocols) -> Result<Client> {
    let config = spec.config().await?;
    super::transport::client(config, protocols, spec.addresses).map_err(|e| Error::Config(one_line(&e)))
}

/// An error and its causes on one line.
pub fn one_line(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        src = c.source();
    }
    s.replace('\n', " ")
}

/// Where a kubeconfig path given relative to a config file points.
pub fn resolve(base: &Path, path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() || path.is_empty() { p.to_path_buf() } else { base.join(p) }
}
