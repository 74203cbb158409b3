//! The range of each figure a result file holds: times, latencies and spreads a run can produce, so that the
//! statistics computed from a file (means and variances over rounds) are never infinite or NaN.

use crate::model::Case;

/// The longest time a result file's figure can hold, in seconds (about 31 years): more than any run lasts, and
/// far enough below where the statistics over rounds (means and variances of per-request costs, in seconds or
/// nanoseconds) overflow that none of them is ever infinite or NaN.
pub const MAX_SECS: f64 = 1e9;

/// The shortest time other than 0 a figure in seconds can hold: no clock measures less than a nanosecond, and a
/// smaller one would make a rate (ok / seconds) overflow in its turn.
pub const MIN_SECS: f64 = 1e-9;

/// Spreads of rates are at most this (a rate is at most 2⁶⁴ requests in [`MIN_SECS`], under 2e28 per second).
const MAX_RATE: f64 = 1e30;

/// What a figure of a result file measures, for the range it must lie in.
#[derive(Clone, Copy)]
enum Unit {
    /// Seconds: 0, or from [`MIN_SECS`] to [`MAX_SECS`].
    Secs,
    /// Nanoseconds: from 0 to [`MAX_SECS`] in nanoseconds.
    Nanos,
    /// A rate or its spread: at most [`MAX_RATE`] either way.
    Rate,
}

impl Unit {
    fn fits(self, v: f64) -> bool {
        v.is_finite()
            && match self {
                Unit::Secs => v == 0.0 || (MIN_SECS..=MAX_SECS).contains(&v),
                Unit::Nanos => (0.0..=MAX_SECS * 1e9).contains(&v),
                Unit::Rate => v.abs() <= MAX_RATE,
            }
    }

    fn expected(self) -> &'static str {
        match self {
            Unit::Secs => "0 or a time from 1e-9 s to 1e9 s",
            Unit::Nanos => "a time from 0 to 1e18 ns",
            Unit::Rate => "a rate of at most 1e30",
        }
    }
}

/// The first figure of a case (its times, its rounds', latencies, phases, the spread of its rates) out of the
/// range a run can produce, as `field is value, expected ...`.
pub(super) fn out_of_range(c: &Case) -> Option<String> {
    let mut figures: Vec<(String, f64, Unit)> = vec![("wall_secs".into(), c.wall_secs, Unit::Secs)];
    for (field, v) in [("cpu_user_secs", c.cpu_user_secs), ("cpu_sys_secs", c.cpu_sys_secs)] {
        figures.extend(v.map(|v| (field.to_string(), v, Unit::Secs)));
    }
    for (i, r) in c.rounds.iter().enumerate() {
        figures.push((format!("rounds[{i}].wall_secs"), r.wall_secs, Unit::Secs));
        figures.extend(r.cpu_secs.map(|v| (format!("rounds[{i}].cpu_secs"), v, Unit::Secs)));
        for (field, v) in [("latency_p50_ns", r.latency_p50_ns), ("latency_p99_ns", r.latency_p99_ns)] {
            figures.extend(v.map(|v| (format!("rounds[{i}].{field}"), v, Unit::Nanos)));
        }
    }
    let latency = c.latency_ns.iter().flat_map(|l| [l.min, l.mean, l.stddev, l.max]);
    figures.extend(latency.map(|v| ("latency_ns".to_string(), v, Unit::Nanos)));
    figures.extend(
        c.latency_mean_without_outliers_ns.map(|v| ("latency_mean_without_outliers_ns".into(), v, Unit::Nanos)),
    );
    let phases = c.phases_ns.iter().flat_map(|p| [Some(p.connect_mean), Some(p.ttfb_mean), p.tls_mean]).flatten();
    figures.extend(phases.map(|v| ("phases_ns".to_string(), v, Unit::Nanos)));
    let spread = c.rate_wall_spread.iter().flat_map(|s| [s.mean, s.stddev, s.stderr, s.ci95_low, s.ci95_high, s.cv]);
    figures.extend(spread.map(|v| ("rate_wall_spread".to_string(), v, Unit::Rate)));
    let (field, v, unit) = figures.into_iter().find(|(_, v, unit)| !unit.fits(*v))?;
    // 1e300 as written, not as three hundred digits.
    let shown = if v != 0.0 && !(1e-3..1e6).contains(&v.abs()) { format!("{v:e}") } else { v.to_string() };
    Some(format!("{field} is {shown}, expected {}", unit.expected()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_reports, ReportError};

    /// Figures that would overflow the statistics over rounds (a round of 1e300 s squares to infinity) are
    /// refused when read, naming the field; the edges of the range still read.
    #[test]
    fn figures_out_of_range_are_refused_naming_the_field() {
        let mut recorder = crate::stats::Recorder::new();
        for _ in 0..2 {
            recorder.record(&crate::Outcome::response(200, 0), std::time::Duration::from_micros(100));
            recorder.end_round(std::time::Duration::from_micros(100), None);
        }
        let mut good = crate::fixture::report(crate::model::EnvironmentKind::Native);
        good.cases.push(recorder.finish("curl", crate::Mode::Reuse, None));
        let with_round_walls = |secs: f64| {
            let mut r = good.clone();
            let c = &mut r.cases[0];
            c.rounds.iter_mut().for_each(|round| round.wall_secs = secs);
            c.wall_secs = secs * 2.0;
            c.rate_wall = c.ok as f64 / c.wall_secs;
            c.rate_wall_spread = None;
            parse_reports(&serde_json::to_string(&r).unwrap())
        };
        let Err(ReportError::Absurd(why)) = with_round_walls(1e300) else { panic!("1e300 s read") };
        assert!(why.contains("wall_secs is 2e300, expected 0 or a time from 1e-9 s to 1e9 s"), "{why}");
        let Err(ReportError::Absurd(why)) = with_round_walls(1e-300) else { panic!("1e-300 s read") };
        assert!(why.contains("is 2e-300"), "{why}");
        assert!(with_round_walls(MAX_SECS / 2.0).is_ok() && with_round_walls(MIN_SECS).is_ok());
        let mut far = good.clone();
        far.cases[0].rounds[1].latency_p99_ns = Some(1e300);
        let Err(ReportError::Absurd(why)) = parse_reports(&serde_json::to_string(&far).unwrap()) else { panic!() };
        assert!(why.contains("rounds[1].latency_p99_ns is 1e300"), "{why}");
    }
}
