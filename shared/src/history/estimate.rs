//! The figure of a stretch of runs with its 95% interval, each run weighed by how precisely its own rounds
//! measured it: a random-effects mean (DerSimonian & Laird 1986), so a run whose rounds scattered (a busy
//! machine) counts for less, while the drift between runs, which rounds cannot see, still widens the interval.

use crate::change::Metric;
use crate::inference::t975;
use crate::model::Case;

/// One run's figure of one case, as a cost (seconds or nanoseconds per request: a rate is inverted so every
/// metric grows when things get slower), with the standard error its rounds give.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunFigure {
    /// The mean of the rounds' costs (the case's own figure when it has no rounds).
    pub cost: f64,
    /// Standard error of that mean from the rounds' spread; `None` with fewer than two rounds, or when every
    /// round gave the same figure (a percentile rounded alike: no spread measured, not a spread of zero).
    pub stderr: Option<f64>,
    /// The rounds it comes from (0 when the case had none).
    #[serde(default)]
    pub rounds: u32,
}

impl RunFigure {
    /// The half-width of this run's own 95% interval, from its rounds (Student's t with rounds − 1 degrees of
    /// freedom); `None` without a spread.
    pub fn half_width(&self) -> Option<f64> {
        Some(t975(self.rounds.saturating_sub(1)) * self.stderr?)
    }
}

impl RunFigure {
    /// `case`'s figure by `metric`, if it has one.
    pub fn of(case: &Case, metric: Metric) -> Option<RunFigure> {
        let costs: Vec<f64> =
            case.rounds.iter().filter_map(|r| metric.cost_of_round(r)).filter(|c| c.is_finite() && *c > 0.0).collect();
        if costs.len() >= 2 {
            let n = costs.len() as f64;
            let mean = costs.iter().sum::<f64>() / n;
            let var = costs.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / (n - 1.0);
            let stderr = Some((var / n).sqrt()).filter(|s| *s > 0.0);
            return Some(RunFigure { cost: mean, stderr, rounds: costs.len() as u32 });
        }
        let figure = metric.of_case(case).filter(|f| f.is_finite() && *f > 0.0)?;
        Some(RunFigure { cost: metric.to_cost(figure), stderr: None, rounds: costs.len() as u32 })
    }
}

/// A stretch's figure as a cost, with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Estimate {
    /// Runs it comes from.
    pub runs: usize,
    /// The weighted mean cost.
    pub cost: f64,
    /// Standard error of the mean cost (infinite for one run whose rounds gave no spread; null in JSON).
    #[serde(deserialize_with = "super::infinite_if_null")]
    pub stderr: f64,
    /// Low end of the 95% interval of the cost (never below zero).
    pub low: f64,
    /// High end (infinite for one run whose rounds gave no spread; null in JSON).
    #[serde(deserialize_with = "super::infinite_if_null")]
    pub high: f64,
}

/// The random-effects estimate of `figures` (at least one).
pub fn estimate(figures: &[RunFigure]) -> Option<Estimate> {
    let k = figures.len();
    if k == 0 {
        return None;
    }
    let y: Vec<f64> = figures.iter().map(|f| f.cost).collect();
    // A run without rounds gets the median of the others' variances (or none, if no run has rounds).
    let mut known: Vec<f64> = figures.iter().filter_map(|f| f.stderr).map(|s| s * s).collect();
    known.sort_by(f64::total_cmp);
    let fallback = known.get(known.len() / 2).copied().unwrap_or(0.0);
    let v: Vec<f64> = figures.iter().map(|f| f.stderr.map_or(fallback, |s| s * s)).collect();
    let tau2 = between_runs_variance(&y, &v);
    // A variance of zero (identical rounds) would give one run all the weight; a floor of a millionth of the
    // squared mean keeps the weights finite.
    let mean_y = y.iter().sum::<f64>() / k as f64;
    let floor = (mean_y * 1e-6).powi(2);
    let w: Vec<f64> = v.iter().map(|vi| 1.0 / (vi + tau2).max(floor)).collect();
    let sum_w: f64 = w.iter().sum();
    let cost = w.iter().zip(&y).map(|(wi, yi)| wi * yi).sum::<f64>() / sum_w;
    let (df, se) = if k >= 2 {
        (k as u32 - 1, (1.0 / sum_w).sqrt())
    } else if let Some(se) = figures[0].stderr {
        // One run: its rounds are all there is.
        (figures[0].rounds.saturating_sub(1), se)
    } else {
        (0, f64::INFINITY)
    };
    let half = t975(df) * se;
    Some(Estimate { runs: k, cost, stderr: se, low: (cost - half).max(0.0), high: cost + half })
}

