//! The HTML report: one self-contained file that opens offline in any browser and can be mailed or attached
//! to an issue as it is. Inline CSS and inline SVG only: no script, no external asset, no web font, so
//! nothing is fetched and nothing runs. It reads in the order people look: what ran, the summary, the rate
//! chart, the statistics tables, the latency histograms as small multiples, the scan charts, then the text
//! report (in a box that scrolls sideways rather than cutting its lines), the notes and the environment.
//! Every section reuses the text renderer's parts, so the two never disagree.

use super::charts::{escape, histogram, percentile_chart, rate_bars, rate_chart};
use super::notes::{notes, placement};
use super::scans::scan_figures;
use super::table::stats_tables;
use super::text::{change_lines, header, summary};
use super::RenderOptions;
use crate::stats::Bin;
use crate::units::{duration_ns, rate};
use crate::view::{rows, Row, Source};

/// The styles of the report. The summary's font shrinks with a phone's screen (3vw: 11 px at 375 px) so its
/// lines fit unwrapped. The chart classes (`bar`, `err`, `label`, `value`, `axis`) get the colours the
/// page gives them in web/style.css, so a chart looks the same in both.
const STYLE: &str = r#"
:root { --fg: #1b1f24; --muted: #57606a; --bar: #3b82c4; --warn: #8a4b00; --line: #d0d7de; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: #fff; }
main { max-width: 76rem; margin: 0 auto; padding: 0.75rem; }
h1 { font-size: 1.35rem; margin: 0.25rem 0 0.5rem; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }
h3 { font-size: 1rem; margin: 1rem 0 0.25rem; }
p { margin: 0.25rem 0; }
.meta { color: var(--muted); font-size: 0.9rem; overflow-wrap: anywhere; }
pre { background: #f6f8fa; padding: 0.75rem; border-radius: 4px; font-size: 0.8rem; line-height: 1.35; margin: 0; }
pre.report { overflow-x: auto; white-space: pre; }
pre.summary { font-size: min(0.95rem, 3vw); white-space: pre-wrap; overflow-wrap: anywhere; }
.table-scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.8rem; font-variant-numeric: tabular-nums; }
th, td { padding: 0.25rem 0.4rem; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th[scope="row"], thead th:first-child { text-align: left; }
figure { margin: 0; }
svg { display: block; max-width: 100%; height: auto; }
figure.rates svg { max-width: 30rem; }
figure.scan svg { max-width: 36rem; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 19rem), 1fr)); gap: 0.75rem 1rem; }
.grid.scans { grid-template-columns: repeat(auto-fill, minmax(min(100%, 28rem), 1fr)); gap: 1.5rem 2rem; }
.caption { color: var(--muted); font-size: 0.85rem; }
svg .bar { fill: var(--bar); }
svg .err { stroke: var(--fg); stroke-width: 1.5; fill: none; }
svg text { font-size: 12px; fill: var(--fg); }
svg .axis { fill: var(--muted); }
ul.notes { padding-left: 1.25rem; }
ul.notes li { margin: 0.2rem 0; overflow-wrap: anywhere; }
.warning { color: var(--warn); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 0.75rem; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 30rem) {
  pre { padding: 0.5rem; }
  dl { grid-template-columns: 1fr; }
  dd { margin-bottom: 0.3rem; }
}
"#;

