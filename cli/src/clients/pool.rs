//! The one shape of every client the runner drives: a [`Pool`] that makes a round's requests, keeping N in
//! flight (a sequential client is a pool of one, `sequential::Sequential`; a command client a pool that meters
//! its own CPU, `command::Batches`), and says how the round ended ([`RoundEnd`]). Here too the pool every
//! blocking client gets for a level ([`Threads`]: N threads, each with a driver of its own). Requests are
//! shared out by [`Tickets`], so a round's count is met exactly and no request starts after a round's time,
//! whichever worker is free first. Each request is timed where it is made; the runner records the samples on
//! its own thread, a worker's batch at a time.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use httpbench_shared::clock::Clock;
use httpbench_shared::session::RoundBudget;
use httpbench_shared::{CpuTime, ErrorKind, Outcome, PhaseTimes};

use super::Driver;

/// One finished request of a pool.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// What it produced.
    pub outcome: Outcome,
    /// How long it took, from sending to the end of its body.
    pub latency: Duration,
    /// Its phases, where the client keeps timers (ok requests only).
    pub phases: Option<PhaseTimes>,
    /// Why it failed, for the first failure of each kind a worker saw.
    pub reason: Option<String>,
}

/// What a round (or a warm-up) asks of a pool.
#[derive(Clone, Copy)]
pub struct Round<'a> {
    /// How much the round may use.
    pub budget: RoundBudget,
    /// When set (Ctrl-C), no new request starts.
    pub stop: &'a AtomicBool,
    /// The runner's clock: a pool that times its requests on the runner's thread times them with it (so a
    /// test can hand a mock clock); a pool timing on threads or tasks of its own uses the system clock.
    pub clock: &'a dyn Clock,
}

/// Where a pool hands its finished requests.
pub trait Record {
    /// One finished request.
    fn sample(&mut self, sample: Sample);

    /// Whether a failure of `kind` still wants its reason (the session keeps the first of each kind): a pool
    /// whose describing costs time asks before it describes one.
    fn wants_reason(&self, _kind: ErrorKind) -> bool {
        true
    }
}

impl<F: FnMut(Sample)> Record for F {
    fn sample(&mut self, sample: Sample) {
        self(sample)
    }
}

/// Whose CPU meter a round's CPU time comes from.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub enum Metered {
    /// The runner's meter of this process: the client runs in it.
    #[default]
    ByRunner,
    /// The pool's own (a command client's processes), with what it read (`None`: the OS did not say).
    Own(Option<CpuTime>),
}

/// How a round ended, beyond the samples it recorded.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct RoundEnd {
    /// Where the round's CPU time comes from.
    pub cpu: Metered,
    /// Time the round waited on a client that had stopped answering (a hang): left out of its wall time,
    /// which is the time of requests.
    pub idle: Duration,
    /// Why the client broke, if it did: it is unusable after this round, which still counts what it answered.
    pub broke: Option<String>,
}

/// A client that makes a round's requests, in flight as many as it keeps.
pub trait Pool {
    /// Make requests while `round.budget` wants more, as many in flight as it keeps, handing each finished one to
    /// `record`; `round.stop` ends the starting of new ones. Returns when every request started has ended, so
    /// within the budget's time plus one request's timeout, saying how the round ended.
    fn run(&mut self, round: Round<'_>, record: &mut dyn Record) -> RoundEnd;

    /// The library and version the client reported itself, if it did (a command client).
    fn version(&self) -> Option<String> {
        None
    }
}

/// The requests of one round, handed out one at a time to whichever worker asks.
pub struct Tickets {
    budget: RoundBudget,
    taken: AtomicU64,
    start: Instant,
}

impl Tickets {
    /// The tickets of `budget`, its time counted from now.
    pub fn new(budget: RoundBudget) -> Self {
        Tickets { budget, taken: AtomicU64::new(0), start: Instant::now() }
    }

