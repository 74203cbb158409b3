//! The page itself in Chromium: a run started from its settings shows exactly the text report `shared`
//! renders for the result it exports, one statistics row per case, and an imported CLI result file joins the
//! same report and table, labelled by environment.

use std::time::Duration;

use httpbench_shared::parse::parse_reports;
use httpbench_shared::render::results;
use httpbench_shared::{render, Format, RenderOptions, Source};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

use crate::common;

/// A result file written by the CLI (`httpbench run -n 200 --clients curl,raw --mode reuse --format json`; a
/// debug build, whose figures do not matter here).
const CLI_REPORT: &str = include_str!("fixtures/cli-report.json");

fn row_labels(host: &web_sys::HtmlElement) -> Vec<String> {
    let rows = host.query_selector_all("[data-testid='stats-row']").unwrap();
    (0..rows.length())
        .map(|i| rows.get(i).unwrap().unchecked_into::<web_sys::Element>().get_attribute("data-case").unwrap())
        .collect()
}

/// The headings (`h2`, `h3`) of the page's results, in order.
fn shown_headings(host: &web_sys::HtmlElement) -> Vec<String> {
    let found = host.query_selector_all("section[aria-label='Results'] :is(h2, h3)").unwrap();
    (0..found.length()).map(|i| found.get(i).unwrap().text_content().unwrap()).collect()
}

