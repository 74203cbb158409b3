//! The session driven as a front end drives it, on a mock clock: order, budgets, stops, CPU and the report.

use super::*;
use crate::clock::{Clock, MockClock};
use crate::model::{EnvironmentKind, ErrorKind};

mod answer;

/// A plaintext HTTP/1.1 session of native `clients` × `modes`.
fn new_session(plan: Plan, clients: Vec<String>, modes: Vec<Mode>, timeout: Option<Duration>) -> Session {
    Session::new(plan, Matrix::new(EnvironmentKind::Native, clients, modes), timeout)
}

fn header() -> Header {
    crate::fixture::header(EnvironmentKind::Native)
}

/// A front end in miniature: each client takes a scripted time per request on the mock clock; the log
/// records which client ran, warm-ups in lower case and measured requests in upper case.
struct Front<'a> {
    clock: &'a MockClock,
    latencies_us: Vec<Vec<u64>>,
    calls: Vec<usize>,
    log: String,
    /// Stop after this many measured requests in all.
    stop_after: Option<u64>,
    measured: u64,
}

impl<'a> Front<'a> {
    fn new(clock: &'a MockClock, latencies_us: Vec<Vec<u64>>) -> Self {
        let calls = vec![0; latencies_us.len()];
        Front { clock, latencies_us, calls, log: String::new(), stop_after: None, measured: 0 }
    }

    fn request(&mut self, case: usize) -> Outcome {
        let l = &self.latencies_us[case];
        self.clock.advance(Duration::from_micros(l[self.calls[case] % l.len()]));
        self.calls[case] += 1;
        Outcome::response(200, 612)
    }

    fn drive(&mut self, session: &mut Session, cpu: Option<CpuTime>) {
        loop {
            match session.next_step() {
                Step::Warmup { case, requests } => {
                    for _ in 0..requests {
                        self.request(case);
                        self.log.push((b'a' + case as u8) as char);
                    }
                }
                Step::Round { case, budget, .. } => {
                    let start = self.clock.now();
                    let mut done = 0;
                    while budget.wants_more(done, self.clock.now() - start) {
                        if self.stop_after.is_some_and(|n| self.measured >= n) {
                            session.stop();
                            break;
                        }
                        let t0 = self.clock.now();
                        let outcome = self.request(case);
                        session.record(case, &outcome, self.clock.now() - t0);
                        self.log.push((b'A' + case as u8) as char);
                        done += 1;
                        self.measured += 1;
                    }
                    session.end_round(case, self.clock.now() - start, cpu);
                }
                Step::Turn { pass } => self.log.push_str(&format!("|{pass}|")),
                Step::Done => break,
            }
        }
    }
}

fn plan(budget: Budget, warmup: u64, rounds: u32, interleave: bool) -> Plan {
    Plan { budget, warmup, rounds, interleave }
}

fn two_clients() -> Vec<String> {
    vec!["a".into(), "b".into()]
}

#[test]
fn budgets_split_the_count_and_the_duration() {
    let p = plan(Budget::Count(10), 2, 3, true);
    let per_round: Vec<RoundBudget> = (0..3).map(|r| p.round_budget(r)).collect();
    assert_eq!(per_round, vec![RoundBudget::Requests(4), RoundBudget::Requests(3), RoundBudget::Requests(3)]);
    let d = plan(Budget::Duration(Duration::from_secs(3)), 0, 3, true);
    assert_eq!(d.round_budget(0), RoundBudget::Time(Duration::from_secs(1)));
    assert!(RoundBudget::Time(Duration::from_secs(1)).wants_more(0, Duration::from_secs(5)), "at least one");
    assert!(!RoundBudget::Time(Duration::from_secs(1)).wants_more(3, Duration::from_secs(1)));
    assert!(!RoundBudget::Requests(3).wants_more(3, Duration::ZERO));
}

#[test]
fn warmups_first_then_interleaved_rounds_each_request_timed() {
    let clock = MockClock::new();
    let mut session = new_session(plan(Budget::Count(10), 2, 3, true), two_clients(), vec![Mode::Reuse], None);
    let mut front = Front::new(&clock, vec![vec![100], vec![200, 300]]);
    front.drive(&mut session, None);
    assert_eq!(front.log, "aabbAAAABBBBAAABBBAAABBB");
    let out = session.finish(header());
    assert!(!out.stopped && !out.report.partial);
    let a = &out.report.cases[0];
    assert_eq!((a.iterations, a.rounds.len()), (10, 3));
    assert_eq!(a.wall_secs, 0.001);
    assert_eq!(a.rate_wall, 10_000.0);
    assert_eq!(a.latency_ns.unwrap().mean, 100_000.0);
    assert_eq!(out.report.cases[1].latency_ns.unwrap().max, 300_000.0);
    assert_eq!(a.cpu_user_secs, None, "no CPU meter, no CPU figures");
    assert_eq!(out.histograms.len(), 2);
    assert_eq!(
        out.histograms[1].key,
        CaseKey {
            client: "b".into(),
            mode: Mode::Reuse,
            http: HttpVersion::Http11,
            body_bytes: None,
            server_delay_ms: None,
            concurrency: 1
        }
    );
    assert_eq!(out.histograms[1].bins.iter().map(|b| b.count).sum::<u64>(), 10);
}

