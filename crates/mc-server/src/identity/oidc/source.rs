//! Where the issuer's keys come from: a JWKS file read at start, or the issuer itself, fetched
//! at first need (so a server whose issuer is down still starts) and kept. A key the kept set
//! lacks is fetched again, but at most once per period: tokens with made-up key ids must not
//! make mc-server hammer the issuer.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::fetch::{self, Fetcher};
use super::keys::KeySet;

/// The least time between two fetches while keys are kept (a rotation is noticed after it).
pub const REFETCH_AFTER: Duration = Duration::from_secs(30);
/// The least time between two attempts while no key is kept (the issuer was down).
pub const RETRY_AFTER: Duration = Duration::from_secs(5);

/// Why no key can be had (503, retryable).
#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
    /// The last fetch failed and no key is kept.
    #[error("the issuer's keys could not be fetched: {0}")]
    Fetch(#[source] Arc<fetch::Error>),
}

/// The keys of one issuer.
#[derive(Debug)]
pub enum Source {
    /// Read from `jwksFile` at start; never fetched.
    File(Arc<KeySet>),
    /// Fetched from the issuer.
    Issuer(Box<Remote>),
}

/// Keys fetched from the issuer and kept.
#[derive(Debug)]
pub struct Remote {
    fetcher: Fetcher,
    state: Mutex<State>,
    /// One fetch at a time: concurrent needs wait for it and use its keys.
    fetching: tokio::sync::Mutex<()>,
    refetch_after: Duration,
    retry_after: Duration,
    fetches: std::sync::atomic::AtomicU64,
    failures: std::sync::atomic::AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    keys: Option<Arc<KeySet>>,
    attempted: Option<Instant>,
    failed: Option<Arc<fetch::Error>>,
}

impl Remote {
    /// Keys fetched by `fetcher`, at most once per `refetch_after` while some are kept and
    /// once per `retry_after` while none is.
    pub fn new(fetcher: Fetcher, refetch_after: Duration, retry_after: Duration) -> Remote {
        Remote {
            fetcher,
            state: Mutex::default(),
            fetching: tokio::sync::Mutex::new(()),
            refetch_after,
            retry_after,
            fetches: Default::default(),
            failures: Default::default(),
        }
    }

    /// Fetches made, and how many of them failed.
    pub fn fetches(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.fetches.load(Relaxed), self.failures.load(Relaxed))
    }

    /// What the kept keys and the last attempt allow without fetching: the kept keys when
    /// they are `enough` or it is too soon to ask again, an error when there are none and it is
    /// too soon, else `None` (fetch).
    fn kept(
        &self,
        enough: &(dyn Fn(&KeySet) -> bool + Sync),
        now: Instant,
    ) -> Option<Result<Arc<KeySet>, Unavailable>> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let since = |after: Duration| state.attempted.is_some_and(|at| now.duration_since(at) < after);
        match (&state.keys, &state.failed) {
            (Some(keys), _) if enough(keys) || since(self.refetch_after) => Some(Ok(Arc::clone(keys))),
            (None, Some(failed)) if since(self.retry_after) => {
                Some(Err(Unavailable::Fetch(Arc::clone(failed))))
            }
            _ => None,
        }
    }

    /// The kept keys when they are `enough`, else keys fetched again when that is allowed.
    /// Kept keys win over a failed fetch: a rotation that cannot be fetched leaves the old keys
    /// in use.
    pub async fn keys(&self, enough: &(dyn Fn(&KeySet) -> bool + Sync)) -> Result<Arc<KeySet>, Unavailable> {
        if let Some(kept) = self.kept(enough, Instant::now()) {
            return kept;
        }
        let _turn = self.fetching.lock().await;
        // Another request may have fetched while this one waited.
        if let Some(kept) = self.kept(enough, Instant::now()) {
            return kept;
        }
        use std::sync::atomic::Ordering::Relaxed;
        self.fetches.fetch_add(1, Relaxed);
        let fetched = self.fetcher.keys().await;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.attempted = Some(Instant::now());
        match fetched {
            Ok(keys) => {
                tracing::info!(keys = keys.len(), "fetched the OIDC issuer's keys");
                let keys = Arc::new(keys);
                state.keys = Some(Arc::clone(&keys));
                state.failed = None;
                Ok(keys)
            }
            Err(e) => {
                self.failures.fetch_add(1, Relaxed);
                tracing::warn!(error = %e, kept = state.keys.is_some(), "cannot fetch the OIDC issuer's keys");
                let e = Arc::new(e);
                state.failed = Some(Arc::clone(&e));
                state.keys.clone().ok_or(Unavailable::Fetch(e))
            }
        }
    }
}

impl Source {
    /// Keys to verify a token that names `kid` (see [`Remote::keys`]).
    pub async fn keys(&self, kid: Option<&str>) -> Result<Arc<KeySet>, Unavailable> {
        match self {
            Source::File(keys) => Ok(Arc::clone(keys)),
            Source::Issuer(remote) => remote.keys(&|keys| keys.has(kid)).await,
        }
    }

    /// Keys newer than `seen` when they may be fetched now, else `None`: for a token without a
    /// key id that no kept key verifies (the issuer may have rotated its keys).
    pub async fn newer(&self, seen: &Arc<KeySet>) -> Option<Arc<KeySet>> {
        match self {
            Source::File(_) => None,
            Source::Issuer(remote) => {
                remote.keys(&|_| false).await.ok().filter(|keys| !Arc::ptr_eq(keys, seen))
            }
        }
    }
}
