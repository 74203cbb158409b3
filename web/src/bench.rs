//! Runs the browser cases by driving shared's run session (`httpbench_shared::session::Session`), the same
//! sans-IO core the CLI's runner drives: the session says what to run next (every case's warm-up, then the
//! rounds, interleaved) and how much a round may use (a request count or a share of the duration); this
//! module makes the requests, reads the clock (`performance.now()` through `SystemClock`) around each awaited
//! call, and hands every outcome, every round's wall time and the Resource Timing phases back. The session
//! builds the report and the histograms; the page never walks the schedule or assembles a `Report` itself.
//! `js-fetch` runs its requests in JavaScript, in stretches, and hands back their timings. Between rounds the
//! page yields to the event loop.
//!
//! Progress inside a round is reported at most once per [`PROGRESS_INTERVAL`], for every client alike (the
//! JavaScript loop hands back control on the same cadence). Each report repaints part of the page, and in
//! headless Chromium a repaint cost ~40 ms of the CPU the network stack needs: reporting every 50 requests
//! made the wasm `fetch` measure 0.75x `js-fetch` (which reported only per round), against 0.96-1.00 without.

use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use httpbench_shared::clock::{Clock, SystemClock};
use httpbench_shared::model::{Environment, Target, Tool};
use httpbench_shared::protocol;
use httpbench_shared::session::{CaseKey, Finished, Header, RoundBudget, Session, Step};

use crate::browser;
use crate::clients::{js_fetch, timeout_ms, Answer, Client, Driver};
use crate::settings::RunSettings;

/// Least wall time between two progress reports inside a round (each one repaints part of the page).
pub const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// Where a run is, for the status line and the progress bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    /// What runs now, e.g. `round 2/5 fetch/reuse/c8 · 11 rounds left`.
    pub stage: String,
    /// Requests made so far, warm-up included.
    pub requests: u64,
    /// Requests the whole run will make, when it runs by count; a duration's is unknown in advance.
    pub total_requests: Option<u64>,
    /// Rounds finished so far, over every case.
    pub rounds_done: u64,
    /// Rounds of the whole run, over every case.
    pub rounds_total: u64,
    /// Wall time since the run began, in milliseconds.
    pub elapsed_ms: u64,
    /// Each case's rate in its last measured round (label, requests per second), in the order they ran.
    pub rates: Vec<(String, u64)>,
}

impl Progress {
    /// What a progress bar shows, as (done, total): requests when the run's total is known (a count), else
    /// rounds (a duration), the one total a timed run knows for sure.
    pub fn bar(&self) -> (u64, u64) {
        match self.total_requests {
            Some(total) => (self.requests, total),
            None => (self.rounds_done, self.rounds_total),
        }
    }

    /// The run's time left at the pace so far (what the bar shows, done over elapsed), once something is done.
    pub fn left(&self) -> Option<Duration> {
        let (done, total) = self.bar();
        (done > 0 && self.elapsed_ms > 0)
            .then(|| Duration::from_millis(self.elapsed_ms.saturating_mul(total.saturating_sub(done)) / done))
    }
}

/// Stops a run after its current request; cloned handles stop the same run.
#[derive(Clone)]
pub struct Cancel {
    stop: Rc<Cell<bool>>,
    js: js_sys::Object,
}

impl Default for Cancel {
    fn default() -> Self {
        Cancel { stop: Rc::new(Cell::new(false)), js: js_fetch::control() }
    }
}

impl Cancel {
    /// Stop the run (the JavaScript loop too).
    pub fn cancel(&self) {
        self.stop.set(true);
        js_fetch::set_stop(&self.js, true);
    }

    /// Whether the run was asked to stop.
    pub fn is_cancelled(&self) -> bool {
        self.stop.get()
    }
}

/// One case of the session, ready to request.
struct CaseRun {
    /// The session's name of the case (`fetch/reuse/c8`), for progress.
    label: String,
    /// `None` only for a name this build cannot run, which the settings' check already refuses: such a case
    /// would measure nothing, and the session leaves cases without requests out of the report.
    driver: Option<Driver>,
    /// The request URL as Resource Timing names it.
    entry_name: String,
    /// Requests in flight (1: sequential): a promise pool of that many request chains.
    in_flight: u32,
    /// The tag its requests carry (`conns=TAG`), under which the embedded server counts its connections.
    tag: String,
    /// The origin of its target, which counts them.
    origin: String,
}

