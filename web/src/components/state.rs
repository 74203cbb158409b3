//! The page's state, provided as Leptos context by [`super::Bench`] and read with `expect_context` by every
//! component below it: the status line, the progress of the run, this page's last result, the imported
//! files, and the run itself, a Leptos `Action` whose value is the run's [`Finished`] (report and
//! histograms, each histogram named by its case) and whose `pending` is "a run is going on".

use httpbench_shared::model::Report;
use httpbench_shared::protocol::PageStatus;
use httpbench_shared::session::Finished;
use httpbench_shared::ErrorKind;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::serve_link;
use crate::bench::{self, Cancel, Progress};
use crate::settings::{RawSettings, RunSettings};

/// Where the page is; the status element carries it as `data-state` for tests and headless drivers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Nothing run yet.
    Idle,
    /// A run is going on.
    Running,
    /// The last run finished.
    Done,
    /// The last run was cancelled; its report holds what was measured.
    Cancelled,
    /// The settings were refused.
    Invalid,
}

impl Phase {
    /// The `data-state` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Running => "running",
            Phase::Done => "done",
            Phase::Cancelled => "cancelled",
            Phase::Invalid => "invalid",
        }
    }
}

/// An imported result file: a short tag (the file name) and its reports.
pub type Imported = (String, Report);

/// The page's state, shared by its components through context (every field is a `Copy` handle).
#[derive(Clone, Copy)]
pub struct PageState {
    /// The status line.
    pub message: RwSignal<String>,
    /// Where the run going on is; the last run's last report once it ended; `None` before any.
    pub progress: RwSignal<Option<Progress>>,
    /// Whether a run is going on (the run action's `pending`).
    pub running: Memo<bool>,
    /// The outcome of this page's last run (the run action's value): its report, and its histograms, each
    /// named by its case.
    pub last: MappedSignal<Option<Finished>>,
    /// The report of this page's last run (derived, not a memo: comparing whole reports costs code and time).
    pub own: Signal<Option<Report>>,
    /// Result files imported for comparison.
    pub imported: RwSignal<Vec<Imported>>,
    /// A run history opened as JSON (`httpbench history DB --format json`), shown as its dashboard.
    pub history: RwSignal<Option<httpbench_shared::history::Analysis>>,
    /// The headline's reference case from the query (`reference=`); `None`: the defaults.
    pub reference: StoredValue<Option<String>>,
    /// Measures the browser: dispatched by [`PageState::start`].
    run: Action<RunSettings, Finished>,
    /// Whether the last Run was refused for its settings (the status line says why).
    refused: RwSignal<bool>,
    /// Cancels the run going on.
    cancel: StoredValue<Option<Cancel>, LocalStorage>,
}

impl PageState {
    /// A fresh page: nothing run, nothing imported. Call it inside a component (it owns its signals).
    pub(super) fn new() -> Self {
        let message = RwSignal::new("Ready: choose the settings and press Run.".to_string());
        let progress = RwSignal::new(None);
        let cancel = StoredValue::new_local(None);
        // The run's future holds JavaScript values (`!Send`): a local action, spawned on this thread.
        let run = Action::new_local(move |settings: &RunSettings| {
            let stop = Cancel::default();
            cancel.set_value(Some(stop.clone()));
            measure(settings.clone(), stop, message, progress, cancel)
        });
        let last = run.value();
        PageState {
            message,
            progress,
            running: run.pending(),
            last,
            own: Signal::derive(move || last.with(|v| v.as_ref().map(|f| f.report.clone()))),
            run,
            imported: RwSignal::new(Vec::new()),
            history: RwSignal::new(None),
            reference: StoredValue::new(None),
            refused: RwSignal::new(false),
            cancel,
        }
    }

    /// Where the page is: running while the action is pending, else refused settings, else the outcome of the
    /// last run, if any.
    pub fn phase(&self) -> Phase {
        if self.running.get() {
            return Phase::Running;
        }
        if self.refused.get() {
            return Phase::Invalid;
        }
        self.last.with(|v| match v {
            None => Phase::Idle,
            Some(f) if f.stopped => Phase::Cancelled,
            Some(_) => Phase::Done,
        })
    }

