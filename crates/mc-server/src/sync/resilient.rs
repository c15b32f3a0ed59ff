//! Writing a batch so that no change is lost silently: a failure of the database (down, busy,
//! deadlock) is retried with backoff until it passes, and reported while it lasts; a change the
//! database refuses is isolated (the rest of its batch is written), stored in a sanitized form
//! where one exists, or else handed back as refused, with the reason, to be reported.

use std::sync::Mutex;
use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use tracing::{debug, info, warn};

use crate::store::{Change, Expect, Listed, RawObject, Store, StoredObject};

/// First wait before a retry; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// Longest wait between two retries while the database is away.
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// Conflicts (a deadlock, a serialization failure) in a row tried again at once, without
/// reporting the store as refusing writes: replicas sharing MySQL/MariaDB write at the same time,
/// and InnoDB then ends one of two transactions that wait on each other's locks (gap locks of
/// its label rows). That is concurrency, not an outage; more in a row are reported as any failure.
const QUIET_CONFLICTS: u32 = 3;
/// Longest owner uid kept in its column (MySQL/MariaDB: `VARCHAR(255)`).
const MAX_OWNER_UID: usize = 255;

/// Whether the store accepts writes; read by `/readyz` and `/metrics`.
#[derive(Debug, Default)]
pub struct StoreHealth {
    failing: Mutex<Option<(String, Timestamp)>>,
    /// The last periodic read failed: a database that went away is reported even when no
    /// change is waiting to be written.
    probe: Mutex<Option<(String, Timestamp)>>,
}

impl StoreHealth {
    /// A write went through.
    pub fn ok(&self) {
        let mut f = self.failing.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, since)) = f.take() {
            info!(since = %since, "the store accepts writes again");
        }
    }

    /// A write failed for a reason that is retried.
    pub fn failing(&self, reason: &str) {
        let mut f = self.failing.lock().unwrap_or_else(|e| e.into_inner());
        match f.as_mut() {
            Some((r, _)) => *r = reason.to_string(),
            None => {
                warn!(error = %reason, "the store refuses writes; retrying with backoff");
                *f = Some((reason.to_string(), Timestamp::now()));
            }
        }
    }

    /// The periodic read answered (`None`) or failed for a reason that is retried.
    pub fn probed(&self, failure: Option<&str>) {
        let mut p = self.probe.lock().unwrap_or_else(|e| e.into_inner());
        match (failure, p.as_mut()) {
            (None, Some((_, since))) => {
                info!(since = %since, "the store answers again");
                *p = None;
            }
            (None, None) => {}
            (Some(reason), Some((r, _))) => *r = reason.to_string(),
            (Some(reason), None) => {
                warn!(error = %reason, "the store does not answer");
                *p = Some((reason.to_string(), Timestamp::now()));
            }
        }
    }

    /// Since when writes are failing; `None` while they pass.
    pub fn failing_since(&self) -> Option<Timestamp> {
        self.problem().map(|(_, t)| t)
    }

    /// Why writes are failing, and since when; `None` while they pass.
    pub fn problem(&self) -> Option<(String, Timestamp)> {
        let failing = self.failing.lock().unwrap_or_else(|e| e.into_inner()).clone();
        failing.or_else(|| self.probe.lock().unwrap_or_else(|e| e.into_inner()).clone())
    }
}

/// What became of a batch.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Changes now in the store, in their order (sanitized ones in their stored form).
    pub written: Vec<Change>,
    /// Changes stored only in a sanitized form (NUL escaped, an oversized owner uid dropped).
    pub sanitized: usize,
    /// Changes the database refused even sanitized, with its reason.
    pub refused: Vec<(Change, String)>,
}

/// Writes `changes` of one cluster (`expect`: what its upserts are likely to be, see
/// [`Expect`]; `listed`: the types a list found, for their revisions). Returns only when every change is written or refused: while the database is
/// unreachable it waits and retries (the caller's queue fills up and the watchers wait, so
/// nothing is dropped).
pub async fn apply(
    store: &Store,
    health: &StoreHealth,
    cluster: &str,
    changes: Vec<Change>,
    expect: Expect,
    listed: &Listed,
) -> Outcome {
    let mut out = Outcome::default();
    let batch = Batch { store, health, cluster, expect, listed };
    match batch.retrying(&changes).await {
        Ok(()) => out.written = changes,
        Err(e) => batch.isolate(changes, e.to_string(), &mut out).await,
    }
    out
}