impl CaseRun {
    fn new(key: &CaseKey, index: usize, label: String, target: &str, run: u64, timeout: Duration) -> Self {
        // Tagged with its case and run, so the embedded server can count the connections that served it: the
        // cases share the browser's pool, and only the server tells them apart.
        let tag = key.tag(index, run);
        let url = protocol::tagged_url(&protocol::url_for_mode(target, key.mode), &tag);
        let origin = web_sys::Url::new(target).map(|u| u.origin()).unwrap_or_default();
        let client = Client::from_name(&key.client);
        let mut entry_name = crate::timing::entry_name(&url);
        if client == Some(Client::Gloo) {
            // gloo-net 0.6 re-appends its own (empty) query: it requests `?conns=...&`, which the server reads
            // the same, and Resource Timing names the entry so.
            entry_name.push('&');
        }
        let driver = client.map(|c| Driver::new(c, url, key.mode, timeout));
        CaseRun { label, driver, entry_name, in_flight: key.concurrency, tag, origin }
    }
}

/// Waits for the page's turn at a pass, in a run whose passes it shares with other sides (the native clients,
/// other browser engines): the page's link to `httpbench serve` asks for it. `false`: the run's server refused
/// the page its turn (it does not take the page's seal), and the page stops rather than measure out of turn.
pub type TakeTurn<'a> = &'a dyn Fn(u32) -> std::pin::Pin<Box<dyn Future<Output = bool>>>;

/// Measure every case of `settings`' matrix, each requesting its own target; `progress` hears about each
/// stage and, inside a round, at most once per [`PROGRESS_INTERVAL`]. A page with an id in a run
/// (`settings.page`) waits for its turn at each pass with `turn`. A cancel keeps what was measured
/// (`Finished::stopped`).
pub async fn run(settings: &RunSettings, cancel: &Cancel, progress: &dyn Fn(Progress), turn: TakeTurn<'_>) -> Finished {
    let environment = browser::environment(&settings.matrix.clients);
    let mut session = Session::new(settings.plan, settings.matrix.clone(), Some(settings.timeout));
    if settings.page.is_some() {
        session.take_turns();
    }
    // 53 random bits: the server counts per tag for its whole life, so each run tags its cases anew, and another
    // program cannot guess a tag to add connections to a case's count.
    let run = (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
    let cases: Vec<CaseRun> = (session.cases().into_iter().enumerate())
        .map(|(i, key)| CaseRun::new(key, i, session.label(i), &settings.targets.of_case(key), run, settings.timeout))
        .collect();
    let clock = SystemClock::new();
    let mut runner = Runner { meter: Meter::new(&session, progress, clock.now()), session, clock, cancel };
    loop {
        if cancel.is_cancelled() {
            runner.session.stop();
        }
        match runner.session.next_step() {
            Step::Warmup { case, requests } => {
                runner.meter.stage(format!("warm-up {}", cases[case].label));
                runner.round(&cases[case], case, RoundBudget::Requests(requests), false).await;
            }
            Step::Round { case, round, budget } => {
                let rounds = runner.session.plan().rounds;
                // The case and its level, and how many rounds of the whole run are left, as the CLI says.
                let left = runner.session.rounds_left();
                runner.meter.stage(format!("round {}/{rounds} {} · {left} rounds left", round + 1, cases[case].label));
                browser::yield_now().await;
                runner.round(&cases[case], case, budget, true).await;
                runner.meter.round_done();
            }
            // Said to nobody: a status posted now could reach the server during another side's pass.
            Step::Turn { pass } => {
                if !turn(pass).await {
                    runner.session.stop();
                }
            }
            Step::Done => break,
        }
    }
    runner.meter.stage("counting each case's connections".into());
    let embedded = count_connections(&mut runner.session, &cases, timeout_ms(settings.timeout)).await;
    runner.session.finish(header(settings, environment, embedded))
}

/// Each case's connections, as its target counted the ones its requests were tagged on, where it counts them
/// (the embedded server; any other target answers no count, and the cases record none). Read after the run,
/// outside any timing; a case none of whose requests reached the server keeps none. Whether any target
/// counted: then the targets are httpbench's embedded server.
async fn count_connections(session: &mut Session, cases: &[CaseRun], timeout_ms: u32) -> bool {
    let mut counted = false;
    for (i, case) in cases.iter().enumerate() {
        let url = case.origin.clone() + &protocol::connections_query(protocol::CONNECTIONS_PATH, &case.tag);
        match protocol::read_connections(&js_fetch::text(&url, timeout_ms).await) {
            Some(n) if n > 0 => session.record_connections(i, n),
            Some(_) => {}
            // Not the embedded server: the first answer says so for every case.
            None => return counted,
        }
        counted = true;
    }
    counted
}

/// What a pool hands back for each request that ended: its answer, when it began and when it ended.
type Done<'a> = &'a dyn Fn(Answer, Duration, Duration);

/// Requests of `driver` while `budget` wants more, `in_flight` chains of them at a time (a promise pool),
/// each timed on `clock` and handed to `done` as it ends. One function, and one call of it, for warm-ups and
/// rounds: each copy of a chain would carry its own copy of every client's request future, KBs of the
/// page's budget.
async fn pool(
    driver: &Driver,
    in_flight: u32,
    budget: RoundBudget,
    clock: &SystemClock,
    cancel: &Cancel,
    done: Done<'_>,
) {
    let (taken, start) = (Cell::new(0u64), clock.now());
    let chain = || async {
        while budget.wants_more(taken.get(), clock.now() - start) && !cancel.is_cancelled() {
            taken.set(taken.get() + 1);
            let t0 = clock.now();
            let answer = driver.request().await;
            done(answer, t0, clock.now());
        }
    };
    let mut chains: Vec<_> = (0..in_flight.max(1)).map(|_| Box::pin(chain())).collect();
    // Poll every chain until all have ended: a join of one future type, without a futures crate.
    std::future::poll_fn(|cx| {
        chains.retain_mut(|c| c.as_mut().poll(cx).is_pending());
        match chains.is_empty() {
            true => std::task::Poll::Ready(()),
            false => std::task::Poll::Pending,
        }
    })
    .await;
}

/// Who wrote the report, where it ran, what it requested (`embedded`: httpbench's server, which counted the
/// cases' connections): what the session cannot know.
fn header(settings: &RunSettings, environment: Environment, embedded: bool) -> Header {
    Header {
        tool: Tool::this_build(crate::TOOL_NAME),
        environment,
        target: Target { url: settings.targets.default.clone(), embedded_server: embedded },
    }
}

/// Counts what the run did and hands it to the progress callback when asked to.
struct Meter<'a> {
    progress: Progress,
    report: &'a dyn Fn(Progress),
    /// When the run began, on the page's clock.
    started: Duration,
}

