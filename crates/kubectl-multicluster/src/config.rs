//! Where the plugin finds mc-server and the master cluster: flags, then environment, then
//! `~/.multi-cluster-operator/config`. Every value remembers where it came from, so an
//! error can say which setting to fix.

use std::fmt;
use std::path::{Path, PathBuf};

use mc_types::config::{CliConfig, ConfigError};

/// Environment variable naming another config file.
pub const CONFIG_ENV: &str = "KUBECTL_MULTICLUSTER_CONFIG";
/// Environment variable overriding the server URL.
pub const SERVER_ENV: &str = "MC_SERVER";
/// Environment variable overriding the token.
pub const TOKEN_ENV: &str = "MC_TOKEN";
/// Environment variable naming the CA bundle of mc-server's certificate.
pub const CA_ENV: &str = "MC_CERTIFICATE_AUTHORITY";
/// Environment variable turning certificate verification off (`true`).
pub const INSECURE_ENV: &str = "MC_INSECURE_SKIP_TLS_VERIFY";
/// Environment variable: send the current kubeconfig context's user's token (`1` or `true`;
/// `0` or `false` turns the config file's `useKubeconfigUser` off).
pub const KUBECONFIG_USER_ENV: &str = "MC_KUBECONFIG_USER";

/// How to create a config, for error messages.
pub const HOW_TO_CREATE: &str = "kubectl multicluster config set --server URL --token TOKEN";

/// How to overwrite a broken config, for error messages.
pub const HOW_TO_REPLACE: &str = "generate-config.sh --ip IP --port PORT --config KUBECONFIG --force";

/// Why the settings could not be worked out. None is retryable: a file or flag has to change.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// There is no config file and no flag or variable says where the server is.
    #[error(
        "no config file {}: create it with `{HOW_TO_CREATE}` (or generate-config.sh --ip IP --port PORT --config KUBECONFIG), or pass --server URL (or set {SERVER_ENV})",
        .0.display()
    )]
    Missing(PathBuf),
    /// The config file exists but cannot be used.
    #[error("{0}; fix it, or write a new one with `{HOW_TO_REPLACE}`")]
    Broken(ConfigError),
    /// No home directory to look for the default config in.
    #[error(
        "no home directory to find ~/.multi-cluster-operator/config in; set {CONFIG_ENV} or pass --server"
    )]
    NoHome,
    /// `apply`/`delete` need a kubeconfig and none is configured.
    #[error(
        "no kubeconfig for the master cluster: pass --kubeconfig FILE, or set masterClusterKubeConfigPath in {}",
        .0.display()
    )]
    NoKubeconfig(PathBuf),
    /// The server URL is not usable.
    #[error("invalid server URL {url:?} (from {origin}): {reason}")]
    BadUrl {
        /// The URL as given.
        url: String,
        /// Where it came from.
        origin: Origin,
        /// What is wrong.
        reason: String,
    },
}

/// Result of settings resolution.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Where a setting came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A command-line flag, e.g. `--server`.
    Flag(&'static str),
    /// An environment variable.
    Env(&'static str),
    /// The config file (and the keys in it).
    File {
        /// The config file.
        path: PathBuf,
        /// The keys, e.g. `serverIP/serverPort`.
        keys: &'static str,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Flag(flag) => write!(f, "{flag}"),
            Self::Env(var) => write!(f, "${var}"),
            Self::File { path, keys } => write!(f, "{keys} in {}", path.display()),
        }
    }
}

/// What the command line says, before the environment and the file are consulted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `--server`.
    pub server: Option<String>,
    /// `--token`.
    pub token: Option<String>,
    /// `--certificate-authority`.
    pub certificate_authority: Option<PathBuf>,
    /// `--insecure-skip-tls-verify`.
    pub insecure_skip_tls_verify: bool,
    /// `--kubeconfig-user` (`Some(false)`: `--kubeconfig-user=false`).
    pub kubeconfig_user: Option<bool>,
}

/// How to reach mc-server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerTarget {
    /// Base URL without a trailing slash, e.g. `http://127.0.0.1:31888`.
    pub url: String,
    /// Where the URL came from.
    pub origin: Origin,
    /// Bearer token, if any.
    pub token: Option<String>,
    /// Send the current kubeconfig context's user's token instead of `token`, as asked there
    /// (see [`crate::kubeconfig_user`]).
    pub kubeconfig_user: Option<Origin>,
    /// How to verify an `https://` server.
    pub tls: TlsSettings,
}