    /// The reports shown together: this page's run first, then the imported files, with their tags.
    pub fn sources(&self) -> Vec<(Option<String>, Report)> {
        let imported = self.imported.get();
        let mut all: Vec<(Option<String>, Report)> = Vec::new();
        if let Some(own) = self.own.get() {
            // Alone, this run reads exactly as the CLI's report of it: no tag in its header.
            let tag = (!imported.is_empty()).then(|| "this page".to_string());
            all.push((tag, own));
        }
        all.extend(imported.into_iter().map(|(tag, r)| (Some(tag), r)));
        all
    }

    /// Check the form and start a run; a refused setting is shown in the status line instead, and told to
    /// `httpbench serve` when it served the page (so `run --browser` fails at once with this message).
    pub fn start(self, raw: RawSettings) {
        if self.running.get_untracked() {
            return;
        }
        match raw.check(crate::browser::engine()) {
            Ok(settings) => {
                self.refused.set(false);
                self.progress.set(None);
                self.message.set(format!("Measuring the browser: {}…", settings.targets.default));
                self.run.dispatch_local(settings);
            }
            Err(e) => {
                self.refused.set(true);
                self.message.set(format!("Not started: {e}."));
                spawn_local(serve_link::post_status(raw.page, PageStatus::Refused(e)));
            }
        }
    }

    /// Stop the run going on after its current request.
    pub fn stop(self) {
        if let Some(c) = self.cancel.get_value() {
            c.cancel();
            self.message.set("Cancelling after the current request…".into());
        }
    }
}

/// The run's future: measure, post the result back to `httpbench serve` when it served the page, and say
/// how it went in the status line.
async fn measure(
    settings: RunSettings,
    stop: Cancel,
    message: RwSignal<String>,
    progress: RwSignal<Option<Progress>>,
    cancel: StoredValue<Option<Cancel>, LocalStorage>,
) -> Finished {
    let page = settings.page.clone();
    let on_progress = |p: Progress| {
        let line = progress_line(&p);
        spawn_local(serve_link::post_status(page.clone(), PageStatus::Progress(line.clone())));
        message.set(line);
        progress.set(Some(p));
    };
    let page = settings.page.clone();
    let turn = move |pass: u32| -> std::pin::Pin<Box<dyn std::future::Future<Output = bool>>> {
        Box::pin(serve_link::take_turn(page.clone(), pass))
    };
    let out = bench::run(&settings, &stop, &on_progress, &turn).await;
    let posted =
        serve_link::post_back(settings.page.as_deref(), &out.report).await.map(|m| format!(" {m}")).unwrap_or_default();
    cancel.set_value(None);
    let cases = out.report.cases.len();
    message.set(if let Some(why) = &out.unreachable {
        let page = web_sys::window().and_then(|w| w.location().protocol().ok()).unwrap_or_default();
        let hint = crate::settings::unreachable_hint(&page, &settings.targets.default, true).unwrap_or_default();
        format!("Stopped: {}.{hint}", why.message(&settings.targets.default))
    } else if out.stopped {
        format!("Cancelled: the report holds the {cases} cases measured so far.{posted}")
    } else {
        let requests: u64 = out.report.cases.iter().map(|c| c.iterations).sum();
        let page = web_sys::window().and_then(|w| w.location().protocol().ok()).unwrap_or_default();
        let unreached = out.report.cases.iter().all(|c| c.ok == 0 && c.errors.contains_key(&ErrorKind::Connect));
        let hint = crate::settings::unreachable_hint(&page, &settings.targets.default, unreached).unwrap_or_default();
        format!("Done: {cases} cases, {requests} measured requests.{posted}{hint}")
    });
    out
}

/// The status line of a run going on: by requests when the run's total is known, else by rounds, with the
/// time left at the pace so far.
fn progress_line(p: &Progress) -> String {
    let left = p.left().map(|d| format!(" · about {} left", httpbench_shared::units::wait(d))).unwrap_or_default();
    match p.total_requests {
        Some(total) => format!("Running {} — {} of {total} requests{left}", p.stage, p.requests),
        None => format!(
            "Running {} — {} requests, {} of {} rounds done{left}",
            p.stage, p.requests, p.rounds_done, p.rounds_total
        ),
    }
}
