//! The HTTPS certificate: read from PEM files at start, and read again when the files change (a
//! renewed certificate is served without a restart; a broken renewal keeps the previous one).
//! Without configured files the server makes its own CA and certificate ([`authority`]) and
//! renews the certificate while it runs ([`renew_while_running`]).
//!
//! With a client CA (`authentication.clientCAFile`) the server asks for a client certificate but
//! does not require one, so bearer tokens keep working; a certificate that is offered must chain
//! to that CA, be valid now and allow client authentication, or the handshake fails, as with
//! kube-apiserver. The CA file is reloaded with the certificate.

pub mod authority;

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::server::danger::ClientCertVerifier;
use rustls::{RootCertStore, ServerConfig};
use tracing::{info, warn};

/// How often the files are checked for changes.
const RELOAD_CHECK: Duration = Duration::from_secs(5);
/// How often a running server checks whether its own certificate is due for renewal; far
/// shorter than [`authority::RENEW_BEFORE`], so a server that runs for a year renews in time.
const RENEW_CHECK: Duration = Duration::from_secs(3_600);

/// Why the certificate or key could not be used (not retryable until the files are fixed).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The certificate file is missing, unreadable or holds no certificate.
    #[error("TLS certificate {}: {reason}", .path.display())]
    Certificate {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The key file is missing, unreadable or holds no private key.
    #[error("TLS key {}: {reason}", .path.display())]
    Key {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The client CA file is missing, unreadable, holds no certificate or one rustls refused.
    #[error("client CA {}: {reason}", .path.display())]
    ClientCa {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The key does not fit the certificate, or rustls refused them.
    #[error("TLS certificate {} and key {}: {reason}", .cert.display(), .key.display())]
    Pair {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
        /// What rustls said.
        reason: String,
    },
}

/// Result of this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The current server TLS configuration, replaced when the files change.
pub struct Certificates {
    cert: PathBuf,
    key: PathBuf,
    client_ca: Option<PathBuf>,
    current: RwLock<Arc<ServerConfig>>,
}

impl Certificates {
    /// Loads the pair, and the CAs of client certificates if any; errors name the file and the
    /// problem.
    pub fn load(cert: &Path, key: &Path, client_ca: Option<&Path>) -> Result<Self> {
        let config = server_config(cert, key, client_ca)?;
        Ok(Certificates {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
            client_ca: client_ca.map(Path::to_path_buf),
            current: RwLock::new(config),
        })
    }

    /// The configuration for the next handshake.
    pub fn current(&self) -> Arc<ServerConfig> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Reads the files again now and serves them from the next handshake on; on an error the
    /// previous configuration stays.
    pub fn reload(&self) -> Result<()> {
        let config = server_config(&self.cert, &self.key, self.client_ca.as_deref())?;
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = config;
        Ok(())
    }

    /// Watches the files for the life of the server and swaps in a new configuration when they
    /// change and load cleanly.
    pub async fn reload_on_change(self: Arc<Self>) {
        let stamps = || (stamp(&self.cert), stamp(&self.key), self.client_ca.as_deref().map(stamp));
        let mut seen = stamps();
        loop {
            tokio::time::sleep(RELOAD_CHECK).await;
            let now = stamps();
            if now == seen {
                continue;
            }
            seen = now;
            match self.reload() {
                Ok(()) => info!(cert = %self.cert.display(), "TLS certificate reloaded"),
                Err(e) => {
                    warn!(error = %e, "TLS certificate changed but cannot be used; serving the previous one")
                }
            }
        }
    }
}

/// Issues the server's own certificate again when it is due (see [`authority::Authority::ensure`])
/// for the life of the server, and serves the new one at once.
pub async fn renew_while_running(authority: authority::Authority, certs: Arc<Certificates>) {
    loop {
        tokio::time::sleep(RENEW_CHECK).await;
        renew_once(&authority, &certs, SystemTime::now());
    }
}

/// One check of [`renew_while_running`], as of `now`.
fn renew_once(authority: &authority::Authority, certs: &Certificates, now: SystemTime) {
    match authority.ensure(now) {
        Ok(authority::Outcome { issued: Some(reason), .. }) => match certs.reload() {
            Ok(()) => info!(cert = %authority.cert_file().display(), %reason, "TLS certificate renewed"),
            Err(e) => {
                warn!(error = %e, "TLS certificate renewed but cannot be used; serving the previous one")
            }
        },
        Ok(_) => {}
        Err(e) => warn!(error = %e, "renewing the TLS certificate failed; retrying later"),
    }
}

/// What identifies a file version: modification time and length.
fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

fn server_config(cert: &Path, key: &Path, client_ca: Option<&Path>) -> Result<Arc<ServerConfig>> {
    let cert_error = |reason: String| Error::Certificate { path: cert.to_path_buf(), reason };
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| cert_error(e.to_string()))?
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| cert_error(e.to_string()))?;
    if chain.is_empty() {
        return Err(cert_error("no PEM certificate in the file".into()));
    }
    let private = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| Error::Key { path: key.to_path_buf(), reason: e.to_string() })?;
    let pair_error =
        |reason: String| Error::Pair { cert: cert.to_path_buf(), key: key.to_path_buf(), reason };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = match client_ca {
        Some(path) => client_verifier(path, provider.clone())?,
        None => WebPkiClientVerifier::no_client_auth(),
    };
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| pair_error(e.to_string()))?
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, private)
        .map_err(|e| pair_error(e.to_string()))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Checks client certificates against the CAs in `path`. A client without a certificate is let
