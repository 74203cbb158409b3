//! Change between runs of one plan (baseline vs change, yesterday vs today) and the regression gate on it: per
//! case, matched by its [`CaseKey`](crate::session::CaseKey), the relative slowdown of one [`Metric`] with a
//! 95% interval from Welch's t over both runs' rounds, judged against a threshold so that a gate fails only when
//! the slowdown minus its uncertainty exceeds what the user allows (mise #11387's lesson: a gate on the bare
//! ratio flags nearly every change).

pub(crate) mod comparable;
mod judge;
mod matching;
mod metric;
mod runs;

pub use comparable::differences;
pub use judge::{compare, judge, Change, Comparison, Verdict};
pub use metric::Metric;
pub use runs::{runs, Run};

/// Relative changes smaller than this are noise (criterion's default threshold): the threshold of the change
/// lines `compare` prints when no gate is asked for.
pub const NOISE_THRESHOLD: f64 = 0.02;

/// What a change is judged on, and how much slowdown is allowed.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Rule {
    /// The figure judged.
    pub metric: Metric,
    /// Allowed relative slowdown, as a fraction (0.05: 5% more time, CPU or latency per request).
    pub threshold: f64,
}

impl Default for Rule {
    fn default() -> Self {
        Rule { metric: Metric::Rate, threshold: NOISE_THRESHOLD }
    }
}

/// Parse a threshold as the user writes it: `5%`, `5` (percent) or `0.5%`; above 0 and below 1000%.
pub fn parse_threshold(text: &str) -> Result<f64, String> {
    let number = text.trim().strip_suffix('%').unwrap_or(text.trim());
    match number.trim().parse::<f64>() {
        Ok(p) if p > 0.0 && p < 1000.0 => Ok(p / 100.0),
        _ => Err(format!("'{text}' is not a threshold: give a percentage above 0, such as 5%")),
    }
}

#[cfg(test)]
mod tests;
