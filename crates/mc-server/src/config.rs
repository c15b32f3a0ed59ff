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
    /// Server configuration file.
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
    /// Admin bearer token (default: the config's server.token, else a token generated at first
    /// start into <data-dir>/token).
    #[arg(long, env = "MC_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// PEM certificate for HTTPS (default: the config's server.tlsCertFile). Without one the
    /// server serves HTTPS with a CA and certificate of its own, made at first start in
    /// <data-dir>/tls (clients trust <data-dir>/tls/ca.crt).
    #[arg(long, env = "MC_TLS_CERT_FILE", requires = "tls_key_file", conflicts_with = "plain_http")]
    pub tls_cert_file: Option<PathBuf>,
    /// Connections open at once. At the cap the oldest connection without a request in flight
    /// is closed to make room; a new one is refused only when every slot is busy.
    #[arg(long, env = "MC_MAX_CONNECTIONS", default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// Connections open at once from one client address (the same rule at its own cap).
    #[arg(long, env = "MC_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections_per_address: u32,
    /// PEM private key for HTTPS (default: the config's server.tlsKeyFile).
    #[arg(long, env = "MC_TLS_KEY_FILE", requires = "tls_cert_file")]
    pub tls_key_file: Option<PathBuf>,
    /// More names or IP addresses for the certificate the server makes, comma-separated
    /// (default: the config's server.tlsSANs); the bind address, the host name, localhost,
    /// 127.0.0.1 and ::1 are always in it.
    #[arg(long, env = "MC_TLS_SANS", value_delimiter = ',')]
    pub tls_sans: Vec<String>,
    /// Serve plain http instead of HTTPS (default: the config's server.plainHTTP). kubectl sends
    /// no token over plain http; the Go project's CLI speaks nothing else.
    #[arg(long, env = "MC_PLAIN_HTTP")]
    pub plain_http: bool,
}

/// Where the admin token came from (for the log line at start and the CLI config).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenOrigin {
    /// `--token` or `MC_TOKEN`.
    Flag,
    /// `server.token` or `server.tokens` in the config file.
    ConfigFile,
    /// Generated at first start (or read back) from this file.
    Generated(PathBuf),
}

/// How the port speaks.
#[derive(Debug)]
pub enum Tls {
    /// Plain http (`server.plainHTTP`, `--plain-http`).
    Plain,
    /// HTTPS with the configured certificate and key files.
    Files {
        /// PEM certificate (chain).
        cert: PathBuf,
        /// PEM private key.
        key: PathBuf,
    },
    /// HTTPS with the server's own CA and certificate in `<data-dir>/tls` (nothing configured).
    Generated(crate::tls::authority::Authority),
}

impl Tls {
    /// The URL scheme clients use.
    pub fn scheme(&self) -> &'static str {
        if matches!(self, Tls::Plain) { "http" } else { "https" }
    }
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
    /// Every accepted token with its role; never empty.
    pub tokens: Vec<(String, mc_types::config::Role)>,
    /// Tokens that act as a user, with that user (its groups and `system:authenticated`).
    pub user_tokens: Vec<(String, crate::authz::User)>,
    /// Where the tokens came from.
    pub token_origin: TokenOrigin,
    /// GETs without a token are served as `read`.
    pub anonymous_read: bool,
    /// How callers that are Kubernetes identities are authorized.
    pub authorization: crate::access::Mode,
    /// `/metrics` needs a token.
    pub metrics_auth: bool,
    /// OIDC ID tokens checked here (`authentication.oidc`), its files read.
    pub oidc: Option<std::sync::Arc<crate::identity::OidcVerifier>>,
    /// Which addresses a joined cluster's API server may have (`server.allowLinkLocalJoins`).
    pub join_addresses: crate::clusters::transport::Addresses,
    /// HTTPS with configured files, with the server's own CA, or plain http.
    pub tls: Tls,
    /// CAs whose client certificates identify callers (`authentication.clientCAFile`).
    pub client_ca: Option<PathBuf>,
    /// Data directory (embedded store, generated token).
    pub data_dir: PathBuf,
    /// Connections open at once.
    pub max_connections: usize,
    /// Connections open at once from one client address.
    pub max_connections_per_address: usize,
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
    /// Namespaces whose MultiClusterResources may write anywhere (default: `namespace`).
    pub admin_namespaces: Vec<String>,
    /// With a shared database: the most clusters this replica syncs (`None`: no limit).
    pub max_clusters_per_replica: Option<usize>,
    /// How lists are read (`sync.listPageSize`, `sync.unpagedListMax`).
    pub lists: crate::sync::ListSizes,
    /// What the history keeps and for how long (`history:`); `None` when it is off.
    pub history: Option<HistorySettings>,
    /// The types counted per namespace for `/metrics` (`metrics.namespaceCountsFor`).
    pub namespace_counts: crate::object_counts::NamespaceCounts,
    /// The links declared between types (`relations.links`), checked when the file was read.
    pub relation_links: Vec<mc_types::declared_links::DeclaredLink>,
    /// The field each type keeps for counts (`count.indexedFields`).
    pub indexed_fields: crate::store::IndexedFields,
    /// Keep the search index and answer `/v1/search` (`search.enabled`).
    pub search: bool,
}

