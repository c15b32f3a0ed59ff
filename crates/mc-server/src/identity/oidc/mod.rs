//! OIDC ID tokens checked by mc-server itself, as kube-apiserver's `--oidc-*` flags check them:
//! the signature with the issuer's keys, then `iss`, `aud`, `exp`, `nbf` and the configured
//! claims. The user is the username claim with its prefix, and the groups claim with its prefix
//! plus `system:authenticated`; what it may read is what each member cluster's RBAC allows it.
//!
//! Checked tokens are kept by SHA-256 digest, as reviews are ([`ReviewCache`]), and never beyond
//! their `exp`.

mod claims;
mod fetch;
mod keys;
mod source;
mod token;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use mc_types::config::{OidcSection, SigningAlg};

pub use claims::LEEWAY;
pub use source::{REFETCH_AFTER, RETRY_AFTER, Unavailable};

use super::review_cache::{ReviewCache, Reviewed};
use crate::authz::User;

/// How long a checked token is kept at most (its `exp` may end it sooner).
const ACCEPTED_FOR: Duration = Duration::from_secs(120);
/// How long a refused token is kept.
const REJECTED_FOR: Duration = Duration::from_secs(10);
/// The most tokens kept.
const MOST_KEPT: usize = 10_000;

/// Why the verifier cannot be made from its config (not retryable: the config must change).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The JWKS file is unreadable or unusable.
    #[error("jwksFile {}: {reason}", .path.display())]
    Jwks {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The issuer's HTTPS client cannot be made.
    #[error(transparent)]
    Fetch(#[from] fetch::SetupError),
}

/// Why a token is refused (401, not retryable).
#[derive(Debug, thiserror::Error)]
pub enum Invalid {
    /// Not a JWS of an accepted algorithm.
    #[error(transparent)]
    Token(#[from] token::Error),
    /// It names a key the issuer does not have.
    #[error("no key of the issuer has the token's key id")]
    UnknownKey,
    /// No key of the issuer verifies its signature.
    #[error("the signature does not verify")]
    Signature,
    /// Its claims break a rule.
    #[error(transparent)]
    Claims(#[from] claims::Error),
}

impl Invalid {
    /// Its name in `mc_oidc_tokens_total{result}`.
    fn label(&self) -> &'static str {
        match self {
            Invalid::Token(token::Error::Algorithm(_)) => "algorithm",
            Invalid::Token(_) => "malformed",
            Invalid::UnknownKey => "unknown_key",
            Invalid::Signature => "signature",
            Invalid::Claims(claims::Error::Issuer) => "issuer",
            Invalid::Claims(claims::Error::Audience) => "audience",
            Invalid::Claims(claims::Error::Expired) => "expired",
            Invalid::Claims(claims::Error::NotYetValid) => "not_yet_valid",
            Invalid::Claims(_) => "claims",
        }
    }
}

#[derive(Debug, thiserror::Error)]
enum Error {
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
}

/// Checks the ID tokens of one issuer.
#[derive(Debug)]
pub struct Verifier {
    rules: claims::Rules,
    algs: Vec<SigningAlg>,
    source: source::Source,
    cache: ReviewCache,
    outcomes: Mutex<BTreeMap<&'static str, u64>>,
}

impl Verifier {
    /// The verifier `section` configures. A `jwksFile` is read now; an issuer's keys are
    /// fetched at first need.
    pub fn new(section: &OidcSection) -> Result<Verifier, SetupError> {
        Self::with_periods(section, REFETCH_AFTER, RETRY_AFTER)
    }

    /// As [`Verifier::new`], asking the issuer again after other periods (tests).
    pub fn with_periods(
        section: &OidcSection,
        refetch_after: Duration,
        retry_after: Duration,
    ) -> Result<Verifier, SetupError> {
        let source = match &section.jwks_file {
            Some(path) => {
                let jwks_error = |reason: String| SetupError::Jwks { path: path.into(), reason };
                let text = std::fs::read(path).map_err(|e| jwks_error(e.to_string()))?;
                let keys = keys::KeySet::parse(&text).map_err(|e| jwks_error(e.to_string()))?;
                source::Source::File(Arc::new(keys))
            }
            None => {
                let fetcher =
                    fetch::Fetcher::new(&section.issuer_url, section.ca_file.as_deref().map(Path::new))?;
                source::Source::Issuer(Box::new(source::Remote::new(fetcher, refetch_after, retry_after)))
            }
        };
        Ok(Verifier {
            rules: claims::Rules::new(section),
            algs: section.signing_algs.clone(),
            source,
            cache: ReviewCache::new(ACCEPTED_FOR, REJECTED_FOR, MOST_KEPT),
            outcomes: Mutex::default(),
        })
    }

    /// Whether `token` says it comes from this issuer (unverified: only to choose who checks it).
    pub fn claims_issuer_of(&self, token: &str) -> bool {
        token::issuer(token).as_deref() == Some(self.rules.issuer())
    }

    /// What `token` (whose SHA-256 is `digest`) makes: a user, or refused. Keys that cannot be
    /// had are an error (503): never an open door.
    pub async fn verify(&self, token: &str, digest: [u8; 32]) -> Result<Reviewed, Unavailable> {
        self.cache
            .get_or_review_until(digest, || async {
                let checked = self.check(token).await;
                self.count(match &checked {
                    Ok(_) => "valid",
                    Err(Error::Invalid(e)) => e.label(),
                    Err(Error::Unavailable(_)) => "unavailable",
                });
                match checked {
                    Ok((user, until)) => Ok((Reviewed::User(user), Some(until))),
                    Err(Error::Invalid(why)) => {
                        tracing::debug!(reason = %why, "OIDC token refused");
                        Ok((Reviewed::Rejected, None))
                    }
                    Err(Error::Unavailable(e)) => Err(e),
                }
            })
            .await
    }

    /// The user of a valid token, and until when it may be kept. Its claims are read before its
    /// signature: a token refused for them costs no fetch of the keys.
    async fn check(&self, token: &str) -> Result<(User, Instant), Error> {
        let jwt = token::parse(token, &self.algs).map_err(Invalid::from)?;
        let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default().as_secs_f64();
        let (user, exp) = self.rules.user(&jwt.claims, now).map_err(Invalid::from)?;
        let kid = jwt.kid.as_deref();
        let keys = self.source.keys(kid).await?;
        if !keys.has(kid) {
            return Err(Invalid::UnknownKey.into());
        }
        let verifies = |keys: &keys::KeySet| keys.verify(jwt.alg, kid, jwt.signed, &jwt.signature);
        if !verifies(&keys) {
            // Without a key id, a rotation shows only as a signature no kept key verifies.
            let newer = if kid.is_none() { self.source.newer(&keys).await } else { None };
            if !newer.is_some_and(|keys| verifies(&keys)) {
                return Err(Invalid::Signature.into());
            }
        }
        let left = Duration::from_secs_f64((exp - now).clamp(0.0, ACCEPTED_FOR.as_secs_f64()));
        Ok((user, Instant::now() + left))
    }

    fn count(&self, result: &'static str) {
        *self.outcomes.lock().unwrap_or_else(|e| e.into_inner()).entry(result).or_default() += 1;
    }

    /// Its counters in the Prometheus text format.
    pub fn metrics(&self) -> String {
        use std::fmt::Write;
        let mut out = String::from(
            "# HELP mc_oidc_tokens_total OIDC tokens checked, by result (kept answers are not counted).\n\
             # TYPE mc_oidc_tokens_total counter\n",
        );
        for (result, n) in self.outcomes.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let _ = writeln!(out, "mc_oidc_tokens_total{{result=\"{result}\"}} {n}");
        }
        if let source::Source::Issuer(remote) = &self.source {
            let (fetches, failures) = remote.fetches();
            let _ = write!(
                out,
                "# HELP mc_oidc_key_fetches_total Fetches of the OIDC issuer's keys, by result.\n\
                 # TYPE mc_oidc_key_fetches_total counter\n\
                 mc_oidc_key_fetches_total{{result=\"ok\"}} {}\n\
                 mc_oidc_key_fetches_total{{result=\"failed\"}} {failures}\n",
                fetches - failures
            );
        }
        out
    }
}