/// Runs one write, retrying with backoff for as long as its failure is retryable.
pub async fn retrying_op<T, F, Fut>(health: &StoreHealth, mut op: F) -> crate::store::Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = crate::store::Result<T>>,
{
    let mut backoff = FIRST_BACKOFF;
    let mut conflicts = 0;
    loop {
        match op().await {
            Ok(v) => {
                health.ok();
                return Ok(v);
            }
            Err(e) if e.is_conflict() && conflicts < QUIET_CONFLICTS => {
                conflicts += 1;
                debug!(error = %e, conflicts, "a write met a concurrent transaction; trying it again");
                tokio::time::sleep(Duration::from_millis(10 * u64::from(conflicts))).await;
            }
            Err(e) if e.is_retryable() => {
                health.failing(&e.to_string());
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
            Err(e) => {
                // The database answered: it is up, the data is the problem.
                health.ok();
                return Err(e);
            }
        }
    }
}

/// One cluster's batch being written, and what its halves are written with.
#[derive(Clone, Copy)]
struct Batch<'a> {
    store: &'a Store,
    health: &'a StoreHealth,
    cluster: &'a str,
    expect: Expect,
    /// The types whose upserts a list found (see [`crate::store::Batch::listed`]).
    listed: &'a Listed,
}

impl Batch<'_> {
    async fn retrying(self, changes: &[Change]) -> crate::store::Result<()> {
        let batch = [crate::store::Batch::new(self.cluster, changes, self.expect).listed(self.listed)];
        retrying_op(self.health, || self.store.apply(&batch)).await
    }

    /// Splits a refused batch in halves until each refused change stands alone; the others are
    /// written in order.
    async fn isolate(self, mut changes: Vec<Change>, error: String, out: &mut Outcome) {
        if changes.len() == 1 {
            let Some(change) = changes.pop() else { return };
            match sanitized(&change) {
                Some(clean) => match self.retrying(std::slice::from_ref(&clean)).await {
                    Ok(()) => {
                        out.sanitized += 1;
                        out.written.push(clean);
                    }
                    Err(e) => out.refused.push((change, e.to_string())),
                },
                None => out.refused.push((change, error)),
            }
            return;
        }
        let right = changes.split_off(changes.len() / 2);
        for half in [changes, right] {
            match self.retrying(&half).await {
                Ok(()) => out.written.extend(half),
                Err(e) => Box::pin(self.isolate(half, e.to_string(), out)).await,
            }
        }
    }
}

/// The change in a form every backend can store, when it differs from the original: `\u0000`
/// escapes (which PostgreSQL refused while it kept objects as JSONB) become the six characters
/// `\u0000`, and an owner
/// uid too long for its column is left out of that column (it stays in the object).
pub fn sanitized(change: &Change) -> Option<Change> {
    let Change::Upsert(object) = change else { return None };
    let text = object.object.text();
    let nul = text.contains("\\u0000");
    let long_owner = object.owner_uid.as_ref().is_some_and(|o| o.len() > MAX_OWNER_UID);
    if !nul && !long_owner {
        return None;
    }
    let mut clean: StoredObject = object.clone();
    if nul {
        clean.object = RawObject::from_text(escape_nul(text)).ok()?;
    }
    if long_owner {
        clean.owner_uid = None;
    }
    Some(Change::Upsert(clean))
}