/// The history's settings, checked (`history:` of the config file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistorySettings {
    /// Which types get revisions.
    pub rules: crate::store::HistoryRules,
    /// How they are pruned.
    pub prune: crate::store::PruneRules,
}

impl HistorySettings {
    /// From the config file's section (validated when the file was loaded); `None` when off.
    pub fn from_section(section: &mc_types::config::HistorySection) -> Result<Option<Self>, String> {
        if !section.enabled {
            return Ok(None);
        }
        let ms = |d: std::time::Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        Ok(Some(HistorySettings {
            rules: crate::store::HistoryRules {
                include_types: section.include_types.clone(),
                exclude_types: section.exclude_types.clone(),
            },
            prune: crate::store::PruneRules {
                max_age_ms: ms(section.max_age()?),
                events_max_age_ms: ms(section.events_max_age()?),
                max_bytes: section.max_bytes()?,
                ..crate::store::PruneRules::default()
            },
        }))
    }
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
        let data_dir = args.data_dir.clone().unwrap_or_else(default_data_dir);
        let storage_url = match args.storage.or(file.storage.url.clone()) {
            Some(url) if !url.is_empty() => url,
            _ => format!("sqlite://{}", data_dir.join("mc.db").display()),
        };
        let invalid = |problem: String| ConfigError::Invalid { file: args.config.clone(), problem };
        let mut tokens = file.server.all_tokens();
        let token_origin = match args.token.as_deref().filter(|t| !t.is_empty()) {
            Some(flag) => {
                if let Some(problem) = mc_types::config::token_problem(flag) {
                    return Err(invalid(format!("--token (MC_TOKEN) {problem}")));
                }
                tokens.insert(0, (flag.to_string(), mc_types::config::Role::Admin));
                TokenOrigin::Flag
            }
            None if !tokens.is_empty() => TokenOrigin::ConfigFile,
            None => {
                let (token, created) = crate::auth::load_or_generate(&data_dir)
                    .map_err(|e| invalid(format!("no server.token configured and {e}")))?;
                if created {
                    tracing::info!(file = %data_dir.join(crate::auth::TOKEN_FILE).display(), "generated an admin token");
                }
                tokens.push((token, mc_types::config::Role::Admin));
                TokenOrigin::Generated(data_dir.join(crate::auth::TOKEN_FILE))
            }
        };
        let configured = match (args.tls_cert_file, args.tls_key_file) {
            (Some(cert), Some(key)) => Some((cert, key)),
            _ => file.server.tls().map(|(c, k)| (c.to_path_buf(), k.to_path_buf())),
        };
        let tls = match configured {
            Some(_) if args.plain_http => {
                return Err(invalid(
                    "--plain-http (MC_PLAIN_HTTP) and a TLS certificate exclude each other: remove one"
                        .into(),
                ));
            }
            Some((cert, key)) => Tls::Files { cert, key },
            None if args.plain_http || file.server.plain_http => Tls::Plain,
            None => {
                let sans = if args.tls_sans.is_empty() { &file.server.tls_sans } else { &args.tls_sans };
                if let Some((san, problem)) =
                    args.tls_sans.iter().find_map(|s| mc_types::config::san_problem(s).map(|p| (s, p)))
                {
                    return Err(invalid(format!("--tls-sans (MC_TLS_SANS) {san:?} {problem}")));
                }
                Tls::Generated(crate::tls::authority::Authority::new(
                    data_dir.join("tls"),
                    certificate_names(listen, hostname().as_deref(), sans),
                ))
            }
        };
        let client_ca =
            Some(&file.authentication.client_ca_file).filter(|f| !f.is_empty()).map(PathBuf::from);
        if client_ca.is_some() && matches!(tls, Tls::Plain) {
            return Err(invalid(
                "authentication.clientCAFile needs HTTPS: client certificates come in the TLS handshake; remove --plain-http (MC_PLAIN_HTTP) or the client CA".into(),
            ));
        }
        if file.sync.max_clusters_per_replica == Some(0) {
            return Err(invalid(
                "sync.maxClustersPerReplica must be at least 1 (leave it out for no limit)".into(),
            ));
        }
        if file.sync.list_page_size == Some(0) {
            return Err(invalid("sync.listPageSize must be at least 1".into()));
        }
        let oidc = match &file.authentication.oidc {
            Some(section) => Some(std::sync::Arc::new(
                crate::identity::OidcVerifier::new(section)
                    .map_err(|e| invalid(format!("authentication.oidc: {e}")))?,
            )),
            None => None,
        };
        let namespace_counts = crate::object_counts::NamespaceCounts {
            types: file
                .metrics
                .namespace_counts_for
                .iter()
                .map(|t| {
                    mc_types::GvrSpec::parse(t)
                        .map_err(|e| invalid(format!("metrics.namespaceCountsFor: {t:?}: {e}")))
                })
                .collect::<Result<_, _>>()?,
            max_series: file
                .metrics
                .max_namespace_series
                .unwrap_or(mc_types::config::DEFAULT_MAX_NAMESPACE_SERIES) as usize,
        };
        let defaults = crate::sync::ListSizes::default();
        let lists = crate::sync::ListSizes {
            page: file.sync.list_page_size.unwrap_or(defaults.page),
            unpaged_max: file.sync.unpaged_list_max.map_or(defaults.unpaged_max, i64::from),
        };
        let history = HistorySettings::from_section(&file.history).map_err(invalid)?;
        let indexed_fields = crate::store::IndexedFields::new(&file.count.indexed_fields)
            .map_err(|e| invalid(format!("count.indexedFields: {e}")))?;
        Ok(Settings {
            relation_links: file.relations.links.clone(),
            indexed_fields,
            search: file.search.enabled,
            history,
            max_clusters_per_replica: file.sync.max_clusters_per_replica.map(|n| n as usize),
            lists,
            namespace_counts,
            config_path: args.config,
            clusters,
            listen,
            storage_url,
            tokens,
            user_tokens: file
                .server
                .user_tokens()
                .into_iter()
                .map(|(token, user, groups)| {
                    (token, crate::identity::impersonation::impersonated(user, groups))
                })
                .collect(),
            token_origin,
            anonymous_read: file.server.anonymous_read,
            authorization: match file.authorization.mode {
                mc_types::config::AuthorizationMode::Member => crate::access::Mode::Member,
                mc_types::config::AuthorizationMode::Roles => crate::access::Mode::Roles,
                mc_types::config::AuthorizationMode::Hub => crate::access::Mode::Hub,
            },
            metrics_auth: file.server.metrics_auth,
            oidc,
            join_addresses: if file.server.allow_link_local_joins {
                crate::clusters::transport::Addresses::Any
            } else {
                crate::clusters::transport::Addresses::NoLinkLocal
            },
            tls,
            client_ca,
            data_dir,
            max_connections: args.max_connections as usize,
            max_connections_per_address: args.max_connections_per_address as usize,
            redact_secrets: file.sync.redact_secrets,
            exclude_groups: file.sync.exclude_groups.clone(),
            exclude_resources: file.sync.exclude_resources.clone(),
            write_cli_config: !args.no_cli_config,
            admin_namespaces: file.dispatch.admin_namespaces_or(&args.namespace),
            namespace: args.namespace,
        })
    }

    /// The first admin token (there always is one).
    pub fn admin_token(&self) -> Option<&str> {
        self.tokens.iter().find(|(_, r)| *r == mc_types::config::Role::Admin).map(|(t, _)| t.as_str())
    }

    /// Writes `~/.multi-cluster-operator/config` for the local user when there is none, as the
    /// Go project did, with the admin token in it, and over HTTPS the URL `https://…` and the CA
    /// to trust. A config that points at this server but has no token gets the token added; one
    /// that points at it over plain http while it serves its own HTTPS is moved to HTTPS.
    /// Returns the path written.
    pub fn write_cli_config_if_missing(&self) -> Option<PathBuf> {
        if !self.write_cli_config {
            return None;
        }
        self.write_cli_config_at(&CliConfig::default_path()?)
    }

    fn write_cli_config_at(&self, path: &Path) -> Option<PathBuf> {
        let path = path.to_path_buf();
        let ip = self.listen.ip();
        let host = match ip {
            _ if ip.is_unspecified() => "localhost".to_string(),
            std::net::IpAddr::V6(v6) => format!("[{v6}]"),
            std::net::IpAddr::V4(v4) => v4.to_string(),
        };
        let server_ip = match self.tls {
            Tls::Plain => host.clone(),
            _ => format!("https://{host}"),
        };
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
            token: self.admin_token().map(String::from),
            certificate_authority: match &self.tls {
                Tls::Plain => None,
                // A self-signed certificate is its own authority; for one from a CA, the
                // operator puts that CA here instead.
                Tls::Files { cert, .. } => Some(cert.display().to_string()),
                Tls::Generated(authority) => Some(authority.ca_file().display().to_string()),
            },
            insecure_skip_tls_verify: None,
            use_kubeconfig_user: None,
        };
        if path.exists() {
            let mut existing = CliConfig::load(&path).ok()?;
            let plain = CliConfig { server_ip: host, ..cfg.clone() };
            // Written for this server before it served its own HTTPS: the same place, now
            // over HTTPS with its CA, keeping what the user set.
            let moved = matches!(self.tls, Tls::Generated(_))
                && existing.server_url() == plain.server_url()
                && existing.certificate_authority.is_none()
                && existing.insecure_skip_tls_verify.is_none();
            if moved {
                existing.server_ip = cfg.server_ip;
                existing.certificate_authority = cfg.certificate_authority;
                existing.token = existing.token.or(cfg.token);
                return existing.save(&path).ok().map(|_| path);
            }
            if existing.token.is_some() || existing.server_url() != cfg.server_url() {
                return None;
            }
            existing.token = cfg.token;
            return existing.save(&path).ok().map(|_| path);
        }
        cfg.save(&path).ok().map(|_| path)
    }
}

