//! HTTP versions and load levels as dimensions of a session's cases: who is left out of which and why, what a
//! browser negotiated, and a case per level of a scan.

use super::*;

#[test]
fn http_versions_are_a_dimension_and_clients_without_h2_are_skipped_with_a_reason() {
    let matrix = Matrix {
        http_versions: vec![HttpVersion::Http11, HttpVersion::Http2],
        tls: true,
        ..Matrix::new(
            EnvironmentKind::Native,
            vec!["curl".into(), "ureq".into(), "perl-lwp".into()],
            vec![Mode::Fresh, Mode::Reuse],
        )
    };
    let session = Session::new(plan(Budget::Count(1), 0, 1, false), matrix, None);
    let labels: Vec<String> = (0..session.cases().len()).map(|i| session.label(i)).collect();
    let expected = [
        "curl/fresh/h1",
        "curl/fresh/h2",
        "curl/reuse/h1",
        "curl/reuse/h2",
        "ureq/fresh/h1",
        "ureq/reuse/h1",
        "perl-lwp/fresh/h1",
        "perl-lwp/reuse/h1",
    ];
    assert_eq!(labels, expected);
    let s = session.settings();
    assert!(s.tls);
    assert_eq!(s.http_versions, [HttpVersion::Http11, HttpVersion::Http2]);
    let skipped = ["ureq over HTTP/2 (HTTP/1.1 only)", "perl-lwp over HTTP/2 (HTTP/1.1 only)"];
    assert_eq!(s.skipped, skipped);
    // One version: no suffix.
    let one = Session::new(
        plan(Budget::Count(1), 0, 1, false),
        Matrix::new(EnvironmentKind::Native, vec!["curl".into()], vec![Mode::Reuse]),
        None,
    );
    assert_eq!(one.label(0), "curl/reuse");
}

#[test]
fn a_response_over_another_http_version_is_a_protocol_error_with_its_reason() {
    let matrix = Matrix {
        http_versions: vec![HttpVersion::Http2],
        tls: true,
        ..Matrix::new(EnvironmentKind::Native, vec!["curl".into()], vec![Mode::Reuse])
    };
    let mut session = Session::new(plan(Budget::Count(3), 0, 1, false), matrix, None);
    let Step::Round { case, .. } = session.next_step() else { panic!("a round first") };
    let ms = Duration::from_millis(1);
    session.record(case, &Outcome::response(200, 10).over(Some(HttpVersion::Http2)), ms);
    session.record(case, &Outcome::response(200, 10).over(Some(HttpVersion::Http11)), ms);
    session.record(case, &Outcome::response(200, 10).over(None), ms);
    assert!(session.wants_reason(case, ErrorKind::Tls));
    session.note_reason(case, ErrorKind::Tls, "first".into());
    session.note_reason(case, ErrorKind::Tls, "second".into());
    assert!(!session.wants_reason(case, ErrorKind::Tls));
    let seen = |full, resumed| Handshakes { version: "TLSv1.3".into(), cipher_suite: "X".into(), full, resumed };
    session.record_handshakes(case, &[seen(1, 0)]);
    session.record_handshakes(case, &[seen(0, 2), Handshakes { version: "TLSv1.2".into(), ..seen(1, 0) }]);
    session.end_round(case, Duration::from_millis(3), None);
    let c = &session.finish(header()).report.cases[0];
    assert_eq!((c.ok, c.errors[&ErrorKind::Protocol]), (2, 1));
    // In the order of the kinds, whatever order they came in.
    assert_eq!(c.error_reasons, ["protocol: the response came over HTTP/1.1, HTTP/2 was asked for", "tls: first"]);
    assert_eq!(c.http_version, HttpVersion::Http2);
    assert_eq!(c.tls.as_deref(), Some("TLSv1.3 X"));
    assert_eq!((c.tls_full_handshakes, c.tls_resumed_handshakes), (Some(2), Some(2)));
}

#[test]
fn a_browser_case_reports_the_http_version_it_negotiated() {
    let matrix = Matrix {
        negotiated: true,
        ..Matrix::new(EnvironmentKind::Browser, vec!["fetch".into(), "xhr".into()], vec![Mode::Reuse])
    };
    let mut session = Session::new(plan(Budget::Count(1), 0, 1, false), matrix, None);
    for case in 0..2 {
        let Step::Round { case: c, .. } = session.next_step() else { panic!("a round") };
        assert_eq!(c, case);
        session.record(c, &Outcome::response(200, 1), Duration::from_millis(1));
        session.end_round(c, Duration::from_millis(1), None);
    }
    session.observe_http(0, HttpVersion::Http2);
    session.observe_http(0, HttpVersion::Http11);
    let finished = session.finish(header());
    let cases = &finished.report.cases;
    assert_eq!((cases[0].http_version, cases[1].http_version), (HttpVersion::Http2, HttpVersion::Http11));
    assert_eq!(finished.report.settings.http_versions, [HttpVersion::Http2, HttpVersion::Http11], "the versions seen");
    assert_eq!(finished.histograms[0].key.http, HttpVersion::Http2, "keyed as the report's case reads");
}

