//! `config set` and `config view`: the CLI config file without `generate-config.sh` (a plugin
//! installed by krew has no script of this repository).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use mc_types::config::{CliConfig, ConfigError, DEFAULT_PORT};

use crate::cli::{ConfigArgs, ConfigCommand, ConfigSetArgs};
use crate::config::{Origin, Overrides, Settings, normalize_url};

/// Shown instead of the token by `config view`.
pub const REDACTED: &str = "<redacted>";

/// Runs `config set` or `config view`. `flags` are the global flags as given (not the
/// environment): they are what `config set` writes.
pub fn run<E: Fn(&str) -> Option<String>>(
    settings: &Settings<E>,
    flags: &Overrides,
    args: ConfigArgs,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    match args.command {
        ConfigCommand::Set(set_args) => set(settings, flags, &set_args, out),
        ConfigCommand::View => view(settings, out),
    }
}

/// Writes the settings given into the config file, keeping the others.
fn set<E: Fn(&str) -> Option<String>>(
    settings: &Settings<E>,
    flags: &Overrides,
    args: &ConfigSetArgs,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let nothing = flags.server.is_none()
        && flags.token.is_none()
        && flags.certificate_authority.is_none()
        && !flags.insecure_skip_tls_verify
        && flags.kubeconfig_user.is_none()
        && args.master_kubeconfig.is_none();
    if nothing {
        bail!(
            "nothing to set: pass --server, --token, --certificate-authority, --insecure-skip-tls-verify, --kubeconfig-user[=false] or --master-kubeconfig"
        );
    }
    if flags.certificate_authority.is_some() && flags.insecure_skip_tls_verify {
        bail!("--certificate-authority and --insecure-skip-tls-verify exclude each other");
    }
    let path = settings.config_path()?;
    let mut config = match CliConfig::load(&path) {
        Ok(config) => config,
        Err(ConfigError::NotFound { .. }) if flags.server.is_some() => empty(),
        Err(ConfigError::NotFound { .. }) => {
            bail!("no config file {} yet: pass --server URL to create it", path.display())
        }
        Err(err) => return Err(err.into()),
    };
    if let Some(url) = &flags.server {
        (config.server_ip, config.server_port) = server_fields(url)?;
    }
    if let Some(token) = &flags.token {
        config.token = Some(token.clone()).filter(|t| !t.is_empty());
    }
    if let Some(ca) = &flags.certificate_authority {
        // As `kubectl config set-cluster`: a CA ends insecure mode, and insecure mode drops the CA.
        config.certificate_authority = if ca.as_os_str().is_empty() {
            None
        } else {
            std::fs::metadata(ca)
                .with_context(|| format!("--certificate-authority {}: cannot read", ca.display()))?;
            Some(absolute(ca)?.display().to_string())
        };
        config.insecure_skip_tls_verify = None;
    }
    if flags.insecure_skip_tls_verify {
        config.insecure_skip_tls_verify = Some(true);
        config.certificate_authority = None;
    }
    if let Some(on) = flags.kubeconfig_user {
        config.use_kubeconfig_user = on.then_some(true);
    }
    if let Some(kubeconfig) = &args.master_kubeconfig {
        // `~/…` stays as it is: the plugin resolves it against the home directory when reading.
        config.master_cluster_kube_config_path = if kubeconfig.starts_with("~") {
            kubeconfig.display().to_string()
        } else {
            absolute(kubeconfig)?.display().to_string()
        };
    }
    create_private(&path)?;
    config.save(&path)?;
    writeln!(out, "Config written: {}", path.display())?;
    Ok(ExitCode::SUCCESS)
}

/// A config with nothing set yet (`--server` fills in the server).
fn empty() -> CliConfig {
    CliConfig {
        server_ip: String::new(),
        server_port: DEFAULT_PORT,
        master_cluster_kube_config_path: String::new(),
        token: None,
        certificate_authority: None,
        insecure_skip_tls_verify: None,
        use_kubeconfig_user: None,
    }
}