/// through: it may still bring a bearer token.
fn client_verifier(path: &Path, provider: Arc<CryptoProvider>) -> Result<Arc<dyn ClientCertVerifier>> {
    let error = |reason: String| Error::ClientCa { path: path.to_path_buf(), reason };
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(path).map_err(|e| error(e.to_string()))? {
        roots.add(cert.map_err(|e| error(e.to_string()))?).map_err(|e| error(e.to_string()))?;
    }
    if roots.is_empty() {
        return Err(error("no PEM certificate in the file".into()));
    }
    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
        .allow_unauthenticated()
        .build()
        .map_err(|e| error(e.to_string()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn missing_or_empty_files_are_named() {
        let dir = std::env::temp_dir().join(format!("mc-tls-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cert = dir.join("tls.crt");
        let key = dir.join("tls.key");
        let missing = Certificates::load(&cert, &key, None).err().unwrap().to_string();
        assert!(missing.contains("tls.crt"), "{missing}");
        std::fs::write(&cert, "not pem\n").unwrap();
        let empty = Certificates::load(&cert, &key, None).err().unwrap().to_string();
        assert!(empty.contains("no PEM certificate"), "{empty}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_unusable_client_ca_is_named_and_a_good_one_is_loaded() {
        let dir = std::env::temp_dir().join(format!("mc-tls-client-ca-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let own =
            authority::Authority::new(dir.join("tls"), vec![authority::Name::parse("localhost").unwrap()]);
        own.ensure(SystemTime::now()).unwrap();
        let (cert, key, ca) = (own.cert_file(), own.key_file(), dir.join("client-ca.crt"));
        let missing = Certificates::load(&cert, &key, Some(&ca)).err().unwrap().to_string();
        assert!(missing.starts_with("client CA ") && missing.contains("client-ca.crt"), "{missing}");
        std::fs::write(&ca, "not pem\n").unwrap();
        let empty = Certificates::load(&cert, &key, Some(&ca)).err().unwrap().to_string();
        assert!(empty.contains("client-ca.crt: no PEM certificate"), "{empty}");
        std::fs::copy(own.ca_file(), &ca).unwrap();
        assert!(Certificates::load(&cert, &key, Some(&ca)).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_running_server_renews_its_own_certificate_in_time_and_serves_the_new_one() {
        const DAY: Duration = Duration::from_secs(86_400);
        assert!(RENEW_CHECK * 24 < authority::RENEW_BEFORE, "many checks inside the window");
        let dir = std::env::temp_dir().join(format!("mc-tls-renew-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let names = vec![authority::Name::parse("localhost").unwrap()];
        let own = authority::Authority::new(dir.join("tls"), names);
        let now = SystemTime::now();
        own.ensure(now).unwrap();
        let certs = Certificates::load(&own.cert_file(), &own.key_file(), None).unwrap();
        let (first, before) = (certs.current(), std::fs::read(own.cert_file()).unwrap());
        renew_once(&own, &certs, now + 300 * DAY);
        assert!(Arc::ptr_eq(&first, &certs.current()), "65 days left: kept");
        // 25 days left: inside the renewal window.
        renew_once(&own, &certs, now + 340 * DAY);
        assert!(!Arc::ptr_eq(&first, &certs.current()), "the renewed certificate is served");
        assert_ne!(std::fs::read(own.cert_file()).unwrap(), before);
        let ca = std::fs::read_to_string(own.ca_file()).unwrap();
        assert_eq!(own.check(&ca, now + 340 * DAY), None, "a full year again");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