/// A browser case that asked for a version and came over another is stopped with why, as the CLI's
/// browser half did after the fact.
#[test]
fn a_browser_case_that_asked_for_a_version_is_stopped_on_another() {
    let matrix = Matrix {
        http_versions: vec![HttpVersion::Http11, HttpVersion::Http2],
        tls: true,
        ..Matrix::new(EnvironmentKind::Browser, vec!["fetch".into()], vec![Mode::Reuse])
    };
    let mut session = Session::new(plan(Budget::Count(2), 0, 2, true), matrix, None);
    let Step::Round { case: 0, .. } = session.next_step() else { panic!("h1's round") };
    session.record(0, &Outcome::response(200, 1), Duration::from_millis(1));
    session.end_round(0, Duration::from_millis(1), None);
    session.observe_http(0, HttpVersion::Http2);
    let Step::Round { case: 1, .. } = session.next_step() else { panic!("h2's round") };
    session.record(1, &Outcome::response(200, 1), Duration::from_millis(1));
    session.end_round(1, Duration::from_millis(1), None);
    session.observe_http(1, HttpVersion::Http2);
    assert!(matches!(session.next_step(), Step::Round { case: 1, round: 1, .. }), "the stopped case runs no more");
    let report = session.finish(header()).report;
    assert_eq!(report.cases[0].aborted.as_deref(), Some("the responses came over HTTP/2, HTTP/1.1 was asked for"));
    assert_eq!(report.cases[0].http_version, HttpVersion::Http11, "the version asked for");
    assert_eq!(report.cases[1].aborted, None);
    assert_eq!(report.settings.http_versions, [HttpVersion::Http11, HttpVersion::Http2]);
}

/// The matrix owns the browser's skip rule: fresh mode over HTTP/2 runs one request at a time, the other
/// levels are left out with why, every other combination runs.
#[test]
fn the_matrix_leaves_out_fresh_over_http2_with_requests_in_flight_in_a_browser() {
    let matrix = |environment| Matrix {
        http_versions: vec![HttpVersion::Http11, HttpVersion::Http2],
        tls: true,
        concurrency: vec![1, 8],
        ..Matrix::new(environment, vec!["fetch".into()], vec![Mode::Fresh, Mode::Reuse])
    };
    let (cases, skipped) = matrix(EnvironmentKind::Browser).cases();
    let left: Vec<String> =
        cases.iter().map(|k| format!("{}/{}/c{}", k.label(), k.http.short(), k.concurrency)).collect();
    assert_eq!(
        left,
        [
            "fetch/fresh/h1/c1",
            "fetch/fresh/h1/c8",
            "fetch/fresh/h2/c1",
            "fetch/reuse/h1/c1",
            "fetch/reuse/h1/c8",
            "fetch/reuse/h2/c1",
            "fetch/reuse/h2/c8"
        ]
    );
    assert_eq!(skipped, ["fetch/fresh over HTTP/2 at concurrency 8 (a browser multiplexes its requests in flight on one HTTP/2 connection)"]);
    let native = Matrix { clients: vec!["curl".into()], ..matrix(EnvironmentKind::Native) };
    assert_eq!(native.cases().0.len(), 8, "a native client opens a connection per request in flight");
}

/// A scan: every (client, level) a case, levels innermost; labels gain only the scanned parts; a command
/// client is left out of the concurrent levels with why; the report records each case's load.
#[test]
fn scans_make_a_case_per_level_and_record_it() {
    let matrix = Matrix {
        body_sizes: vec![Some(1024)],
        server_delays_ms: vec![Some(5)],
        concurrency: vec![1, 16],
        ..Matrix::new(EnvironmentKind::Native, vec!["curl".into(), "perl-lwp".into()], vec![Mode::Reuse])
    };
    let plan = Plan { budget: Budget::Count(4), warmup: 0, rounds: 1, interleave: false };
    let mut session = Session::new(plan, matrix, None);
    let labels: Vec<String> = (0..session.cases().len()).map(|i| session.label(i)).collect();
    assert_eq!(labels, ["curl/reuse/c1", "curl/reuse/c16", "perl-lwp/reuse/c1"]);
    assert_eq!(session.settings().skipped, ["perl-lwp at concurrency 16 (command clients make one request at a time)"]);
    for case in 0..3 {
        let Step::Round { .. } = session.next_step() else { panic!("a round") };
        session.record(case, &Outcome::response(200, 1024), Duration::from_millis(1));
        session.record_connections(case, 16);
        session.end_round(case, Duration::from_millis(1), None);
    }
    let report = session.finish(header()).report;
    let c = &report.cases[1];
    assert_eq!(
        (c.concurrency, c.body_bytes, c.server_delay_ms, c.connections),
        (Some(16), Some(1024), Some(5), Some(16))
    );
    assert_eq!(report.cases[0].concurrency, None, "sequential is the default and written as absent");
    let rows: Vec<String> =
        crate::view::rows(&[crate::view::Source::new(&report)]).into_iter().map(|r| r.label).collect();
    assert_eq!(rows, ["curl/c1", "curl/c16", "perl-lwp/c1"], "the renderers name the same parts");
}
