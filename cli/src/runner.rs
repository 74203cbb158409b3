//! Runs the cases on the shared schedule: warm-up, then each case in rounds, round-robin across cases when
//! interleaving. The runner only reads the clock around each request; the clock and the CPU meter are passed
//! in, so a test can drive it with a mock clock.

use std::sync::atomic::{AtomicBool, Ordering};

use httpbench_shared::clock::Clock;
pub use httpbench_shared::schedule::{Budget, Plan};
use httpbench_shared::{Case, CpuTime, Mode, Recorder};

use crate::clients::Driver;
use crate::progress::Progress;

/// The clock, the CPU meter, and the stop flag (set by Ctrl-C) the runner uses.
pub struct Instruments<'a> {
    /// Monotonic clock for request and round timing.
    pub clock: &'a dyn Clock,
    /// CPU time of the client so far, if the OS tells it.
    pub cpu: &'a dyn Fn() -> Option<CpuTime>,
    /// When set, the runner stops after the current request; cases so far are still reported.
    pub stop: &'a AtomicBool,
}

/// One case being measured.
pub struct CaseRun<'a> {
    client: String,
    mode: Mode,
    driver: Box<dyn Driver + 'a>,
    recorder: Recorder,
    cpu: Option<CpuTime>,
}

impl<'a> CaseRun<'a> {
    /// A case for `client` in `mode`, driven by `driver`.
    pub fn new(client: &str, mode: Mode, driver: Box<dyn Driver + 'a>) -> Self {
        CaseRun { client: client.to_string(), mode, driver, recorder: Recorder::new(), cpu: Some(CpuTime::default()) }
    }

    /// Label for progress and messages.
    pub fn label(&self) -> String {
        format!("{}/{}", self.client, self.mode)
    }
}

/// Warm up every case, run all rounds, and return the finished cases in the order given. Cases that did not
/// start before a stop are left out; a case interrupted mid-round keeps what it measured.
pub fn run(plan: &Plan, mut cases: Vec<CaseRun<'_>>, inst: &Instruments<'_>, progress: &Progress) -> Vec<Case> {
    for case in &mut cases {
        progress.stage(&format!("warm-up {}", case.label()));
        for _ in 0..plan.warmup {
            if inst.stop.load(Ordering::Relaxed) {
                break;
            }
            case.driver.request();
        }
    }
    for (index, round) in plan.order(cases.len()) {
        if inst.stop.load(Ordering::Relaxed) {
            break;
        }
        let case = &mut cases[index];
        progress.stage(&case.label());
        run_round(case, plan.budget(round), inst, progress);
    }
    cases
        .into_iter()
        .filter(|c| c.recorder.iterations() > 0)
        .map(|c| c.recorder.finish(&c.client, c.mode, c.cpu))
        .collect()
}

