//! Reviews of bearer tokens kept for a bounded time and number, so that a client's burst of
//! requests costs one `TokenReview` per token per period.
//!
//! Tokens are kept only as SHA-256 digests. Concurrent requests with the same token that is not
//! kept yet wait for one review rather than sending one each.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::OnceCell;

use crate::authz::User;

/// What a review said of a token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reviewed {
    /// The master cluster knows it: this user.
    User(User),
    /// The master cluster does not accept it (401).
    Rejected,
}

/// Kept reviews by token digest.
#[derive(Debug)]
pub struct ReviewCache {
    entries: Mutex<HashMap<[u8; 32], Entry>>,
    accepted_for: Duration,
    rejected_for: Duration,
    most: usize,
}

#[derive(Debug, Clone)]
struct Entry {
    since: Instant,
    review: Arc<OnceCell<Kept>>,
}

/// A review and the end of the token's own validity, when it has one.
#[derive(Debug, Clone)]
struct Kept {
    reviewed: Reviewed,
    until: Option<Instant>,
}

impl ReviewCache {
    /// Keeps accepted tokens `accepted_for`, rejected ones `rejected_for`, at most `most` tokens.
    pub fn new(accepted_for: Duration, rejected_for: Duration, most: usize) -> Self {
        ReviewCache { entries: Mutex::new(HashMap::new()), accepted_for, rejected_for, most: most.max(1) }
    }

    /// The kept review of the token with this digest, or the one `review` makes (awaited by
    /// every concurrent caller with the same token). A review that fails is not kept.
    pub async fn get_or_review<F, Fut, E>(&self, digest: [u8; 32], review: F) -> Result<Reviewed, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Reviewed, E>>,
    {
        self.get_or_review_until(digest, || async { review().await.map(|r| (r, None)) }).await
    }

    /// As [`ReviewCache::get_or_review`], for reviews that know when the token ends (an ID
    /// token's `exp`): kept until then at the latest.
    pub async fn get_or_review_until<F, Fut, E>(&self, digest: [u8; 32], review: F) -> Result<Reviewed, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(Reviewed, Option<Instant>), E>>,
    {
        let cell = self.cell(digest);
        let review = || async { review().await.map(|(reviewed, until)| Kept { reviewed, until }) };
        let outcome = cell.get_or_try_init(review).await.map(|k| k.reviewed.clone());
        if outcome.is_err() {
            // Forget the empty cell, so the next request reviews again.
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            if entries.get(&digest).is_some_and(|e| Arc::ptr_eq(&e.review, &cell) && e.review.get().is_none())
            {
                entries.remove(&digest);
            }
        }
        outcome
    }

    /// How many tokens are kept.
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether no token is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn cell(&self, digest: [u8; 32]) -> Arc<OnceCell<Kept>> {
        let now = Instant::now();
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = entries.get(&digest)
            && !self.expired(e, now)
        {
            return Arc::clone(&e.review);
        }
        if entries.len() >= self.most {
            entries.retain(|_, e| !self.expired(e, now));
        }
        if entries.len() >= self.most {
            // Still full of live reviews: the oldest go, a tenth at a time.
            let mut by_age: Vec<([u8; 32], Instant)> = entries.iter().map(|(k, e)| (*k, e.since)).collect();
            by_age.sort_by_key(|(_, since)| *since);
            for (k, _) in by_age.into_iter().take(self.most.div_ceil(10)) {
                entries.remove(&k);
            }
        }
        let entry = Entry { since: now, review: Arc::new(OnceCell::new()) };
        let review = Arc::clone(&entry.review);
        entries.insert(digest, entry);
        review
    }

    fn expired(&self, e: &Entry, now: Instant) -> bool {
        let Some(kept) = e.review.get() else {
            // Under review: kept while it runs.
            return false;
        };
        let keep = match kept.reviewed {
            Reviewed::User(_) => self.accepted_for,
            Reviewed::Rejected => self.rejected_for,
        };
        now.duration_since(e.since) >= keep || kept.until.is_some_and(|until| now >= until)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn alice() -> Reviewed {
        Reviewed::User(User { name: "alice".into(), groups: vec!["system:authenticated".into()] })
    }

    #[tokio::test]
    async fn one_review_per_token_per_period_even_when_concurrent() {
        let cache = ReviewCache::new(Duration::from_secs(60), Duration::from_secs(10), 100);
        let reviews = AtomicUsize::new(0);
        let review = || async {
            reviews.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(20)).await;
            Ok::<_, ()>(alice())
        };
        let all = futures::future::join_all((0..50).map(|_| cache.get_or_review([1; 32], review))).await;
        assert!(all.iter().all(|r| r == &Ok(alice())));
        assert_eq!(reviews.load(Ordering::SeqCst), 1);
        // Another token is reviewed on its own.
        cache.get_or_review([2; 32], review).await.unwrap();
        assert_eq!(reviews.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_failed_review_is_not_kept() {
        let cache = ReviewCache::new(Duration::from_secs(60), Duration::from_secs(10), 100);
        let failed = cache.get_or_review([1; 32], || async { Err::<Reviewed, _>("down") }).await;
        assert_eq!(failed, Err("down"));
        assert!(cache.is_empty());
        let later = cache.get_or_review([1; 32], || async { Ok::<_, &str>(alice()) }).await;
        assert_eq!(later, Ok(alice()));
    }

    #[tokio::test]
    async fn a_review_is_kept_no_longer_than_its_token() {
        let cache = ReviewCache::new(Duration::from_secs(60), Duration::from_secs(10), 100);
        let reviews = AtomicUsize::new(0);
        let review = |until: Instant| {
            let reviews = &reviews;
            move || async move {
                reviews.fetch_add(1, Ordering::SeqCst);
                Ok::<_, ()>((alice(), Some(until)))
            }
        };
        let soon = Instant::now() + Duration::from_millis(50);
        cache.get_or_review_until([1; 32], review(soon)).await.unwrap();
        cache.get_or_review_until([1; 32], review(soon)).await.unwrap();
        assert_eq!(reviews.load(Ordering::SeqCst), 1);
        tokio::time::sleep(Duration::from_millis(60)).await;
        cache.get_or_review_until([1; 32], review(soon)).await.unwrap();
        assert_eq!(reviews.load(Ordering::SeqCst), 2, "the token ended before the period did");
    }

    #[tokio::test]
    async fn reviews_expire_and_the_cache_stays_bounded() {
        let cache = ReviewCache::new(Duration::ZERO, Duration::ZERO, 10);
        let reviews = AtomicUsize::new(0);
        let review = || async {
            reviews.fetch_add(1, Ordering::SeqCst);
            Ok::<_, ()>(Reviewed::Rejected)
        };
        cache.get_or_review([1; 32], review).await.unwrap();
        cache.get_or_review([1; 32], review).await.unwrap();
        assert_eq!(reviews.load(Ordering::SeqCst), 2, "expired at once");

        let kept = ReviewCache::new(Duration::from_secs(60), Duration::from_secs(60), 10);
        for i in 0..100u8 {
            kept.get_or_review([i; 32], || async { Ok::<_, ()>(alice()) }).await.unwrap();
            assert!(kept.len() <= 10, "{}", kept.len());
        }
    }
}