/// DerSimonian and Laird's moment estimate of the variance between runs beyond what their rounds show:
/// τ² = max(0, (Q − (k − 1)) / (Σw − Σw²/Σw)), with w = 1/v and Q Cochran's heterogeneity statistic. With no
/// within-run variance known, the runs' own sample variance.
fn between_runs_variance(y: &[f64], v: &[f64]) -> f64 {
    let k = y.len();
    if k < 2 {
        return 0.0;
    }
    if v.iter().any(|vi| *vi <= 0.0) {
        let mean = y.iter().sum::<f64>() / k as f64;
        return y.iter().map(|yi| (yi - mean).powi(2)).sum::<f64>() / (k as f64 - 1.0);
    }
    let w: Vec<f64> = v.iter().map(|vi| 1.0 / vi).collect();
    let sum_w: f64 = w.iter().sum();
    let mean = w.iter().zip(y).map(|(wi, yi)| wi * yi).sum::<f64>() / sum_w;
    let q: f64 = w.iter().zip(y).map(|(wi, yi)| wi * (yi - mean).powi(2)).sum();
    let c = sum_w - w.iter().map(|wi| wi * wi).sum::<f64>() / sum_w;
    ((q - (k as f64 - 1.0)) / c).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(cost: f64, stderr: f64) -> RunFigure {
        RunFigure { cost, stderr: Some(stderr), rounds: 5 }
    }

    #[test]
    fn identical_precision_gives_the_plain_mean() {
        let e = estimate(&[fig(1.0, 0.1), fig(2.0, 0.1), fig(3.0, 0.1)]).unwrap();
        assert!((e.cost - 2.0).abs() < 1e-12);
        assert!(e.low < 2.0 && e.high > 2.0 && e.low >= 0.0);
    }

    #[test]
    fn a_noisy_run_weighs_less() {
        // Three precise runs near 1.0 and one imprecise run at 2.0: the mean stays near 1.0.
        let e = estimate(&[fig(1.0, 0.01), fig(1.02, 0.01), fig(0.98, 0.01), fig(2.0, 1.0)]).unwrap();
        assert!(e.cost < 1.1, "{e:?}");
        let plain = (1.0 + 1.02 + 0.98 + 2.0) / 4.0;
        assert!(e.cost < plain);
    }

    #[test]
    fn drift_between_runs_widens_the_interval() {
        // Rounds say each run is precise, but the runs disagree far beyond it: the interval must cover that.
        let tight = estimate(&[fig(1.0, 0.001), fig(1.0, 0.001), fig(1.0, 0.001)]).unwrap();
        let drifting = estimate(&[fig(0.9, 0.001), fig(1.0, 0.001), fig(1.1, 0.001)]).unwrap();
        assert!(drifting.high - drifting.low > 50.0 * (tight.high - tight.low), "{tight:?} {drifting:?}");
        assert!(drifting.low < 0.95 && drifting.high > 1.05);
    }

    #[test]
    fn one_run_takes_its_own_rounds_degrees_of_freedom() {
        // Two rounds: t with 1 degree of freedom (12.706), not the 2.776 of five rounds.
        let two = estimate(&[RunFigure { cost: 1.0, stderr: Some(0.01), rounds: 2 }]).unwrap();
        assert!((two.high - (1.0 + 12.706 * 0.01)).abs() < 1e-9, "{two:?}");
        let five = estimate(&[RunFigure { cost: 1.0, stderr: Some(0.01), rounds: 5 }]).unwrap();
        assert!((five.high - (1.0 + 2.776 * 0.01)).abs() < 1e-9, "{five:?}");
    }

    #[test]
    fn runs_without_rounds_still_estimate() {
        let bare = |cost| RunFigure { cost, stderr: None, rounds: 0 };
        let e = estimate(&[bare(1.0), bare(1.2), bare(0.8)]).unwrap();
        assert!((e.cost - 1.0).abs() < 1e-9 && e.low < 1.0 && e.high > 1.0);
        let one = estimate(&[bare(1.0)]).unwrap();
        assert!(one.high.is_infinite() && one.low == 0.0);
        assert!(estimate(&[]).is_none());
    }
}
