//! Drives the shared run session (`httpbench_shared::session`) with the native clients: the session says what
//! to run next, the runner hands each case's client (one shape for all: a [`Pool`]) a round at a time, reads
//! the clock and the CPU meter around each round, and hands the samples and both readings back. The clock,
//! the CPU meter and the stop flag are passed in, so a test can drive it with a mock clock.

use std::sync::atomic::{AtomicBool, Ordering};

use httpbench_shared::clock::Clock;
use httpbench_shared::model::LinkCounts;
use httpbench_shared::session::{RoundBudget, Session, Step};
use httpbench_shared::stats::Handshakes;
use httpbench_shared::{CpuTime, ErrorKind};

use crate::clients::pool::{Metered, Pool, Record, Round, Sample};
use crate::progress::Progress;

/// The clock, the CPU meter, and the stop flag (set by Ctrl-C) the runner uses.
pub(crate) struct Instruments<'a> {
    /// Monotonic clock for request and round timing.
    pub clock: &'a dyn Clock,
    /// CPU time of the client so far, if the OS tells it.
    pub cpu: &'a dyn Fn() -> Option<CpuTime>,
    /// When set, the runner stops after the current request; cases so far are still reported.
    pub stop: &'a AtomicBool,
    /// The embedded TLS server's handshake tally, read before and after each round; `None` where there is
    /// none (plaintext, an external server).
    pub handshakes: Option<&'a dyn Fn() -> Option<Vec<Handshakes>>>,
    /// The connections the embedded server counted so far under case `i`'s tag (its requests carry it), read
    /// after each warm-up and round; `None` for an external server.
    pub connections: Option<&'a dyn Fn(usize) -> Option<u64>>,
    /// Where the runner waits for the native clients' turn at each pass of a run shared with browser pages
    /// (`Pages::native_turn`; it hears their progress meanwhile); `None` for a run of its own.
    pub turn: Option<TakeTurn<'a>>,
    /// Called before each warm-up and round of case `i`, outside its timing: `--link` sets the emulated link to
    /// the case's there. `None` over loopback.
    pub before: Option<&'a dyn Fn(usize)>,
    /// What the emulated link did to packets since the last call (`--link`), read before each measured round
    /// (what went between rounds is not the case's) and after it; `None` over loopback.
    pub link_counts: Option<&'a dyn Fn() -> LinkCounts>,
}

/// Waits for the native clients' turn at a pass ([`Instruments::turn`]).
pub(crate) type TakeTurn<'a> = &'a dyn Fn(u32, &Progress);

/// Run `session` to its end with `pools[i]` for its case `i`: every step it hands out, until it is done or
/// the stop flag is set (then the session is stopped and keeps what was measured).
pub(crate) fn run(
    session: &mut Session,
    pools: &mut [Box<dyn Pool + '_>],
    inst: &Instruments<'_>,
    progress: &Progress,
) {
    let labels: Vec<String> = (0..session.cases().len()).map(|i| session.label(i)).collect();
    // Each case's count so far: the server counts per tag for its whole life, a step adds what it grew by.
    let mut counted = vec![0u64; labels.len()];
    loop {
        if inst.stop.load(Ordering::Relaxed) {
            session.stop();
        }
        let case = match session.next_step() {
            Step::Warmup { case, requests } => {
                progress.stage(&format!("warm-up {}", labels[case]));
                if let Some(before) = inst.before {
                    before(case);
                    if inst.stop.load(Ordering::Relaxed) {
                        continue;
                    }
                }
                round(session, case, pools[case].as_mut(), RoundBudget::Requests(requests), None, inst);
                case
            }
            Step::Round { case, budget, .. } => {
                progress.stage(&format!("{} · {} rounds left", labels[case], session.rounds_left()));
                if let Some(before) = inst.before {
                    before(case);
                    // A link that could not be set stops the run: no round over another link than its case's.
                    if inst.stop.load(Ordering::Relaxed) {
                        continue;
                    }
                }
                let before = inst.handshakes.and_then(|read| read());
                let _between_rounds = inst.link_counts.map(|take| take());
                round(session, case, pools[case].as_mut(), budget, Some(progress), inst);
                if let Some(take) = inst.link_counts {
                    session.record_link(case, &take());
                }
                let after = inst.handshakes.and_then(|read| read());
                if let (Some(before), Some(after)) = (before, after) {
                    session.record_handshakes(case, &crate::server::handshakes::since(&before, &after));
                }
                case
            }
            Step::Turn { pass } => {
                if let Some(turn) = inst.turn {
                    turn(pass, progress);
                }
                continue;
            }
            Step::Done => break,
        };
        if let Some(now) = inst.connections.and_then(|read| read(case)) {
            session.record_connections(case, now.saturating_sub(counted[case]));
            counted[case] = counted[case].max(now);
        }
    }
}

/// Where a measured round's samples go: the session (which keeps the first reason of each kind) and the
/// progress bar. A warm-up's are only tallied, so a target that fails them all stops the run there.
struct Samples<'a> {
    session: &'a mut Session,
    case: usize,
    progress: Option<&'a Progress>,
}