#[test]
fn without_interleaving_each_case_runs_its_rounds_back_to_back() {
    let clock = MockClock::new();
    let mut session = new_session(plan(Budget::Count(4), 0, 2, false), two_clients(), vec![Mode::Reuse], None);
    let mut front = Front::new(&clock, vec![vec![10], vec![10]]);
    front.drive(&mut session, None);
    assert_eq!(front.log, "AAAABBBB");
}

#[test]
fn a_duration_runs_until_each_rounds_share_is_spent() {
    let clock = MockClock::new();
    let budget = Budget::Duration(Duration::from_millis(3));
    let mut session = new_session(plan(budget, 0, 3, true), vec!["a".into()], vec![Mode::Fresh], None);
    let mut front = Front::new(&clock, vec![vec![250]]);
    front.drive(&mut session, Some(CpuTime { user: Duration::from_millis(1), sys: Duration::ZERO }));
    let out = session.finish(header());
    // 1 ms per round at 250 µs per request: 4 requests a round.
    assert_eq!(out.report.cases[0].iterations, 12);
    assert_eq!(out.report.cases[0].cpu_user_secs, Some(0.003), "CPU summed over the rounds");
    assert_eq!(out.report.settings.count, None);
    assert_eq!(out.report.settings.duration_secs, Some(0.003));
}

#[test]
fn a_stop_keeps_what_was_measured_and_leaves_out_cases_never_started() {
    let clock = MockClock::new();
    let mut session = new_session(plan(Budget::Count(100), 0, 1, false), two_clients(), vec![Mode::Reuse], None);
    let mut front = Front::new(&clock, vec![vec![10], vec![10]]);
    front.stop_after = Some(5);
    front.drive(&mut session, None);
    assert_eq!(session.next_step(), Step::Done, "a stopped session stays done");
    let out = session.finish(header());
    assert!(out.stopped);
    assert!(out.report.partial, "the result file says the run is partial");
    assert_eq!(out.report.cases.len(), 1, "the case that never started is left out");
    assert_eq!((out.report.cases[0].iterations, out.report.cases[0].rounds.len()), (5, 1));
}

#[test]
fn one_unknown_cpu_round_makes_the_case_cpu_unknown_and_empty_rounds_do_not_count() {
    let mut session = new_session(plan(Budget::Count(2), 0, 2, true), vec!["a".into()], vec![Mode::Reuse], None);
    let cpu = Some(CpuTime::default());
    let Step::Round { case, .. } = session.next_step() else { panic!("a round") };
    session.record(case, &Outcome::failed(ErrorKind::Connect, None), Duration::from_micros(1));
    session.end_round(case, Duration::from_millis(1), cpu);
    let Step::Round { case, .. } = session.next_step() else { panic!("a round") };
    session.end_round(case, Duration::from_millis(1), None);
    let out = session.finish(header());
    let c = &out.report.cases[0];
    assert_eq!(c.rounds.len(), 1, "the empty round is not a round");
    assert_eq!(c.cpu_user_secs, Some(0.0), "the empty round's unknown CPU does not count either");
    assert_eq!(c.errors[&ErrorKind::Connect], 1);
}

#[test]
fn the_settings_come_from_the_plan_and_the_cases() {
    let session = new_session(
        plan(Budget::Count(7), 3, 2, true),
        two_clients(),
        vec![Mode::Fresh, Mode::Reuse],
        Some(Duration::from_secs(10)),
    );
    let labels: Vec<String> = session.cases().iter().map(|k| k.label()).collect();
    assert_eq!(labels, ["a/fresh", "a/reuse", "b/fresh", "b/reuse"]);
    assert_eq!((session.measured_requests(), session.warmup_requests()), (Some(28), 12));
    let s = session.settings();
    assert_eq!((s.count, s.duration_secs, s.rounds, s.warmup, s.interleave), (Some(7), None, 2, 3, true));
    assert_eq!(s.clients, ["a", "b"]);
    assert_eq!(s.modes, [Mode::Fresh, Mode::Reuse]);
    assert_eq!(s.timeout_ms, Some(10_000));
}