    /// Whether another request may start: one of a count's left, or the round's time not spent (the first
    /// request always may, so a round is never empty).
    pub fn take(&self) -> bool {
        // The session's rule, with the requests taken before this one as those done.
        let i = self.taken.fetch_add(1, Ordering::Relaxed);
        self.budget.wants_more(i, self.start.elapsed())
    }
}

/// What a request of an async pool answers; [`run_tasks`] times it.
pub struct Done {
    /// What it produced.
    pub outcome: Outcome,
    /// Its phases, where the client keeps timers (ok requests only).
    pub phases: Option<PhaseTimes>,
    /// Why it failed, for a failure.
    pub reason: Option<String>,
}

impl Done {
    /// A request that failed as `outcome` for `reason`.
    pub fn failed(outcome: Outcome, reason: String) -> Self {
        Done { outcome, phases: None, reason: Some(reason) }
    }
}

/// Samples the tasks of an async pool may queue before they are recorded.
const ASYNC_QUEUE: usize = 4096;

/// A round of an async client: `in_flight` tasks on `runtime` (the driver's one thread), each making requests
/// with `request` while the round's tickets last and `stop` is not set, each timed where it is made; the
/// samples are recorded as they come, on this thread, between the tasks' awaits.
pub fn run_tasks<F, Fut>(
    runtime: &tokio::runtime::Runtime,
    in_flight: usize,
    round: Round<'_>,
    record: &mut dyn Record,
    request: F,
) where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Done>,
{
    let (tickets, stop) = (Tickets::new(round.budget), round.stop);
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Sample>(ASYNC_QUEUE);
    let tasks: Vec<_> = (0..in_flight.max(1))
        .map(|_| {
            let (tx, tickets, request) = (tx.clone(), &tickets, &request);
            async move {
                while !stop.load(Ordering::Relaxed) && tickets.take() {
                    let t0 = Instant::now();
                    // A panic in the client library is one failed request, not the end of the run.
                    let done = super::contained::request(request()).await;
                    let Done { outcome, phases, reason } =
                        done.unwrap_or_else(|why| Done::failed(super::contained::failed(), why));
                    let sample = Sample { outcome, latency: t0.elapsed(), phases, reason };
                    if tx.send(sample).await.is_err() {
                        break;
                    }
                }
            }
        })
        .collect();
    drop(tx);
    runtime.block_on(async {
        let recording = async {
            while let Some(sample) = rx.recv().await {
                record.sample(sample);
            }
        };
        futures_util::future::join(futures_util::future::join_all(tasks), recording).await;
    });
}

/// N blocking drivers, each on a thread of its own for the round.
pub struct Threads {
    drivers: Vec<Box<dyn Driver + Send>>,
}

impl Threads {
    /// A pool of these drivers, one request in flight each.
    pub fn new(drivers: Vec<Box<dyn Driver + Send>>) -> Self {
        Threads { drivers }
    }
}

/// Batches a worker may send before the runner has recorded them: enough that workers never wait on it.
const QUEUE: usize = 256;

/// Samples a worker hands over at a time: one hand-over per request would wake the recording thread per
/// request (a futex wake and a context switch), which at 16 in flight cost more than the requests.
const BATCH: usize = 64;

impl Pool for Threads {
    fn run(&mut self, round: Round<'_>, record: &mut dyn Record) -> RoundEnd {
        let (tickets, stop) = (Tickets::new(round.budget), round.stop);
        let (tx, rx) = mpsc::sync_channel::<Vec<Sample>>(QUEUE);
        std::thread::scope(|scope| {
            for driver in &mut self.drivers {
                let (tx, tickets) = (tx.clone(), &tickets);
                scope.spawn(move || work(driver.as_mut(), tickets, stop, &tx));
            }
            drop(tx);
            // Ends when every worker has ended and dropped its sender.
            for batch in rx {
                batch.into_iter().for_each(|s| record.sample(s));
            }
        });
        RoundEnd::default()
    }
}

/// One worker: requests while there are tickets, each timed and sent to the runner.
fn work(driver: &mut (dyn Driver + Send), tickets: &Tickets, stop: &AtomicBool, tx: &mpsc::SyncSender<Vec<Sample>>) {
    let mut described: Vec<ErrorKind> = Vec::new();
    let mut batch = Vec::with_capacity(BATCH);
    while !stop.load(Ordering::Relaxed) && tickets.take() {
        let t0 = Instant::now();
        let outcome = driver.request();
        let latency = t0.elapsed();
        let (mut phases, mut reason) = (None, None);
        match outcome.error {
            Some(kind) if !described.contains(&kind) => {
                described.push(kind);
                reason = driver.failure_reason();
            }
            None if outcome.failure().is_none() => phases = driver.phases(),
            _ => {}
        }
        batch.push(Sample { outcome, latency, phases, reason });
        if batch.len() == BATCH && tx.send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH))).is_err() {
            return;
        }
    }
    let _ = tx.send(batch);
}

#[cfg(test)]
mod tests {
    use super::*;
    use httpbench_shared::clock::SystemClock;

    fn round(budget: RoundBudget, stop: &AtomicBool) -> Round<'_> {
        static CLOCK: std::sync::OnceLock<SystemClock> = std::sync::OnceLock::new();
        Round { budget, stop, clock: CLOCK.get_or_init(SystemClock::new) }
    }

    /// Answers after a fixed wait, as a server with think time would.
    struct Sleepy(Duration);

    impl Driver for Sleepy {
        fn request(&mut self) -> Outcome {
            std::thread::sleep(self.0);
            Outcome::response(200, 1)
        }
    }

    fn pool(n: usize, wait: Duration) -> Threads {
        Threads::new((0..n).map(|_| Box::new(Sleepy(wait)) as Box<dyn Driver + Send>).collect())
    }

    #[test]
    fn a_count_is_met_exactly_by_all_workers_together() {
        let mut p = pool(8, Duration::from_millis(2));
        let mut samples = Vec::new();
        p.run(round(RoundBudget::Requests(101), &AtomicBool::new(false)), &mut |s| samples.push(s));
        assert_eq!(samples.len(), 101);
        assert!(samples.iter().all(|s| s.outcome.failure().is_none() && s.latency >= Duration::from_millis(2)));
    }

    /// Counted, not timed: with 8 workers each sleeping 20 ms, 400 ms of budget holds far more than the 20
    /// requests one worker could make, and a stop set up front starts nothing.
    #[test]
    fn a_time_is_shared_and_a_stop_starts_nothing() {
        let mut p = pool(8, Duration::from_millis(20));
        let mut n = 0;
        p.run(round(RoundBudget::Time(Duration::from_millis(400)), &AtomicBool::new(false)), &mut |_| n += 1);
        assert!(n > 40, "8 in flight made only {n} requests");
        let mut m = 0;
        p.run(round(RoundBudget::Requests(10), &AtomicBool::new(true)), &mut |_| m += 1);
        assert_eq!(m, 0);
    }
}
