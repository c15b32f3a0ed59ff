//! `list --created-since`: only objects created within a window, given as a duration back from
//! now (`30m`, `2h`, `7d`, `1h30m`) or as an RFC 3339 time (`2024-05-01T10:00:00Z`).

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

/// A parsed `--created-since`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CreatedSince {
    /// This long back from when `list` runs.
    Within(SignedDuration),
    /// At or after this time.
    After(Timestamp),
}

impl CreatedSince {
    /// Parses a duration of `<number><unit>` parts (units `s`, `m`, `h`, `d`) or an RFC 3339 time.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if let Some(seconds) = duration_seconds(text) {
            return Ok(CreatedSince::Within(SignedDuration::from_secs(seconds)));
        }
        text.parse::<Timestamp>().map(CreatedSince::After).map_err(|_| {
            format!(
                "{text:?} is neither a duration (30m, 2h, 7d, 1h30m) nor an RFC 3339 time (2024-05-01T10:00:00Z)"
            )
        })
    }

    /// The earliest creation time admitted, for a `list` running at `now`.
    pub fn cutoff(self, now: Timestamp) -> Cutoff {
        match self {
            CreatedSince::Within(d) => Cutoff(now.checked_sub(d).unwrap_or(Timestamp::MIN)),
            CreatedSince::After(t) => Cutoff(t),
        }
    }
}

/// The earliest creation time an object may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cutoff(Timestamp);

impl Cutoff {
    /// Whether an object (or its metadata, or a `PartialObjectMetadata`) was created at or after
    /// the cutoff; one without a creation time is not.
    pub fn admits(&self, object: &Value) -> bool {
        object
            .pointer("/metadata/creationTimestamp")
            .and_then(Value::as_str)
            .and_then(|t| t.parse::<Timestamp>().ok())
            .is_some_and(|created| created >= self.0)
    }
}

/// `90s`, `30m`, `2h`, `7d`, `1d12h`, `1h30m` in seconds; `None` for anything else.
fn duration_seconds(text: &str) -> Option<i64> {
    let mut total: i64 = 0;
    let mut number = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let unit: i64 = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => return None,
        };
        let n: i64 = std::mem::take(&mut number).parse().ok()?;
        total = total.checked_add(n.checked_mul(unit)?)?;
    }
    (number.is_empty() && !text.is_empty()).then_some(total)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn created(at: &str) -> Value {
        json!({"metadata": {"name": "x", "creationTimestamp": at}})
    }

    #[test]
    fn durations_are_parts_of_seconds_minutes_hours_and_days() {
        let within = |s: i64| Ok(CreatedSince::Within(SignedDuration::from_secs(s)));
        assert_eq!(CreatedSince::parse("90s"), within(90));
        assert_eq!(CreatedSince::parse("30m"), within(1800));
        assert_eq!(CreatedSince::parse(" 2h "), within(7200));
        assert_eq!(CreatedSince::parse("7d"), within(7 * 86_400));
        assert_eq!(CreatedSince::parse("1h30m"), within(5400));
        assert_eq!(CreatedSince::parse("1d12h"), within(129_600));
    }

    #[test]
    fn rfc_3339_times_are_taken_with_their_offset() {
        let after = |t: &str| Ok(CreatedSince::After(t.parse().unwrap()));
        assert_eq!(CreatedSince::parse("2024-05-01T10:00:00Z"), after("2024-05-01T10:00:00Z"));
        assert_eq!(CreatedSince::parse("2024-05-01T12:00:00+02:00"), after("2024-05-01T10:00:00Z"));
        assert_eq!(CreatedSince::parse("2024-05-01T10:00:00.5Z"), after("2024-05-01T10:00:00.5Z"));
    }

    #[test]
    fn anything_else_is_a_one_line_error() {
        for bad in
            ["", "2", "h", "2w", "1.5h", "-2h", "2h-", "yesterday", "2024-05-01", "99999999999999999999d"]
        {
            let err = CreatedSince::parse(bad).unwrap_err();
            assert!(err.contains("neither a duration") && !err.contains('\n'), "{bad:?}: {err}");
        }
    }

    #[test]
    fn the_cutoff_admits_objects_created_at_or_after_it() {
        let now: Timestamp = "2024-05-01T12:00:00Z".parse().unwrap();
        let cutoff = CreatedSince::parse("2h").unwrap().cutoff(now);
        assert!(cutoff.admits(&created("2024-05-01T11:00:00Z")));
        assert!(cutoff.admits(&created("2024-05-01T10:00:00Z")), "the edge is inside");
        assert!(!cutoff.admits(&created("2024-05-01T09:59:59Z")));
        assert!(!cutoff.admits(&json!({"metadata": {"name": "no-time"}})));
        assert!(!cutoff.admits(&created("not a time")));
        let fixed = CreatedSince::parse("2024-05-01T11:30:00Z").unwrap().cutoff(now);
        assert!(fixed.admits(&created("2024-05-01T11:30:00Z")));
        assert!(!fixed.admits(&created("2024-05-01T11:00:00Z")));
    }
}
