//! The HTML report: a snapshot of a whole native report (histograms where the run kept them, percentiles
//! where it did not), and the promises of the format checked on their own: self-contained (no script, no
//! asset fetched from anywhere), every label escaped, the text report inside it unchanged.

use httpbench_shared::model::Report;
use httpbench_shared::render::{html, results, text};
use httpbench_shared::session::{CaseHistogram, CaseKey, HISTOGRAM_BINS};
use httpbench_shared::{RenderOptions, Source};

use crate::render::{browser, native, recorded, scan, NATIVE_CASES};

/// The histograms of [`native`]'s cases (of `r`, made by it), as its session would have handed them over,
/// each named by its case.
pub(crate) fn native_histograms(r: &Report) -> Vec<CaseHistogram> {
    r.cases
        .iter()
        .zip(NATIVE_CASES)
        .map(|(case, (base, spread, fail))| CaseHistogram {
            key: CaseKey::of(case),
            bins: recorded(base, spread, fail).histogram(HISTOGRAM_BINS),
        })
        .collect()
}

#[test]
fn html_report() {
    let r = native();
    let mut histograms = native_histograms(&r);
    // The last case as if read from a file: a percentile chart instead.
    histograms.pop();
    insta::assert_snapshot!(html(&[Source::new(&r).with_histograms(&histograms)], &RenderOptions::default()));
}

/// The report's body is the results composition the page shows, whole; its style the sheet the page links.
#[test]
fn the_html_report_is_the_composition_in_a_document() {
    let r = native();
    let histograms = native_histograms(&r);
    let sources = [Source::new(&r).with_histograms(&histograms)];
    let page = html(&sources, &RenderOptions::default());
    let body = format!("<main>\n<h1>httpbench report</h1>\n{}</main>\n", results(&sources, &RenderOptions::default()));
    assert!(page.contains(&body), "{page}");
    assert!(page.contains(include_str!("../../src/render/report.css")), "the page's sheet, inlined");
}

/// Every `http://` or `https://` in `page` that is neither the target's URL (as text) nor the SVG namespace.
fn foreign_urls<'a>(page: &'a str, target: &str) -> Vec<&'a str> {
    let svg_ns = "http://www.w3.org/2000/svg";
    page.match_indices("http")
        .map(|(i, _)| &page[i..])
        .filter(|rest| rest.starts_with("http://") || rest.starts_with("https://"))
        .filter(|rest| !rest.starts_with(target) && !rest.starts_with(svg_ns))
        .map(|rest| &rest[..rest.len().min(60)])
        .collect()
}

#[test]
fn the_html_report_is_self_contained_and_escapes_every_label() {
    let (mut n, b) = (native(), browser());
    n.cases[0].client = "<script>alert(\"x\")</script>".into();
    n.environment.cpu = Some("Evil & <b>Co</b>".into());
    let sources = [Source::tagged(&n, Some("a\"b")), Source::tagged(&b, Some("c"))];
    let histograms = native_histograms(&n);
    let sources = [sources[0].with_histograms(&histograms), sources[1]];
    let page = html(&sources, &RenderOptions::default());
    assert!(page.starts_with("<!doctype html>") && page.ends_with("</html>\n"));
    assert!(!page.to_ascii_lowercase().contains("<script"), "no script, not even from a label");
    assert!(page.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"), "the label is shown, escaped");
    assert!(page.contains("Evil &amp; &lt;b&gt;Co&lt;/b&gt;") && !page.contains("<b>"));
    for asset in ["<link", " src=", " href=", "url(", "@import", "@font-face"] {
        assert!(!page.contains(asset), "{asset}: nothing is fetched");
    }
    assert_eq!(foreign_urls(&page, &n.target.url), Vec::<&str>::new());
    assert!(page.contains("http://127.0.0.1:8080/"), "the target is named");
    // Four native cases with histograms, two browser cases without: percentile charts for those.
    assert_eq!(page.matches("aria-label=\"Latency histogram of ").count(), 4);
    assert_eq!(page.matches("aria-label=\"Latency percentiles of ").count(), 2);
    assert_eq!(page.matches("data-testid=\"stats-row\"").count(), 6);
    // The text report is in it whole, escaped once.
    let report = text(&sources, &RenderOptions { wide: true, ..Default::default() });
    let escaped = report.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    assert!(page.contains(&escaped));
}

#[test]
fn the_html_report_of_nothing_says_so() {
    let mut r = native();
    r.cases.clear();
    let page = html(&[Source::new(&r)], &RenderOptions::default());
    assert!(page.contains("No cases were measured.") && !page.contains("<svg"), "{page}");
}

#[test]
fn a_single_case_reports_its_rate_as_the_summary() {
    let mut r = native();
    r.cases.truncate(1);
    let page = html(&[Source::new(&r)], &RenderOptions::default());
    assert!(page.contains("curl ran at "), "{page}");
}

/// A scan draws the rate and the latency's p50 and p99 against each scanned dimension (and the throughput
/// against body size), one line per client and other level, each point with its interval, and a statistics
/// table per load level.
#[test]
fn a_scan_has_its_charts_and_a_table_per_level() {
    let r = scan();
    let page = html(&[Source::new(&r)], &RenderOptions::default());
    assert_eq!(page.matches("data-testid=\"stats-table\"").count(), 4, "one table per level");
    assert!(page.contains("<h3>At 8 in flight, 64k bodies</h3>"), "{page}");
    let start = page.find("<h2>Scans</h2>").expect("a scan section");
    let end = start + page[start..].find("</section>").unwrap();
    let scans = &page[start..end];
    // By requests in flight: rate, p50, p99; by body size: rate, MB/s, p50, p99. With their intervals.
    assert_eq!(scans.matches("<svg").count(), 7);
    assert!(scans.contains(">p99 latency (ms) by requests in flight</text>"), "{scans}");
    assert!(scans.contains("class=\"whisker s0\""), "{scans}");
    for legend in ["curl/1k", "raw/64k", "curl/c1", "raw/c8"] {
        assert!(scans.contains(&format!(">{legend}</text>")), "{legend} in a legend");
    }
    assert!(scans.contains(">64k</text>") && !scans.contains("65.5k"), "sizes spelled as the labels spell them");
    insta::assert_snapshot!(scans);
}
