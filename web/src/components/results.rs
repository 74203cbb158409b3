//! The results: the CLI's text report in a copyable `<pre>`, the statistics table, the rate chart with 95%
//! confidence intervals, and a latency histogram per case of this page's run. Every figure and every label
//! comes from `httpbench_shared` (renderers, table cells, view labels); this module only lays them out.

use httpbench_shared::model::{Case, Report};
use httpbench_shared::render::{stats_header, stats_row};
use httpbench_shared::session::CaseHistogram;
use httpbench_shared::stats::Bin;
use httpbench_shared::view::rows;
use httpbench_shared::{RenderOptions, Source};
use leptos::prelude::*;

use super::PageState;
use crate::charts::{histogram, rate_chart, Bar};

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
                <h2>"Report"</h2>
                <pre class="report" data-testid="report" tabindex="0">{report_text}</pre>
                <h2>"Statistics"</h2>
                <StatsTable reports=reports />
                <h2>"Wall rates"</h2>
                <div class="chart" data-testid="rate-chart" inner_html=move || reports.with(|r| rates_svg(r))></div>
                <Histograms reports=reports />
            </section>
        </Show>
        <pre hidden data-testid="result-json">{own_json}</pre>
    }
}

/// The statistics table, one row per case of every report shown.
#[component]
fn StatsTable(
    /// The reports shown.
    reports: Signal<Vec<(Option<String>, Report)>>,
) -> impl IntoView {
    let header = stats_header().into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view();
    let body = move || {
        reports.with(|r| {
            rows(&sources(r))
                .iter()
                .map(|row| {
                    let label = row.label.clone();
                    let cells = stats_row(row);
                    let first = cells[0].clone();
                    let rest = cells[1..].iter().map(|c| view! { <td>{c.clone()}</td> }).collect_view();
                    view! {
                        <tr data-testid="stats-row" data-case=label>
                            <th scope="row">{first}</th>
                            {rest}
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label="Statistics table">
            <table data-testid="stats-table">
                <thead>
                    <tr>{header}</tr>
                </thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}

fn rates_svg(reports: &[(Option<String>, Report)]) -> String {
    let bars: Vec<Bar> = rows(&sources(reports))
        .iter()
        .map(|row| Bar {
            label: row.label.clone(),
            rate: row.case.rate_wall,
            ci95: row.case.rate_wall_spread.map(|s| (s.ci95_low, s.ci95_high)),
        })
        .collect();
    rate_chart(&bars)
}

/// Latency histograms of this page's own cases (an imported file has percentiles, not a histogram), each
/// found by its case's client and mode and titled with that case's label in the statistics table.
#[component]
fn Histograms(
    /// The reports shown (this page's run first when there is one), for the labels of the table.
    reports: Signal<Vec<(Option<String>, Report)>>,
) -> impl IntoView {
    let state = expect_context::<PageState>();
    let charts = move || {
        state.last.with(|last| {
            let Some(last) = last else { return String::new() };
            reports.with(|r| {
                // With a run, `sources` puts its report first.
                let Some((_, own)) = r.first() else { return String::new() };
                rows(&sources(r))
                    .iter()
                    .filter(|row| std::ptr::eq(row.report, own))
                    .filter_map(|row| Some(histogram(&row.label, bins_of(&last.histograms, row.case)?)))
                    .collect::<String>()
            })
        })
    };
    view! {
        <Show when=move || state.own.with(|o| o.is_some())>
            <h2>"Latency histograms"</h2>
            <div class="chart" data-testid="histograms" inner_html=charts></div>
        </Show>
    }
}

/// The histogram of `case` among the run's, by its (client, mode).
fn bins_of<'a>(histograms: &'a [CaseHistogram], case: &Case) -> Option<&'a [Bin]> {
    histograms.iter().find(|h| h.key.client == case.client && h.key.mode == case.mode).map(|h| h.bins.as_slice())
}