/// Prints the config file with the token redacted.
fn view<E: Fn(&str) -> Option<String>>(settings: &Settings<E>, out: &mut dyn Write) -> Result<ExitCode> {
    let (path, mut config) = settings.config()?;
    if config.token.is_some() {
        config.token = Some(REDACTED.to_owned());
    }
    writeln!(out, "# {}", path.display())?;
    out.write_all(serde_saphyr::to_string(&config)?.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// `serverIP` and `serverPort` for a `--server` URL, such that [`CliConfig::server_url`] gives
/// the URL back: plain http keeps the Go project's bare host, https keeps its scheme; without a
/// port, the scheme's (80 or 443), as the same `--server` flag would mean.
pub fn server_fields(url: &str) -> Result<(String, u16)> {
    let full = normalize_url(url, &Origin::Flag("--server"))?;
    let (scheme, rest) = full.split_once("://").unwrap_or(("http", full.as_str()));
    if rest.contains(['/', '?', '#']) {
        bail!("--server {url:?}: the config file holds only a scheme, host and port (no path)");
    }
    let (host, port) = match rest.strip_prefix('[').and_then(|r| r.split_once(']')) {
        // [IPv6] or [IPv6]:port
        Some((ip, after)) => (format!("[{ip}]"), after.strip_prefix(':')),
        None => match rest.rsplit_once(':') {
            Some((host, port)) => (host.to_owned(), Some(port)),
            None => (rest.to_owned(), None),
        },
    };
    let port = match port {
        Some(port) => match port.parse::<u16>() {
            Ok(n) if n > 0 => n,
            _ => bail!("--server {url:?}: port {port:?} is not a number from 1 to 65535"),
        },
        None if scheme == "https" => 443,
        None => 80,
    };
    let server_ip = if scheme == "https" {
        format!("https://{host}")
    } else {
        // The Go project's format: a bare host (an IPv6 address without brackets) means http.
        host.trim_start_matches('[').trim_end_matches(']').to_owned()
    };
    Ok((server_ip, port))
}

/// A path relative to the current directory made absolute (the config file resolves relative
/// paths against its own directory instead).
fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("{}: cannot make the path absolute", path.display()))
}

/// Creates the file empty and private (0600) before anything is written, so the token is never
/// readable by others, not even between writing and `chmod`.
fn create_private(path: &Path) -> Result<()> {
    if path.exists() {
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("config {}: cannot create its directory", path.display()))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path).with_context(|| format!("config {}: cannot write", path.display()))?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_server_url_round_trips_through_server_ip_and_port() {
        for (given, ip, port, url) in [
            ("https://mc.example.com:8443", "https://mc.example.com", 8443, "https://mc.example.com:8443"),
            ("https://mc.example.com", "https://mc.example.com", 443, "https://mc.example.com:443"),
            ("http://10.0.0.9:31888", "10.0.0.9", 31888, "http://10.0.0.9:31888"),
            ("10.0.0.9:31888/", "10.0.0.9", 31888, "http://10.0.0.9:31888"),
            ("localhost", "localhost", 80, "http://localhost:80"),
            ("http://[::1]:8080", "::1", 8080, "http://[::1]:8080"),
            ("https://[fd00::2]:8443", "https://[fd00::2]", 8443, "https://[fd00::2]:8443"),
        ] {
            let (server_ip, server_port) = server_fields(given).unwrap();
            assert_eq!((server_ip.as_str(), server_port), (ip, port), "{given}");
            let config = CliConfig { server_ip, server_port, ..empty() };
            assert_eq!(config.server_url(), url, "{given}");
        }
    }

    #[test]
    fn server_urls_the_file_cannot_hold_are_refused() {
        assert!(server_fields("https://mc/prefix").unwrap_err().to_string().contains("no path"));
        assert!(server_fields("mc:99999").unwrap_err().to_string().contains("port \"99999\""));
        assert!(server_fields("ftp://mc").unwrap_err().to_string().contains("scheme must be http or https"));
    }
}
