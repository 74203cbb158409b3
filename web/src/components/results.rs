//! The results, in the order people look (as the HTML report has them): the summary (the fastest case and how
//! many times faster it ran), the rate chart with 95% confidence intervals, the statistics table, the scan
//! charts when levels were scanned, a latency histogram per case of this page's run as small multiples in a
//! grid, and last the CLI's text report in a copyable `<pre>` that scrolls sideways. Every figure and every
//! label comes from `httpbench_shared` (renderers, charts, the tables' markup, view labels); this module only
//! lays them out.

use httpbench_shared::model::Report;
use httpbench_shared::render::charts::{histogram, rate_bars, rate_chart};
use httpbench_shared::render::{html_tables, scan_figures, summary};
use httpbench_shared::view::rows;
use httpbench_shared::{RenderOptions, Source};
use leptos::prelude::*;

use super::PageState;

/// The reports as `shared` sources, borrowing from `reports`.
fn sources(reports: &[(Option<String>, Report)]) -> Vec<Source<'_>> {
    reports.iter().map(|(tag, r)| Source { report: r, tag: tag.as_deref() }).collect()
}

/// The text report of everything shown: this page's run alone reads exactly as the CLI's report of it.
pub fn text_report(reports: &[(Option<String>, Report)]) -> String {
    httpbench_shared::render::text(&sources(reports), &RenderOptions::default())
}

/// The results section, from the page state (context); empty until there is a run or an import.
#[component]
pub fn Results() -> impl IntoView {
    let state = expect_context::<PageState>();
    // Derived, not memoised: a memo would compare every report on each change (and its PartialEq costs the
    // page 3 KB of wasm); the list changes only when a run ends or a file is imported.
    let reports = Signal::derive(move || state.sources());
    let report_text = move || reports.with(|r| text_report(r));
    let own_json = move || state.own.get().map(|r| httpbench_shared::render::json(&[Source::new(&r)]));
    view! {
        <Show when=move || reports.with(|r| !r.is_empty())>
            <section aria-label="Results">
                <pre class="summary" data-testid="summary">{move || reports.with(|r| summary(&rows(&sources(r))))}</pre>
                <h2>"Wall rates"</h2>
                <div
                    class="chart"
                    data-testid="rate-chart"
                    inner_html=move || reports.with(|r| rate_chart(&rate_bars(&rows(&sources(r)))))
                ></div>
                <h2>"Statistics"</h2>
                <div inner_html=move || reports.with(|r| html_tables(&rows(&sources(r))))></div>
                <div inner_html=move || reports.with(|r| scans(r))></div>
                <div data-testid="histograms" inner_html=move || reports.with(|r| histograms(state, r))></div>
                <h2>"Report"</h2>
                <pre class="report" data-testid="report" tabindex="0">{report_text}</pre>
            </section>
        </Show>
        <pre hidden data-testid="result-json">{own_json}</pre>
    }
}

/// The scan charts (rate, and for body sizes MB/s, against each load dimension that varied) in a grid
/// under their heading, as the HTML report draws them; nothing when no scan is shown.
fn scans(reports: &[(Option<String>, Report)]) -> String {
    let figures = scan_figures(&rows(&sources(reports)));
    match figures.is_empty() {
        true => figures,
        false => format!("<h2>Scans</h2><div class=\"chart hists\">{figures}</div>"),
    }
}

/// Latency histograms of this page's own cases as small multiples under their heading, as markup (an
/// imported file has percentiles, not a histogram; nothing before a run). Each is titled with its case's label
/// in the statistics table; the run's histograms are in the order of its report's cases, so they pair with
/// that report's rows in order. Markup rather than a `<Show>` with its own elements: that costs the page
/// (budget 200 KB gzip) more than a string.
fn histograms(state: PageState, reports: &[(Option<String>, Report)]) -> String {
    state.last.with(|last| {
        // With a run, `sources` puts its report first.
        let (Some(last), Some((_, own))) = (last, reports.first()) else { return String::new() };
        let charts: String = rows(&sources(reports))
            .iter()
            .filter(|row| std::ptr::eq(row.report, own))
            .zip(&last.histograms)
            .map(|(row, h)| histogram(&row.label, &h.bins))
            .collect();
        format!("<h2>Latency histograms</h2><div class=\"chart hists\">{charts}</div>")
    })
}
