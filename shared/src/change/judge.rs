//! The verdict on one case's change and the comparison of two runs: Welch's t over both runs' per-round costs
//! ([`welch`]) gives the relative slowdown with a 95% interval, judged against the rule's threshold; a change
//! that fails requests the base did not fail is failed whatever its speed (a dead server answers fast).

use serde::Serialize;

use super::matching::Plan;
use super::{Rule, Run};
use crate::inference::welch;
use crate::model::{Case, Report};

/// What a change amounts to under a [`Rule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The change fails requests the base did not fail (a kind of failure the base never had), or has no ok
    /// request at all: broken, whatever its figures say (see the change's reason for the kinds).
    Failed,
    /// Slower by more than the threshold, even at the favourable end of the 95% interval.
    Slower,
    /// Faster by more than the threshold, even at the unfavourable end of the 95% interval.
    Faster,
    /// The whole 95% interval lies within ± the threshold.
    Unchanged,
    /// The interval reaches past the threshold without lying beyond it: more rounds or requests would tell.
    Inconclusive,
    /// The figure is missing on one side, or in every round of one side (see the change's reason).
    Unjudged,
}

impl Verdict {
    /// The word used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Failed => "failed",
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::Unchanged => "same",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Unjudged => "unjudged",
        }
    }

    /// The glyph and the word, as every report and the terminal's colours show a verdict: `▼ slower`.
    pub fn label(self) -> String {
        format!("{} {}", self.glyph(), self.as_str())
    }

    /// One glyph per verdict, for change lines and tables: ▼ slower, ▲ faster, ≈ unchanged, ? inconclusive,
    /// ✗ failed, – unjudged.
    pub fn glyph(self) -> &'static str {
        match self {
            Verdict::Failed => "✗",
            Verdict::Slower => "▼",
            Verdict::Faster => "▲",
            Verdict::Unchanged => "≈",
            Verdict::Inconclusive => "?",
            Verdict::Unjudged => "–",
        }
    }
}

/// The change of one case from one run to the next.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The case's label (client, mode and the dimensions that vary).
    pub case: String,
    /// The whole case's figure before, in the metric's unit (requests per second, CPU seconds per request, or
    /// nanoseconds).
    pub before: Option<f64>,
    /// The whole case's figure after, in the same unit.
    pub after: Option<f64>,
    /// Relative slowdown: the growth of the mean per-round cost (wall time, CPU or latency per request), as a
    /// fraction: +0.05 takes 5% more; negative is faster.
    pub slowdown: Option<f64>,
    /// 95% interval of `slowdown`, where both runs have at least two rounds with the figure.
    pub interval: Option<(f64, f64)>,
    /// The verdict.
    pub verdict: Verdict,
    /// Why the verdict is inconclusive or unjudged, and what to do.
    pub reason: Option<String>,
    /// The 95% interval of `before` ([`Metric::interval`]), for a chart's whiskers; not in the JSON.
    #[serde(skip)]
    pub before_interval: Option<(f64, f64)>,
    /// The 95% interval of `after`.
    #[serde(skip)]
    pub after_interval: Option<(f64, f64)>,
}

/// Two runs compared case by case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The earlier run's name (its file's name).
    pub before: String,
    /// The later run's name.
    pub after: String,
    /// The rule every case was judged by.
    pub rule: Rule,
    /// Every case both runs hold, in the earlier run's order.
    pub changes: Vec<Change>,
    /// Cases only the earlier run holds: listed, not judged.
    pub only_before: Vec<String>,
    /// Cases only the later run holds: listed, not judged.
    pub only_after: Vec<String>,
    /// What differs between the runs' environments that moves figures (empty: comparable).
    pub differences: Vec<String>,
    /// The load each run held at one value that differs between them (another server delay, say): the cases
    /// are matched without it, and the change is what the user changed.
    pub plan: Vec<String>,
    /// The runs (by name) that hold a partial report: stopped before their plan was done (Ctrl-C, SIGTERM),
    /// their cases hold what was measured until then.
    pub partial: Vec<String>,
}