impl Record for Samples<'_> {
    fn sample(&mut self, s: Sample) {
        let Some(progress) = self.progress else {
            self.session.record_warmup(self.case, &s.outcome, s.reason.as_deref());
            return;
        };
        self.session.record_sample(self.case, &s.outcome, s.latency, s.reason.as_deref());
        if let (None, Some(phases)) = (s.outcome.error, s.phases) {
            self.session.record_phases(self.case, &phases);
        }
        progress.advance(1);
    }

    fn wants_reason(&self, kind: ErrorKind) -> bool {
        match self.progress {
            Some(_) => self.session.wants_reason(self.case, kind),
            None => self.session.wants_warmup_reason(self.case),
        }
    }
}

/// One round of case `case` (`progress`: measured, and told of each request), or its warm-up (`None`): the
/// pool makes its requests and times each; the runner times the round, from before the first request started
/// to after the last one ended, less the time the pool says it waited on a hung client, and meters its CPU
/// (this process's, unless the pool meters its own). A client that broke is aborted after its round is closed
/// with what it answered; a Ctrl-C ends the run, not the case (the session stops by the flag).
fn round(
    session: &mut Session,
    case: usize,
    pool: &mut dyn Pool,
    budget: RoundBudget,
    progress: Option<&Progress>,
    inst: &Instruments<'_>,
) {
    let cpu_start = (inst.cpu)();
    let start = inst.clock.now();
    let round = Round { budget, stop: inst.stop, clock: inst.clock };
    let end = pool.run(round, &mut Samples { session: &mut *session, case, progress });
    let wall = (inst.clock.now() - start).saturating_sub(end.idle);
    if progress.is_some() {
        let cpu = match end.cpu {
            Metered::ByRunner => crate::cpu::since(cpu_start, (inst.cpu)()),
            Metered::Own(cpu) => cpu,
        };
        session.end_round(case, wall, cpu);
    }
    if let Some(reason) = end.broke.filter(|_| !inst.stop.load(Ordering::Relaxed)) {
        session.abort(case, reason);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::time::Duration;

    /// Instruments with the clock, CPU meter and stop flag only: no server, no turns, no link.
    fn plain<'a>(clock: &'a dyn Clock, cpu: &'a dyn Fn() -> Option<CpuTime>, stop: &'a AtomicBool) -> Instruments<'a> {
        Instruments {
            clock,
            cpu,
            stop,
            handshakes: None,
            connections: None,
            turn: None,
            before: None,
            link_counts: None,
        }
    }

    use httpbench_shared::clock::MockClock;
    use httpbench_shared::session::{Budget, Finished, Header, Matrix, Plan};
    use httpbench_shared::EnvironmentKind;
    use httpbench_shared::{Mode, Outcome};

    use super::*;
    use crate::clients::{Driver, Sequential};

    /// A client that takes a scripted time per request on a mock clock and logs the order it was called in.
    struct Scripted<'a> {
        name: &'static str,
        clock: &'a MockClock,
        latencies_us: Vec<u64>,
        calls: u64,
        log: &'a RefCell<Vec<&'static str>>,
    }

    impl Driver for Scripted<'_> {
        fn request(&mut self) -> Outcome {
            let d = self.latencies_us[(self.calls as usize) % self.latencies_us.len()];
            self.calls += 1;
            self.clock.advance(Duration::from_micros(d));
            self.log.borrow_mut().push(self.name);
            Outcome::response(200, 612)
        }
    }

    fn header() -> Header {
        let mut h = httpbench_shared::fixture::header(httpbench_shared::EnvironmentKind::Native);
        h.tool.version = "0.0.0-test".into();
        (h.environment.cpu, h.environment.timer_resolution_ns) = (None, Some(30.0));
        h.target = httpbench_shared::Target { url: "http://127.0.0.1:1/".into(), embedded_server: false };
        h
    }

    fn drive(plan: Plan, clients: &[&str], pools: &mut [Box<dyn Pool + '_>], inst: &Instruments<'_>) -> Finished {
        let names = clients.iter().map(|c| c.to_string()).collect();
        let mut session = Session::new(
            plan,
            Matrix::new(EnvironmentKind::Native, names, vec![Mode::Reuse]),
            Some(Duration::from_secs(10)),
        );
        run(&mut session, pools, inst, &Progress::hidden());
        session.finish(header())
    }

    #[test]
    fn each_request_is_timed_and_each_round_metered() {
        let clock = MockClock::new();
        let log = RefCell::new(Vec::new());
        let stop = AtomicBool::new(false);
        let cpu = || Some(CpuTime { user: clock.now() / 2, sys: Duration::ZERO });
        let inst = plain(&clock, &cpu, &stop);
        let a = Scripted { name: "a", clock: &clock, latencies_us: vec![100], calls: 0, log: &log };
        let b = Scripted { name: "b", clock: &clock, latencies_us: vec![200, 300], calls: 0, log: &log };
        let plan = Plan { budget: Budget::Count(10), warmup: 2, rounds: 3, interleave: true };
        let out = drive(plan, &["a", "b"], &mut [Box::new(Sequential(a)), Box::new(Sequential(b))], &inst);
        assert_eq!(log.borrow().concat(), "aabbaaaabbbbaaabbbaaabbb");
        let a = &out.report.cases[0];
        assert_eq!((a.iterations, a.wall_secs, a.rate_wall), (10, 0.001, 10_000.0));
        assert_eq!(a.cpu_user_secs, Some(0.0005), "half of each round's wall time, warm-ups not billed");
        assert_eq!(out.report.cases[1].latency_ns.unwrap().max, 300_000.0);
    }

    #[test]
    fn a_stop_keeps_what_was_measured() {
        struct StopAfter<'a>(u32, &'a AtomicBool);
        impl Driver for StopAfter<'_> {
            fn request(&mut self) -> Outcome {
                self.0 -= 1;
                if self.0 == 0 {
                    self.1.store(true, Ordering::Relaxed);
                }
                Outcome::response(200, 1)
            }
        }
        let clock = MockClock::new();
        let stop = AtomicBool::new(false);
        let cpu = || None;
        let inst = plain(&clock, &cpu, &stop);
        let plan = Plan { budget: Budget::Count(100), warmup: 0, rounds: 1, interleave: false };
        let out = drive(
            plan,
            &["a", "b"],
            &mut [Box::new(Sequential(StopAfter(5, &stop))), Box::new(Sequential(StopAfter(100, &stop)))],
            &inst,
        );
        assert!(out.stopped);
        assert_eq!(out.report.cases.len(), 1, "the case that never started is left out");
        assert_eq!((out.report.cases[0].iterations, out.report.cases[0].rounds.len()), (5, 1));
    }

    /// Each case's connections are its tag's count, read after every step: what the count grew by is added,
    /// so the case's total is the count read last, whatever the other cases' counts did meanwhile.
    #[test]
    fn connections_are_each_cases_tagged_count() {
        let clock = MockClock::new();
        let log = RefCell::new(Vec::new());
        let stop = AtomicBool::new(false);
        let cpu = || None;
        // Case 0's count grows by 2 per reading, case 1's by 5 (another client's connections under another tag).
        let reads = RefCell::new([0u64; 2]);
        let read = |case: usize| {
            let mut reads = reads.borrow_mut();
            reads[case] += 1;
            Some(reads[case] * [2, 5][case])
        };
        let inst = Instruments {
            clock: &clock,
            cpu: &cpu,
            stop: &stop,
            handshakes: None,
            connections: Some(&read),
            turn: None,
            before: None,
            link_counts: None,
        };
        let a = Scripted { name: "a", clock: &clock, latencies_us: vec![100], calls: 0, log: &log };
        let b = Scripted { name: "b", clock: &clock, latencies_us: vec![100], calls: 0, log: &log };
        let plan = Plan { budget: Budget::Count(4), warmup: 1, rounds: 2, interleave: true };
        let out = drive(plan, &["a", "b"], &mut [Box::new(Sequential(a)), Box::new(Sequential(b))], &inst);
        assert_eq!(*reads.borrow(), [3, 3], "a warm-up and two rounds each");
        let counts: Vec<Option<u64>> = out.report.cases.iter().map(|c| c.connections).collect();
        assert_eq!(counts, [Some(6), Some(15)]);
    }

    /// The whole path from drivers to the text report, on a mock clock and a scripted CPU meter: exact output.
    #[test]
    fn deterministic_report_from_a_mock_clock() {
        use httpbench_shared::{render, Format, RenderOptions, Source};

        let clock = MockClock::new();
        let log = RefCell::new(Vec::new());
        let stop = AtomicBool::new(false);
        // The client burns 60% of the wall time in user mode and 20% in the kernel.
        let cpu = || Some(CpuTime { user: clock.now() * 3 / 5, sys: clock.now() / 5 });
        let inst = plain(&clock, &cpu, &stop);
        let fast = Scripted { name: "a", clock: &clock, latencies_us: vec![80, 85, 90, 95, 400], calls: 0, log: &log };
        let slow = Scripted { name: "b", clock: &clock, latencies_us: vec![200, 210, 190, 205], calls: 0, log: &log };
        let plan = Plan { budget: Budget::Count(1000), warmup: 10, rounds: 5, interleave: true };
        let out = drive(plan, &["fast", "slow"], &mut [Box::new(Sequential(fast)), Box::new(Sequential(slow))], &inst);
        insta::assert_snapshot!(render(&[Source::new(&out.report)], Format::Text, &RenderOptions::default()));
    }
}

