//! Cells that can be kept: the time-dependent parts of a row (ages, `3 (5m ago)`, a running
//! job's duration) written as markers that carry their timestamp, so a row computed once prints
//! correctly at any later time. [`Ctx::deferred`](super::Ctx::deferred) writes the markers,
//! [`resolve`] turns them into text at a given time.
//!
//! A marker is `\u{1}` + the timestamp in nanoseconds since the epoch + `\u{1}`. Object text
//! may contain `\u{1}` too, so a deferred row is only kept when it [`matches`] the row computed
//! directly.

use std::borrow::Cow;

use k8s_openapi::jiff::Timestamp;

use crate::age as time;

const MARK: char = '\u{1}';

/// The marker of "time since `then`".
pub(super) fn marker(then: Timestamp) -> String {
    format!("{MARK}{}{MARK}", then.as_nanosecond())
}

/// `cell` with its markers replaced by the time since them at `now`, kubectl style.
pub fn resolve(cell: &str, now: Timestamp) -> Cow<'_, str> {
    if !cell.contains(MARK) {
        return Cow::Borrowed(cell);
    }
    let mut out = String::with_capacity(cell.len());
    let mut parts = cell.split(MARK);
    out.push_str(parts.next().unwrap_or_default());
    // Between an odd and the next even MARK: a timestamp; anything else is text as it was.
    while let Some(inside) = parts.next() {
        match (inside.parse::<i128>().ok().and_then(|n| Timestamp::from_nanosecond(n).ok()), parts.next()) {
            (Some(then), Some(after)) => {
                out.push_str(&time::human_duration(now.duration_since(then).as_secs()));
                out.push_str(after);
            }
            (_, after) => {
                out.push(MARK);
                out.push_str(inside);
                if let Some(after) = after {
                    out.push(MARK);
                    out.push_str(after);
                }
            }
        }
    }
    Cow::Owned(out)
}

/// Whether the deferred cells resolve, at `now`, to exactly the cells computed at `now`: only
/// then may they be kept (text of the object that looks like a marker fails this).
pub fn matches(deferred: &[String], direct: &[String], now: Timestamp) -> bool {
    deferred.len() == direct.len() && deferred.iter().zip(direct).all(|(d, c)| resolve(d, now) == c.as_str())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn markers_resolve_to_ages_and_other_text_is_kept() {
        let then: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let now: Timestamp = "2026-01-01T00:05:30Z".parse().unwrap();
        assert_eq!(resolve(&marker(then), now), "5m30s");
        assert_eq!(resolve(&format!("3 ({} ago)", marker(then)), now), "3 (5m30s ago)");
        assert_eq!(resolve("plain", now), "plain");
        assert_eq!(resolve("a\u{1}b", now), "a\u{1}b", "a lone mark is text");
        assert_eq!(resolve("a\u{1}x\u{1}b", now), "a\u{1}x\u{1}b", "not a timestamp");
        let direct = vec!["5m30s".to_owned()];
        assert!(matches(&[marker(then)], &direct, now));
        assert!(!matches(&["\u{1}0\u{1}".to_owned()], &direct, now), "object text that looks like a marker");
    }
}