/// Render the HTML report (see [`super::html`]).
pub fn render(sources: &[Source<'_>], histograms: &[Option<Vec<Bin>>], options: &RenderOptions) -> String {
    let rows = rows(sources);
    let url = sources.first().map_or("", |s| s.report.target.url.as_str());
    let mut out = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>httpbench report: GET {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n",
        escape(url)
    );
    out.push_str(&header_section(sources));
    if rows.is_empty() {
        out.push_str("<p>No cases were measured.</p>\n");
    } else {
        out.push_str(&summary_section(sources, &rows));
        let chart =
            format!("<figure class=\"rates\" data-testid=\"rate-chart\">{}</figure>\n", rate_chart(&rate_bars(&rows)));
        out.push_str(&section("Wall rates, with 95% confidence intervals", &chart));
        out.push_str(&section("Statistics", &tables(&rows)));
        out.push_str(&section("Latency", &latency(&rows, histograms)));
        out.push_str(&scans(&rows));
    }
    let text = super::text(sources, options);
    let pre = format!("<pre class=\"report\" data-testid=\"report\" tabindex=\"0\">{}</pre>\n", escape(&text));
    out.push_str(&section("Text report", &pre));
    out.push_str(&notes_section(sources, &rows));
    out.push_str(&environment(sources));
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

/// A section: its heading, then `body`.
fn section(heading: &str, body: &str) -> String {
    format!("<section>\n<h2>{}</h2>\n{body}</section>\n", escape(heading))
}

/// The title, then the text report's header lines of each source: program, machine, target, settings.
fn header_section(sources: &[Source<'_>]) -> String {
    let mut out = "<header>\n<h1>httpbench report</h1>\n".to_string();
    for line in sources.iter().flat_map(|s| header(s).lines().map(str::to_string).collect::<Vec<_>>()) {
        out.push_str(&format!("<p class=\"meta\">{}</p>\n", escape(&line)));
    }
    out.push_str("</header>\n");
    out
}

/// The text report's summary (which case ran fastest, and by how much) and, for two reports, its change
/// lines; with a single case, its rate.
fn summary_section(sources: &[Source<'_>], rows: &[Row<'_>]) -> String {
    let mut text = match (summary(rows), rows) {
        (Some(s), _) => s,
        (None, [one]) => format!("{} ran at {} requests per wall-clock second\n", one.label, rate(one.case.rate_wall)),
        (None, _) => "No case completed a request.\n".to_string(),
    };
    if let [before, after] = sources {
        if let Some(lines) = change_lines(before, after) {
            text.push('\n');
            text.push_str(&lines);
        }
    }
    let body = format!("<pre class=\"summary\" data-testid=\"summary\">{}</pre>\n", escape(text.trim_end()));
    section("Summary", &body)
}

/// The statistics tables of the text report (one per load level when a scan ran), as HTML tables that scroll
/// sideways on a narrow screen: the HTML report's and the page's (markup costs the page less than elements
/// built one by one).
pub fn tables(rows: &[Row<'_>]) -> String {
    let tables = stats_tables(rows);
    let mut out = String::new();
    for (title, body) in &tables.levels {
        if !title.is_empty() {
            out.push_str(&format!("<h3>At {}</h3>\n", escape(title)));
        }
        out.push_str(
            "<div class=\"table-scroll\" tabindex=\"0\" role=\"region\" aria-label=\"Statistics table\">\n\
             <table data-testid=\"stats-table\">\n<thead><tr>",
        );
        for h in &tables.header {
            out.push_str(&format!("<th scope=\"col\">{}</th>", escape(h)));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for cells in body {
            // The first cell is the case's label.
            out.push_str(&format!("<tr data-testid=\"stats-row\" data-case=\"{}\">", escape(&cells[0])));
            for (i, cell) in cells.iter().enumerate() {
                let (open, close) = if i == 0 { ("th scope=\"row\"", "th") } else { ("td", "td") };
                out.push_str(&format!("<{open}>{}</{close}>", escape(cell)));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table>\n</div>\n");
    }
    out
}

/// The scan charts, when a scan ran, in a grid under their heading.
fn scans(rows: &[Row<'_>]) -> String {
    let body = scan_figures(rows);
    if body.is_empty() {
        return body;
    }
    section("Scans", &format!("<div class=\"grid scans\">\n{body}</div>\n"))
}

/// A histogram per case in a grid of small multiples; a percentile chart for a case with no histogram.
fn latency(rows: &[Row<'_>], histograms: &[Option<Vec<Bin>>]) -> String {
    let mut charts = String::new();
    let mut percentiles_only = false;
    for (i, row) in rows.iter().enumerate() {
        let svg = match (histograms.get(i).and_then(Option::as_ref), &row.case.latency_ns) {
            (Some(bins), _) if !bins.is_empty() => histogram(&row.label, bins),
            (_, Some(l)) => {
                percentiles_only = true;
                percentile_chart(&row.label, l)
            }
            (_, None) => format!("<p>{}: no request was ok, so no latency.</p>", escape(&row.label)),
        };
        charts.push_str(&format!("<figure>{svg}</figure>\n"));
    }
    let mut caption = "Each histogram runs from the fastest request to the 99th percentile; the slowest 1% are \
                       counted in the last bar."
        .to_string();
    if percentiles_only {
        caption.push_str(
            " A report read from a file keeps percentiles, not a histogram: its cases show min, p50, p90, p99, \
             p99.9 and max instead.",
        );
    }
    format!("<p class=\"caption\">{caption}</p>\n<div class=\"grid\" data-testid=\"histograms\">\n{charts}</div>\n")
}

/// The notes and warnings of the text report, one item each.
fn notes_section(sources: &[Source<'_>], rows: &[Row<'_>]) -> String {
    let notes = notes(sources, rows);
    if notes.is_empty() {
        return String::new();
    }
    let mut list = "<ul class=\"notes\">\n".to_string();
    for n in &notes {
        let class = if n.starts_with("warning:") { " class=\"warning\"" } else { "" };
        list.push_str(&format!("<li{class}>{}</li>\n", escape(n)));
    }
    list.push_str("</ul>\n");
    section("Notes", &list)
}

/// Where each report ran: program, machine or browser, timer, placement and client versions.
fn environment(sources: &[Source<'_>]) -> String {
    let mut out = String::new();
    for s in sources {
        let (r, e) = (s.report, &s.report.environment);
        if sources.len() > 1 {
            let name = s.tag.map_or_else(|| e.kind.as_str().to_string(), |t| format!("{t} ({})", e.kind.as_str()));
            out.push_str(&format!("<h3>{}</h3>\n", escape(&name)));
        }
        let mut items = vec![
            ("Program".to_string(), format!("{} {} ({} build)", r.tool.name, r.tool.version, r.tool.build_profile)),
            ("System".to_string(), format!("{} {}/{}", e.kind.as_str(), e.os, e.arch)),
        ];
        let optional = [
            ("CPU", e.cpu.clone()),
            ("CPUs online", e.cpus_online.map(|n| n.to_string())),
            ("User agent", e.user_agent.clone()),
            ("crossOriginIsolated", e.cross_origin_isolated.map(|b| b.to_string())),
            ("Timer step", e.timer_resolution_ns.map(duration_ns)),
            ("Placement", e.placement.as_ref().map(|p| placement(e, p))),
        ];
        items.extend(optional.into_iter().filter_map(|(k, v)| Some((k.to_string(), v?))));
        items.extend(e.client_versions.iter().map(|(client, v)| (format!("{client} version"), v.clone())));
        out.push_str("<dl>\n");
        for (k, v) in items {
            out.push_str(&format!("<dt>{}</dt><dd>{}</dd>\n", escape(&k), escape(&v)));
        }
        out.push_str("</dl>\n");
    }
    section("Environment", &out)
}
