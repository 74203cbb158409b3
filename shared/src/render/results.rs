//! The results, as markup: the one composition that the HTML report wraps in its document and the page shows
//! as it is, so both show the same sections in the same order, styled by the same sheet (`report.css`). The
//! order is the one people look in: what ran, the headline (the answer), the change between runs, the rate
//! chart, the statistics tables, the latency
//! histograms as small multiples (percentile charts where a report kept no histogram), the scan charts, then
//! the text report (in a box that scrolls sideways rather than cutting its lines), the notes and the
//! environment. Every section reuses the text renderer's parts, so the two never disagree.
//!
//! The `data-testid`s (`headline`, `changes`, `rate-chart`, `stats-table`, `stats-row`, `histograms`, `scan-chart`,
//! `report`) are what the end-to-end tests and headless drivers read, in the report and the page alike.

use super::charts::{escape, histogram, percentile_chart, percentile_plot, rate_bars, rate_chart, Curve};
use super::notes::{notes, placement, Note};
use super::scans::scan_figures;
use super::table::stats_tables;
use super::text::header;
use super::RenderOptions;
use crate::units::duration_ns;
use crate::view::{rows, Row, Source};

/// Every section of the results of `sources` (see [`super::results`]), as (what ran and the answer, the
/// rest): a page puts its own controls between them.
pub(super) fn parts(sources: &[Source<'_>], options: &RenderOptions) -> (String, String) {
    let rows = rows(sources);
    let mut answer = what_ran(sources);
    if rows.is_empty() {
        answer.push_str("<p>No cases were measured.</p>\n");
    } else {
        // Runs of one plan compared: their change is the answer, not a headline across runs and clients.
        match changes_section(sources, options) {
            Some(changes) => answer.push_str(&changes),
            None => {
                answer.push_str(&super::headline::html(&crate::headline::headline(&rows, options.reference.as_deref())))
            }
        }
    }
    let mut out = String::new();
    if !rows.is_empty() {
        // A scan's answer is its curves: right after the headline.
        out.push_str(&scans(&rows));
        out.push_str(&trend_section(sources, options));
        let chart =
            format!("<figure class=\"rates\" data-testid=\"rate-chart\">{}</figure>\n", rate_chart(&rate_bars(&rows)));
        out.push_str(&section("Wall rates (log axis), with 95% confidence intervals", &chart));
        out.push_str(&section("Statistics", &tables(&rows)));
        out.push_str(&section("Latency", &format!("{}{}", latency_plot(&rows), latency(&rows))));
    }
    out.push_str(&notes_section(sources, &rows));
    // The box holds the whole text report, as a file does: every column, Perl's lines.
    let text = super::text(sources, &RenderOptions { wide: true, ..options.clone() });
    let pre = format!("<pre class=\"report\" data-testid=\"report\" tabindex=\"0\">{}</pre>\n", escape(&text));
    // Details, folded: the answer is above.
    out.push_str(&folded("Text report", &pre));
    out.push_str(&folded("Environment", &environment(sources)));
    (answer, out)
}

/// A section folded under its heading: details a reader opens when needed.
fn folded(heading: &str, body: &str) -> String {
    format!(
        "<section>\n<details class=\"report\"><summary><h2>{}</h2></summary>\n{body}</details>\n</section>\n",
        escape(heading)
    )
}

/// A section: its heading, then `body`.
fn section(heading: &str, body: &str) -> String {
    format!("<section>\n<h2>{}</h2>\n{body}</section>\n", escape(heading))
}

/// The text report's header lines of each source: program, machine, target, settings.
fn what_ran(sources: &[Source<'_>]) -> String {
    let mut out = "<header class=\"run\">\n".to_string();
    for source in sources {
        for line in header(source).lines() {
            out.push_str(&format!("<p class=\"meta\">{}</p>\n", escape(line)));
        }
    }
    out.push_str("</header>\n");
    out
}

/// For two runs, the change of each case from one to the other (the text report's change lines).
fn changes_section(sources: &[Source<'_>], options: &RenderOptions) -> Option<String> {
    let lines = super::gate::text(sources, options.change)?;
    let body = format!("<pre class=\"summary\" data-testid=\"changes\">{}</pre>\n", escape(lines.trim_end()));
    Some(section("Change", &body))
}

/// With three runs or more, the trend chart: each case's figure per run, the runs in time order.
fn trend_section(sources: &[Source<'_>], options: &RenderOptions) -> String {
    let runs = crate::change::runs(sources);
    let rows = super::gate::trend(&runs, options.change);
    if runs.len() < 3 || rows.is_empty() {
        return String::new();
    }
    let chart = super::gate::trend_chart(&runs, rows, options.change);
    section("Trend", &format!("<figure class=\"trend\" data-testid=\"trend-chart\">{chart}</figure>\n"))
}

/// The statistics tables of the text report (one per load level when a scan ran), as HTML tables that scroll
/// sideways on a narrow screen.
fn tables(rows: &[Row<'_>]) -> String {
    let tables = stats_tables(rows, true);
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
    section("Scans", &format!("<div class=\"figures scans\">\n{body}</div>\n"))
}

/// Every case's latency on one chart, by percentile on shared log axes ([`percentile_plot`]).
fn latency_plot(rows: &[Row<'_>]) -> String {
    let names: Vec<&str> = rows.iter().map(|r| r.report.environment.name()).collect();
    let curves: Vec<Curve<'_>> = rows
        .iter()
        .zip(&names)
        .filter_map(|(r, env)| Some(Curve { label: &r.label, environment: env, latency: r.case.latency_ns.as_ref()? }))
        .collect();
    if curves.is_empty() {
        return String::new();
    }
    format!(
        "<figure class=\"latency\" data-testid=\"latency-chart\">{}</figure>\n",
        percentile_plot("Latency by percentile (log axis)", &curves)
    )
}

/// The details under the latency chart, folded: a histogram per case in a grid of small multiples, each the one its own report's run kept for that case
/// ([`Row::histogram`]); a percentile chart for a case with none. The caption says what the charts are.
fn latency(rows: &[Row<'_>]) -> String {
    let mut charts = String::new();
    let (mut histograms, mut percentiles) = (false, false);
    for row in rows {
        let svg = match (row.histogram, &row.case.latency_ns) {
            (Some(bins), _) if !bins.is_empty() => {
                histograms = true;
                histogram(&row.label, bins)
            }
            (_, Some(l)) => {
                percentiles = true;
                percentile_chart(&row.label, l)
            }
            (_, None) => format!("<p>{}: no request was ok, so no latency.</p>", escape(&row.label)),
        };
        charts.push_str(&format!("<figure>{svg}</figure>\n"));
    }
    let mut caption = Vec::new();
    if histograms {
        caption.push(
            "Each histogram runs from the fastest request to the 99th percentile; the slowest 1% are counted in \
             the last bar.",
        );
    }
    if percentiles {
        caption.push(
            "A report read from a file keeps percentiles, not a histogram: its cases show min, p50, p90, p99, \
             p99.9 and max instead.",
        );
    }
    let caption = match caption.is_empty() {
        true => String::new(),
        false => format!("<p class=\"caption\">{}</p>\n", caption.join(" ")),
    };
    format!(
        "<details class=\"histograms\"><summary>Each case's histogram</summary>\n{caption}<div class=\"figures\" \
         data-testid=\"histograms\">\n{charts}</div>\n</details>\n"
    )
}

/// The warnings of the report, one item each, then its notes folded (details a reader opens when needed).
fn notes_section(sources: &[Source<'_>], rows: &[Row<'_>]) -> String {
    let notes = notes(sources, rows);
    if notes.is_empty() {
        return String::new();
    }
    let list = |items: &[&Note], class: &str| {
        let mut out = "<ul class=\"notes\">\n".to_string();
        for n in items {
            out.push_str(&format!("<li{class}>{}</li>\n", escape(&n.text)));
        }
        out + "</ul>\n"
    };
    let (warnings, others): (Vec<&Note>, Vec<&Note>) = notes.iter().partition(|n| n.is_warning());
    let mut body = String::new();
    if !warnings.is_empty() {
        body.push_str(&list(&warnings, " class=\"warning\""));
    }
    if !others.is_empty() {
        let s = if others.len() == 1 { "" } else { "s" };
        body.push_str(&format!(
            "<details class=\"notes\"><summary>{} note{s} on how it was measured</summary>\n{}</details>\n",
            others.len(),
            list(&others, "")
        ));
    }
    section(if warnings.is_empty() { "Notes" } else { "Warnings and notes" }, &body)
}

/// Where each report ran: program, machine or browser, timer, placement and client versions.
fn environment(sources: &[Source<'_>]) -> String {
    let mut out = String::new();
    for s in sources {
        let (r, e) = (s.report, &s.report.environment);
        if sources.len() > 1 {
            let name = s.tag.map_or_else(|| e.name().to_string(), |t| format!("{t} ({})", e.name()));
            out.push_str(&format!("<h3>{}</h3>\n", escape(&name)));
        }
        let mut items = vec![
            ("Program".to_string(), format!("{} {} ({} build)", r.tool.name, r.tool.version, r.tool.build_profile)),
            ("System".to_string(), format!("{} {}/{}", e.title(), e.os, e.arch)),
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
    out
}
