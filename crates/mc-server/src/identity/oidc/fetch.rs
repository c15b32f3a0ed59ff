//! The issuer's keys over HTTPS: its discovery document, then the `jwks_uri` it names. Answers
//! are bounded in size and time, and nothing the issuer says is passed on to a caller.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hyper::Request;
use hyper_rustls::ConfigBuilderExt;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use serde::Deserialize;

use super::keys::{self, KeySet};

/// The most one answer (discovery or JWKS) may hold: real ones are a few KiB.
pub const MAX_ANSWER: usize = 1024 * 1024;
/// How long one request (connecting included) may take.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// Why the keys could not be fetched (retryable: the issuer may answer later).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The issuer could not be reached, or the connection failed.
    #[error("{url}: unreachable: {reason}")]
    Unreachable {
        /// What was asked.
        url: String,
        /// The transport's error.
        reason: String,
    },
    /// No answer within [`TIMEOUT`].
    #[error("{0}: no answer within {secs}s", secs = TIMEOUT.as_secs())]
    Timeout(String),
    /// An answer other than 200.
    #[error("{url}: status {status}")]
    Status {
        /// What was asked.
        url: String,
        /// The status.
        status: u16,
    },
    /// An answer over [`MAX_ANSWER`], or one that broke off.
    #[error("{0}: the answer is over {MAX_ANSWER} bytes or broke off")]
    Body(String),
    /// The discovery document is not JSON with `issuer` and `jwks_uri`.
    #[error("{0}: not an OpenID discovery document")]
    NotDiscovery(String),
    /// The discovery document names another issuer, or a `jwks_uri` that is not https.
    #[error("the discovery document names issuer {issuer:?} and jwks_uri {jwks_uri:?}")]
    Mismatch {
        /// Its `issuer`.
        issuer: String,
        /// Its `jwks_uri`.
        jwks_uri: String,
    },
    /// The JWKS is unusable.
    #[error("{url}: {source}")]
    Keys {
        /// What was asked.
        url: String,
        /// Why.
        #[source]
        source: keys::Error,
    },
}

/// Why the fetcher cannot be made (not retryable: the config must change).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The CA file is unreadable or holds no PEM certificate.
    #[error("caFile {}: {reason}", .path.display())]
    Ca {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// TLS could not be set up (no system roots, …).
    #[error("TLS to the issuer (set caFile to trust a CA of your own): {0}")]
    Tls(String),
}

/// Fetches one issuer's keys.
#[derive(Clone)]
pub struct Fetcher {
    issuer: String,
    client: Client<hyper_rustls::HttpsConnector<HttpConnector>, String>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher").field("issuer", &self.issuer).finish()
    }
}

#[derive(Deserialize)]
struct Discovery {
    issuer: String,
    jwks_uri: String,
}

impl Fetcher {
    /// A fetcher for `issuer` that trusts the certificates of `ca_file`, else the system's.
    pub fn new(issuer: &str, ca_file: Option<&Path>) -> Result<Fetcher, SetupError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| SetupError::Tls(e.to_string()))?;
        let tls = match ca_file {
            Some(path) => builder.with_root_certificates(roots(path)?).with_no_client_auth(),
            None => {
                builder.with_native_roots().map_err(|e| SetupError::Tls(e.to_string()))?.with_no_client_auth()
            }
        };
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_connect_timeout(Some(TIMEOUT));
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_only()
            .enable_http1()
            .wrap_connector(http);
        Ok(Fetcher { issuer: issuer.to_string(), client: Client::builder(TokioExecutor::new()).build(https) })
    }

    /// The issuer's keys, from the `jwks_uri` its discovery document names.
    pub async fn keys(&self) -> Result<KeySet, Error> {
        let discovery_url = format!("{}/.well-known/openid-configuration", self.issuer.trim_end_matches('/'));
        let body = self.get(&discovery_url).await?;
        let discovery: Discovery =
            serde_json::from_slice(&body).map_err(|_| Error::NotDiscovery(discovery_url.clone()))?;
        // As kube-apiserver: the document must be the issuer's own, and keys come over https.
        if discovery.issuer != self.issuer || !discovery.jwks_uri.starts_with("https://") {
            return Err(Error::Mismatch { issuer: discovery.issuer, jwks_uri: discovery.jwks_uri });
        }
        let body = self.get(&discovery.jwks_uri).await?;
        KeySet::parse(&body).map_err(|source| Error::Keys { url: discovery.jwks_uri, source })
    }

    async fn get(&self, url: &str) -> Result<axum::body::Bytes, Error> {
        let request = Request::get(url)
            .header(hyper::header::ACCEPT, "application/json")
            .body(String::new())
            .map_err(|e| Error::Unreachable { url: url.to_string(), reason: e.to_string() })?;
        let answer = async {
            let response = self.client.request(request).await.map_err(|e| Error::Unreachable {
                url: url.to_string(),
                reason: crate::clusters::connect::one_line(&e),
            })?;
            if response.status() != hyper::StatusCode::OK {
                return Err(Error::Status { url: url.to_string(), status: response.status().as_u16() });
            }
            let body = axum::body::Body::new(response.into_body());
            axum::body::to_bytes(body, MAX_ANSWER).await.map_err(|_| Error::Body(url.to_string()))
        };
        tokio::time::timeout(TIMEOUT, answer).await.map_err(|_| Error::Timeout(url.to_string()))?
    }
}

/// The certificates of a PEM file.
fn roots(path: &Path) -> Result<rustls::RootCertStore, SetupError> {
    let ca_error = |reason: String| SetupError::Ca { path: path.to_path_buf(), reason };
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(path).map_err(|e| ca_error(e.to_string()))? {
        roots.add(cert.map_err(|e| ca_error(e.to_string()))?).map_err(|e| ca_error(e.to_string()))?;
    }
    if roots.is_empty() {
        return Err(ca_error("no PEM certificate in the file".into()));
    }
    Ok(roots)
}
