//! The history dashboard: one self-contained HTML file (inline CSS and SVG, nothing fetched) with a chart per
//! series, each run's figure with its interval, the stretches between change points with theirs, and each
//! change point marked, plus a filter by case. It works as a static file (GitHub Pages), so a project can
//! publish its history. The filter is the one script: without it, every series shows.

use std::fmt::Write;

use super::charts::escape;
use super::history::{change, estimate, percent, run_name};
use crate::change::Metric;
use crate::history::{Analysis, Series};

const STYLE: &str = include_str!("report.css");

/// The dashboard's own rules beside the results' sheet: its points, stretches, change lines and filter.
const HISTORY_STYLE: &str = "\
svg .pt { fill: var(--bar); } svg .whisk { stroke: var(--bar); stroke-width: 1; }
svg .seg { stroke: var(--fg); stroke-width: 2; } svg .band { fill: var(--bar); opacity: 0.15; }
svg .cp { stroke: var(--slow); stroke-width: 1.5; stroke-dasharray: 4 3; } svg .cp-label { fill: var(--slow); }
svg .cp.accepted { stroke: var(--muted); } svg .grid { stroke: var(--line); }
input[type=search] { font: inherit; padding: 0.3rem 0.5rem; width: min(100%, 24rem); }
section.series { margin-bottom: 1.5rem; } section.series[hidden] { display: none; }
";

/// The filter: hide the series whose case name does not contain what is typed.
const FILTER: &str = "\
document.getElementById('filter').addEventListener('input', function (e) {
  var q = e.target.value.toLowerCase();
  document.querySelectorAll('section.series').forEach(function (s) {
    s.hidden = q !== '' && s.dataset.case.toLowerCase().indexOf(q) < 0;
  });
});
";

/// The dashboard of `a`, titled with `title` (the history's file name).
pub fn history_html(a: &Analysis, title: &str) -> String {
    let mut body = String::new();
    let _ = write!(
        body,
        "<h1>httpbench history: {}</h1>\n<p class=\"meta\">{}</p>\n",
        escape(title),
        escape(&super::history::heading(a))
    );
    body.push_str(
        "<p><label for=\"filter\">Filter by case </label><input type=\"search\" id=\"filter\" \
         placeholder=\"curl/reuse\"></p>\n",
    );
    body.push_str(&history_sections(a, ""));
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <title>httpbench history: {}</title>\n<style>\n{STYLE}{HISTORY_STYLE}</style>\n</head>\n<body>\n<main>\n\
         {body}</main>\n<script>\n{FILTER}</script>\n</body>\n</html>\n",
        escape(title)
    )
}

/// The dashboard's rules beside the results' sheet (`report.css`), for a page that has that sheet already (the
/// file's dark scheme is not among them: it would restyle the whole page).
pub const HISTORY_CSS: &str = HISTORY_STYLE;

/// A section per series of `a` whose case name contains `filter` (all for an empty one): its heading, its
/// machine and plan, its chart and its change points. The dashboard's body, and what the page shows of a
/// history it opens.
pub fn history_sections(a: &Analysis, filter: &str) -> String {
    let mut out = String::new();
    // ASCII's case rule, as case names are spelled: the page is spared the Unicode case tables.
    let filter = filter.to_ascii_lowercase();
    for (i, s) in a.series.iter().enumerate().filter(|(_, s)| s.case.to_ascii_lowercase().contains(&filter)) {
        series_section(&mut out, a.metric, s, i);
    }
    if a.series.is_empty() {
        out.push_str("<p>No runs yet.</p>\n");
    }
    out
}

