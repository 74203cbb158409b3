//! A history's runs cut into series (one case on one machine under one plan), and each series' change points
//! with the figure before and after them.

use super::{change_points, client_version, estimate, machine, plan, Estimate, Fingerprint, Query, RunFigure};
use crate::change::Verdict;
use crate::inference::t975;
use crate::model::Report;

/// A series holds its newest this many runs (older ones stay in the store, and in `export`): the change-point
/// search costs time and memory that grow with the square of its length (1000 runs: 4 MB, 17 ms for a series
/// of noise, about a second per change point kept).
pub const MAX_POINTS: usize = 1000;

/// One run of a history, as a store hands it over.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRun {
    /// The run's number in its store (1, 2, ...), in the order runs were added.
    pub id: i64,
    /// What the user called it: a commit, a tag, a date.
    pub label: Option<String>,
    /// Whether its change points were accepted as expected (`history --ack`).
    pub accepted: bool,
    /// The run's reports, as its result file holds them.
    pub reports: Vec<Report>,
}

impl StoredRun {
    /// When the run started (its earliest report's start), if its reports say.
    pub fn started_unix_ms(&self) -> Option<u64> {
        self.reports.iter().filter_map(|r| r.environment.started_unix_ms).min()
    }
}

/// One run's figure in a series.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Point {
    /// The run's number in its store.
    pub run: i64,
    /// The run's label.
    pub label: Option<String>,
    /// When it started, milliseconds since the Unix epoch.
    pub started_unix_ms: Option<u64>,
    /// Its figure (a cost: a rate is inverted).
    pub figure: RunFigure,
}

/// A change point of a series.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ChangePoint {
    /// The first run after the change.
    pub run: i64,
    /// That run's label.
    pub label: Option<String>,
    /// Its position in the series' points.
    pub index: usize,
    /// The figure of the runs from the previous change point (or the start) up to this one.
    pub before: Estimate,
    /// The figure of the runs from this one up to the next change point (or the end).
    pub after: Estimate,
    /// The relative change of the metric's own figure (a rate's fall is negative), with its 95% interval.
    pub change: f64,
    /// Low end of the change's interval.
    pub change_low: f64,
    /// High end of the change's interval (infinite when a side has one run without spread; null in JSON).
    #[serde(deserialize_with = "super::infinite_if_null")]
    pub change_high: f64,
    /// `slower` or `faster`.
    pub verdict: Verdict,
    /// The permutation test's p-value.
    pub p_value: f64,
    /// Accepted as expected (`history --ack RUN`): kept, but no longer reported as news.
    pub accepted: bool,
}

/// One case on one machine under one plan, run after run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Series {
    /// The case's full name ([`super::case_name`]).
    pub case: String,
    /// The machine it ran on.
    pub machine: Fingerprint,
    /// The case's client's version, where recorded: a new version starts a new series.
    pub client_version: Option<String>,
    /// The plan it ran under.
    pub plan: Fingerprint,
    /// Its runs, oldest first.
    pub points: Vec<Point>,
    /// Its change points, oldest first.
    pub changes: Vec<ChangePoint>,
}

/// A history read by one [`Query`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Analysis {
    /// The figure the series are made of.
    pub metric: crate::change::Metric,
    /// Runs in the history.
    pub runs: usize,
    /// The permutation test's significance level.
    pub alpha: f64,
    /// The smallest relative change reported.
    pub min_change: f64,
    /// Its series, in the order first seen.
    pub series: Vec<Series>,
}

