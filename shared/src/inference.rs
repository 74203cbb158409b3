//! Inference over rounds: Student-t confidence intervals, the coefficient of variation, Welch's interval of a
//! relative change, and relative speed with propagated uncertainty. Pure functions of the numbers they are given.

use crate::model::{Round, Spread};

/// Two-sided 95% quantiles of Student's t for 1–30 degrees of freedom (t₀.₉₇₅), from standard tables.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// t₀.₉₇₅ for `df` degrees of freedom: the table up to 30, beyond it the Cornish–Fisher expansion around the
/// normal quantile (error below 0.001 there).
pub fn t975(df: u32) -> f64 {
    match df {
        0 => f64::INFINITY,
        1..=30 => T975[(df - 1) as usize],
        _ => {
            let z = 1.959_963_984_540_054_f64;
            let n = f64::from(df);
            z + (z.powi(3) + z) / (4.0 * n) + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * n * n)
        }
    }
}

/// Spread of the per-round wall rates; `None` with fewer than two rounds that took any time.
pub fn spread(rounds: &[Round]) -> Option<Spread> {
    let rates: Vec<f64> = rounds.iter().filter(|r| r.wall_secs > 0.0).map(|r| r.ok as f64 / r.wall_secs).collect();
    let n = rates.len();
    if n < 2 {
        return None;
    }
    let (mean, var) = mean_var(&rates);
    let stddev = var.sqrt();
    let stderr = stddev / (n as f64).sqrt();
    let half = t975(n as u32 - 1) * stderr;
    Some(Spread {
        rounds: n as u32,
        mean,
        stddev,
        stderr,
        ci95_low: (mean - half).max(0.0),
        ci95_high: mean + half,
        cv: if mean > 0.0 { stddev / mean } else { 0.0 },
    })
}

/// The mean and the sample variance (n − 1 in the denominator) of `x`, at least two values.
fn mean_var(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    (mean, x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0))
}

/// The difference of the means from samples `b` to samples `a` (each at least two values), `a − b`, with its
/// 95% interval by Welch's t (Welch 1947, "The generalization of Student's problem when several different
/// population variances are involved"): (low, estimate, high), in the samples' unit.
pub fn welch_difference(b: &[f64], a: &[f64]) -> (f64, f64, f64) {
    let ((mb, vb), (ma, va)) = (mean_var(b), mean_var(a));
    let (nb, na) = (b.len() as f64, a.len() as f64);
    let (sb, sa) = (vb / nb, va / na);
    let se = (sb + sa).sqrt();
    // Welch–Satterthwaite degrees of freedom; with no spread at all, the difference is exact.
    let df = if se > 0.0 { (sb + sa).powi(2) / (sb.powi(2) / (nb - 1.0) + sa.powi(2) / (na - 1.0)) } else { 1e9 };
    let half = t975(df.floor().clamp(1.0, 1e9) as u32) * se;
    let diff = ma - mb;
    (diff - half, diff, diff + half)
}

/// The relative change of the mean from samples `b` to samples `a` (each at least two values), with its 95%
/// interval by Welch's t ([`welch_difference`]): (low, estimate, high), as fractions of `b`'s mean.
pub fn welch(b: &[f64], a: &[f64]) -> (f64, f64, f64) {
    let mb = mean_var(b).0;
    let (low, diff, high) = welch_difference(b, a);
    (low / mb, diff / mb, high / mb)
}

/// How many times `a`'s mean is `b`'s, from positive samples (each at least two), with a 95% interval that
/// cannot reach zero: Welch's interval of the difference of their logarithms, exponentiated (the ratio of
/// geometric means). (low, estimate, high).
pub fn ratio_interval(b: &[f64], a: &[f64]) -> (f64, f64, f64) {
    let ln = |x: &[f64]| x.iter().map(|v| v.ln()).collect::<Vec<f64>>();
    let (low, diff, high) = welch_difference(&ln(b), &ln(a));
    (low.exp(), diff.exp(), high.exp())
}

/// The mean of positive samples (at least two) with a 95% interval that cannot reach zero: Student's t on
/// their logarithms, exponentiated (the geometric mean's interval). (low, geometric mean, high).
pub fn positive_interval(x: &[f64]) -> (f64, f64, f64) {
    let logs: Vec<f64> = x.iter().map(|v| v.ln()).collect();
    let (mean, var) = mean_var(&logs);
    let half = t975(logs.len() as u32 - 1) * (var / logs.len() as f64).sqrt();
    ((mean - half).exp(), mean.exp(), (mean + half).exp())
}

