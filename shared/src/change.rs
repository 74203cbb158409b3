//! Change between two reports of the same cases (yesterday vs today, baseline vs now), criterion style: per
//! case, the relative change of the mean wall rate with a 95% confidence interval from Welch's t over the
//! rounds of both (Welch 1947, "The generalization of Student's problem when several different population
//! variances are involved"), and a verdict that treats changes inside ±2% as noise, as criterion does.

use crate::inference::t975;
use crate::model::{Case, Report};

/// Relative changes smaller than this are noise, however significant (criterion's default threshold).
pub const NOISE_THRESHOLD: f64 = 0.02;

/// What a change amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Faster, beyond the noise threshold, with 95% confidence.
    Improved,
    /// Slower, beyond the noise threshold, with 95% confidence.
    Regressed,
    /// The confidence interval includes no change.
    NoChange,
    /// Significant, but smaller than the noise threshold.
    WithinNoise,
    /// One side has fewer than two rounds: no interval can be computed.
    Unknown,
}

impl Verdict {
    /// The words used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Improved => "improved",
            Verdict::Regressed => "regressed",
            Verdict::NoChange => "no change",
            Verdict::WithinNoise => "within noise",
            Verdict::Unknown => "no interval (fewer than 2 rounds)",
        }
    }
}

/// The change of one case.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// `client/mode`.
    pub case: String,
    /// Wall rate before, requests per second.
    pub before: f64,
    /// Wall rate after, requests per second.
    pub after: f64,
    /// Relative change of the mean per-round rate, as a fraction (+0.05 = 5% faster).
    pub change: f64,
    /// 95% confidence interval of `change`, where both sides have at least two rounds.
    pub interval: Option<(f64, f64)>,
    /// The verdict.
    pub verdict: Verdict,
}

/// Changes from `before` to `after` for every (client, mode) both reports hold, in `before`'s order.
pub fn changes(before: &Report, after: &Report) -> Vec<Change> {
    before
        .cases
        .iter()
        .filter_map(|b| {
            let a = after.cases.iter().find(|a| a.client == b.client && a.mode == b.mode)?;
            Some(change(b, a))
        })
        .collect()
}

fn rates(c: &Case) -> Vec<f64> {
    c.rounds.iter().filter(|r| r.wall_secs > 0.0).map(|r| r.ok as f64 / r.wall_secs).collect()
}

fn mean_var(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    (m, x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0))
}

/// The change of one case from `b` (before) to `a` (after).
pub fn change(b: &Case, a: &Case) -> Change {
    let (rb, ra) = (rates(b), rates(a));
    let case = format!("{}/{}", b.client, b.mode);
    if rb.len() < 2 || ra.len() < 2 || b.rate_wall <= 0.0 {
        let change = if b.rate_wall > 0.0 { a.rate_wall / b.rate_wall - 1.0 } else { 0.0 };
        return Change {
            case,
            before: b.rate_wall,
            after: a.rate_wall,
            change,
            interval: None,
            verdict: Verdict::Unknown,
        };
    }
    let ((mb, vb), (ma, va)) = (mean_var(&rb), mean_var(&ra));
    let (nb, na) = (rb.len() as f64, ra.len() as f64);
    let (sb, sa) = (vb / nb, va / na);
    let se = (sb + sa).sqrt();
    // Welch–Satterthwaite degrees of freedom; with no spread at all, the difference is exact.
    let df = if se > 0.0 { (sb + sa).powi(2) / (sb.powi(2) / (nb - 1.0) + sa.powi(2) / (na - 1.0)) } else { 1e9 };
    let half = t975(df.floor().clamp(1.0, 1e9) as u32) * se;
    let diff = ma - mb;
    let (low, high) = ((diff - half) / mb, (diff + half) / mb);
    let change = diff / mb;
    let verdict = if low <= 0.0 && high >= 0.0 {
        Verdict::NoChange
    } else if change.abs() < NOISE_THRESHOLD {
        Verdict::WithinNoise
    } else if change > 0.0 {
        Verdict::Improved
    } else {
        Verdict::Regressed
    };
    Change { case, before: b.rate_wall, after: a.rate_wall, change, interval: Some((low, high)), verdict }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::{Mode, Round};

    fn case(rates: &[u64]) -> Case {
        let rounds: Vec<Round> = rates.iter().map(|&r| Round { iterations: r, ok: r, wall_secs: 1.0 }).collect();
        let ok: u64 = rates.iter().sum();
        Case {
            client: "c".into(),
            mode: Mode::Reuse,
            http_version: Default::default(),
            tls: None,
            tls_full_handshakes: None,
            tls_resumed_handshakes: None,
            concurrency: None,
            body_bytes: None,
            server_delay_ms: None,
            connections: None,
            iterations: ok,
            ok,
            errors: BTreeMap::new(),
            error_reasons: Default::default(),
            statuses: BTreeMap::new(),
            wall_secs: rates.len() as f64,
            cpu_user_secs: None,
            cpu_sys_secs: None,
            rate_wall: ok as f64 / rates.len() as f64,
            rate_cpu: None,
            bytes: 0,
            latency_ns: None,
            latency_outliers: 0,
            latency_mean_without_outliers_ns: None,
            rounds,
            rate_wall_spread: None,
            phases_ns: None,
            aborted: None,
        }
    }

    #[test]
    fn welch_interval_of_known_samples() {
        // before: 100, 102, 98, 101, 99 (mean 100, var 2.5); after: 110, 111, 109, 112, 108 (mean 110, var 2.5).
        // se = √(0.5 + 0.5) = 1; df = 1 / (0.25/4 · 2) = 8; t(8) = 2.306: diff 10 ± 2.306.
        let c = change(&case(&[100, 102, 98, 101, 99]), &case(&[110, 111, 109, 112, 108]));
        assert!((c.change - 0.10).abs() < 1e-12);
        let (lo, hi) = c.interval.unwrap();
        assert!((lo - (10.0 - 2.306) / 100.0).abs() < 1e-9 && (hi - (10.0 + 2.306) / 100.0).abs() < 1e-9);
        assert_eq!(c.verdict, Verdict::Improved);
    }

    #[test]
    fn verdicts_on_both_sides_of_each_threshold() {
        let base = [1000, 1002, 998, 1001, 999];
        assert_eq!(change(&case(&base), &case(&[900, 902, 898, 901, 899])).verdict, Verdict::Regressed);
        assert_eq!(change(&case(&base), &case(&[1010, 1012, 1008, 1011, 1009])).verdict, Verdict::WithinNoise);
        assert_eq!(change(&case(&base), &case(&[1000, 1003, 997, 1002, 998])).verdict, Verdict::NoChange);
        assert_eq!(change(&case(&base), &case(&[1030, 1032, 1028, 1031, 1029])).verdict, Verdict::Improved);
        assert_eq!(change(&case(&[1000]), &case(&[2000])).verdict, Verdict::Unknown);
    }
}