impl<'a> Meter<'a> {
    fn new(session: &Session, report: &'a dyn Fn(Progress), started: Duration) -> Self {
        let total_requests = session.measured_requests().map(|n| n.saturating_add(session.warmup_requests()));
        let rounds_total = session.cases().len() as u64 * u64::from(session.plan().rounds);
        let progress = Progress {
            stage: String::new(),
            requests: 0,
            total_requests,
            rounds_done: 0,
            rounds_total,
            elapsed_ms: 0,
            rates: Vec::new(),
        };
        Meter { progress, report, started }
    }

    /// Case `label` made `requests` in its last round, in `wall`.
    fn case_rate(&mut self, label: &str, requests: u64, wall: Duration) {
        let rate = (requests as f64 / wall.as_secs_f64().max(1e-9)).round() as u64;
        match self.progress.rates.iter_mut().find(|(l, _)| l == label) {
            Some((_, r)) => *r = rate,
            None => self.progress.rates.push((label.to_string(), rate)),
        }
    }

    /// A new stage begins: report it.
    fn stage(&mut self, stage: String) {
        self.progress.stage = stage;
        self.send();
    }

    /// `n` more requests were made (reported with the next report).
    fn requests(&mut self, n: u64) {
        self.progress.requests += n;
    }

    /// A round ended: report it.
    fn round_done(&mut self) {
        self.progress.rounds_done += 1;
        self.send();
    }

    fn send(&mut self) {
        self.progress.elapsed_ms = (SystemClock::new().now().saturating_sub(self.started)).as_millis() as u64;
        (self.report)(self.progress.clone());
    }
}

/// The session and what a round needs beside it.
struct Runner<'a> {
    session: Session,
    clock: SystemClock,
    cancel: &'a Cancel,
    meter: Meter<'a>,
}

