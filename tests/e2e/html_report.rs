//! `--export-html`: the HTML report of a real run against the embedded server (and of a scan, and of
//! `compare`), written as one file; a bad path refused before anything runs; and the file opened from disk
//! (`file://`, no server) in headless Chromium at a desktop's and a phone's width, screenshots saved under
//! `tests/artifacts/`.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::chromium::Chromium;
use crate::support::cli::run;
use crate::support::page::PageDriver;
use crate::support::scratch;

/// `httpbench run ARGS --export-html PATH` (stdout in CSV), checked to succeed; the file's text.
fn export_html(path: &Path, args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.extend(["--format", "csv", "--export-html", path.to_str().unwrap()]);
    let (code, _, err) = run(&all);
    assert_eq!(code, 0, "{err}");
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn run_and_compare_write_the_html_report() {
    let dir = scratch("html-report");
    let (html, json) = (dir.join("run.html"), dir.join("run.json"));
    let args = ["-n", "20", "--warmup", "0", "--clients", "raw,curl", "--mode", "reuse"];
    let page = export_html(&html, &[&args[..], &["--export-json", json.to_str().unwrap()]].concat());
    assert!(page.starts_with("<!doctype html>") && page.ends_with("</html>\n"));
    assert!(!page.contains("<script"), "a report runs nothing");
    for case in ["raw", "curl"] {
        assert!(page.contains(&format!("data-case=\"{case}\"")), "{case} has a table row");
        // The run's own histograms, not the percentile stand-in of a file.
        assert!(page.contains(&format!("aria-label=\"Latency histogram of {case},")), "{case}: {page}");
    }
    assert_eq!(page.matches("<svg").count(), 4, "the rate chart, the latency chart and two histograms");
    assert!(page.contains("data-testid=\"latency-chart\"") && page.contains("Latency by percentile"), "{page}");
    // From the result file: the same cases, percentiles where the run had histograms.
    let compared = dir.join("compared.html");
    let (code, out, err) = run(&["compare", json.to_str().unwrap(), "--export-html", compared.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("req/s") && out.contains("95% CI"), "the text report is printed: {}", out);
    let page = std::fs::read_to_string(&compared).unwrap();
    assert_eq!(page.matches("aria-label=\"Latency percentiles of ").count(), 2, "{page}");
}

#[test]
fn a_scan_writes_its_charts() {
    let dir = scratch("html-report-scan");
    let html = dir.join("scan.html");
    let scan = ["-n", "40", "--warmup", "0", "--clients", "raw,curl", "--mode", "reuse", "-c", "1,4"];
    let page = export_html(&html, &[&scan[..], &["--body-size", "1k,16k"]].concat());
    // By requests in flight: rate, p50, p99; by body size: rate, MB/s, p50, p99.
    assert_eq!(page.matches("data-testid=\"scan-chart\"").count(), 7, "{page}");
    assert!(page.contains(">p99 latency (ms) by requests in flight</text>") && page.contains("class=\"whisker s1\""));
    for legend in ["raw/1k", "curl/16k", "raw/c1", "curl/c4"] {
        assert!(page.contains(&format!(">{legend}</text>")), "{legend} in a legend");
    }
    assert_eq!(page.matches("data-testid=\"stats-table\"").count(), 4, "a table per load level");
}

#[test]
fn an_html_export_into_a_missing_directory_is_refused_before_running() {
    for command in [&["run", "-n", "100000", "--clients", "raw"][..], &["compare", "any.json"]] {
        let start = Instant::now();
        let (code, out, err) = run(&[command, &["--export-html", "/nonexistent/dir/x.html"]].concat());
        assert_eq!(code, 2, "{command:?}: {err}");
        assert!(out.is_empty(), "nothing ran: {out}");
        assert!(err.contains("--export-html /nonexistent/dir/x.html") && err.contains("does not exist"), "{err}");
        assert!(start.elapsed() < Duration::from_secs(10), "refused at once, not after 100000 requests");
    }
}

#[test]
#[ignore = "needs Chromium (on PATH or HTTPBENCH_CHROMIUM): scripts/test.sh runs it"]
fn the_html_report_reads_in_chromium_on_a_desktop_and_on_a_phone() {
    let dir = scratch("html-report-chromium");
    let path = dir.join("report.html");
    export_html(&path, &["run", "-n", "200", "--clients", "raw,curl"]);
    let chromium = Chromium::launch();
    let tab = chromium.page();
    tab.navigate(&format!("file://{}", path.display()));
    let count = |selector: &str| tab.eval(&format!("String(document.querySelectorAll(\"{selector}\").length)"));
    assert_eq!(count("[data-testid='rate-chart'] svg rect.bar"), "4", "a bar per case (2 clients × 2 modes)");
    assert_eq!(count("[data-testid='stats-row']"), "4");
    assert_eq!(count("[data-testid='histograms'] figure svg"), "4");
    assert_eq!(tab.eval("getComputedStyle(document.querySelector(\"[data-testid='histograms']\")).display"), "grid");
    assert_eq!(count("script, link, img, iframe"), "0", "nothing to run or fetch");
    // The answer first: the headline's top within the first screen, before every chart.
    let top = |selector: &str| -> f64 {
        let js = format!("String(document.querySelector(\"{selector}\").getBoundingClientRect().top)");
        tab.eval(&js).parse().unwrap()
    };
    assert!(top("[data-testid='headline']") < 400.0, "{}", top("[data-testid='headline']"));
    assert!(top("[data-testid='headline']") < top("[data-testid='rate-chart']"));
    assert_eq!(count("[data-testid='latency-chart'] svg path.line"), "8", "a line per case, and its legend entry");
    // The details are folded; opened, they lay out as before.
    assert_eq!(count("details[open]"), "0", "histograms and the text report start folded");
    assert_eq!(tab.accessibility_violations(), Vec::<String>::new(), "axe-core, folded");
    tab.eval("document.querySelectorAll('details').forEach(d => d.open = true), ''");
    assert_eq!(tab.accessibility_violations(), Vec::<String>::new(), "axe-core, unfolded");
    // The check can fail: an image without a text alternative is found.
    tab.eval("document.querySelector('main').append(document.createElement('img')), ''");
    let found = tab.accessibility_violations();
    assert!(found.len() == 1 && found[0].starts_with("image-alt (critical): "), "{found:?}");
    tab.eval("document.querySelector('main > img').remove(), ''");
    let desktop = tab.screenshot(1280, "html-report.png");
    assert!(std::fs::metadata(&desktop).unwrap().len() > 10_000, "a real screenshot");
    // Side by side on a desktop: the grid's second histogram starts beside the first, not under it.
    let tops = "[...document.querySelectorAll(\"[data-testid='histograms'] figure\")].slice(0, 2)\
                .map(f => f.getBoundingClientRect().top).join(' ')";
    let tops = tab.eval(&format!("String({tops})"));
    let (a, b) = tops.split_once(' ').unwrap();
    assert_eq!(a, b, "histograms in a row at 1280 px: {tops}");
    tab.screenshot(375, "html-report-375px.png");
    // At a phone's width too, the headline's top is on the first screen (900 px).
    assert!(top("[data-testid='headline']") < 900.0, "{}", top("[data-testid='headline']"));
    // Dark as the reader's system is: the sheet's background and the charts' grid follow.
    tab.dark(true);
    let background = "getComputedStyle(document.body).backgroundColor";
    assert_eq!(tab.eval(background), "rgb(13, 17, 23)");
    let grid = "getComputedStyle(document.querySelector(\"[data-testid='latency-chart'] .grid\")).stroke";
    assert_eq!(tab.eval(grid), "rgb(61, 68, 77)", "the grid follows the dark sheet");
    tab.screenshot(1280, "html-report-dark.png");
    assert_eq!(tab.accessibility_violations(), Vec::<String>::new(), "axe-core, dark");
    tab.screenshot(390, "html-report-dark-390px.png");
    tab.dark(false);
    assert_eq!(tab.eval(background), "rgb(255, 255, 255)");
    // On a phone the text report's lines are wider than the screen: its box scrolls, the page does not.
    assert_eq!(tab.eval("String(document.documentElement.scrollWidth <= window.innerWidth)"), "true");
    let pre = "document.querySelector(\"[data-testid='report']\")";
    assert_eq!(tab.eval(&format!("String({pre}.scrollWidth > {pre}.clientWidth)")), "true", "lines run on, uncut");
    assert_eq!(tab.eval(&format!("getComputedStyle({pre}).overflowX")), "auto");
    // A scan's report, for its line charts (looked at in the screenshot).
    let scan = dir.join("scan.html");
    let args = ["run", "-n", "100", "--clients", "raw,curl", "--mode", "reuse", "-c", "1,2,4", "--body-size", "1k,64k"];
    export_html(&scan, &args);
    tab.navigate(&format!("file://{}", scan.display()));
    // By level: rate, p50, p99 with 4 lines each; by size: rate, MB/s, p50, p99 with 6; each line with its
    // legend entry.
    assert_eq!(count("[data-testid='scan-chart'] svg path.line"), "72", "(3 × 4 + 4 × 6) × 2");
    tab.screenshot(1280, "html-report-scan.png");
    tab.screenshot(375, "html-report-scan-375px.png");
    assert_eq!(tab.eval("String(document.documentElement.scrollWidth <= window.innerWidth)"), "true");
}
