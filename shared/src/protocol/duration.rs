//! Durations as users type them (`--duration`, the page's `duration` parameter): a bare number of seconds
//! (`3`, `2.5`, as Perl's negative count took seconds), or numbers with units (`500ms`, `3s`, `2m`, `1h`,
//! `1m 30s`, `2.5s`). Parsed with integer arithmetic only, so `2.5s` is exactly 2.5 s (and no `f64` parser,
//! 14 KB gzip, is carried into the page for it); humantime would add forms nobody types here.

use std::time::Duration;

use thiserror::Error;

/// The longest duration accepted: a day per case; longer is a typo.
pub const MAX_DURATION: Duration = Duration::from_secs(86_400);

/// A duration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("'{0}' is not a usable time: give e.g. 3, 3s, 500ms or 2m (more than 0, at most a day)")]
pub struct DurationError(pub String);

/// The longest per-request timeout accepted (`--timeout`, the page's `timeout`): an hour.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// A per-request timeout that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("'{0}' is not a usable timeout: give seconds above 0 and at most 3600 (an hour), e.g. 10, 2.5 or 500ms")]
pub struct TimeoutError(pub String);

/// Read a per-request timeout: a duration as [`parse_duration`] reads it (bare seconds, or with units), at
/// most [`MAX_TIMEOUT`]. One parser for the CLI's `--timeout` and the page's, so both take the same values.
pub fn parse_timeout(raw: &str) -> Result<Duration, TimeoutError> {
    parse_duration(raw).ok().filter(|d| *d <= MAX_TIMEOUT).ok_or_else(|| TimeoutError(raw.trim().to_string()))
}

/// A timeout as [`parse_timeout`] reads it back exactly: whole milliseconds (`2500ms`), or nanoseconds.
pub fn timeout_text(timeout: Duration) -> String {
    match timeout.subsec_nanos() % 1_000_000 {
        0 => format!("{}ms", timeout.as_millis()),
        _ => format!("{}ns", timeout.as_nanos()),
    }
}

/// Nanoseconds per unit, longest names first so `ms` is not read as `m`.
const UNITS: [(&str, u64); 7] = [
    ("ms", 1_000_000),
    ("us", 1_000),
    ("µs", 1_000),
    ("ns", 1),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

/// Read a duration: more than zero and at most [`MAX_DURATION`].
pub fn parse_duration(raw: &str) -> Result<Duration, DurationError> {
    let err = || DurationError(raw.to_string());
    let mut rest = raw.trim();
    if rest.is_empty() {
        return Err(err());
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let ((whole, billionths), after) = number(rest).ok_or_else(err)?;
        let after = after.trim_start();
        let (scale, after) = match UNITS.iter().find(|(u, _)| after.starts_with(u)) {
            Some((u, scale)) => (*scale, &after[u.len()..]),
            // A bare number is seconds, and only as the whole input.
            None if total == 0 && after.is_empty() && rest.len() == raw.trim().len() => (1_000_000_000, after),
            None => return Err(err()),
        };
        let part = whole.checked_mul(scale).and_then(|w| w.checked_add(fraction_of(billionths, scale)?));
        total = part.and_then(|p| total.checked_add(p)).ok_or_else(err)?;
        rest = after.trim_start();
    }
    let d = Duration::from_nanos(total);
    (!d.is_zero() && d <= MAX_DURATION).then_some(d).ok_or_else(err)
}

/// `billionths` / 10^9 of a unit of `scale` nanoseconds, in nanoseconds (u64 throughout: no u128 code in the
/// page either).
fn fraction_of(billionths: u64, scale: u64) -> Option<u64> {
    if scale >= 1_000_000_000 {
        billionths.checked_mul(scale / 1_000_000_000)
    } else {
        Some(billionths / (1_000_000_000 / scale))
    }
}

/// A decimal number at the start of `s` as (whole part, fraction in billionths; up to 9 decimals), and what
/// follows it.
fn number(s: &str) -> Option<((u64, u64), &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(s.len());
    let (text, rest) = s.split_at(end);
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && fraction.is_empty() || fraction.len() > 9 || fraction.contains('.') {
        return None;
    }
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let digits: u64 = if fraction.is_empty() { 0 } else { fraction.parse().ok()? };
    Some(((whole, digits * 10u64.pow(9 - fraction.len() as u32)), rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_with_and_without_units() {
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert_eq!(parse_duration(" 2.5 "), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_duration("0.3"), Ok(Duration::from_millis(300)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1m 30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("2.5s"), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_duration("1500us"), Ok(Duration::from_micros(1500)));
        assert_eq!(parse_duration("24h"), Ok(MAX_DURATION));
        for bad in
            ["-1s", "0", "0s", "soon", "", "2d", "inf", "1.2.3", "3 s 4", "3 4", ".", "25h", "1.0000000001s", "s"]
        {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.to_string().contains(&format!("'{bad}'")), "{e}");
        }
    }

    #[test]
    fn timeouts_take_durations_up_to_an_hour_and_read_back_exactly() {
        assert_eq!(parse_timeout("2.5"), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_timeout("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_timeout("3600"), Ok(MAX_TIMEOUT));
        for bad in ["0", "3601", "-1", "nan", "soon"] {
            let e = parse_timeout(bad).unwrap_err().to_string();
            assert!(e.contains(&format!("'{bad}'")) && e.contains("above 0 and at most 3600"), "{e}");
        }
        for t in [Duration::from_millis(2500), Duration::from_nanos(1_500_001), MAX_TIMEOUT] {
            assert_eq!(parse_timeout(&timeout_text(t)), Ok(t));
        }
    }
}