/// A command client's pool (`Batches`) on a mock clock: a client that answers every request in 100 µs by its own clock and
/// takes 110 µs per request of wall time, and can be told to hang (the wait is left out) or break.
#[cfg(test)]
mod batched_tests {
    use std::cell::Cell;
    use std::time::Duration;

    use httpbench_shared::clock::MockClock;
    use httpbench_shared::session::{Budget, Header, Matrix, Plan};
    use httpbench_shared::{EnvironmentKind, Mode, Outcome};

    use super::*;
    use crate::clients::command::{BatchError, Batched, Batches};

    struct Fake<'a> {
        clock: &'a MockClock,
        batches: Vec<u64>,
        /// Break in this batch (1-based), after answering this many, having waited this long.
        breaks: Option<(usize, u64, Duration)>,
        cpu_reads: Cell<u32>,
    }

    impl Batched for Fake<'_> {
        fn batch(
            &mut self,
            n: u64,
            _stop: &AtomicBool,
            record: &mut dyn FnMut(&Outcome, Duration, Option<&str>),
        ) -> Result<(), BatchError> {
            self.batches.push(n);
            let upto = match self.breaks {
                Some((b, k, _)) if b == self.batches.len() => k,
                _ => n,
            };
            for _ in 0..upto {
                self.clock.advance(Duration::from_micros(110));
                record(&Outcome::response(200, 1), Duration::from_micros(100), None);
            }
            match self.breaks {
                Some((b, _, wait)) if b == self.batches.len() => {
                    self.clock.advance(wait);
                    Err(BatchError { reason: "fake broke".into(), idle: wait })
                }
                _ => Ok(()),
            }
        }
        fn cpu(&self) -> Option<CpuTime> {
            self.cpu_reads.set(self.cpu_reads.get() + 1);
            Some(CpuTime { user: self.clock.now() / 2, sys: Duration::ZERO })
        }
        fn version(&self) -> Option<String> {
            None
        }
    }

    fn run_fake(plan: Plan, fake: &mut Fake<'_>) -> httpbench_shared::Report {
        let (clock, stop) = (fake.clock, AtomicBool::new(false));
        let cpu = || None;
        let inst = Instruments {
            clock,
            cpu: &cpu,
            stop: &stop,
            handshakes: None,
            connections: None,
            turn: None,
            before: None,
            link_counts: None,
        };
        let mut session =
            Session::new(plan, Matrix::new(EnvironmentKind::Native, vec!["fake".into()], vec![Mode::Reuse]), None);
        let mut pools: Vec<Box<dyn Pool + '_>> = vec![Box::new(Batches(std::mem::replace(
            fake,
            Fake { clock, batches: vec![], breaks: None, cpu_reads: Cell::new(0) },
        )))];
        run(&mut session, &mut pools, &inst, &Progress::hidden());
        let header: Header = Header {
            tool: httpbench_shared::Tool::this_build("t"),
            ..httpbench_shared::fixture::header(httpbench_shared::EnvironmentKind::Native)
        };
        session.finish(header).report
    }

    #[test]
    fn a_count_is_one_batch_per_round_timed_and_metered_by_the_client() {
        let clock = MockClock::new();
        let mut fake = Fake { clock: &clock, batches: vec![], breaks: None, cpu_reads: Cell::new(0) };
        let r = run_fake(Plan { budget: Budget::Count(10), warmup: 3, rounds: 2, interleave: false }, &mut fake);
        let c = &r.cases[0];
        assert_eq!((c.iterations, c.wall_secs), (10, 0.0011));
        assert_eq!(c.latency_ns.unwrap().max, 100_000.0, "latencies are the client's own");
        assert_eq!(c.cpu_user_secs, Some(0.00055), "half the round's wall, warm-up not billed");
    }

    #[test]
    fn a_duration_is_spent_in_halving_batches_and_a_hang_is_left_out_of_the_wall() {
        let clock = MockClock::new();
        let mut fake = Fake {
            clock: &clock,
            batches: vec![],
            breaks: Some((4, 2, Duration::from_secs(3))),
            cpu_reads: Cell::new(0),
        };
        let plan =
            Plan { budget: Budget::Duration(Duration::from_millis(11)), warmup: 0, rounds: 1, interleave: false };
        let r = run_fake(plan, &mut fake);
        let c = &r.cases[0];
        // 1 request (0.11 ms), then half of the 10.89 ms left at 0.11 ms each (49), then half again (25), then
        // the fourth batch breaks after 2 of its 12 and hangs for 3 s.
        assert_eq!(c.iterations, 1 + 49 + 25 + 2);
        assert!((c.wall_secs - 77.0 * 110e-6).abs() < 1e-9, "the 3 s hang is not request time: {}", c.wall_secs);
        assert_eq!(c.aborted.as_deref(), Some("fake broke"));
    }
}
