//! The session driven as a front end drives it, on a mock clock: order, budgets, stops, CPU and the report.

use super::*;
use crate::clock::{Clock, MockClock};
use crate::model::{EnvironmentKind, ErrorKind, Mode};

mod answer;
mod versions;

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
            link: None,
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
fn a_session_that_takes_turns_stops_at_each_pass_its_warm_ups_in_the_first() {
    let clock = MockClock::new();
    let mut session = new_session(plan(Budget::Count(2), 1, 2, true), two_clients(), vec![Mode::Reuse], None);
    session.take_turns();
    let mut front = Front::new(&clock, vec![vec![10], vec![10]]);
    front.drive(&mut session, None);
    assert_eq!(
        front.log,
        "|0|ab AB|1|AB".replace(' ', ""),
        "a pass is a round of every case; the warm-ups are in the first"
    );
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

/// Every warm-up request of every case failed: the run stops after the warm-up, no round is handed out, and
/// the first failure says why; one ok warm-up request anywhere, an aborted case aside, lets the run go on.
#[test]
fn a_target_that_fails_every_warm_up_request_stops_the_run_after_the_warm_up() {
    let plan = Plan { budget: Budget::Count(10), warmup: 2, rounds: 2, interleave: true };
    let refused = Outcome::failed(ErrorKind::Connect, None);
    let drive = |ok_at: Option<(usize, usize)>, abort: Option<usize>| {
        let mut s = new_session(plan, vec!["curl".into(), "raw".into()], vec![Mode::Reuse], None);
        let mut rounds = 0;
        loop {
            match s.next_step() {
                Step::Warmup { case, requests } => {
                    if abort == Some(case) {
                        s.abort(case, "not installed".into());
                        continue;
                    }
                    for i in 0..requests as usize {
                        let outcome = if ok_at == Some((case, i)) { Outcome::response(200, 1) } else { refused };
                        let reason = s.wants_warmup_reason(case).then_some("Connection refused");
                        s.record_warmup(case, &outcome, reason);
                    }
                }
                Step::Round { case, .. } => {
                    rounds += 1;
                    s.record(case, &Outcome::response(200, 1), Duration::from_micros(10));
                    s.end_round(case, Duration::from_micros(10), None);
                }
                Step::Turn { .. } => {}
                Step::Done => break,
            }
        }
        (rounds, s.unreachable().cloned())
    };
    let (rounds, why) = drive(None, None);
    assert_eq!(rounds, 0, "no round after a warm-up that failed throughout");
    let why = why.expect("unreachable");
    assert_eq!(why, Unreachable { kind: ErrorKind::Connect, reason: Some("Connection refused".into()) });
    assert_eq!(
        why.message("http://127.0.0.1:1/"),
        "every request to http://127.0.0.1:1/ failed in the warm-up (connect: Connection refused); is the server \
         running, on that port?"
    );
    assert_eq!(drive(Some((1, 1)), None), (4, None), "one ok warm-up request: the run goes on");
    assert_eq!(drive(None, Some(0)).0, 0, "an aborted case does not keep a dead target alive");
    let no_warmup = Plan { warmup: 0, ..plan };
    let mut s = new_session(no_warmup, vec!["curl".into()], vec![Mode::Reuse], None);
    assert!(matches!(s.next_step(), Step::Round { .. }), "without a warm-up there is nothing to judge by");
}