/// How many times faster `a` is than `b`, with the uncertainty of that ratio propagated to first order from the
/// standard errors of both rates: σ(a/b) = (a/b)·√((σa/a)² + (σb/b)²), as hyperfine does with its σ.
pub fn ratio(a: f64, a_err: f64, b: f64, b_err: f64) -> Option<(f64, f64)> {
    if !(a > 0.0 && b > 0.0) {
        return None;
    }
    let r = a / b;
    Some((r, r * ((a_err / a).powi(2) + (b_err / b).powi(2)).sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(ok: u64, wall_secs: f64) -> Round {
        Round { iterations: ok, ok, wall_secs, cpu_secs: None, latency_p50_ns: None, latency_p99_ns: None }
    }

    #[test]
    fn t_quantiles_match_tables_and_approach_the_normal() {
        assert_eq!(t975(1), 12.706);
        assert_eq!(t975(4), 2.776);
        assert_eq!(t975(30), 2.042);
        // Tables: t(40) = 2.021, t(60) = 2.000, t(120) = 1.980.
        assert!((t975(40) - 2.021).abs() < 0.001, "{}", t975(40));
        assert!((t975(60) - 2.000).abs() < 0.001, "{}", t975(60));
        assert!((t975(120) - 1.980).abs() < 0.001, "{}", t975(120));
        assert!((t975(100_000) - 1.960).abs() < 0.001);
    }

    #[test]
    fn spread_of_known_rates() {
        // Rates 10, 12, 11, 13, 9 per second: mean 11, s = √2.5, se = √0.5, t(4) = 2.776.
        let rounds: Vec<Round> = [10, 12, 11, 13, 9].iter().map(|&ok| round(ok, 1.0)).collect();
        let s = spread(&rounds).unwrap();
        assert_eq!(s.rounds, 5);
        assert!((s.mean - 11.0).abs() < 1e-12);
        assert!((s.stddev - 2.5f64.sqrt()).abs() < 1e-12);
        assert!((s.stderr - 0.5f64.sqrt()).abs() < 1e-12);
        let half = 2.776 * 0.5f64.sqrt();
        assert!((s.ci95_low - (11.0 - half)).abs() < 1e-9 && (s.ci95_high - (11.0 + half)).abs() < 1e-9);
        assert!((s.cv - 2.5f64.sqrt() / 11.0).abs() < 1e-12);
        assert!(spread(&rounds[..1]).is_none());
    }

    #[test]
    fn log_intervals_stay_positive_and_hold_their_estimate() {
        // Welch's difference of known samples: means 10 and 12, variances 2.5 each over 5, se = 1, df = 8.
        let b = [8.0, 9.0, 10.0, 11.0, 12.0];
        let a = [10.0, 11.0, 12.0, 13.0, 14.0];
        let (lo, d, hi) = welch_difference(&b, &a);
        assert!((d - 2.0).abs() < 1e-12 && (hi - d - 2.306).abs() < 1e-9 && (d - lo - 2.306).abs() < 1e-9);
        // A wide spread: the arithmetic interval of a rate would reach below zero, the log one never does.
        let wide = [1.0, 9.0, 2.0, 12.0];
        let (lo, g, hi) = positive_interval(&wide);
        assert!(lo > 0.0 && lo < g && g < hi, "{lo} {g} {hi}");
        let (lo, r, hi) = ratio_interval(&wide, &wide.map(|v| v * 3.0));
        assert!((r - 3.0).abs() < 1e-9 && lo > 0.0 && lo < 3.0 && hi > 3.0, "{lo} {r} {hi}");
        // Identical samples: an exact ratio.
        let (lo, r, hi) = ratio_interval(&[2.0, 2.0], &[4.0, 4.0]);
        assert_eq!((lo, r, hi), (2.0, 2.0, 2.0));
    }

    #[test]
    fn ratio_propagates_relative_errors() {
        let (r, e) = ratio(200.0, 6.0, 100.0, 4.0).unwrap();
        assert_eq!(r, 2.0);
        // √(0.03² + 0.04²) = 0.05 relative.
        assert!((e - 0.1).abs() < 1e-12, "{e}");
        assert!(ratio(0.0, 0.0, 1.0, 0.0).is_none());
    }
}