/// The headings of shared's composition of `sources`, in order: what the page must show.
fn composed_headings(sources: &[Source<'_>]) -> Vec<String> {
    let markup = results(sources, &RenderOptions::default());
    let mut out = Vec::new();
    for part in markup.split("<h").skip(1).filter(|p| p.starts_with("2>") || p.starts_with("3>")) {
        out.push(part[2..part.find("</h").unwrap()].replace("&amp;", "&"));
    }
    out
}

#[wasm_bindgen_test]
async fn the_report_is_what_shared_renders_for_the_exported_result() {
    let host = common::mount(common::small(&common::target(), "fetch,xhr,js-fetch", "reuse", 20));
    let state = common::wait_finished(&host, Duration::from_secs(60)).await;
    assert_eq!(state, "done");
    let json = common::by_testid(&host, "result-json").text_content().unwrap();
    let reports = parse_reports(&json).expect("the page's result file passes shared's checks");
    // The page's text report is the whole one, as a file holds it.
    let expected =
        render(&[Source::new(&reports[0])], Format::Text, &RenderOptions { wide: true, ..Default::default() });
    let shown = common::by_testid(&host, "report").text_content().unwrap();
    assert!(same_but_last_digits(&shown, &expected), "the page showed\n{shown}\nshared renders\n{expected}");
    assert!(shown.starts_with("httpbench-web "), "{shown}");
    assert_eq!(row_labels(&host), vec!["fetch", "xhr", "js-fetch"]);
    let chart = common::by_testid(&host, "rate-chart").inner_html();
    assert_eq!(chart.matches("<rect").count(), 3, "{chart}");
    let histograms = common::by_testid(&host, "histograms").inner_html();
    assert_eq!(histograms.matches("aria-label=\"Latency histogram of ").count(), 3, "{histograms}");
    assert_eq!(shown_headings(&host), composed_headings(&[Source::new(&reports[0])]), "the composition's sections");
    host.remove();
}

#[wasm_bindgen_test]
async fn an_imported_cli_file_joins_the_report_and_the_table() {
    let host = common::mount(common::small(&common::target(), "fetch", "reuse", 10));
    assert_eq!(common::wait_finished(&host, Duration::from_secs(60)).await, "done");
    let paste: web_sys::HtmlTextAreaElement = common::by_testid(&host, "import-paste").unchecked_into();
    paste.set_value(CLI_REPORT);
    paste.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    common::by_testid(&host, "import-paste-button").click();
    common::wait_for("the pasted file's rows", Duration::from_secs(5), || row_labels(&host).len() == 3).await;
    assert_eq!(common::by_testid(&host, "import-error").text_content().unwrap(), "");
    assert_eq!(row_labels(&host), vec!["chromium/fetch", "native/curl", "native/raw"]);
    let text = common::by_testid(&host, "report").text_content().unwrap();
    let own = parse_reports(&common::by_testid(&host, "result-json").text_content().unwrap()).unwrap();
    let cli = parse_reports(CLI_REPORT).unwrap();
    let sources = [Source::tagged(&own[0], Some("this page")), Source::tagged(&cli[0], Some("pasted"))];
    assert_eq!(text, render(&sources, Format::Text, &RenderOptions { wide: true, ..Default::default() }));
    assert!(text.contains("chromium/fetch") && text.contains("native/curl"), "{text}");
    // The same sections as the HTML report of both, an Environment per report; the run's case has its
    // histogram, the file's cases their percentiles.
    assert_eq!(shown_headings(&host), composed_headings(&sources));
    let latency = common::by_testid(&host, "histograms").inner_html();
    assert_eq!(latency.matches("aria-label=\"Latency histogram of chromium/fetch,").count(), 1, "{latency}");
    assert_eq!(latency.matches("aria-label=\"Latency percentiles of native/").count(), 2, "{latency}");
    // A file that is not a result file is refused with shared's message, and nothing is added.
    paste.set_value("{\"schema_version\": 9}");
    paste.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    common::by_testid(&host, "import-paste-button").click();
    let error_text = || common::by_testid(&host, "import-error").text_content().unwrap();
    common::wait_for("the import error", Duration::from_secs(5), || !error_text().is_empty()).await;
    let error = error_text();
    assert!(error.contains("schema_version 9 is not supported"), "{error}");
    assert_eq!(row_labels(&host).len(), 3);
    host.remove();
}

#[wasm_bindgen_test]
async fn bad_settings_are_refused_with_the_value_named() {
    let mut settings = common::small(&common::target(), "fetch", "reuse", 10);
    settings.plan.count = "lots".into();
    let host = common::mount(settings);
    assert_eq!(common::wait_finished(&host, Duration::from_secs(5)).await, "invalid");
    let status = common::by_testid(&host, "status").text_content().unwrap();
    assert!(status.contains("count: 'lots' must be a whole number"), "{status}");
    host.remove();
}

/// `httpbench history DB --format json` of a real history: 30 runs of raw and curl, the server slowed from
/// run 16 on (the end-to-end history test's, exported).
const HISTORY: &str = include_str!("fixtures/history.json");

#[wasm_bindgen_test]
async fn an_opened_history_shows_its_dashboard_filtered_by_case() {
    let mut settings = common::small(&common::target(), "fetch", "reuse", 10);
    settings.autorun = false;
    let host = common::mount(settings);
    let paste: web_sys::HtmlTextAreaElement = common::by_testid(&host, "import-paste").unchecked_into();
    paste.set_value(HISTORY);
    paste.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    common::by_testid(&host, "import-paste-button").click();
    let sections = || {
        host.query_selector("[data-testid='history-series']")
            .unwrap()
            .map(|e| e.query_selector_all("section.series").unwrap().length())
            .unwrap_or(0)
    };
    common::wait_for("the history's series", Duration::from_secs(5), || sections() == 2).await;
    assert_eq!(common::by_testid(&host, "import-error").text_content().unwrap(), "");
    // The same markup as the CLI's dashboard: shared's renderer of the same JSON (both as the browser's parser
    // normalises them).
    let analysis = httpbench_shared::history::from_json(HISTORY).unwrap();
    let shown = common::by_testid(&host, "history-series").inner_html();
    let expected = web_sys::window().unwrap().document().unwrap().create_element("div").unwrap();
    expected.set_inner_html(&httpbench_shared::render::history_sections(&analysis, ""));
    assert_eq!(shown.trim_end_matches("<!---->"), expected.inner_html());
    assert_eq!(shown.matches("class=\"cp\"").count(), 2, "a change line per series");
    let filter: web_sys::HtmlInputElement = common::by_testid(&host, "history-filter").unchecked_into();
    filter.set_value("curl");
    filter.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    common::wait_for("the filter", Duration::from_secs(5), || sections() == 1).await;
    assert!(common::by_testid(&host, "history-series").inner_html().contains("curl/reuse/h1"));
    // A history's JSON of another version is refused by name.
    paste.set_value(&HISTORY.replacen("\"httpbench_history\": 1", "\"httpbench_history\": 7", 1));
    paste.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    common::by_testid(&host, "import-paste-button").click();
    let error_text = || common::by_testid(&host, "import-error").text_content().unwrap();
    common::wait_for("the import error", Duration::from_secs(5), || !error_text().is_empty()).await;
    assert!(error_text().contains("pasted: a history's JSON of version 7"), "{}", error_text());
    host.remove();
}

/// `a` and `b` are the same text but where a digit is one off: the page renders its report from its own
/// figures, the test from its file parsed in wasm without serde_json's `float_roundtrip` (the page's size
/// choice), so a figure on a rounding boundary may differ in its last digit (`+137.2 µs` and `+137.3 µs`,
/// seen once in CI). Anything else differing is a difference.
fn same_but_last_digits(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| match (x.to_digit(10), y.to_digit(10)) {
            (Some(m), Some(n)) => m.abs_diff(n) <= 1 || m.abs_diff(n) == 9,
            _ => x == y,
        })
}