#[test]
fn an_aborted_case_keeps_what_it_measured_says_why_and_the_others_go_on() {
    let clients = vec!["a".into(), "b".into(), "c".into()];
    let mut session = new_session(plan(Budget::Count(4), 3, 2, true), clients, vec![Mode::Reuse], None);
    let mut steps = Vec::new();
    loop {
        match session.next_step() {
            Step::Warmup { case, .. } => {
                steps.push(format!("w{case}"));
                // c cannot even start: aborted in its warm-up, before any measured request.
                if case == 2 {
                    session.abort(case, "c: exited at start".into());
                }
            }
            Step::Round { case, .. } => {
                steps.push(format!("r{case}"));
                session.record(case, &Outcome::response(200, 1), Duration::from_micros(10));
                session.end_round(case, Duration::from_millis(1), None);
                // a breaks after its first round; the reason given first is kept.
                if case == 0 {
                    session.abort(case, "a: printed 'garbage'".into());
                    session.abort(case, "a: later".into());
                }
            }
            Step::Turn { .. } => unreachable!("a session alone takes no turns"),
            Step::Done => break,
        }
    }
    assert_eq!(steps.join(" "), "w0 w1 w2 r0 r1 r1");
    let out = session.finish(header());
    let got: Vec<(&str, u64, Option<&str>)> =
        out.report.cases.iter().map(|c| (c.client.as_str(), c.iterations, c.aborted.as_deref())).collect();
    assert_eq!(got, [("a", 1, Some("a: printed 'garbage'")), ("b", 2, None), ("c", 0, Some("c: exited at start"))]);
    assert_eq!(out.histograms.len(), 3, "one histogram per reported case");
}

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

#[test]
fn a_session_that_takes_turns_stops_at_each_pass_after_the_warm_ups() {
    let clock = MockClock::new();
    let mut session = new_session(plan(Budget::Count(2), 1, 2, true), two_clients(), vec![Mode::Reuse], None);
    session.take_turns();
    let mut front = Front::new(&clock, vec![vec![10], vec![10]]);
    front.drive(&mut session, None);
    assert_eq!(front.log, "ab|0|AB|1|AB", "a pass is a round of every case");
    let out = session.finish(header());
    assert!(!out.stopped);
    assert_eq!(out.report.cases[0].rounds.len(), 2, "a turn is no round");

    let mut whole = new_session(plan(Budget::Count(2), 0, 2, false), two_clients(), vec![Mode::Reuse], None);
    whole.take_turns();
    let mut front = Front::new(&clock, vec![vec![10], vec![10]]);
    front.drive(&mut whole, None);
    assert_eq!(front.log, "|0|AABB", "without interleaving the whole plan is one pass");

    let mut alone = new_session(plan(Budget::Count(2), 0, 2, true), two_clients(), vec![Mode::Reuse], None);
    let mut front = Front::new(&clock, vec![vec![10], vec![10]]);
    front.drive(&mut alone, None);
    assert_eq!(front.log, "ABAB", "a session alone takes no turns");
}

#[test]
fn a_pass_whose_cases_were_all_aborted_takes_no_turn() {
    let mut session = new_session(plan(Budget::Count(2), 0, 2, true), vec!["a".into()], vec![Mode::Reuse], None);
    session.take_turns();
    assert_eq!(session.next_step(), Step::Turn { pass: 0 });
    let Step::Round { case, .. } = session.next_step() else { panic!("a round") };
    session.abort(case, "broken".into());
    assert_eq!(session.next_step(), Step::Done, "no turn for a pass with nothing left to run");
}

/// The one entry the front ends record through: each request counted, and the first reason of each kind kept
/// whatever reasons follow; an ok request's reason, or a failure's without one, keeps nothing.
#[test]
fn a_sample_keeps_the_first_reason_of_its_kind() {
    let mut session = Session::new(
        plan(Budget::Count(5), 0, 1, false),
        Matrix::new(EnvironmentKind::Native, vec!["curl".into()], vec![Mode::Reuse]),
        None,
    );
    let Step::Round { case, .. } = session.next_step() else { panic!("a round first") };
    let ms = Duration::from_millis(1);
    let refused = Outcome::failed(ErrorKind::Connect, None);
    session.record_sample(case, &Outcome::response(200, 1), ms, Some("not a failure"));
    session.record_sample(case, &refused, ms, None);
    assert!(session.wants_reason(case, ErrorKind::Connect));
    session.record_sample(case, &refused, ms, Some("refused"));
    session.record_sample(case, &refused, ms, Some("later"));
    session.record_sample(case, &Outcome::failed(ErrorKind::Timeout, None), ms, Some("slow"));
    session.end_round(case, Duration::from_millis(5), None);
    let c = &session.finish(header()).report.cases[0];
    assert_eq!((c.ok, c.failed()), (1, 4));
    assert_eq!(c.error_reasons, ["connect: refused", "timeout: slow"]);
}

/// Two cases that differ only in what the tag does not name (the HTTP version) get tags of their own.
#[test]
fn each_case_of_a_session_has_a_tag_of_its_own() {
    let matrix = Matrix {
        http_versions: vec![HttpVersion::Http11, HttpVersion::Http2],
        tls: true,
        ..Matrix::new(EnvironmentKind::Native, vec!["curl".into()], vec![Mode::Reuse])
    };
    let session = Session::new(plan(Budget::Count(1), 0, 1, false), matrix, None);
    let tags: Vec<String> = session.cases().iter().enumerate().map(|(i, k)| k.tag(i, 7)).collect();
    assert_eq!(tags, ["curl.reuse.c1.r7.n0", "curl.reuse.c1.r7.n1"]);
}
