//! Runs the browser cases on the CLI's schedule (`httpbench_shared::schedule`): warm-up of every case, then
//! each case in rounds, round-robin across cases. It mirrors the CLI's runner, made async: each request is
//! timed with `performance.now()` (`SystemClock`) around the awaited call, every outcome goes to `shared`'s
//! `Recorder`, and the finished cases become a `Report` of the CLI's schema. `js-fetch` runs a whole round in
//! JavaScript and hands back its timings. Between rounds the page yields to the event loop.
//!
//! Progress inside a round is reported at most once per [`PROGRESS_INTERVAL`], for every client alike (the
//! JavaScript loop hands back control on the same cadence). Each report repaints part of the page, and in
//! headless Chromium a repaint cost ~40 ms of the CPU the network stack needs: reporting every 50 requests
//! made the wasm `fetch` measure 0.75x `js-fetch` (which reported only per round), against 0.96-1.00 without.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use httpbench_shared::clock::{Clock, SystemClock};
use httpbench_shared::model::{Report, Settings, Target, Tool, SCHEMA_VERSION};
use httpbench_shared::schedule::Budget;
use httpbench_shared::stats::Bin;
use httpbench_shared::{Mode, Recorder};

use crate::browser;
use crate::clients::{js_fetch, Client, Driver, TIMEOUT_MS};
use crate::settings::{url_for, RunSettings};

/// Bins of each case's latency histogram.
pub const HISTOGRAM_BINS: usize = 30;
/// Least wall time between two progress reports inside a round (each one repaints part of the page).
pub const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// Where a run is, for the progress bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// What runs now, e.g. `round 2/5 fetch/reuse`.
    pub stage: String,
    /// Requests made so far, warm-up included.
    pub done: u64,
    /// Requests the whole run will make.
    pub total: u64,
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The result file.
    pub report: Report,
    /// Latency histogram of each case of `report.cases`, in the same order.
    pub histograms: Vec<Vec<Bin>>,
    /// Whether the run was cancelled (the report then holds the cases measured so far).
    pub cancelled: bool,
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

struct CaseRun {
    driver: Driver,
    mode: Mode,
    name: String,
    /// The request URL as Resource Timing names it.
    entry_name: String,
    recorder: Recorder,
}

impl CaseRun {
    fn label(&self) -> String {
        format!("{}/{}", self.name, self.mode)
    }
}

/// Measure every (client, mode) case of `settings`; `progress` hears about each stage and every few requests.
pub async fn run(settings: &RunSettings, cancel: &Cancel, progress: &dyn Fn(Progress)) -> RunResult {
    let environment = browser::environment(&settings.clients);
    let plan = settings.plan();
    let mut cases: Vec<CaseRun> = Vec::new();
    for name in &settings.clients {
        let Some(client) = Client::from_name(name) else { continue };
        for &mode in &settings.modes {
            let url = url_for(&settings.target, mode);
            let mut entry_name = crate::timing::entry_name(&url);
            if client == Client::Gloo && url.contains('?') {
                // gloo-net 0.6 re-appends its own (empty) query: it requests `?close=1&`, which the server
                // reads the same, and Resource Timing names the entry so.
                entry_name.push('&');
            }
            cases.push(CaseRun {
                driver: Driver::new(client, url, mode),
                mode,
                name: name.clone(),
                entry_name,
                recorder: Recorder::new(),
            });
        }
    }
    let total = cases.len() as u64 * (settings.warmup + settings.count);
    let done = Rc::new(Cell::new(0u64));
    let report_progress = |stage: &str| progress(Progress { stage: stage.to_string(), done: done.get(), total });
    for case in &cases {
        if cancel.is_cancelled() {
            break;
        }
        report_progress(&format!("warm-up {}", case.label()));
        warm_up(case, settings.warmup, cancel).await;
        done.set(done.get() + settings.warmup);
    }
    let clock = SystemClock::new();
    let order = plan.order(cases.len());
    for (index, round) in order {
        if cancel.is_cancelled() {
            break;
        }
        let case = &mut cases[index];
        let stage = format!("round {}/{} {}", round + 1, plan.rounds, case.label());
        report_progress(&stage);
        browser::yield_now().await;
        let tick = RefCell::new(|n: u64| {
            done.set(done.get() + n);
            report_progress(&stage);
        });
        run_round(case, plan.budget(round), &clock, cancel, &|n| (tick.borrow_mut())(n)).await;
    }
    finish(settings, environment, cases, cancel.is_cancelled())
}