impl Comparison {
    /// How many changes have this verdict.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.changes.iter().filter(|c| c.verdict == verdict).count()
    }

    /// One line: how many cases were judged what (`2 slower, 4 unchanged, 1 inconclusive`).
    pub fn tally(&self) -> String {
        let all = [
            Verdict::Failed,
            Verdict::Slower,
            Verdict::Faster,
            Verdict::Unchanged,
            Verdict::Inconclusive,
            Verdict::Unjudged,
        ];
        let parts: Vec<String> = all
            .into_iter()
            .filter(|v| self.count(*v) > 0)
            .map(|v| format!("{} {}", self.count(v), v.as_str()))
            .collect();
        if parts.is_empty() {
            "no case in common".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// Compare two runs: the reports of each kind (native, browser), pooled within each run when a run is several
/// files, each case with the case of the same [`CaseKey`] less the plan's fixed dimensions.
pub fn compare(before: &Run<'_>, after: &Run<'_>, rule: Rule) -> Comparison {
    let mut out = Comparison {
        before: before.name.clone(),
        after: after.name.clone(),
        rule,
        changes: Vec::new(),
        only_before: Vec::new(),
        only_after: Vec::new(),
        differences: Vec::new(),
        plan: Vec::new(),
        partial: [before, after]
            .iter()
            .filter(|r| r.reports.iter().any(|r| r.partial))
            .map(|r| r.name.clone())
            .collect(),
    };
    let sides = super::matching::sides(before, after);
    let prefixed = sides.len() > 1;
    let labels = |r: &Report| -> Vec<String> {
        let rows = crate::view::rows(&[crate::view::Source::new(r)]);
        let name = r.environment.name();
        rows.into_iter().map(|row| if prefixed { format!("{name}/{}", row.label) } else { row.label }).collect()
    };
    for side in &sides {
        match (&side.before, &side.after) {
            (Some(b), Some(a)) => {
                out.differences.extend(super::differences(b, a));
                let plan = Plan::of(&b.cases, &a.cases);
                out.plan.extend(plan.differences.iter().cloned());
                let key = |c: &Case| plan.key(c);
                let (lb, la) = (labels(b), labels(a));
                for (cb, label) in b.cases.iter().zip(lb) {
                    match a.cases.iter().find(|ca| key(ca) == key(cb)) {
                        Some(ca) => out.changes.push(judge(label, cb, ca, rule)),
                        None => out.only_before.push(label),
                    }
                }
                let known = |ca: &Case| b.cases.iter().any(|cb| key(cb) == key(ca));
                out.only_after.extend(a.cases.iter().zip(la).filter(|(ca, _)| !known(ca)).map(|(_, l)| l));
            }
            (Some(b), None) => out.only_before.extend(labels(b)),
            (None, Some(a)) => out.only_after.extend(labels(a)),
            (None, None) => {}
        }
    }
    out
}

/// The change of one case from `b` to `a` under `rule`: [`Verdict::Failed`] when `a` fails requests `b` did not
/// ([`failures`]), else the metric's verdict.
pub fn judge(case: String, b: &Case, a: &Case, rule: Rule) -> Change {
    let intervals = (rule.metric.interval(b), rule.metric.interval(a));
    let change = Change { before_interval: intervals.0, after_interval: intervals.1, ..judge_metric(case, b, a, rule) };
    match failures(b, a) {
        Some(reason) => Change { verdict: Verdict::Failed, reason: Some(reason), ..change },
        None => change,
    }
}

/// Why `a` is broken where `b` was not, naming the kinds of failure with their counts: no ok request, or
/// failures of a kind `b` never had. A kind `b` also failed is left to the metric (its ok rate shows it).
fn failures(b: &Case, a: &Case) -> Option<String> {
    let kinds = |only_new: bool| -> Vec<String> {
        a.errors
            .iter()
            .filter(|(k, n)| **n > 0 && (!only_new || b.errors.get(k).copied().unwrap_or(0) == 0))
            .map(|(k, n)| format!("{k} {n} of {}", a.iterations))
            .collect()
    };
    if a.ok == 0 {
        let why = match (kinds(false), &a.aborted) {
            (k, _) if !k.is_empty() => k.join(", "),
            (_, Some(aborted)) => format!("stopped early: {aborted}"),
            _ => "no request made".to_string(),
        };
        return Some(format!("no ok request: {why}"));
    }
    let new = kinds(true);
    (!new.is_empty()).then(|| format!("fails requests the base did not: {}", new.join(", ")))
}

/// The change of one case's figure from `b` to `a` under `rule`, failures aside.
fn judge_metric(case: String, b: &Case, a: &Case, rule: Rule) -> Change {
    let metric = rule.metric;
    let (before, after) = (metric.of_case(b), metric.of_case(a));
    let per_round = |c: &Case| -> Vec<f64> {
        c.rounds.iter().filter_map(|r| metric.cost_of_round(r)).filter(|v| v.is_finite()).collect()
    };
    let (xb, xa) = (per_round(b), per_round(a));
    let unjudged = |reason: String| Change {
        case: case.clone(),
        before,
        after,
        slowdown: None,
        interval: None,
        verdict: Verdict::Unjudged,
        reason: Some(reason),
        before_interval: None,
        after_interval: None,
    };
    let (Some(vb), Some(va)) = (before, after) else { return unjudged(metric.missing().to_string()) };
    if vb <= 0.0 || va <= 0.0 {
        return unjudged(format!("a {} of 0 cannot be compared", metric.describe()));
    }
    // No round with the figure (a file before version 4 has no percentiles per round): nothing to judge by,
    // which more rounds would not change.
    if let Some(side) = [(&xb, "the base"), (&xa, "the change")].into_iter().find(|(x, _)| x.is_empty()) {
        return unjudged(format!("no round of {} has its {}: {}", side.1, metric.describe(), metric.missing()));
    }
    if xb.len() < 2 || xa.len() < 2 {
        return Change {
            slowdown: Some(if metric.higher_is_faster() { vb / va - 1.0 } else { va / vb - 1.0 }),
            verdict: Verdict::Inconclusive,
            reason: Some("fewer than 2 rounds with the figure: no interval; raise --rounds".to_string()),
            ..unjudged(String::new())
        };
    }
    let (s_low, mid, s_high) = welch(&xb, &xa);
    // Files are checked for figures that overflow when read; this keeps any that slip through from giving a
    // NaN verdict (every comparison with NaN is false: it would read as inconclusive).
    if ![s_low, mid, s_high].iter().all(|v| v.is_finite()) {
        return unjudged(format!("the {} per round is out of range: no interval", metric.describe()));
    }
    // A cost cannot shrink by more than all of it, whatever the interval's arithmetic says.
    let s_low = s_low.max(-1.0);
    let t = rule.threshold;
    let verdict = if s_low > t {
        Verdict::Slower
    } else if s_high < -t {
        Verdict::Faster
    } else if s_low >= -t && s_high <= t {
        Verdict::Unchanged
    } else {
        Verdict::Inconclusive
    };
    let reason = (verdict == Verdict::Inconclusive)
        .then(|| format!("the interval reaches past ±{:.1}%: raise --rounds or -n to narrow it", t * 100.0));
    let (before_interval, after_interval) = (None, None);
    Change {
        case,
        before,
        after,
        slowdown: Some(mid),
        interval: Some((s_low, s_high)),
        verdict,
        reason,
        before_interval,
        after_interval,
    }
}