fn run_round(case: &mut CaseRun<'_>, budget: Budget, inst: &Instruments<'_>, progress: &Progress) {
    let cpu_start = (inst.cpu)();
    let start = inst.clock.now();
    let mut done = 0u64;
    loop {
        if !budget.wants_more(done, inst.clock.now() - start) || inst.stop.load(Ordering::Relaxed) {
            break;
        }
        let t0 = inst.clock.now();
        let outcome = case.driver.request();
        let t1 = inst.clock.now();
        case.recorder.record(&outcome, t1 - t0);
        done += 1;
        progress.advance(1);
    }
    let wall = inst.clock.now() - start;
    if done > 0 {
        case.recorder.end_round(wall);
    }
    case.cpu = match (case.cpu, cpu_start, (inst.cpu)()) {
        (Some(acc), Some(s), Some(e)) => {
            Some(CpuTime { user: acc.user + e.user.saturating_sub(s.user), sys: acc.sys + e.sys.saturating_sub(s.sys) })
        }
        _ => None,
    };
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::time::Duration;

    use httpbench_shared::clock::MockClock;
    use httpbench_shared::Outcome;

    use super::*;

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

    fn plan(interleave: bool) -> Plan {
        Plan { count: Some(10), duration: None, warmup: 2, rounds: 3, interleave }
    }

    #[test]
    fn interleaved_rounds_alternate_cases_and_time_each_request() {
        let clock = MockClock::new();
        let log = RefCell::new(Vec::new());
        let stop = AtomicBool::new(false);
        let cpu = || None;
        let inst = Instruments { clock: &clock, cpu: &cpu, stop: &stop };
        let a = Scripted { name: "a", clock: &clock, latencies_us: vec![100], calls: 0, log: &log };
        let b = Scripted { name: "b", clock: &clock, latencies_us: vec![200, 300], calls: 0, log: &log };
        let cases = vec![CaseRun::new("a", Mode::Reuse, Box::new(a)), CaseRun::new("b", Mode::Reuse, Box::new(b))];
        let out = run(&plan(true), cases, &inst, &Progress::hidden());
        let order: String = log.borrow().concat();
        // Warm-up of each, then rounds of 4, 3, 3 requests alternating.
        assert_eq!(order, "aabbaaaabbbbaaabbbaaabbb");
        assert_eq!(out[0].iterations, 10);
        assert_eq!(out[0].rounds.len(), 3);
        assert_eq!(out[0].wall_secs, 0.001);
        assert_eq!(out[0].rate_wall, 10_000.0);
        assert_eq!(out[0].latency_ns.unwrap().mean, 100_000.0);
        assert_eq!(out[1].latency_ns.unwrap().max, 300_000.0);
        assert_eq!(out[0].cpu_user_secs, None);
    }

    #[test]
    fn a_duration_runs_until_each_rounds_share_is_spent() {
        let clock = MockClock::new();
        let log = RefCell::new(Vec::new());
        let stop = AtomicBool::new(false);
        let cpu = || Some(CpuTime::default());
        let inst = Instruments { clock: &clock, cpu: &cpu, stop: &stop };
        let a = Scripted { name: "a", clock: &clock, latencies_us: vec![250], calls: 0, log: &log };
        let p = Plan { count: None, duration: Some(Duration::from_millis(3)), warmup: 0, rounds: 3, interleave: true };
        let out = run(&p, vec![CaseRun::new("a", Mode::Fresh, Box::new(a))], &inst, &Progress::hidden());
        // 1 ms per round at 250 µs per request: 4 requests a round.
        assert_eq!(out[0].iterations, 12);
        assert_eq!(out[0].cpu_user_secs, Some(0.0));
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
        let inst = Instruments { clock: &clock, cpu: &cpu, stop: &stop };
        let cases = vec![
            CaseRun::new("a", Mode::Reuse, Box::new(StopAfter(5, &stop))),
            CaseRun::new("b", Mode::Reuse, Box::new(StopAfter(100, &stop))),
        ];
        let p = Plan { count: Some(100), duration: None, warmup: 0, rounds: 1, interleave: false };
        let out = run(&p, cases, &inst, &Progress::hidden());
        assert_eq!(out.len(), 1, "the case that never started is left out");
        assert_eq!(out[0].iterations, 5);
        assert_eq!(out[0].rounds.len(), 1);
    }

    /// The whole path from drivers to the text report, on a mock clock and a scripted CPU meter: exact output.
    #[test]
    fn deterministic_report_from_a_mock_clock() {
        use std::cell::Cell;
        use std::collections::BTreeMap;

        use httpbench_shared::model::{Environment, EnvironmentKind, Report, Settings, Target, Tool};
        use httpbench_shared::{render, Format, RenderOptions, Source};

        let clock = MockClock::new();
        let log = RefCell::new(Vec::new());
        let stop = AtomicBool::new(false);
        let cpu_used = Cell::new(Duration::ZERO);
        let cpu = || {
            // The client burns 60% of the wall time in user mode and 20% in the kernel.
            let t = clock.now();
            cpu_used.set(t);
            Some(CpuTime { user: t * 3 / 5, sys: t / 5 })
        };
        let inst = Instruments { clock: &clock, cpu: &cpu, stop: &stop };
        let fast = Scripted { name: "a", clock: &clock, latencies_us: vec![80, 85, 90, 95, 400], calls: 0, log: &log };
        let slow = Scripted { name: "b", clock: &clock, latencies_us: vec![200, 210, 190, 205], calls: 0, log: &log };
        let cases =
            vec![CaseRun::new("fast", Mode::Reuse, Box::new(fast)), CaseRun::new("slow", Mode::Reuse, Box::new(slow))];
        let p = Plan { count: Some(1000), duration: None, warmup: 10, rounds: 5, interleave: true };
        let report = Report {
            schema_version: httpbench_shared::model::SCHEMA_VERSION,
            tool: Tool { name: "httpbench".into(), version: "0.0.0-test".into(), build_profile: "release".into() },
            environment: Environment {
                kind: EnvironmentKind::Native,
                os: "linux".into(),
                arch: "x86_64".into(),
                cpu: None,
                cpus_online: Some(2),
                user_agent: None,
                cross_origin_isolated: None,
                timer_resolution_ns: Some(30.0),
                client_versions: BTreeMap::new(),
                placement: None,
            },
            target: Target { url: "http://127.0.0.1:1/".into(), embedded_server: false },
            settings: Settings {
                count: p.count,
                duration_secs: None,
                rounds: p.rounds,
                interleave: p.interleave,
                warmup: p.warmup,
                modes: vec![Mode::Reuse],
                clients: vec!["fast".into(), "slow".into()],
                timeout_ms: Some(10_000),
            },
            cases: run(&p, cases, &inst, &Progress::hidden()),
        };
        insta::assert_snapshot!(render(&[Source::new(&report)], Format::Text, &RenderOptions::default()));
    }
}
