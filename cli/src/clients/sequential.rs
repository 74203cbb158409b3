//! A blocking client as a pool of one ([`Sequential`]): one [`Driver::request`] at a time on the runner's
//! thread, each timed by the clock the round hands it (the runner's: a test's mock clock makes the whole run
//! deterministic). So the runner has one shape of client to drive, whatever the client.

use std::sync::atomic::Ordering;

use super::pool::{Pool, Record, Round, RoundEnd, Sample};
use super::Driver;

/// A blocking driver making one request at a time.
pub struct Sequential<D: Driver>(pub D);

impl<D: Driver> Pool for Sequential<D> {
    fn run(&mut self, round: Round<'_>, record: &mut dyn Record) -> RoundEnd {
        let (clock, driver) = (round.clock, &mut self.0);
        let start = clock.now();
        let mut done = 0u64;
        while round.budget.wants_more(done, clock.now() - start) && !round.stop.load(Ordering::Relaxed) {
            let t0 = clock.now();
            let outcome = driver.request();
            let latency = clock.now() - t0;
            // Read after the latency was taken. Only a failure the session still wants is described:
            // describing costs time (a formatted error chain), and the rest of a kind add nothing.
            let (mut phases, mut reason) = (None, None);
            match outcome.error {
                Some(kind) if record.wants_reason(kind) => reason = driver.failure_reason(),
                None if outcome.failure().is_none() => phases = driver.phases(),
                _ => {}
            }
            record.sample(Sample { outcome, latency, phases, reason });
            done += 1;
        }
        RoundEnd::default()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use httpbench_shared::clock::{Clock, MockClock};
    use httpbench_shared::session::RoundBudget;
    use httpbench_shared::{ErrorKind, Outcome};

    use super::*;

    /// Fails every other request after 5 µs of the mock clock, counting how often it was asked why.
    struct Flaky<'a> {
        clock: &'a MockClock,
        calls: u32,
        described: u32,
    }

    impl Driver for Flaky<'_> {
        fn request(&mut self) -> Outcome {
            self.calls += 1;
            self.clock.advance(Duration::from_micros(5));
            match self.calls % 2 {
                0 => Outcome::failed(ErrorKind::Connect, None),
                _ => Outcome::response(200, 1),
            }
        }

        fn failure_reason(&mut self) -> Option<String> {
            self.described += 1;
            Some("refused".into())
        }
    }

    /// Wants the reason of a kind until it has one, as the session does.
    struct Sink(Vec<Sample>);

    impl Record for Sink {
        fn sample(&mut self, sample: Sample) {
            self.0.push(sample);
        }

        fn wants_reason(&self, kind: ErrorKind) -> bool {
            !self.0.iter().any(|s| s.outcome.error == Some(kind) && s.reason.is_some())
        }
    }

    #[test]
    fn requests_are_timed_on_the_rounds_clock_and_described_only_while_wanted() {
        let clock = MockClock::new();
        let mut pool = Sequential(Flaky { clock: &clock, calls: 0, described: 0 });
        let stop = AtomicBool::new(false);
        let mut sink = Sink(Vec::new());
        let round = Round { budget: RoundBudget::Time(Duration::from_micros(50)), stop: &stop, clock: &clock };
        assert_eq!(pool.run(round, &mut sink), RoundEnd::default());
        assert_eq!(sink.0.len(), 10, "50 µs of budget at 5 µs a request");
        assert!(sink.0.iter().all(|s| s.latency == Duration::from_micros(5)));
        assert_eq!((pool.0.described, sink.0.iter().filter(|s| s.reason.is_some()).count()), (1, 1));
        assert_eq!(clock.now(), Duration::from_micros(50));
    }
}
