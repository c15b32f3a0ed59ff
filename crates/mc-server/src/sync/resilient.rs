//! Writing a batch so that no change is lost silently: a failure of the database (down, busy,
//! deadlock) is retried with backoff until it passes, and reported while it lasts; a change the
//! database refuses is isolated (the rest of its batch is written), stored in a sanitized form
//! where one exists, or else handed back as refused, with the reason, to be reported.

use std::sync::Mutex;
use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use tracing::{info, warn};

use crate::store::{Change, Expect, RawObject, Store, StoredObject};

/// First wait before a retry; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// Longest wait between two retries while the database is away.
const MAX_BACKOFF: Duration = Duration::from_secs(5);
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
/// [`Expect`]). Returns only when every change is written or refused: while the database is
/// unreachable it waits and retries (the caller's queue fills up and the watchers wait, so
/// nothing is dropped).
pub async fn apply(
    store: &Store,
    health: &StoreHealth,
    cluster: &str,
    changes: Vec<Change>,
    expect: Expect,
) -> Outcome {
    let mut out = Outcome::default();
    let batch = Batch { store, health, cluster, expect };
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
    loop {
        match op().await {
            Ok(v) => {
                health.ok();
                return Ok(v);
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
}

impl Batch<'_> {
    async fn retrying(self, changes: &[Change]) -> crate::store::Result<()> {
        retrying_op(self.health, || self.store.apply_changes(self.cluster, changes, self.expect)).await
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