/// Rewrites each JSON escape `\u0000` as an escaped backslash followed by `u0000`, leaving every
/// other escape (including a literal `\\u0000`) as it is.
fn escape_nul(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + 16);
    let mut rest = json;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix("\\u0000") {
            out.push_str("\\\\u0000");
            rest = after;
        } else {
            // Any other escape is two characters (`\\`, `\"`, `\n`, …) or starts a `\uXXXX`
            // that is copied as it is.
            let len = tail.chars().nth(1).map_or(1, |c| 1 + c.len_utf8());
            out.push_str(&tail[..len]);
            rest = &tail[len..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use mc_types::Gvr;

    #[test]
    fn nul_escapes_become_text_and_nothing_else_changes() {
        let json = r#"{"a":"x\u0000y","b":"\\u0000","c":"\u00e9\n\"","d":"\u0000"}"#;
        let clean = escape_nul(json);
        assert_eq!(clean, r#"{"a":"x\\u0000y","b":"\\u0000","c":"\u00e9\n\"","d":"\\u0000"}"#);
        let v: serde_json::Value = serde_json::from_str(&clean).unwrap();
        assert_eq!(v["a"], "x\\u0000y");
        assert_eq!(v["b"], "\\u0000", "a literal backslash-u0000 is kept");
        assert_eq!(v["c"], "\u{e9}\n\"");
    }

    fn object(text: &str, owner: Option<String>) -> Change {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let mut o = StoredObject::from_json(Gvr::new("", "v1", "configmaps"), "ConfigMap", value).unwrap();
        o.owner_uid = owner;
        Change::Upsert(o)
    }

    /// A database error with only a SQLSTATE, as sqlx hands one over.
    #[derive(Debug)]
    struct Coded(&'static str);

    impl std::fmt::Display for Coded {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "error {}", self.0)
        }
    }

    impl std::error::Error for Coded {}

    impl sqlx::error::DatabaseError for Coded {
        fn message(&self) -> &str {
            "coded"
        }
        fn code(&self) -> Option<std::borrow::Cow<'_, str>> {
            Some(self.0.into())
        }
        fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
            self
        }
        fn kind(&self) -> sqlx::error::ErrorKind {
            sqlx::error::ErrorKind::Other
        }
    }

    fn coded(code: &'static str) -> crate::store::Error {
        crate::store::Error::Query(sqlx::Error::Database(Box::new(Coded(code))))
    }

    /// `retrying_op` over an operation failing with `failures` in turn, then passing: how many
    /// calls it took, and whether the store was reported as refusing writes at each call.
    async fn retried(failures: &[&'static str]) -> (usize, Vec<bool>) {
        let health = StoreHealth::default();
        let mut calls = 0;
        let mut reported = Vec::new();
        let result = retrying_op(&health, || {
            reported.push(health.problem().is_some());
            calls += 1;
            let outcome = failures.get(calls - 1).map_or(Ok(()), |code| Err(coded(code)));
            async move { outcome }
        })
        .await;
        assert!(result.is_ok());
        assert!(health.problem().is_none(), "a write that passed clears the report");
        (calls, reported)
    }

    #[tokio::test]
    async fn conflicts_are_tried_again_at_once_and_only_a_run_of_them_is_reported() {
        assert!(coded("40001").is_conflict() && coded("40P01").is_conflict());
        assert!(!coded("08006").is_conflict() && !coded("23505").is_conflict());
        // MySQL's deadlock (40001) and PostgreSQL's (40P01): tried again, never reported.
        let (calls, reported) = retried(&["40001", "40P01", "40001"]).await;
        assert_eq!(calls, 4);
        assert_eq!(reported, [false; 4]);
        // A fourth conflict in a row is reported as any failure that is retried.
        let (calls, reported) = retried(&["40001"; 5]).await;
        assert_eq!(calls, 6);
        assert_eq!(reported, [false, false, false, false, true, true]);
        // Other retryable failures (here SQLite busy) are reported at once.
        let (calls, reported) = retried(&["5", "5"]).await;
        assert_eq!(calls, 3);
        assert_eq!(reported, [false, true, true]);
    }

    #[test]
    fn only_objects_with_a_problem_have_a_sanitized_form() {
        let plain = object(r#"{"kind":"ConfigMap","metadata":{"name":"a","uid":"u"}}"#, Some("o".into()));
        assert!(sanitized(&plain).is_none());
        let nul =
            object(r#"{"kind":"ConfigMap","metadata":{"name":"a","uid":"u"},"data":{"k":"\u0000"}}"#, None);
        let Some(Change::Upsert(clean)) = sanitized(&nul) else { panic!("no sanitized form") };
        assert!(!clean.object.text().contains("\"\\u0000\""), "{}", clean.object.text());
        let long = object(r#"{"kind":"ConfigMap","metadata":{"name":"a","uid":"u"}}"#, Some("x".repeat(300)));
        let Some(Change::Upsert(clean)) = sanitized(&long) else { panic!("no sanitized form") };
        assert_eq!(clean.owner_uid, None);
        let delete = Change::Delete {
            gvr: Gvr::new("", "v1", "configmaps"),
            namespace: String::new(),
            name: "a".into(),
            uid: String::new(),
        };
        assert!(sanitized(&delete).is_none());
    }
}