/// What the server's own certificate is for: the bind address (unless it is every address),
/// the host name, `localhost`, `127.0.0.1`, `::1`, then `extra` (`server.tlsSANs`, checked).
fn certificate_names(
    listen: SocketAddr,
    host: Option<&str>,
    extra: &[String],
) -> Vec<crate::tls::authority::Name> {
    use crate::tls::authority::Name;
    let bind = (!listen.ip().is_unspecified()).then(|| Name::Ip(listen.ip()));
    let fixed = ["localhost", "127.0.0.1", "::1"].into_iter().filter_map(Name::parse);
    bind.into_iter()
        .chain(host.and_then(Name::parse))
        .chain(fixed)
        .chain(extra.iter().filter_map(|s| Name::parse(s)))
        .collect()
}

/// The machine's host name (in a pod: the pod's name), when it is a DNS name.
fn hostname() -> Option<String> {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|f| std::fs::read_to_string(f).ok())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
}

fn default_data_dir() -> PathBuf {
    dirs::data_local_dir().map(|d| d.join("mc-server")).unwrap_or_else(|| PathBuf::from("data"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::clusters::transport::Addresses;

    /// Settings from a config file whose `server` section is `server`.
    fn settings_with(test: &str, server: &str) -> Settings {
        settings_from(test, server, &[]).unwrap()
    }

    /// The same with more command-line arguments.
    fn settings_from(test: &str, server: &str, args: &[&str]) -> Result<Settings, ConfigError> {
        let dir = std::env::temp_dir().join(format!("mc-settings-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = dir.join("config.yaml");
        std::fs::write(&config, format!("clusters:\n- metadata: {{clusterName: a}}\nserver: {server}\n"))
            .unwrap();
        let base = [
            "mc-server",
            "--config",
            config.to_str().unwrap(),
            "--data-dir",
            dir.to_str().unwrap(),
            "--token",
            "settings-test-token-0123456789",
        ];
        let args = Args::try_parse_from(base.iter().chain(args)).unwrap();
        let settings = Settings::load(args);
        std::fs::remove_dir_all(&dir).unwrap();
        settings
    }

    fn names_of(settings: &Settings) -> Vec<String> {
        match &settings.tls {
            Tls::Generated(authority) => authority.names().iter().map(ToString::to_string).collect(),
            other => panic!("not the server's own certificate: {other:?}"),
        }
    }

    #[test]
    fn without_a_certificate_the_server_makes_its_own_for_every_address_it_serves() {
        let settings = settings_with("own-tls", "{bind: 10.1.2.3, tlsSANs: [mc.example.com, 10.9.9.9]}");
        let Tls::Generated(authority) = &settings.tls else { panic!("{:?}", settings.tls) };
        assert_eq!(authority.dir(), settings.data_dir.join("tls"));
        let names = names_of(&settings);
        assert_eq!(names[0], "10.1.2.3", "the bind address first: {names:?}");
        for want in ["localhost", "127.0.0.1", "::1", "mc.example.com", "10.9.9.9"] {
            assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
        }
        if let Some(host) = hostname().and_then(|h| crate::tls::authority::Name::parse(&h)) {
            assert!(names.contains(&host.to_string()), "the host name {host} in {names:?}");
        }
        assert_eq!(settings.tls.scheme(), "https");
        let every = names_of(&settings_with("own-tls-any", "{}"));
        assert!(!every.iter().any(|n| n == "0.0.0.0"), "not the unspecified address: {every:?}");
        let flag = settings_from(
            "own-tls-flag",
            "{tlsSANs: [file.example.com]}",
            &["--tls-sans", "a.example.com,10.0.0.1"],
        );
        let flag = names_of(&flag.unwrap());
        assert!(
            flag.iter().any(|n| n == "a.example.com") && flag.iter().any(|n| n == "10.0.0.1"),
            "{flag:?}"
        );
        assert!(!flag.iter().any(|n| n == "file.example.com"), "the flag replaces the file's list: {flag:?}");
        let bad = settings_from("own-tls-bad", "{}", &["--tls-sans", "a b"]).unwrap_err().to_string();
        assert!(bad.contains("--tls-sans (MC_TLS_SANS) \"a b\" is neither"), "{bad}");
    }

    #[test]
    fn plain_http_only_when_asked_for_and_a_configured_certificate_is_served_as_it_is() {
        assert!(matches!(settings_with("plain", "{plainHTTP: true}").tls, Tls::Plain));
        let flag = settings_from("plain-flag", "{}", &["--plain-http"]).unwrap();
        assert!(matches!(flag.tls, Tls::Plain));
        assert_eq!(flag.tls.scheme(), "http");
        let files = settings_with("files", "{tlsCertFile: /etc/mc/tls.crt, tlsKeyFile: /etc/mc/tls.key}");
        assert!(
            matches!(&files.tls, Tls::Files { cert, key } if cert == Path::new("/etc/mc/tls.crt") && key == Path::new("/etc/mc/tls.key")),
            "{:?}",
            files.tls
        );
        let both = settings_from("plain-and-files", "{tlsCertFile: /c, tlsKeyFile: /k}", &["--plain-http"]);
        assert!(both.unwrap_err().to_string().contains("exclude each other"));
    }

    #[test]
    fn a_client_ca_is_carried_over_https_and_refused_with_plain_http_from_the_flag() {
        let with_ca = "{}\nauthentication: {clientCAFile: /etc/mc/client-ca.crt}";
        let https = settings_with("client-ca", with_ca);
        assert_eq!(https.client_ca.as_deref(), Some(Path::new("/etc/mc/client-ca.crt")));
        assert_eq!(settings_with("no-client-ca", "{}").client_ca, None);
        let plain = settings_from("client-ca-plain", with_ca, &["--plain-http"]).unwrap_err().to_string();
        assert!(plain.contains("authentication.clientCAFile needs HTTPS"), "{plain}");
        assert!(plain.contains("--plain-http"), "{plain}");
    }

    #[test]
    fn the_cli_config_carries_https_and_the_ca_and_an_http_one_for_this_server_moves_to_https() {
        let mut settings = settings_with("cli-https", "{bind: 127.0.0.1, port: 31999}");
        settings.write_cli_config = true;
        let dir = std::env::temp_dir().join(format!("mc-settings-cli-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("config");
        assert_eq!(settings.write_cli_config_at(&path), Some(path.clone()));
        let written = CliConfig::load(&path).unwrap();
        assert_eq!(written.server_url(), "https://127.0.0.1:31999");
        let ca = settings.data_dir.join("tls").join("ca.crt");
        assert_eq!(written.certificate_authority.as_deref(), Some(ca.to_str().unwrap()));
        assert_eq!(written.token.as_deref(), Some("settings-test-token-0123456789"));
        assert_eq!(settings.write_cli_config_at(&path), None, "an up-to-date config is left alone");

        // What an earlier server wrote: plain http to the same place, a token the user set.
        let earlier = "serverIP: 127.0.0.1\nserverPort: 31999\ntoken: users-own-token-0123456789\n";
        std::fs::write(&path, earlier).unwrap();
        assert_eq!(settings.write_cli_config_at(&path), Some(path.clone()));
        let moved = CliConfig::load(&path).unwrap();
        assert_eq!(moved.server_url(), "https://127.0.0.1:31999");
        assert_eq!(moved.certificate_authority, written.certificate_authority);
        assert_eq!(moved.token.as_deref(), Some("users-own-token-0123456789"));
        // One for another server is never touched.
        let other = "serverIP: 10.0.0.9\nserverPort: 31999\n";
        std::fs::write(&path, other).unwrap();
        assert_eq!(settings.write_cli_config_at(&path), None);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), other);

        let mut plain = settings_with("cli-plain", "{bind: 127.0.0.1, port: 31999, plainHTTP: true}");
        plain.write_cli_config = true;
        std::fs::remove_file(&path).unwrap();
        plain.write_cli_config_at(&path).unwrap();
        let written = CliConfig::load(&path).unwrap();
        assert_eq!(
            (written.server_url().as_str(), written.certificate_authority),
            ("http://127.0.0.1:31999", None)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn oidc_files_that_cannot_be_used_stop_the_start() {
        let oidc = |files: &str| {
            format!(
                "{{}}\nauthentication: {{oidc: {{issuerURL: 'https://id.example.com', clientID: mc, {files}}}}}"
            )
        };
        let jwks = settings_from("oidc-jwks", &oidc("jwksFile: nope.json"), &[]).unwrap_err().to_string();
        assert!(jwks.contains("authentication.oidc: jwksFile /") && jwks.contains("nope.json"), "{jwks}");
        let ca = settings_from("oidc-ca", &oidc("caFile: nope.pem"), &[]).unwrap_err().to_string();
        assert!(ca.contains("authentication.oidc: caFile /") && ca.contains("nope.pem"), "{ca}");
        assert!(!jwks.contains('\n') && !ca.contains('\n'));
    }

    #[test]
    fn joins_may_reach_link_local_addresses_only_where_the_config_says_so() {
        assert_eq!(settings_with("default", "{}").join_addresses, Addresses::NoLinkLocal);
        let allowed = settings_with("allowed", "{allowLinkLocalJoins: true}");
        assert_eq!(allowed.join_addresses, Addresses::Any);
    }
}
