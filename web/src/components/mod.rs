//! The page's components. [`App`] reads the query string and mounts [`Bench`], which owns the page state
//! ([`PageState`]) and lays out the form, the status line, the results, the environment panel and the
//! import/export controls, each in its own module.

mod environment;
mod form;
mod import_export;
mod results;
mod serve_link;

use httpbench_shared::model::Report;
use httpbench_shared::stats::Bin;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::bench::{self, Cancel};
use crate::settings::RawSettings;

pub use form::FormState;

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

/// The page's state, shared by its components (signals are `Copy`).
#[derive(Clone, Copy)]
pub struct PageState {
    /// Where the page is.
    pub phase: RwSignal<Phase>,
    /// The status line.
    pub message: RwSignal<String>,
    /// (requests done, requests in the run).
    pub progress: RwSignal<(u64, u64)>,
    /// The report of this page's last run.
    pub own: RwSignal<Option<Report>>,
    /// Latency histograms of `own`'s cases, in order.
    pub histograms: RwSignal<Vec<Vec<Bin>>>,
    /// Result files imported for comparison.
    pub imported: RwSignal<Vec<Imported>>,
    /// Cancels the run in progress.
    pub cancel: StoredValue<Option<Cancel>, LocalStorage>,
}

impl PageState {
    fn new() -> Self {
        PageState {
            phase: RwSignal::new(Phase::Idle),
            message: RwSignal::new("Ready: choose the settings and press Run.".into()),
            progress: RwSignal::new((0, 0)),
            own: RwSignal::new(None),
            histograms: RwSignal::new(Vec::new()),
            imported: RwSignal::new(Vec::new()),
            cancel: StoredValue::new_local(None),
        }
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

    /// Check the form and start a run; a refused setting is shown in the status line instead.
    pub fn start(self, raw: RawSettings) {
        if self.phase.get_untracked() == Phase::Running {
            return;
        }
        let settings = match raw.check() {
            Ok(s) => s,
            Err(e) => {
                self.phase.set(Phase::Invalid);
                self.message.set(format!("Not started: {e}."));
                return;
            }
        };
        let cancel = Cancel::default();
        self.cancel.set_value(Some(cancel.clone()));
        self.phase.set(Phase::Running);
        self.message.set(format!("Measuring the browser: {}…", settings.target));
        spawn_local(async move {
            let on_progress = |p: bench::Progress| {
                self.progress.set((p.done, p.total));
                self.message.set(format!("Running {} — {} of {} requests", p.stage, p.done, p.total));
            };
            let out = bench::run(&settings, &cancel, &on_progress).await;
            let requests: u64 = out.report.cases.iter().map(|c| c.iterations).sum();
            let cases = out.report.cases.len();
            let posted = serve_link::post_back(&out.report).await.map(|m| format!(" {m}")).unwrap_or_default();
            self.histograms.set(out.histograms);
            self.own.set(Some(out.report));
            self.cancel.set_value(None);
            if out.cancelled {
                self.phase.set(Phase::Cancelled);
                self.message.set(format!("Cancelled: the report holds the {cases} cases measured so far.{posted}"));
            } else {
                self.phase.set(Phase::Done);
                self.message.set(format!("Done: {cases} cases, {requests} measured requests.{posted}"));
            }
        });
    }

    /// Stop the run in progress after its current request.
    pub fn stop(self) {
        if let Some(c) = self.cancel.get_value() {
            c.cancel();
            self.message.set("Cancelling after the current request…".into());
        }
    }
}

/// The page: the settings come from the query string (`?target=&n=&warmup=&rounds=&clients=&mode=&autorun=1`).
#[component]
pub fn App() -> impl IntoView {
    view! { <Bench initial=crate::browser::initial_settings() /> }
}

/// The benchmark page with the given initial settings; it starts a run at once when `initial.autorun` is set.
#[component]
pub fn Bench(
    /// The form's starting values.
    initial: RawSettings,
) -> impl IntoView {
    let state = PageState::new();
    let form = FormState::new(&initial);
    let search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    let imports = serve_link::import_urls(&search);
    if !imports.is_empty() {
        spawn_local(serve_link::import_all(state, imports));
    }
    if initial.autorun {
        state.start(initial.clone());
    }
    view! {
        <main>
            <h1>"httpbench " <span class="sub">"— the browser's HTTP stack, timed from WebAssembly"</span></h1>
            <form::SettingsForm form=form state=state />
            <Status state=state />
            <results::Results state=state />
            <environment::EnvironmentPanel state=state />
            <import_export::ImportExport state=state />
        </main>
    }
}

/// The status line and progress bar.
#[component]
fn Status(
    /// The page state.
    state: PageState,
) -> impl IntoView {
    view! {
        <section class="status" aria-label="Status">
            <p data-testid="status" data-state=move || state.phase.get().as_str() role="status" aria-live="polite">
                {move || state.message.get()}
            </p>
            <progress
                data-testid="progress"
                max=move || state.progress.get().1.max(1)
                value=move || state.progress.get().0
                aria-label="Requests done"
            ></progress>
        </section>
    }
}
