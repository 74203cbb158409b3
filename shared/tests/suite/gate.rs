//! Snapshot tests of the gate's renderers (change lines, the Markdown step summary, the trend table and chart)
//! on runs recorded through the real recorder from fixed inputs: exact output, verdicts that follow from them.

use httpbench_shared::change::{Metric, Rule};
use httpbench_shared::{render, Format, Mode, RenderOptions, Report, Source};

use crate::render::{native, recorded};

/// The native fixture run, its `curl/reuse` case `slower_by` percent slower per request, started at `at`.
fn run(slower_by: u64, at: u64) -> Report {
    let mut r = native();
    let slow = recorded(80 + 80 * slower_by / 100, 20, 0).finish("curl", Mode::Reuse, None);
    r.cases[1] = slow;
    r.environment.started_unix_ms = Some(at);
    r
}

fn options(threshold: f64) -> RenderOptions {
    RenderOptions { change: Rule { metric: Metric::Rate, threshold }, ..Default::default() }
}

#[test]
fn change_lines_and_markdown_of_a_gate() {
    let (base, new) = (run(0, 1), run(20, 2));
    let sources = [Source::tagged(&base, Some("base")), Source::tagged(&new, Some("new"))];
    let text = render(&sources, Format::Text, &options(0.05));
    let start = text.find("Change from base to new").expect("change lines");
    let section: String = text[start..].lines().take_while(|l| !l.is_empty()).collect::<Vec<_>>().join("\n");
    assert!(section.lines().any(|l| l.contains("curl/reuse") && l.ends_with("slower")), "{section}");
    insta::assert_snapshot!("gate_text", section);
    let markdown = render(&sources, Format::Markdown, &options(0.05));
    assert!(markdown.starts_with("**Change from base to new"), "{markdown}");
    insta::assert_snapshot!("gate_markdown", markdown);
}

#[test]
fn the_trend_orders_runs_by_their_start_and_marks_what_the_gate_flags() {
    let (first, second, third) = (run(0, 1), run(0, 2), run(25, 3));
    // Given newest first, as a shell glob might list them: the trend still runs oldest to newest.
    let sources =
        [Source::tagged(&third, Some("c")), Source::tagged(&first, Some("a")), Source::tagged(&second, Some("b"))];
    let text = render(&sources, Format::Text, &options(0.05));
    let start = text.find("Trend of wall rate over 3 runs").expect("the trend table");
    let table: String = text[start..].lines().take_while(|l| !l.is_empty()).collect::<Vec<_>>().join("\n");
    let header = table.lines().nth(1).unwrap();
    assert!(header.find(" a").unwrap() < header.find(" b").unwrap() && header.find(" b") < header.find(" c"));
    let curl = table.lines().find(|l| l.trim_start().starts_with("curl/reuse")).unwrap();
    assert!(curl.ends_with('▼') && curl.matches('▼').count() == 1, "only the last run is slower: {curl}");
    assert_eq!(curl.matches('≈').count(), 1, "the second run is the same as the first: {curl}");
    insta::assert_snapshot!("gate_trend", table);
    let html = render::html(&sources, &options(0.05));
    let chart = html.find("data-testid=\"trend-chart\"").expect("the trend chart");
    assert!(html[chart..].contains("<polyline") || html[chart..].contains("<path"), "a line per case");
    assert!(html[chart..].contains(">c: 1 slower<"), "the flagged run is named on its axis");
}
