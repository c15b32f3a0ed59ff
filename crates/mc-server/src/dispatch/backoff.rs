//! How long a MultiClusterResource whose reconcile failed waits before the next try: short at
//! first, so a brief outage is repaired quickly, then longer with each failure in a row, so a
//! cluster that stays down (or a template a member keeps refusing) is not hammered. A cluster
//! that becomes ready again wakes every resource at once, whatever its wait.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// The wait after a first failure.
const FIRST: Duration = Duration::from_secs(3);
/// The longest wait.
const LONGEST: Duration = Duration::from_secs(300);

/// Failures in a row, per resource (`namespace/name`).
#[derive(Debug, Default)]
pub struct Backoff {
    failures: Mutex<HashMap<String, u32>>,
}

impl Backoff {
    /// Counts a failure of `key` and returns the wait before its next try: 3 s, doubled with
    /// each failure in a row, at most 5 minutes.
    pub fn failed(&self, key: &str) -> Duration {
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let n = failures.entry(key.to_string()).or_default();
        *n = n.saturating_add(1);
        FIRST.saturating_mul(2u32.saturating_pow(*n - 1)).min(LONGEST)
    }

    /// Forgets the failures of `key` after a reconcile that succeeded.
    pub fn succeeded(&self, key: &str) {
        self.failures.lock().unwrap_or_else(|e| e.into_inner()).remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_with_each_failure_in_a_row_up_to_five_minutes_and_start_over_after_a_success() {
        let backoff = Backoff::default();
        let waits: Vec<u64> = (0..10).map(|_| backoff.failed("ns/a").as_secs()).collect();
        assert_eq!(waits, [3, 6, 12, 24, 48, 96, 192, 300, 300, 300]);
        assert_eq!(backoff.failed("ns/b"), FIRST, "each resource counts its own");
        backoff.succeeded("ns/a");
        assert_eq!(backoff.failed("ns/a"), FIRST);
        for _ in 0..100 {
            backoff.failed("ns/c");
        }
        assert_eq!(backoff.failed("ns/c"), LONGEST, "no overflow");
    }
}
