//! A run history read out: the series table (`history DB`), the change points (`--changes`, as text or as
//! Markdown for a pull-request comment), and the JSON the page and other tools read. The HTML dashboard is
//! [`super::history_html`].

use std::fmt::Write;

use crate::change::Metric;
use crate::history::{Analysis, ChangePoint, Estimate, Series};

/// An estimate in the metric's unit with its interval: `12345 req/s [12100, 12590]`.
pub(crate) fn estimate(metric: Metric, e: &Estimate) -> String {
    let (a, b) = (metric.from_cost(e.low), metric.from_cost(e.high));
    let (low, high) = if a <= b { (a, b) } else { (b, a) };
    let bound = |v: f64| if v.is_finite() { metric.show(v) } else { "∞".to_string() };
    format!("{} [{} – {}]", metric.show(metric.from_cost(e.cost)), bound(low), bound(high))
}

/// A relative change with its interval, in the metric's direction: `▼ −20.1% [−21.0%, −19.2%] req/s, slower`.
pub(crate) fn change(metric: Metric, c: &ChangePoint) -> String {
    let unit = if metric.higher_is_faster() { " req/s" } else { "" };
    format!(
        "{} {} [{}, {}]{unit}, {}",
        c.verdict.glyph(),
        percent(c.change),
        percent(c.change_low),
        percent(c.change_high),
        c.verdict.as_str()
    )
}

pub(crate) fn percent(f: f64) -> String {
    if !f.is_finite() {
        return if f > 0.0 { "+∞".into() } else { "−∞".into() };
    }
    let s = format!("{:+.1}%", f * 100.0);
    s.replace('-', "−")
}

/// `#16 (abc1234, 2026-12-04 21:50 UTC)`: a run as the user finds it again.
pub(crate) fn run_name(run: i64, label: Option<&str>, started_unix_ms: Option<u64>) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(l) = label {
        parts.push(super::escape_controls(l).into_owned());
    }
    if let Some(ms) = started_unix_ms {
        parts.push(utc(ms));
    }
    if parts.is_empty() {
        format!("#{run}")
    } else {
        format!("#{run} ({})", parts.join(", "))
    }
}

/// Milliseconds since the Unix epoch as `YYYY-MM-DD HH:MM UTC` (Hinnant's days-to-civil algorithm).
pub(crate) fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02} UTC", rest / 3600, rest % 3600 / 60)
}

/// The first line of every history rendering (and the page's heading of a history it opens): runs, series, machines, and how change points are found.
pub fn heading(a: &Analysis) -> String {
    let mut machines: Vec<&str> = a.series.iter().map(|s| s.machine.digest.as_str()).collect();
    machines.sort_unstable();
    machines.dedup();
    let min = format!("{:.2}", a.min_change * 100.0);
    format!(
        "{} runs, {} series on {} machine{}, by {}; change points by E-divisive means (p ≤ {}, changes of {}% or more)",
        a.runs,
        a.series.len(),
        machines.len(),
        if machines.len() == 1 { "" } else { "s" },
        a.metric.describe(),
        a.alpha,
        min.trim_end_matches('0').trim_end_matches('.')
    )
}

/// `history DB`: one line per series: its runs, its last figure, its change points (new ones first).
pub fn history_text(a: &Analysis) -> String {
    let mut out = heading(a) + "\n\n";
    let rows: Vec<[String; 6]> = a.series.iter().map(|s| row(a.metric, s)).collect();
    let header = ["case", "machine", "plan", "runs", "last", "change points"].map(String::from);
    let widths: Vec<usize> =
        (0..6).map(|i| rows.iter().chain([&header]).map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
    for r in [&header].into_iter().chain(&rows) {
        let line: Vec<String> = r.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    if a.series.is_empty() {
        out.push_str("(no runs yet: `httpbench run --history DB` adds one)\n");
    }
    out
}

fn row(metric: Metric, s: &Series) -> [String; 6] {
    let last = s.points.last().map_or_else(String::new, |p| metric.show(metric.from_cost(p.figure.cost)));
    let new: Vec<&ChangePoint> = s.changes.iter().filter(|c| !c.accepted).collect();
    let accepted = s.changes.len() - new.len();
    let mut changes = match new.last() {
        None => "none".to_string(),
        Some(c) => format!("{} new, last {} {:+.1}% at #{}", new.len(), c.verdict.glyph(), c.change * 100.0, c.run),
    };
    if accepted > 0 {
        let _ = write!(changes, " ({accepted} accepted)");
    }
    [
        s.case.clone(),
        s.machine.digest.clone(),
        s.plan.digest.clone(),
        s.points.len().to_string(),
        last,
        changes.replace('-', "−"),
    ]
}

/// `history DB --changes`: each change point not accepted, by series: where, before → after with intervals,
/// the change and its significance.
pub fn changes_text(a: &Analysis) -> String {
    let mut out = heading(a) + "\n";
    let mut accepted = 0;
    for s in &a.series {
        accepted += s.changes.iter().filter(|c| c.accepted).count();
        let new: Vec<&ChangePoint> = s.changes.iter().filter(|c| !c.accepted).collect();
        if new.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{} (machine {}, plan {})", s.case, s.machine.digest, s.plan.digest);
        for c in new {
            let started = s.points.get(c.index).and_then(|p| p.started_unix_ms);
            let _ = writeln!(out, "  at run {}", run_name(c.run, c.label.as_deref(), started));
            let _ = writeln!(out, "    before: {} over {} runs", estimate(a.metric, &c.before), c.before.runs);
            let _ = writeln!(out, "    after:  {} over {} runs", estimate(a.metric, &c.after), c.after.runs);
            let _ = writeln!(out, "    change: {}, p = {:.3}", change(a.metric, c), c.p_value);
        }
    }
    if a.series.iter().all(|s| s.changes.iter().all(|c| c.accepted)) {
        out.push_str("\nNo change points.\n");
    }
    if accepted > 0 {
        let _ = writeln!(out, "\n{accepted} accepted change point{} not shown.", if accepted == 1 { "" } else { "s" });
    }
    out
}

/// The change points as a GitHub-flavoured Markdown table, for a pull-request comment; `nearest` keeps only
/// the newest that many (all when `None`).
pub fn changes_markdown(a: &Analysis, nearest: Option<usize>) -> String {
    let mut all: Vec<(&Series, &ChangePoint)> =
        a.series.iter().flat_map(|s| s.changes.iter().filter(|c| !c.accepted).map(move |c| (s, c))).collect();
    // Newest first by when the run started (runs imported later keep their place in time), then by number.
    all.sort_by_key(|(s, c)| std::cmp::Reverse((s.points.get(c.index).and_then(|p| p.started_unix_ms), c.run)));
    all.truncate(nearest.unwrap_or(usize::MAX));
    let mut out = format!("**Change points** ({}, {} runs)\n\n", a.metric.describe(), a.runs);
    if all.is_empty() {
        out.push_str("None found.\n");
        return out;
    }
    out.push_str("| case | run | before | after | change | p |\n|---|---|---|---|---|---|\n");
    for (s, c) in all {
        let started = s.points.get(c.index).and_then(|p| p.started_unix_ms);
        let cell = |t: String| t.replace('|', "\\|").replace(['\n', '\r'], " ");
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.3} |",
            cell(s.case.clone()),
            cell(run_name(c.run, c.label.as_deref(), started)),
            estimate(a.metric, &c.before),
            estimate(a.metric, &c.after),
            change(a.metric, c),
            c.p_value
        );
    }
    out
}
