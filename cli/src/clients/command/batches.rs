//! A client that makes and times its requests itself, a batch at a time ([`Batched`]: a command client), as a
//! pool ([`Batches`]): a round is whole batches, timed from asking to the last answer, and its CPU time is the
//! client's own processes', read around each batch. A time budget is spent in batches sized from the rate so
//! far, each asking for half of what is left (so a round overshoots its time by about one request). A client
//! that breaks ends the round with what it answered, the wait on a hang left out of its time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use httpbench_shared::session::RoundBudget;
use httpbench_shared::{CpuTime, Outcome};

use crate::clients::pool::{Metered, Pool, Record, Round, RoundEnd, Sample};

/// Why a batch ended early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchError {
    /// One line naming the client and what went wrong.
    pub reason: String,
    /// How long the batch waited after the client's last good answer (a hang's wait): left out of the
    /// round's wall time, which is the time of requests.
    pub idle: Duration,
}

/// A client that times its own requests, in batches (a command client).
pub trait Batched {
    /// Make `n` sequential requests and hand each outcome, with the latency the client measured and the
    /// reason of a failure where the client gave one, to `record` in order. `Err` says why the batch ended
    /// early: the client broke, or `stop` was set. The client is unusable after it; what it answered before
    /// was recorded.
    fn batch(
        &mut self,
        n: u64,
        stop: &AtomicBool,
        record: &mut dyn FnMut(&Outcome, Duration, Option<&str>),
    ) -> Result<(), BatchError>;

    /// CPU time the client's processes used so far, where the OS says.
    fn cpu(&self) -> Option<CpuTime>;

    /// The library and version the client reported, if it did.
    fn version(&self) -> Option<String>;
}

/// A [`Batched`] client as a pool of one that meters its own CPU.
pub struct Batches<B: Batched>(pub B);

impl<B: Batched> Pool for Batches<B> {
    fn run(&mut self, round: Round<'_>, record: &mut dyn Record) -> RoundEnd {
        let (client, clock) = (&mut self.0, round.clock);
        let (mut wall, mut idle, mut done) = (Duration::ZERO, Duration::ZERO, 0u64);
        let mut cpu = Some(CpuTime::default());
        let mut broke = None;
        while broke.is_none() && round.budget.wants_more(done, wall) && !round.stop.load(Ordering::Relaxed) {
            let n = batch_size(round.budget, done, wall);
            let cpu_start = client.cpu();
            let t0 = clock.now();
            let result = client.batch(n, round.stop, &mut |outcome, latency, reason| {
                let reason = reason.map(str::to_string);
                record.sample(Sample { outcome: *outcome, latency, phases: None, reason });
                done += 1;
            });
            let waited = result.as_ref().err().map_or(Duration::ZERO, |e| e.idle);
            wall += (clock.now() - t0).saturating_sub(waited);
            idle += waited;
            cpu = cpu.zip(crate::cpu::since(cpu_start, client.cpu())).map(|(a, b)| a + b);
            broke = result.err().map(|e| e.reason);
        }
        RoundEnd { cpu: Metered::Own(cpu), idle, broke }
    }

    fn version(&self) -> Option<String> {
        self.0.version()
    }
}

/// The next batch of a round that has made `done` requests in `wall`: a count's requests left; for a time,
/// one to learn the rate, then half of what the time left holds at that rate.
fn batch_size(budget: RoundBudget, done: u64, wall: Duration) -> u64 {
    match budget {
        RoundBudget::Requests(n) => n - done,
        RoundBudget::Time(_) if done == 0 => 1,
        RoundBudget::Time(d) => {
            let per_request = wall.as_secs_f64() / done as f64;
            ((d.saturating_sub(wall).as_secs_f64() / per_request.max(1e-9) / 2.0) as u64).clamp(1, 1_000_000)
        }
    }
}
