//! Durations as users type them (`--duration`, the page's `duration` parameter): humantime's forms (`3s`,
//! `500ms`, `2m`, `1m 30s`) or a bare number of seconds (`3`, `2.5`), as Perl's negative count took seconds.

use std::time::Duration;

use thiserror::Error;

/// The longest duration accepted: a day per case; longer is a typo.
pub const MAX_DURATION: Duration = Duration::from_secs(86_400);

/// A duration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("'{0}' is not a usable time: give e.g. 3, 3s, 500ms or 2m (more than 0, at most a day)")]
pub struct DurationError(pub String);

/// Read a duration: more than zero and at most [`MAX_DURATION`].
pub fn parse_duration(raw: &str) -> Result<Duration, DurationError> {
    let t = raw.trim();
    let parsed = match t.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 && secs <= MAX_DURATION.as_secs_f64() => {
            Some(Duration::from_secs_f64(secs))
        }
        Ok(_) => None,
        Err(_) => humantime::parse_duration(t).ok(),
    };
    parsed.filter(|d| !d.is_zero() && *d <= MAX_DURATION).ok_or_else(|| DurationError(raw.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_with_and_without_units() {
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert_eq!(parse_duration("2.5"), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1m 30s"), Ok(Duration::from_secs(90)));
        for bad in ["-1s", "0", "0s", "soon", "", "2d", "inf"] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.to_string().contains(&format!("'{bad}'")), "{e}");
        }
    }
}