impl Runner<'_> {
    /// One round of case `index` (`measured`), or its warm-up: requests while `budget` wants more, each timed
    /// alone and recorded; then the round's wall time, and the Resource Timing phases read after the timed
    /// part. The warm-up records nothing.
    async fn round(&mut self, case: &CaseRun, index: usize, budget: RoundBudget, measured: bool) {
        crate::timing::prepare(budget);
        let before = self.meter.progress.requests;
        let start = self.clock.now();
        match &case.driver {
            Some(driver) if driver.client() == Client::JsFetch => {
                self.js_round(driver, index, budget, start, (case.in_flight, measured)).await
            }
            Some(driver) => self.wasm_round(driver, index, budget, (case.in_flight, measured)).await,
            None => {}
        }
        if measured {
            let wall = self.clock.now() - start;
            self.session.end_round(index, wall, None);
            self.meter.case_rate(&case.label, self.meter.progress.requests - before, wall);
        }
        // No count of connections here: Resource Timing shows a connection being opened, but every case
        // shares the browser's pool, so a case reuses what the one before it left. The server counts them by
        // the case's tag, read after the run (`count_connections`).
        let (phases, seen) = crate::timing::collect(&case.entry_name);
        for p in phases.iter().filter(|_| measured) {
            self.session.record_phases(index, p);
        }
        if let Some(version) = seen.filter(|_| measured) {
            self.session.observe_http(index, version);
        }
    }

    /// A round of a wasm client: `in_flight` chains of requests share the budget; each request is timed alone
    /// and recorded when it ends.
    async fn wasm_round(
        &mut self,
        driver: &Driver,
        index: usize,
        budget: RoundBudget,
        (in_flight, measured): (u32, bool),
    ) {
        let Runner { session, clock, cancel, meter } = self;
        let last_report = Cell::new(clock.now());
        let shared = std::cell::RefCell::new((session, meter));
        let done = |answer: Answer, t0: Duration, t1: Duration| {
            let (session, meter) = &mut *shared.borrow_mut();
            if measured {
                session.record_sample(index, &answer.outcome, t1 - t0, answer.reason.as_deref());
            } else {
                session.record_warmup(index, &answer.outcome, answer.reason.as_deref());
            }
            meter.requests(1);
            if t1 - last_report.get() >= PROGRESS_INTERVAL {
                meter.send();
                last_report.set(t1);
            }
        };
        pool(driver, in_flight, budget, clock, cancel, &done).await;
    }

    /// A round of `js-fetch` that began at `start`: the JavaScript loop runs in stretches of at most
    /// [`PROGRESS_INTERVAL`], handing back its timings after each, so its progress is reported on the wasm
    /// clients' cadence and a timed round ends when its time is spent, as theirs does.
    async fn js_round(
        &mut self,
        driver: &Driver,
        index: usize,
        budget: RoundBudget,
        start: Duration,
        (in_flight, measured): (u32, bool),
    ) {
        let mut done = 0u64;
        loop {
            let elapsed = self.clock.now() - start;
            if !budget.wants_more(done, elapsed) || self.cancel.is_cancelled() {
                break;
            }
            let (n, max) = js_stretch(budget, done, elapsed);
            let count = (n, driver.timeout_ms());
            let stretch = js_fetch::round(driver.url(), count, &self.cancel.js, Some(max), in_flight).await;
            if stretch.requests.is_empty() {
                break; // stopped, or the loop could not run at all
            }
            if measured {
                for (outcome, latency) in &stretch.requests {
                    self.session.record(index, outcome, *latency);
                }
                // Its reasons come apart from its outcomes: the session keeps the first of each kind.
                for (kind, reason) in stretch.reasons {
                    self.session.note_reason(index, kind, reason);
                }
            }
            done += stretch.requests.len() as u64;
            self.meter.requests(stretch.requests.len() as u64);
            self.meter.send();
        }
    }
}

/// The next JavaScript stretch of a round that has made `done` requests in `elapsed`: (requests, time). A
/// count's stretch may make the requests left, for at most [`PROGRESS_INTERVAL`]. A timed round's has no
/// count of its own (`u32::MAX`) and lasts the round's time left or [`PROGRESS_INTERVAL`], whichever is less;
/// the loop makes at least one request even when no time is left, so a round never ends empty.
fn js_stretch(budget: RoundBudget, done: u64, elapsed: Duration) -> (u32, Duration) {
    match budget {
        RoundBudget::Requests(n) => (u32::try_from(n.saturating_sub(done)).unwrap_or(u32::MAX), PROGRESS_INTERVAL),
        RoundBudget::Time(d) => (u32::MAX, PROGRESS_INTERVAL.min(d.saturating_sub(elapsed))),
    }
}
