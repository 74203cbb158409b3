//! The change between runs as the reports show it: for two runs, a verdict line per case (text, Markdown); for
//! more, the trend of each case's figure over the runs, with the runs a gate would flag marked (text table and
//! a line chart). One home for both front ends and every format.

use crate::change::{compare, runs, Change, Comparison, Metric, Rule, Run, Verdict};
use crate::view::Source;

/// What a partial run is, after its name: the gate's warning and the change section's say it alike.
pub const PARTIAL: &str =
    "is partial: it was stopped before its plan was done, and its cases hold what it measured until then";

/// The comparisons of consecutive runs among `sources` (none with fewer than two runs).
pub fn comparisons(sources: &[Source<'_>], rule: Rule) -> Vec<Comparison> {
    let runs = runs(sources);
    runs.windows(2).map(|pair| compare(&pair[0], &pair[1], rule)).collect()
}

/// The text section: change lines for two runs, the trend table for more; `None` for one, or for two runs with
/// no case in common (a native and a browser report side by side are not a change).
pub(super) fn text(sources: &[Source<'_>], rule: Rule) -> Option<String> {
    let runs = runs(sources);
    match runs.as_slice() {
        [] | [_] => None,
        [before, after] => {
            Some(compare(before, after, rule)).filter(|c| !c.changes.is_empty()).map(|c| comparison_text(&c))
        }
        // Reports of different environments side by side (`run --browser all`) share no case: no trend.
        _ => {
            let table = trend(&runs, rule);
            (!table.is_empty()).then(|| trend_text(&runs, &table, rule))
        }
    }
}

/// The change in the metric's own direction and unit, with its interval: a rate's as the rate moved
/// (`−7.3% [−8.0%, −6.6%] req/s`: fewer requests per second), a cost's as the cost did (`+7.7% CPU/req`).
fn percent(c: &Change, metric: Metric) -> String {
    let pct = super::history::percent;
    // A slowdown s of the time per request is a rate change of 1 / (1 + s) − 1; the bounds swap.
    let own = |s: f64| if metric.higher_is_faster() { 1.0 / (1.0 + s) - 1.0 } else { s };
    let value = c.slowdown.map_or_else(|| "-".to_string(), |s| pct(own(s)));
    let interval = c.interval.map(|(lo, hi)| {
        let (a, b) = if metric.higher_is_faster() { (own(hi), own(lo)) } else { (own(lo), own(hi)) };
        format!(" [{}, {}]", pct(a), pct(b))
    });
    format!("{value}{} {}", interval.unwrap_or_default(), metric.unit())
}

fn shown(metric: Metric, value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| metric.show(v))
}

/// The heading line of a comparison: what was judged, how, and the threshold.
fn heading(cmp: &Comparison) -> String {
    let metric = cmp.rule.metric;
    let judged = if metric == Metric::Rate { "wall rate, judged as time per request" } else { metric.describe() };
    format!(
        "Change from {} to {} ({judged}; 95% interval by Welch's t over rounds; verdicts beyond ±{}%)",
        cmp.before,
        cmp.after,
        trim(cmp.rule.threshold * 100.0)
    )
}

/// A percentage without trailing zeros: 5, 2.5.
fn trim(p: f64) -> String {
    crate::cfmt::strip_zeros(&format!("{p:.2}")).to_string()
}

/// Two runs compared: a line per case, the cases in one run only, the environments' differences, the tally.
pub fn comparison_text(cmp: &Comparison) -> String {
    let metric = cmp.rule.metric;
    let mut out = heading(cmp) + "\n";
    let width = cmp.changes.iter().map(|c| c.case.chars().count()).max().unwrap_or(0);
    for c in &cmp.changes {
        let reason = c.reason.as_ref().map(|r| format!(" ({r})")).unwrap_or_default();
        out.push_str(&format!(
            "  {}  {} → {}  {}, {}{reason}\n",
            crate::cfmt::pad_right(&c.case, width),
            shown(metric, c.before),
            shown(metric, c.after),
            percent(c, metric),
            c.verdict.label()
        ));
    }
    for (names, run) in [(&cmp.only_before, &cmp.before), (&cmp.only_after, &cmp.after)] {
        if !names.is_empty() {
            out.push_str(&format!("  only in {run} (not judged): {}\n", names.join(", ")));
        }
    }
    for d in &cmp.plan {
        out.push_str(&format!("  matched across a change of {d}\n"));
    }
    for d in &cmp.differences {
        out.push_str(&format!("  warning: environments differ, {d}\n"));
    }
    for run in &cmp.partial {
        out.push_str(&format!("  warning: {run} {PARTIAL}\n"));
    }
    out.push_str(&format!("  {}\n", cmp.tally()));
    out
}

/// Two runs compared, as a GitHub-flavoured Markdown section (for a CI job's step summary).
pub fn comparison_markdown(cmp: &Comparison) -> String {
    let metric = cmp.rule.metric;
    let cell = |s: &str| s.replace('|', "\\|");
    let mut out = format!("**{}**\n\n", cell(&heading(cmp)));
    out.push_str("| case | before | after | change [95% interval] | verdict |\n|:---|---:|---:|---:|:---|\n");
    for c in &cmp.changes {
        let verdict = match c.verdict {
            Verdict::Slower | Verdict::Failed => format!("**{}**", c.verdict.label()),
            v => v.label(),
        };
        let reason = c.reason.as_ref().map(|r| format!(" ({})", cell(r))).unwrap_or_default();
        out.push_str(&format!(
            "| {} | {} | {} | {} | {verdict}{reason} |\n",
            cell(&c.case),
            shown(metric, c.before),
            shown(metric, c.after),
            percent(c, metric)
        ));
    }
    out.push('\n');
    for (names, run) in [(&cmp.only_before, &cmp.before), (&cmp.only_after, &cmp.after)] {
        if !names.is_empty() {
            out.push_str(&format!("Only in {} (not judged): {}\n\n", cell(run), cell(&names.join(", "))));
        }
    }
    for d in &cmp.plan {
        out.push_str(&format!("Matched across a change of {}\n\n", cell(d)));
    }
    for d in &cmp.differences {
        out.push_str(&format!("> warning: environments differ, {}\n\n", cell(d)));
    }
    for run in &cmp.partial {
        out.push_str(&format!("> warning: {} {PARTIAL}\n\n", cell(run)));
    }
    out.push_str(&format!("{}\n", cmp.tally()));
    out
}

/// The trend: a row per case of the first run it appears in, a column per run, each cell the case's figure
/// with the glyph of its verdict against the run before (▼ slower, ▲ faster, ≈ same, ? inconclusive).
fn trend_text(runs: &[Run<'_>], table: &[TrendRow], rule: Rule) -> String {
    let mut out = format!(
        "Trend of {} over {} runs (against the run before beyond ±{}%: ▼ slower, ▲ faster, ≈ same, ? inconclusive)\n",
        rule.metric.describe(),
        runs.len(),
        trim(rule.threshold * 100.0)
    );
    let width = table.iter().map(|row| row.case.chars().count()).max().unwrap_or(0);
    let cells: Vec<Vec<String>> = table
        .iter()
        .map(|row| {
            row.points
                .iter()
                .map(|p| {
                    p.map_or_else(
                        || "-".to_string(),
                        |(v, judged)| match judged {
                            Some(verdict) => format!("{} {}", rule.metric.show(v), verdict.glyph()),
                            None => rule.metric.show(v),
                        },
                    )
                })
                .collect()
        })
        .collect();
    let column = |i: usize| {
        cells.iter().map(|row| row[i].chars().count()).chain([runs[i].name.chars().count()]).max().unwrap_or(0)
    };
    let widths: Vec<usize> = (0..runs.len()).map(column).collect();
    out.push_str(&format!("  {}", " ".repeat(width)));
    for (run, w) in runs.iter().zip(&widths) {
        out.push_str(&format!("  {}", crate::cfmt::pad_left(&run.name, *w)));
    }
    out.push('\n');
    for (line, row) in table.iter().zip(&cells) {
        out.push_str(&format!("  {}", crate::cfmt::pad_right(&line.case, width)));
        for (cell, w) in row.iter().zip(&widths) {
            out.push_str(&format!("  {}", crate::cfmt::pad_left(cell, *w)));
        }
        out.push('\n');
    }
    out
}

/// One case's line of a trend.
pub(super) struct TrendRow {
    /// The case's label.
    pub case: String,
    /// Per run, in order: the case's figure and the gate's verdict on it against the run before (`None` in
    /// the first run it appears in); `None` where the run has no such case.
    pub points: Vec<Option<(f64, Option<Verdict>)>>,
    /// Per run, the 95% interval of the case's figure, where its rounds give one.
    pub intervals: Vec<Option<(f64, f64)>>,
}

/// Each case's figure per run, with whether the gate flags it slower than the run before.
pub(super) fn trend(runs: &[Run<'_>], rule: Rule) -> Vec<TrendRow> {
    let mut table: Vec<TrendRow> = Vec::new();
    for (i, pair) in runs.windows(2).enumerate() {
        let cmp = compare(&pair[0], &pair[1], rule);
        for c in &cmp.changes {
            let row = match table.iter().position(|row| row.case == c.case) {
                Some(p) => p,
                None => {
                    let (points, intervals) = (vec![None; runs.len()], vec![None; runs.len()]);
                    table.push(TrendRow { case: c.case.clone(), points, intervals });
                    table.len() - 1
                }
            };
            let row = &mut table[row];
            if row.points[i].is_none() {
                row.points[i] = c.before.map(|v| (v, None));
                row.intervals[i] = c.before_interval;
            }
            row.points[i + 1] = c.after.map(|v| (v, Some(c.verdict)));
            row.intervals[i + 1] = c.after_interval;
        }
    }
    table
}

/// The trend as a line chart: one line per case, the runs in order along the x axis, each run a gate would
/// flag named with how many cases it judges slower than the run before (`new: 2 slower`).
pub(super) fn trend_chart(runs: &[Run<'_>], rows: Vec<TrendRow>, rule: Rule) -> String {
    let slower = |p: (f64, Option<Verdict>)| matches!(p.1, Some(Verdict::Slower | Verdict::Failed));
    let flagged = |i: usize| rows.iter().filter(|r| r.points.get(i).copied().flatten().is_some_and(slower)).count();
    let names: Vec<String> = (0..runs.len())
        .map(|i| match flagged(i) {
            0 => runs[i].name.clone(),
            n => format!("{}: {n} slower", runs[i].name),
        })
        .collect();
    let series: Vec<super::charts::Series> = rows
        .into_iter()
        .map(|row| super::charts::Series {
            label: row.case,
            points: row.points.iter().enumerate().filter_map(|(i, p)| p.map(|(v, _)| ((i + 1) as f64, v))).collect(),
            intervals: (row.intervals.iter().enumerate())
                .filter_map(|(i, w)| w.map(|(lo, hi)| ((i + 1) as f64, lo, hi)))
                .collect(),
        })
        .collect();
    let title = format!("{} over {} runs", rule.metric.describe(), runs.len());
    super::charts::scan_chart_labelled(&title, "run", &series, &|x| {
        names.get((x as usize).wrapping_sub(1)).cloned().unwrap_or_default()
    })
}