/// How the plugin verifies mc-server's certificate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsSettings {
    /// A PEM CA bundle to trust (besides none other: the server's own CA), with where it came from.
    pub certificate_authority: Option<(PathBuf, Origin)>,
    /// Skip verification altogether.
    pub insecure_skip_verify: bool,
    /// The client certificate to present (the kubeconfig user's, with `--kubeconfig-user`).
    pub client_identity: Option<crate::client_identity::ClientIdentity>,
}

/// Resolves settings from flags, environment and the config file, reading the file only when
/// it is needed (so `--server` works without one).
pub struct Settings<E = fn(&str) -> Option<String>> {
    overrides: Overrides,
    env: E,
    home: Option<PathBuf>,
}

impl Settings {
    /// Settings from the process environment and home directory.
    pub fn from_process(overrides: Overrides) -> Self {
        Settings {
            overrides,
            env: |key| std::env::var(key).ok().filter(|v| !v.is_empty()),
            home: dirs::home_dir(),
        }
    }
}

impl<E: Fn(&str) -> Option<String>> Settings<E> {
    /// Settings with an explicit environment and home directory (for tests).
    pub fn new(overrides: Overrides, env: E, home: Option<PathBuf>) -> Self {
        Settings { overrides, env, home }
    }

    /// The config file: `$KUBECTL_MULTICLUSTER_CONFIG`, else `~/.multi-cluster-operator/config`.
    pub fn config_path(&self) -> Result<PathBuf> {
        if let Some(path) = (self.env)(CONFIG_ENV) {
            return Ok(PathBuf::from(path));
        }
        self.home.as_ref().map(|h| h.join(".multi-cluster-operator").join("config")).ok_or(Error::NoHome)
    }

    /// Reads the config file.
    pub fn config(&self) -> Result<(PathBuf, CliConfig)> {
        let path = self.config_path()?;
        match CliConfig::load(&path) {
            Ok(config) => Ok((path, config)),
            Err(ConfigError::NotFound { file }) => Err(Error::Missing(file)),
            Err(err) => Err(Error::Broken(err)),
        }
    }

    /// Where mc-server is and which token to send.
    pub fn server(&self) -> Result<ServerTarget> {
        let flag_or_env = |flag: &Option<String>, flag_name: &'static str, var: &'static str| {
            flag.clone()
                .filter(|v| !v.is_empty())
                .map(|v| (v, Origin::Flag(flag_name)))
                .or_else(|| (self.env)(var).map(|v| (v, Origin::Env(var))))
        };
        let token = flag_or_env(&self.overrides.token, "--token", TOKEN_ENV).map(|(t, _)| t);
        let ca_flag = self.overrides.certificate_authority.as_ref().map(|p| p.display().to_string());
        let ca = flag_or_env(&ca_flag, "--certificate-authority", CA_ENV).map(|(p, o)| (PathBuf::from(p), o));
        let insecure = self.overrides.insecure_skip_tls_verify
            || (self.env)(INSECURE_ENV).is_some_and(|v| v == "true" || v == "1");
        if let Some((url, origin)) = flag_or_env(&self.overrides.server, "--server", SERVER_ENV) {
            // The file may still hold the token, the CA or insecureSkipTlsVerify; a broken or
            // missing file does not matter.
            let file = self.config().ok();
            let token = token.or_else(|| file.as_ref().and_then(|(_, c)| c.token.clone()));
            let file_insecure = file.as_ref().is_some_and(|(_, c)| c.insecure_skip_tls_verify == Some(true));
            let tls = TlsSettings {
                certificate_authority: ca.or_else(|| file.as_ref().and_then(|(p, c)| file_ca(p, c))),
                insecure_skip_verify: insecure || file_insecure,
                client_identity: None,
            };
            let kubeconfig_user = self.kubeconfig_user(file.as_ref());
            return Ok(ServerTarget {
                url: normalize_url(&url, &origin)?,
                origin,
                token,
                kubeconfig_user,
                tls,
            });
        }
        let (path, config) = self.config()?;
        let tls = TlsSettings {
            certificate_authority: ca.or_else(|| file_ca(&path, &config)),
            insecure_skip_verify: insecure || config.insecure_skip_tls_verify == Some(true),
            client_identity: None,
        };
        let kubeconfig_user = self.kubeconfig_user(Some(&(path.clone(), config.clone())));
        let origin = Origin::File { path, keys: "serverIP/serverPort" };
        let url = normalize_url(&config.server_url(), &origin)?;
        let token = token.or(config.token.filter(|t| !t.is_empty()));
        Ok(ServerTarget { url, origin, token, kubeconfig_user, tls })
    }

