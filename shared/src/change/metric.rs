//! The figures a change can be judged on: wall rate (the default), CPU per request, median and 99th-percentile
//! latency, each per round (for the interval) and for the whole case (for the report).

use std::fmt;
use std::str::FromStr;

use crate::model::{Case, Round};

/// A figure of a case that a gate judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Metric {
    /// Ok requests per wall-clock second (higher is faster).
    #[default]
    Rate,
    /// Client CPU seconds per request (user + kernel; lower is faster).
    Cpu,
    /// Median latency of ok requests.
    P50,
    /// 99th-percentile latency of ok requests.
    P99,
}

impl Metric {
    /// Every metric's name, for help and error messages.
    pub const NAMES: &'static str = "rate, cpu, p50, p99";

    /// The name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Rate => "rate",
            Metric::Cpu => "cpu",
            Metric::P50 => "p50",
            Metric::P99 => "p99",
        }
    }

    /// What it measures, for report headings.
    pub fn describe(self) -> &'static str {
        match self {
            Metric::Rate => "wall rate",
            Metric::Cpu => "CPU per request",
            Metric::P50 => "median latency",
            Metric::P99 => "p99 latency",
        }
    }

    /// The unit its changes are said in: `req/s`, `CPU/req`, `p50`, `p99`.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Rate => "req/s",
            Metric::Cpu => "CPU/req",
            Metric::P50 => "p50",
            Metric::P99 => "p99",
        }
    }

    /// Whether a larger figure is faster (a rate) rather than slower (a cost).
    pub fn higher_is_faster(self) -> bool {
        self == Metric::Rate
    }

    /// What one round's requests cost by this metric, where the round has it: for a rate, wall seconds per ok
    /// request (its inverse, so that every metric's slowdown is the relative growth of a cost, and a rate
    /// interval never reaches past a rate of zero).
    pub fn cost_of_round(self, r: &Round) -> Option<f64> {
        match self {
            Metric::Rate => (r.ok > 0 && r.wall_secs > 0.0).then(|| r.wall_secs / r.ok as f64),
            Metric::Cpu => r.cpu_secs.filter(|_| r.iterations > 0).map(|s| s / r.iterations as f64),
            Metric::P50 => r.latency_p50_ns,
            Metric::P99 => r.latency_p99_ns,
        }
    }

    /// A figure of this metric as a cost (time per request, growing when things get slower): a rate inverted,
    /// any other as it is. Its own inverse: [`Metric::from_cost`].
    pub fn to_cost(self, figure: f64) -> f64 {
        if self.higher_is_faster() {
            1.0 / figure
        } else {
            figure
        }
    }

    /// A cost back as this metric's figure (see [`Metric::to_cost`]).
    pub fn from_cost(self, cost: f64) -> f64 {
        self.to_cost(cost)
    }

    /// The figure of the whole case, where it has it.
    pub fn of_case(self, c: &Case) -> Option<f64> {
        match self {
            Metric::Rate => (c.wall_secs > 0.0).then_some(c.rate_wall),
            Metric::Cpu => {
                let cpu = c.cpu_user_secs? + c.cpu_sys_secs?;
                (c.iterations > 0).then(|| cpu / c.iterations as f64)
            }
            Metric::P50 => c.latency_ns.as_ref().map(|l| l.p50),
            Metric::P99 => c.latency_ns.as_ref().map(|l| l.p99),
        }
    }

    /// The 95% interval of a case's figure: from its rounds' costs on a log scale ([`positive_interval`]), so
    /// it never reaches zero or below, turned back into the metric's figure (a rate's bounds swap); a rate from
    /// the file's spread where it kept fewer than two rounds with the figure. `None` when neither says.
    pub fn interval(self, c: &Case) -> Option<(f64, f64)> {
        let costs: Vec<f64> = c.rounds.iter().filter_map(|r| self.cost_of_round(r)).filter(|v| *v > 0.0).collect();
        if costs.len() >= 2 {
            let (lo, _, hi) = crate::inference::positive_interval(&costs);
            let (a, b) = (self.from_cost(lo), self.from_cost(hi));
            return Some((a.min(b), a.max(b)));
        }
        let spread = c.rate_wall_spread.filter(|s| self == Metric::Rate && s.rounds >= 2)?;
        Some((spread.ci95_low, spread.ci95_high))
    }

    /// `value` in this metric's unit, for reports: `12.3k req/s`, `41.0 µs/req`, `310 µs`.
    pub fn show(self, value: f64) -> String {
        match self {
            Metric::Rate => format!("{} req/s", crate::units::rate(value)),
            Metric::Cpu => format!("{}/req", crate::units::duration_ns(value * 1e9)),
            Metric::P50 | Metric::P99 => crate::units::duration_ns(value),
        }
    }

    /// Why a case has no figure of this metric (for an unjudged change).
    pub fn missing(self) -> &'static str {
        match self {
            Metric::Rate => "no round took any time",
            Metric::Cpu => "no CPU time recorded per round (a browser, or a file before version 4)",
            Metric::P50 | Metric::P99 => "no latency recorded per round (no ok request, or a file before version 4)",
        }
    }
}

impl FromStr for Metric {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [Metric::Rate, Metric::Cpu, Metric::P50, Metric::P99]
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| format!("unknown metric '{s}': expected one of {}", Metric::NAMES))
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