fn series_section(out: &mut String, metric: Metric, s: &Series, i: usize) {
    let _ = write!(
        out,
        "<section class=\"series\" id=\"s{i}\" data-case=\"{}\">\n<h2>{}</h2>\n<p class=\"meta\">machine {} ({}); \
         plan {} ({}); {} runs</p>\n<figure>{}</figure>\n",
        escape(&s.case),
        escape(&s.case),
        escape(&s.machine.digest),
        escape(&s.machine.facts.join("; ")),
        escape(&s.plan.digest),
        escape(&s.plan.facts.join("; ")),
        s.points.len(),
        chart(metric, s)
    );
    if !s.changes.is_empty() {
        out.push_str("<ul class=\"notes\">\n");
        for c in &s.changes {
            let started = s.points.get(c.index).and_then(|p| p.started_unix_ms);
            let _ = writeln!(
                out,
                "<li>{}at run {}: {} → {}, {}, p = {:.3}</li>",
                if c.accepted { "accepted: " } else { "" },
                escape(&run_name(c.run, c.label.as_deref(), started)),
                escape(&estimate(metric, &c.before)),
                escape(&estimate(metric, &c.after)),
                escape(&change(metric, c)),
                c.p_value
            );
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n");
}

const W: f64 = 640.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 16.0;
const PLOT_H: f64 = 200.0;

/// The series' chart: a point per run with its rounds' interval, each stretch's figure as a line with its
/// interval as a band, and a dashed line at each change point. The y axis starts at zero, so a drop looks
/// as large as it is.
fn chart(metric: Metric, s: &Series) -> String {
    let n = s.points.len().max(1) as f64;
    let x_at = |i: f64| LEFT + (W - LEFT - RIGHT) * (i + 0.5) / n;
    // Each run's own interval: its rounds' mean cost ± t·se. A cost interval reaching zero is a rate interval
    // reaching infinity: drawn to the top of the plot.
    let spans: Vec<(f64, f64, f64)> = s
        .points
        .iter()
        .map(|p| {
            let half = p.figure.half_width().unwrap_or(0.0);
            let a = metric.from_cost(p.figure.cost);
            let (lo, hi) = (metric.from_cost((p.figure.cost - half).max(0.0)), metric.from_cost(p.figure.cost + half));
            (a, lo.min(hi), lo.max(hi))
        })
        .collect();
    // The scale follows the runs' figures, not their intervals: one noisy run must not flatten the others.
    let top = spans.iter().map(|s| s.0).filter(|v| v.is_finite()).fold(0.0, f64::max).max(f64::MIN_POSITIVE) * 1.25;
    let y_at = |v: f64| TOP + PLOT_H * (1.0 - (v / top).clamp(0.0, 1.0));
    let bottom = TOP + PLOT_H;
    let height = bottom + 40.0;
    let title = format!("{} of {} by run", metric.describe(), s.case);
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height}" width="100%" role="img" aria-label="{t}"><title>{t}</title>"#,
        t = escape(&title)
    );
    for k in 0..=4 {
        let v = top * f64::from(k) / 4.0;
        let _ = write!(
            svg,
            r#"<path class="grid" d="M{LEFT} {y:.1}H{r}"/><text x="{:.1}" y="{:.1}" text-anchor="end" class="axis">{}</text>"#,
            LEFT - 4.0,
            y_at(v) + 4.0,
            if k == 0 { "0".to_string() } else { escape(&metric.show(v)) },
            y = y_at(v),
            r = W - RIGHT
        );
    }
    // Stretches between change points: their figure and interval.
    let mut cuts: Vec<usize> = vec![0];
    cuts.extend(s.changes.iter().map(|c| c.index));
    cuts.push(s.points.len());
    let estimates = s.changes.iter().map(|c| c.before).chain(s.changes.last().map(|c| c.after));
    for (w, e) in cuts.windows(2).zip(estimates) {
        let (x0, x1) = (x_at(w[0] as f64) - 4.0, x_at(w[1] as f64 - 1.0) + 4.0);
        let (a, b) = (metric.from_cost(e.low), metric.from_cost(e.high));
        let (lo, hi) = (a.min(b), if a.max(b).is_finite() { a.max(b) } else { top });
        let _ = write!(
            svg,
            r#"<rect class="band" x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/><path class="seg" d="M{x0:.1} {y:.1}H{x1:.1}"/>"#,
            y_at(hi),
            x1 - x0,
            (y_at(lo) - y_at(hi)).max(0.5),
            y = y_at(metric.from_cost(e.cost))
        );
    }
    for (i, (v, lo, hi)) in spans.iter().enumerate() {
        let x = x_at(i as f64);
        let _ = write!(
            svg,
            r#"<path class="whisk" d="M{x:.1} {:.1}V{:.1}"/><circle class="pt" cx="{x:.1}" cy="{:.1}" r="2.5"><title>{}</title></circle>"#,
            y_at(*hi),
            y_at(*lo),
            y_at(*v),
            escape(&format!("{}: {}", run_name(s.points[i].run, s.points[i].label.as_deref(), None), metric.show(*v)))
        );
    }
    for c in &s.changes {
        let x = x_at(c.index as f64 - 0.5);
        let _ = write!(
            svg,
            r#"<path class="cp{}" d="M{x:.1} {TOP}V{bottom}"/><text class="cp-label" x="{:.1}" y="{:.1}">{} {} #{}</text>"#,
            if c.accepted { " accepted" } else { "" },
            x + 3.0,
            TOP + 12.0,
            c.verdict.glyph(),
            percent(c.change),
            c.run
        );
    }
    let first = s.points.first().map_or(0, |p| p.run);
    let last = s.points.last().map_or(0, |p| p.run);
    let _ = write!(
        svg,
        r#"<path d="M{LEFT} {TOP}V{bottom}H{r}" stroke="currentColor" fill="none" class="axis"/><text x="{LEFT}" y="{:.1}" class="axis">run #{first}</text><text x="{r}" y="{:.1}" text-anchor="end" class="axis">run #{last}</text></svg>"#,
        bottom + 18.0,
        bottom + 18.0,
        r = W - RIGHT
    );
    svg
}