    /// Whether to act as the current kubeconfig context's user, and where that was asked:
    /// `--kubeconfig-user[=BOOL]`, else `MC_KUBECONFIG_USER`, else `useKubeconfigUser` in the file.
    fn kubeconfig_user(&self, file: Option<&(PathBuf, CliConfig)>) -> Option<Origin> {
        let (on, origin) = match (self.overrides.kubeconfig_user, (self.env)(KUBECONFIG_USER_ENV)) {
            (Some(on), _) => (on, Origin::Flag("--kubeconfig-user")),
            (None, Some(value)) => (value == "1" || value == "true", Origin::Env(KUBECONFIG_USER_ENV)),
            (None, None) => {
                let (path, config) = file?;
                let on = config.use_kubeconfig_user == Some(true);
                (on, Origin::File { path: path.clone(), keys: "useKubeconfigUser" })
            }
        };
        on.then_some(origin)
    }

    /// The master cluster's kubeconfig: `--kubeconfig`, else `masterClusterKubeConfigPath`.
    pub fn master_kubeconfig(&self, flag: Option<&Path>) -> Result<(PathBuf, Origin)> {
        if let Some(path) = flag {
            return Ok((path.to_owned(), Origin::Flag("--kubeconfig")));
        }
        let (path, config) = self.config()?;
        let configured = config.master_cluster_kube_config_path.trim();
        if configured.is_empty() {
            return Err(Error::NoKubeconfig(path));
        }
        let kubeconfig = match configured.strip_prefix("~/") {
            Some(rest) => self.home.as_ref().map_or_else(|| PathBuf::from(configured), |h| h.join(rest)),
            None => PathBuf::from(configured),
        };
        Ok((kubeconfig, Origin::File { path, keys: "masterClusterKubeConfigPath" }))
    }
}

/// The config file's `certificateAuthority`, relative to the file's directory.
fn file_ca(path: &Path, config: &CliConfig) -> Option<(PathBuf, Origin)> {
    let ca = config.certificate_authority.as_deref().map(str::trim).filter(|c| !c.is_empty())?;
    let ca = Path::new(ca);
    let full = if ca.is_relative() { path.parent().unwrap_or(Path::new("")).join(ca) } else { ca.to_owned() };
    Some((full, Origin::File { path: path.to_owned(), keys: "certificateAuthority" }))
}

