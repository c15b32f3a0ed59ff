//! Bearer tokens reviewed by the master cluster (`authentication.k8s.io/v1` `TokenReview`).

use std::time::Duration;

use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
use kube::api::{Api, PostParams};

use super::review_cache::{ReviewCache, Reviewed};
use crate::authz::User;

/// How long one review may take before the request answers 503.
const REVIEW_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a token could not be reviewed (503: never an open door).
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// No master cluster is configured or connected to review tokens.
    #[error("no master cluster to review the token")]
    NoMaster,
    /// The master cluster did not answer in time or failed.
    #[error("the master cluster could not review the token: {0}")]
    Failed(String),
}

/// Reviews tokens with the master cluster, keeping the answers for a while.
#[derive(Debug)]
pub struct TokenReviewer {
    cache: ReviewCache,
    reviews: std::sync::atomic::AtomicU64,
}

impl Default for TokenReviewer {
    fn default() -> Self {
        // As kube-apiserver's webhook token authenticator: accepted tokens for 2 minutes,
        // rejected ones briefly; bounded in number.
        TokenReviewer::new(ReviewCache::new(Duration::from_secs(120), Duration::from_secs(10), 10_000))
    }
}

impl TokenReviewer {
    /// Reviews kept in `cache`.
    pub fn new(cache: ReviewCache) -> Self {
        TokenReviewer { cache, reviews: Default::default() }
    }

    /// How many reviews were sent to the master cluster.
    pub fn reviews_sent(&self) -> u64 {
        self.reviews.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Takes `token` as `user`'s without asking a master cluster (in-process tests).
    #[cfg(test)]
    pub async fn remember(&self, token: &str, user: User) {
        let header = format!("Bearer {token}");
        let (_, digest) = crate::auth::reviewable(header.as_bytes()).expect("a reviewable token");
        let _ = self.cache.get_or_review(digest, || async { Ok::<_, ()>(Reviewed::User(user)) }).await;
    }

    /// The user of `token` (whose SHA-256 is `digest`), as the master cluster `master` says.
    pub async fn review(
        &self,
        master: Option<kube::Client>,
        token: &str,
        digest: [u8; 32],
    ) -> Result<Reviewed, ReviewError> {
        self.cache
            .get_or_review(digest, || async {
                let client = master.ok_or(ReviewError::NoMaster)?;
                self.reviews.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                send(client, token).await
            })
            .await
    }
}

async fn send(client: kube::Client, token: &str) -> Result<Reviewed, ReviewError> {
    let api: Api<TokenReview> = Api::all(client);
    let review = TokenReview {
        spec: TokenReviewSpec { token: Some(token.to_string()), audiences: None },
        ..TokenReview::default()
    };
    let answer = tokio::time::timeout(REVIEW_TIMEOUT, api.create(&PostParams::default(), &review))
        .await
        .map_err(|_| ReviewError::Failed(format!("no answer in {}s", REVIEW_TIMEOUT.as_secs())))?
        // The master's own words are not echoed to the caller: only the kind of failure.
        .map_err(|e| ReviewError::Failed(failure_kind(&e)))?;
    let status = answer.status.unwrap_or_default();
    let user = status.user.unwrap_or_default();
    match (status.authenticated, user.username) {
        (Some(true), Some(name)) if !name.is_empty() => {
            Ok(Reviewed::User(User { name, groups: user.groups.unwrap_or_default() }))
        }
        _ => Ok(Reviewed::Rejected),
    }
}

/// What went wrong, in words of our own.
fn failure_kind(e: &kube::Error) -> String {
    match e {
        kube::Error::Api(s) if s.code == 403 => "mc-server may not create tokenreviews there".into(),
        kube::Error::Api(s) => format!("status {}", s.code),
        _ => "it is unreachable".into(),
    }
}
