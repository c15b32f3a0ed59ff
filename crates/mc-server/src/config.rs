//! Server settings: command-line flags (and their environment variables) over the config file.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clap::Parser;
use mc_types::config::{CliConfig, ConfigError, ServerConfig};

use crate::clusters::ClusterSpec;
use crate::clusters::connect::resolve;

/// mc-server: syncs every object of every configured cluster into a store, serves queries over
/// HTTP and dispatches MultiClusterResources.
#[derive(Debug, Parser)]
#[command(name = "mc-server", version, about)]
pub struct Args {
    /// Server configuration file (SPEC §2).
    #[arg(long, env = "MC_CONFIG", default_value = "config.yaml")]
    pub config: PathBuf,
    /// Storage URL: sqlite://FILE, mysql://USER:PASS@HOST/DB or postgres://USER:PASS@HOST/DB
    /// (default: the config's storage.url, else SQLite in the data directory).
    #[arg(long, env = "MC_STORAGE")]
    pub storage: Option<String>,
    /// Port to listen on (default: the config's server.port, else 31888).
    #[arg(long, env = "MC_PORT")]
    pub port: Option<u16>,
    /// Address to bind (default: the config's server.bind, else 0.0.0.0).
    #[arg(long, env = "MC_BIND")]
    pub bind: Option<String>,
    /// Directory for the embedded SQLite store.
    #[arg(long, env = "MC_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Namespace in the master cluster for the leader Lease and joined clusters' Secrets.
    #[arg(long, env = "MC_NAMESPACE", default_value = "default")]
    pub namespace: String,
    /// Do not write ~/.multi-cluster-operator/config when it is missing.
    #[arg(long, env = "MC_NO_CLI_CONFIG")]
    pub no_cli_config: bool,
}

/// Everything the server needs, checked.
#[derive(Debug)]
pub struct Settings {
    /// The config file it came from.
    pub config_path: PathBuf,
    /// Clusters, master first.
    pub clusters: Vec<ClusterSpec>,
    /// Where to listen.
    pub listen: SocketAddr,
    /// Storage URL.
    pub storage_url: String,
    /// Bearer token for `/v1` (None: open).
    pub token: Option<String>,
    /// Redact Secret values before storage.
    pub redact_secrets: bool,
    /// Extra excluded groups.
    pub exclude_groups: Vec<String>,
    /// Extra excluded resources.
    pub exclude_resources: Vec<String>,
    /// Write the CLI config if the user has none.
    pub write_cli_config: bool,
    /// Namespace for the leader Lease and joined clusters' Secrets in the master cluster.
    pub namespace: String,
}

impl Settings {
    /// Loads and checks the config file and every kubeconfig it names. Errors are one line.
    pub fn load(args: Args) -> Result<Settings, ConfigError> {
        let file = ServerConfig::load(&args.config)?;
        let base = args.config.parent().map(Path::to_path_buf).unwrap_or_default();
        let master = file.master().map(|m| m.cluster_name.clone()).unwrap_or_default();
        let mut clusters = Vec::new();
        for entry in &file.clusters {
            let m = &entry.metadata;
            let path = resolve(&base, &m.config_path);
            let mut spec = ClusterSpec::from_file(&m.cluster_name, &path, m.context.clone(), m.insecure)
                .map_err(|e| ConfigError::Kubeconfig {
                    file: args.config.clone(),
                    cluster: m.cluster_name.clone(),
                    reason: e.to_string(),
                })?;
            spec.is_master = m.cluster_name == master;
            spec.labels = m.labels.clone();
            spec.allow = m.resources.iter().map(|r| r.r_type.clone()).collect();
            clusters.push(spec);
        }
        clusters.sort_by_key(|c| !c.is_master);
        let bind = args.bind.unwrap_or_else(|| file.server.bind.clone());
        let port = args.port.unwrap_or(file.server.port);
        let listen = format!("{bind}:{port}")
            .parse::<SocketAddr>()
            .or_else(|_| format!("[{bind}]:{port}").parse::<SocketAddr>())
            .map_err(|_| ConfigError::Invalid {
                file: args.config.clone(),
                problem: format!("server.bind \"{bind}\" is not an IP address"),
            })?;
        let storage_url = match args.storage.or(file.storage.url.clone()) {
            Some(url) if !url.is_empty() => url,
            _ => {
                let dir = args.data_dir.unwrap_or_else(default_data_dir);
                format!("sqlite://{}", dir.join("mc.db").display())
            }
        };
        Ok(Settings {
            config_path: args.config,
            clusters,
            listen,
            storage_url,
            token: (!file.server.token.is_empty()).then(|| file.server.token.clone()),
            redact_secrets: file.sync.redact_secrets,
            exclude_groups: file.sync.exclude_groups.clone(),
            exclude_resources: file.sync.exclude_resources.clone(),
            write_cli_config: !args.no_cli_config,
            namespace: args.namespace,
        })
    }

    /// Writes `~/.multi-cluster-operator/config` for the local user when there is none, as the
    /// original did. Returns the path written.
    pub fn write_cli_config_if_missing(&self) -> Option<PathBuf> {
        if !self.write_cli_config {
            return None;
        }
        let path = CliConfig::default_path()?;
        if path.exists() {
            return None;
        }
        let ip = self.listen.ip();
        let server_ip = if ip.is_unspecified() { "localhost".to_string() } else { ip.to_string() };
        let master = self
            .clusters
            .iter()
            .find(|c| c.is_master)
            .map(|c| if c.kubeconfig.is_some() { c.source.clone() } else { String::new() })
            .unwrap_or_default();
        let cfg = CliConfig {
            server_ip,
            server_port: self.listen.port(),
            master_cluster_kube_config_path: master,
            token: self.token.clone(),
        };
        cfg.save(&path).ok().map(|_| path)
    }
}

fn default_data_dir() -> PathBuf {
    dirs::data_local_dir().map(|d| d.join("mc-server")).unwrap_or_else(|| PathBuf::from("data"))
}