async fn warm_up(case: &CaseRun, n: u64, cancel: &Cancel) {
    if case.driver.client() == Client::JsFetch {
        js_fetch::round(case.driver.url(), u32::try_from(n).unwrap_or(u32::MAX), &cancel.js, None).await;
        return;
    }
    for _ in 0..n {
        if cancel.is_cancelled() {
            break;
        }
        case.driver.request().await;
    }
}

/// One round of a case: requests until the budget is spent, each timed alone; the round's wall time too.
async fn run_round(case: &mut CaseRun, budget: Budget, clock: &SystemClock, cancel: &Cancel, tick: &dyn Fn(u64)) {
    let Budget::Requests(n) = budget else { return };
    crate::timing::prepare(n);
    let start = clock.now();
    let done = if case.driver.client() == Client::JsFetch {
        js_round(case, n, cancel, tick).await
    } else {
        wasm_round(case, budget, clock, start, cancel, tick).await
    };
    let wall: Duration = clock.now() - start;
    if done > 0 {
        case.recorder.end_round(wall);
    }
    crate::timing::collect(&case.entry_name, &mut case.recorder);
}

/// A round of a wasm client that began at `start` on `clock`; returns the requests made.
async fn wasm_round(
    case: &mut CaseRun,
    budget: Budget,
    clock: &SystemClock,
    start: Duration,
    cancel: &Cancel,
    tick: &dyn Fn(u64),
) -> u64 {
    let (mut done, mut reported, mut last_report) = (0u64, 0u64, start);
    while budget.wants_more(done, clock.now() - start) && !cancel.is_cancelled() {
        let t0 = clock.now();
        let outcome = case.driver.request().await;
        let t1 = clock.now();
        case.recorder.record(&outcome, t1 - t0);
        done += 1;
        if t1 - last_report >= PROGRESS_INTERVAL {
            tick(done - reported);
            (reported, last_report) = (done, t1);
        }
    }
    tick(done - reported);
    done
}

/// A round of `js-fetch`: the JavaScript loop runs in stretches of [`PROGRESS_INTERVAL`], handing back its
/// timings after each, so its progress is reported on the wasm clients' cadence. Returns the requests made.
async fn js_round(case: &mut CaseRun, n: u64, cancel: &Cancel, tick: &dyn Fn(u64)) -> u64 {
    let mut done = 0u64;
    while done < n && !cancel.is_cancelled() {
        let left = u32::try_from(n - done).unwrap_or(u32::MAX);
        let requests = js_fetch::round(case.driver.url(), left, &cancel.js, Some(PROGRESS_INTERVAL)).await;
        if requests.is_empty() {
            break;
        }
        for (outcome, latency) in &requests {
            case.recorder.record(outcome, *latency);
        }
        done += requests.len() as u64;
        tick(requests.len() as u64);
    }
    done
}

fn finish(
    settings: &RunSettings,
    environment: httpbench_shared::Environment,
    cases: Vec<CaseRun>,
    cancelled: bool,
) -> RunResult {
    let measured: Vec<CaseRun> = cases.into_iter().filter(|c| c.recorder.iterations() > 0).collect();
    let report = Report {
        schema_version: SCHEMA_VERSION,
        tool: Tool {
            name: crate::TOOL_NAME.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            build_profile: if cfg!(debug_assertions) { "debug" } else { "release" }.into(),
        },
        environment,
        target: Target { url: settings.target.clone(), embedded_server: false },
        settings: Settings {
            count: Some(settings.count),
            duration_secs: None,
            rounds: settings.rounds,
            interleave: true,
            warmup: settings.warmup,
            modes: settings.modes.clone(),
            clients: settings.clients.clone(),
            timeout_ms: Some(TIMEOUT_MS.into()),
        },
        cases: measured.iter().map(|c| c.recorder.finish(&c.name, c.mode, None)).collect(),
    };
    let histograms = measured.iter().map(|c| c.recorder.histogram(HISTOGRAM_BINS)).collect();
    RunResult { report, histograms, cancelled }
}
