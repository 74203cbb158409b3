//! The results composition, the HTML report's body and the page's results alike: a snapshot of a native and a
//! browser report side by side, and each histogram found by its case in its own report, never by position.

use std::time::Duration;

use httpbench_shared::model::HttpVersion;
use httpbench_shared::render::charts::histogram;
use httpbench_shared::render::results;
use httpbench_shared::session::{Budget, Matrix, Plan, Session, Step};
use httpbench_shared::{fixture, EnvironmentKind, Mode, Outcome, RenderOptions, Source};

use crate::html::native_histograms;
use crate::render::{browser, native};

/// What the page shows after importing a native file into its own run (or `compare` of the two): every
/// section, both environments, histograms where the run kept them and percentile charts for the rest.
#[test]
fn results_of_native_and_browser_side_by_side() {
    let (n, b) = (native(), browser());
    let histograms = native_histograms(&n);
    let sources = [Source::new(&n).with_histograms(&histograms), Source::new(&b)];
    insta::assert_snapshot!(results(&sources, &RenderOptions::default()));
}

/// A report whose cases are in another order than its histograms: each case still shows its own histogram
/// (paired by position, `curl/fresh` would show `raw/reuse`'s).
#[test]
fn histograms_are_found_by_their_case_not_by_their_order() {
    let mut r = native();
    let histograms = native_histograms(&r);
    r.cases.reverse();
    let shown = results(&[Source::new(&r).with_histograms(&histograms)], &RenderOptions::default());
    for (case, h) in r.cases.iter().rev().zip(&histograms) {
        let label = format!("{}/{}", case.client, case.mode.as_str());
        assert!(shown.contains(&histogram(&label, &h.bins)), "{label} shows its own histogram");
    }
    let mut reversed = histograms.clone();
    reversed.reverse();
    let again = results(&[Source::new(&r).with_histograms(&reversed)], &RenderOptions::default());
    assert_eq!(again, shown, "the histograms' order does not matter");
}

/// Two reports of the same cases (a native and a browser `reqwest` have one name): a histogram belongs to the
/// report that carries it, and the other report's cases get percentile charts.
#[test]
fn a_histogram_belongs_to_its_own_report() {
    let (a, b) = (native(), native());
    let histograms = native_histograms(&b);
    let sources = [Source::tagged(&a, Some("a")), Source::tagged(&b, Some("b")).with_histograms(&histograms)];
    let shown = results(&sources, &RenderOptions::default());
    assert_eq!(shown.matches("aria-label=\"Latency percentiles of a/").count(), 4, "{shown}");
    assert_eq!(shown.matches("aria-label=\"Latency histogram of b/").count(), 4, "{shown}");
    assert!(!shown.contains("Latency histogram of a/"), "{shown}");
}

/// A browser asked for no version negotiates one itself (the page opened by hand): its case, keyed HTTP/1.1,
/// ran over HTTP/2 and reports HTTP/2, and its histogram is named by the case as reported, so the page still
/// finds it.
#[test]
fn a_case_over_a_version_it_observed_keeps_its_histogram() {
    let plan = Plan { budget: Budget::Count(2), warmup: 0, rounds: 1, interleave: true };
    let matrix =
        Matrix { negotiated: true, ..Matrix::new(EnvironmentKind::Browser, vec!["fetch".into()], vec![Mode::Reuse]) };
    let mut session = Session::new(plan, matrix, None);
    while let Step::Round { case, .. } = session.next_step() {
        for _ in 0..2 {
            session.record(case, &Outcome::response(200, 612), Duration::from_micros(300));
        }
        session.observe_http(case, HttpVersion::Http2);
        session.end_round(case, Duration::from_micros(600), None);
    }
    let finished = session.finish(fixture::header(EnvironmentKind::Browser));
    let case = &finished.report.cases[0];
    assert_eq!(case.http_version, HttpVersion::Http2);
    let source = Source::new(&finished.report).with_histograms(&finished.histograms);
    assert!(source.histogram(case).is_some_and(|bins| !bins.is_empty()));
}
