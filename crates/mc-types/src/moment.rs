//! A moment as a user writes one for the past: an RFC 3339 time (`2026-11-28T10:00:00Z`) or a
//! duration ago (`30m`, `2h`, `7d`, `1h30m`), as `--since` and `--at` take them.

use thiserror::Error;

/// The longest text read as a moment.
const MAX_LEN: usize = 64;
/// The furthest back a duration reaches: ten years, in milliseconds.
const MAX_BACK_MS: i64 = 10 * 366 * 24 * 3_600_000;

/// A moment that is neither a time nor a duration.
#[derive(Debug, Error, PartialEq, Eq)]
#[error(
    "invalid time {shown}: expected an RFC 3339 time (2026-11-28T10:00:00Z) or a duration ago (30m, 2h, 7d, 1h30m)"
)]
pub struct InvalidMoment {
    /// The text, quoted and bounded.
    pub shown: String,
}

/// The unix time in milliseconds that `text` names, `now_ms` being now.
pub fn parse(text: &str, now_ms: i64) -> Result<i64, InvalidMoment> {
    let invalid = || InvalidMoment { shown: shown(text) };
    let text = text.trim();
    if text.is_empty() || text.len() > MAX_LEN {
        return Err(invalid());
    }
    if text.contains('T') || text.contains('-') || text.contains(':') {
        let at: k8s_openapi::jiff::Timestamp = text.parse().map_err(|_| invalid())?;
        return Ok(at.as_millisecond());
    }
    let back = duration_ms(text).ok_or_else(invalid)?;
    Ok(now_ms.saturating_sub(back))
}

/// `1h30m`, `90s`, `7d`, `2w`: a sum of whole numbers with units (ms, s, m, h, d, w), in
/// milliseconds; `None` when malformed, empty or longer than ten years.
pub fn duration_ms(text: &str) -> Option<i64> {
    let mut total: i64 = 0;
    let mut rest = text;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        if digits == 0 || digits > 12 {
            return None;
        }
        let n: i64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len());
        let unit: i64 = match &rest[..unit_len] {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            "w" => 7 * 86_400_000,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total = total.checked_add(n.checked_mul(unit)?)?;
    }
    (total <= MAX_BACK_MS).then_some(total)
}

/// A unix time in milliseconds as RFC 3339 in UTC with milliseconds
/// (`2026-11-28T10:00:00.123Z`); the epoch for a time out of range.
pub fn rfc3339(ms: i64) -> String {
    let t = k8s_openapi::jiff::Timestamp::from_millisecond(ms)
        .unwrap_or(k8s_openapi::jiff::Timestamp::UNIX_EPOCH);
    format!("{t:.3}")
}

/// Now, in unix milliseconds.
pub fn now_ms() -> i64 {
    k8s_openapi::jiff::Timestamp::now().as_millisecond()
}

fn shown(text: &str) -> String {
    let mut s: String = text.chars().filter(|c| !c.is_control()).take(MAX_LEN).collect();
    if text.chars().count() > MAX_LEN {
        s.push('…');
    }
    format!("{s:?}")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const NOW: i64 = 1_795_000_000_000;

    #[test]
    fn durations_count_back_from_now() {
        assert_eq!(parse("30m", NOW).unwrap(), NOW - 30 * 60_000);
        assert_eq!(parse("1h30m", NOW).unwrap(), NOW - 90 * 60_000);
        assert_eq!(parse("7d", NOW).unwrap(), NOW - 7 * 86_400_000);
        assert_eq!(parse("250ms", NOW).unwrap(), NOW - 250);
        assert_eq!(parse(" 2h ", NOW).unwrap(), NOW - 7_200_000);
    }

    #[test]
    fn times_are_rfc3339() {
        assert_eq!(parse("2026-11-28T10:00:00Z", NOW).unwrap(), 1_795_860_000_000);
        assert_eq!(parse("2026-11-28T11:00:00+01:00", NOW).unwrap(), 1_795_860_000_000);
        assert_eq!(rfc3339(1_795_860_000_123), "2026-11-28T10:00:00.123Z");
        assert_eq!(parse(&rfc3339(1_795_860_000_123), NOW).unwrap(), 1_795_860_000_123);
    }

    #[test]
    fn anything_else_is_one_clear_error() {
        for bad in
            ["", "h", "2", "2x", "-5m", "1h-", "5m5", "yesterday", "2026-13-01T00:00:00Z", "99999999999999d"]
        {
            let e = parse(bad, NOW).unwrap_err();
            assert!(e.to_string().starts_with("invalid time"), "{bad}: {e}");
        }
        let long = "9".repeat(1000);
        assert!(parse(&long, NOW).unwrap_err().shown.len() < 80);
    }
}