/// Cut `runs` (oldest first) into series and find each one's change points. Partial reports are left out.
pub fn analyse(runs: &[StoredRun], query: &Query) -> Analysis {
    let mut series: Vec<Series> = Vec::new();
    for run in runs {
        // A partial run (stopped by Ctrl-C) is kept in the history but left out of its series: its cases
        // may have run fewer rounds, under a machine that was being stopped.
        for report in run.reports.iter().filter(|r| !r.partial) {
            let (plan, machine) = (plan(report), machine(report));
            for case in &report.cases {
                let Some(figure) = RunFigure::of(case, query.metric) else { continue };
                let (name, version) = (super::case_name(report, case), client_version(report, case));
                let point =
                    Point { run: run.id, label: run.label.clone(), started_unix_ms: run.started_unix_ms(), figure };
                let same = |s: &&mut Series| {
                    s.case == name && s.machine == machine && s.client_version == version && s.plan == plan
                };
                match series.iter_mut().find(same) {
                    // A run holding one case twice (pooled files) counts once.
                    Some(s) if s.points.last().is_some_and(|p| p.run == run.id) => {}
                    Some(s) => s.points.push(point),
                    None => series.push(Series {
                        case: name,
                        machine: machine.clone(),
                        client_version: version,
                        plan: plan.clone(),
                        points: vec![point],
                        changes: Vec::new(),
                    }),
                }
            }
        }
    }
    for s in &mut series {
        let skip = s.points.len().saturating_sub(MAX_POINTS);
        s.points.drain(..skip);
        s.changes = changes(&s.points, query);
        for c in &mut s.changes {
            c.accepted = runs.iter().any(|r| r.id == c.run && r.accepted);
        }
    }
    Analysis { metric: query.metric, runs: runs.len(), alpha: query.detect.alpha, min_change: query.min_change, series }
}

/// The change points of one series' points (none accepted yet): found by E-divisive, then the smallest
/// below `query.min_change` dropped one at a time (each drop joins two stretches, which changes its
/// neighbours' figures), as Otava's merge step does. [`analyse`] hands at most [`MAX_POINTS`] points.
pub fn changes(points: &[Point], query: &Query) -> Vec<ChangePoint> {
    let costs: Vec<f64> = points.iter().map(|p| p.figure.cost).collect();
    let mut found = change_points(&costs, &query.detect);
    loop {
        let described = describe(points, &found, query);
        let smallest = described
            .iter()
            .enumerate()
            .filter(|(_, c)| c.change.abs() < query.min_change)
            .min_by(|a, b| a.1.change.abs().total_cmp(&b.1.change.abs()));
        match smallest {
            Some((i, _)) => {
                found.remove(i);
            }
            None => return described,
        }
    }
}

/// Each change point with the estimates of the stretches on either side.
fn describe(points: &[Point], found: &[super::Found], query: &Query) -> Vec<ChangePoint> {
    let mut cuts: Vec<usize> = vec![0];
    cuts.extend(found.iter().map(|f| f.index));
    cuts.push(points.len());
    let stretch = |from: usize, to: usize| {
        let figures: Vec<RunFigure> = points[from..to].iter().map(|p| p.figure).collect();
        estimate(&figures)
    };
    let mut out = Vec::new();
    for (i, f) in found.iter().enumerate() {
        let (Some(before), Some(after)) = (stretch(cuts[i], cuts[i + 1]), stretch(cuts[i + 1], cuts[i + 2])) else {
            continue;
        };
        let (change, change_low, change_high) = relative_change(&before, &after, query.metric.higher_is_faster());
        let point = &points[f.index];
        out.push(ChangePoint {
            run: point.run,
            label: point.label.clone(),
            index: f.index,
            before,
            after,
            change,
            change_low,
            change_high,
            verdict: if after.cost > before.cost { Verdict::Slower } else { Verdict::Faster },
            p_value: f.p_value,
            accepted: false,
        });
    }
    out
}

/// The relative change of the figure from `before` to `after` (of a rate when `rate`, else of the cost), with
/// its 95% interval on the log scale (a ratio's interval is not symmetric, and never crosses −100%).
fn relative_change(before: &Estimate, after: &Estimate, rate: bool) -> (f64, f64, f64) {
    let log_ratio = (after.cost / before.cost).ln();
    let rel_se = |e: &Estimate| if e.cost > 0.0 { e.stderr / e.cost } else { f64::INFINITY };
    let se = (rel_se(before).powi(2) + rel_se(after).powi(2)).sqrt();
    let df = (before.runs.min(after.runs) as u32).saturating_sub(1).max(1);
    let half = t975(df) * se;
    let (lo, mid, hi) = (log_ratio - half, log_ratio, log_ratio + half);
    if rate {
        // The rate is the inverse of the cost: its log ratio is the negative.
        ((-mid).exp() - 1.0, (-hi).exp() - 1.0, (-lo).exp() - 1.0)
    } else {
        (mid.exp() - 1.0, lo.exp() - 1.0, hi.exp() - 1.0)
    }
}