/// `host:port` → `http://host:port`; a trailing slash is dropped.
pub fn normalize_url(url: &str, origin: &Origin) -> Result<String> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
    let rest = rest.trim_end_matches('/');
    let full = format!("{scheme}://{rest}");
    let bad =
        |reason: &str| Error::BadUrl { url: url.to_owned(), origin: origin.clone(), reason: reason.into() };
    if scheme != "http" && scheme != "https" {
        return Err(bad("the scheme must be http or https"));
    }
    if rest.is_empty() || rest.starts_with(':') || rest.starts_with('/') {
        return Err(bad("no host"));
    }
    Ok(full)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Fixture {
        dir: PathBuf,
    }

    impl Fixture {
        fn new(tag: &str, config: Option<&str>) -> Self {
            let dir = std::env::temp_dir().join(format!("kmc-config-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(dir.join(".multi-cluster-operator")).unwrap();
            if let Some(text) = config {
                std::fs::write(dir.join(".multi-cluster-operator/config"), text).unwrap();
            }
            Fixture { dir }
        }

        fn settings(
            &self,
            overrides: Overrides,
            env: &[(&str, &str)],
        ) -> Settings<impl Fn(&str) -> Option<String> + use<>> {
            let env: HashMap<String, String> =
                env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            Settings::new(overrides, move |k: &str| env.get(k).cloned(), Some(self.dir.clone()))
        }

        fn config_file(&self) -> PathBuf {
            self.dir.join(".multi-cluster-operator/config")
        }
    }

    impl Drop for Fixture {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    /// A config file as the Go project's script writes it.
    const GO_PROJECT_CONFIG: &str =
        "serverIP: localhost\nserverPort: 31888\nmasterClusterKubeConfigPath: /root/.kube/config\n";

    #[test]
    fn the_certificate_authority_comes_from_flag_env_or_file() {
        let f = Fixture::new(
            "tls",
            Some("serverIP: https://mc.local\nserverPort: 443\ncertificateAuthority: ca.crt\n"),
        );
        let target = f.settings(Overrides::default(), &[]).server().unwrap();
        assert_eq!(target.url, "https://mc.local:443");
        let (ca, origin) = target.tls.certificate_authority.unwrap();
        assert_eq!(ca, f.dir.join(".multi-cluster-operator/ca.crt"), "relative to the config file");
        assert!(origin.to_string().starts_with("certificateAuthority in "));
        assert!(!target.tls.insecure_skip_verify);
        let env = f
            .settings(Overrides::default(), &[(CA_ENV, "/env/ca.pem"), (INSECURE_ENV, "true")])
            .server()
            .unwrap();
        assert_eq!(env.tls.certificate_authority.unwrap().0, PathBuf::from("/env/ca.pem"));
        assert!(env.tls.insecure_skip_verify);
        let flag = Overrides { certificate_authority: Some("/flag/ca.pem".into()), ..Default::default() };
        let flag = f.settings(flag, &[(CA_ENV, "/env/ca.pem")]).server().unwrap();
        assert_eq!(
            flag.tls.certificate_authority.unwrap(),
            (PathBuf::from("/flag/ca.pem"), Origin::Flag("--certificate-authority"))
        );
        let insecure =
            Fixture::new("tls-insecure", Some("serverIP: https://mc.local\ninsecureSkipTlsVerify: true\n"));
        assert!(insecure.settings(Overrides::default(), &[]).server().unwrap().tls.insecure_skip_verify);
        let with_server = Overrides { server: Some("https://127.0.0.1:31888".into()), ..Default::default() };
        assert!(
            insecure.settings(with_server, &[]).server().unwrap().tls.insecure_skip_verify,
            "the file's insecureSkipTlsVerify holds with --server too, as its token and CA do"
        );
    }

    #[test]
    fn the_go_projects_config_names_the_server_and_the_master() {
        let f = Fixture::new("go-project", Some(GO_PROJECT_CONFIG));
        let s = f.settings(Overrides::default(), &[]);
        let target = s.server().unwrap();
        assert_eq!(target.url, "http://localhost:31888");
        assert_eq!(target.token, None);
        assert_eq!(
            target.origin.to_string(),
            format!("serverIP/serverPort in {}", f.config_file().display())
        );
        let (kubeconfig, _) = s.master_kubeconfig(None).unwrap();
        assert_eq!(kubeconfig, PathBuf::from("/root/.kube/config"));
    }

    #[test]
    fn flags_beat_the_environment_which_beats_the_file() {
        let f = Fixture::new("precedence", Some("serverIP: file\nserverPort: 1\ntoken: file-token\n"));
        let env = [(SERVER_ENV, "env:2"), (TOKEN_ENV, "env-token")];
        let s = f.settings(
            Overrides {
                server: Some("flag:3".into()),
                token: Some("flag-token".into()),
                ..Default::default()
            },
            &env,
        );
        let t = s.server().unwrap();
        assert_eq!(
            (t.url.as_str(), t.origin, t.token.as_deref()),
            ("http://flag:3", Origin::Flag("--server"), Some("flag-token"))
        );
        let s = f.settings(Overrides::default(), &env);
        let t = s.server().unwrap();
        assert_eq!(
            (t.url.as_str(), t.origin, t.token.as_deref()),
            ("http://env:2", Origin::Env(SERVER_ENV), Some("env-token"))
        );
        let t = f
            .settings(Overrides { server: Some("https://x".into()), ..Default::default() }, &[])
            .server()
            .unwrap();
        assert_eq!(t.token.as_deref(), Some("file-token"), "the file's token is used with a --server flag");
        assert_eq!(t.url, "https://x");
    }

    #[test]
    fn acting_as_the_kubeconfig_user_comes_from_flag_env_or_file() {
        let f =
            Fixture::new("kubeconfig-user", Some("serverIP: h\nserverPort: 1\nuseKubeconfigUser: true\n"));
        let asked = |overrides: Overrides, env: &[(&str, &str)]| {
            f.settings(overrides, env).server().unwrap().kubeconfig_user.map(|o| o.to_string())
        };
        let file = format!("useKubeconfigUser in {}", f.config_file().display());
        assert_eq!(asked(Overrides::default(), &[]), Some(file));
        let off = Overrides { kubeconfig_user: Some(false), ..Default::default() };
        assert_eq!(asked(off, &[(KUBECONFIG_USER_ENV, "1")]), None, "the flag beats the environment");
        assert_eq!(asked(Overrides::default(), &[(KUBECONFIG_USER_ENV, "0")]), None, "which beats the file");
        let on = Overrides { kubeconfig_user: Some(true), server: Some("h:2".into()), ..Default::default() };
        assert_eq!(asked(on, &[]), Some("--kubeconfig-user".into()));
        let plain = Fixture::new("kubeconfig-user-off", Some("serverIP: h\nserverPort: 1\n"));
        let target = plain.settings(Overrides::default(), &[]).server().unwrap();
        assert_eq!(target.kubeconfig_user, None, "off unless asked");
        let env = plain.settings(Overrides::default(), &[(KUBECONFIG_USER_ENV, "true")]).server().unwrap();
        assert_eq!(env.kubeconfig_user, Some(Origin::Env(KUBECONFIG_USER_ENV)));
    }

    #[test]
    fn a_missing_config_says_how_to_create_one() {
        let f = Fixture::new("missing", None);
        let message = f.settings(Overrides::default(), &[]).server().unwrap_err().to_string();
        assert_eq!(
            message,
            format!(
                "no config file {}: create it with `kubectl multicluster config set --server URL --token TOKEN` (or generate-config.sh --ip IP --port PORT --config KUBECONFIG), or pass --server URL (or set MC_SERVER)",
                f.config_file().display()
            )
        );
        assert!(
            f.settings(Overrides { server: Some("h:1".into()), ..Default::default() }, &[]).server().is_ok()
        );
    }

    #[test]
    fn a_broken_config_is_one_line_naming_the_file() {
        let f = Fixture::new("broken", Some("serverIP: x\nserverPort: abc\n"));
        let message = f.settings(Overrides::default(), &[]).server().unwrap_err().to_string();
        assert!(message.starts_with(&format!("config {}:", f.config_file().display())), "{message}");
        assert!(message.ends_with("--force`"), "{message}");
        assert!(!message.contains('\n'));
    }

    #[test]
    fn the_config_path_can_come_from_the_environment() {
        let f = Fixture::new("envpath", None);
        let other = f.dir.join("other");
        std::fs::write(&other, "serverIP: 10.0.0.9\nserverPort: \"8080\"\n").unwrap();
        let s = f.settings(Overrides::default(), &[(CONFIG_ENV, other.to_str().unwrap())]);
        assert_eq!(s.server().unwrap().url, "http://10.0.0.9:8080");
        assert!(matches!(s.master_kubeconfig(None), Err(Error::NoKubeconfig(_))));
        let (path, origin) = s.master_kubeconfig(Some(Path::new("/k"))).unwrap();
        assert_eq!((path, origin), (PathBuf::from("/k"), Origin::Flag("--kubeconfig")));
    }

    #[test]
    fn server_urls_are_checked() {
        let f = Fixture::new("urls", None);
        let url =
            |u: &str| f.settings(Overrides { server: Some(u.into()), ..Default::default() }, &[]).server();
        assert_eq!(url("127.0.0.1:31888/").unwrap().url, "http://127.0.0.1:31888");
        assert!(url("ftp://x").unwrap_err().to_string().contains("scheme must be http or https"));
        assert!(url("http://").unwrap_err().to_string().contains("(from --server): no host"));
    }
}
