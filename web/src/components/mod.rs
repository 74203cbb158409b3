//! The page's components. [`App`] reads the query string and mounts [`Bench`], which creates the page state
//! ([`PageState`]), provides it as context to every component below it, and lays out the form, the status
//! line, the results, the environment panel and the import/export controls, each in its own module.

mod environment;
mod form;
mod history;
mod import_export;
mod results;
mod serve_link;
mod state;

use httpbench_shared::protocol::share;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::settings::RawSettings;

pub use state::{Imported, PageState, Phase};

/// The page: the settings and the imports come from the query string (shared's `PageQuery`: `?target=&n=
/// &duration=&warmup=&rounds=&clients=&mode=&autorun=1&import=URL`), a shared result from the fragment
/// (`#r=...`, shared's `protocol::share`).
#[component]
pub fn App() -> impl IntoView {
    // First: the seal leaves the address before anything can read or share it.
    serve_link::take_seal();
    // index.html's loading note has done its work.
    if let Some(note) = document().get_element_by_id("loading") {
        note.remove();
    }
    let query = crate::browser::page_query();
    let mut initial = RawSettings::from_query(&crate::browser::origin(), &query);
    let fragment = crate::browser::fragment();
    let shared_link = share::is_link(&fragment).then_some(fragment);
    // A link that carries a result shows it: shared from a page that ran by itself (`autorun=1` in its address),
    // it must not start a benchmark in the browser of whoever opens it.
    initial.autorun &= shared_link.is_none();
    view! { <Bench initial=initial imports=query.imports shared_link=shared_link reference=query.reference /> }
}

/// The benchmark page with the given initial settings; it starts a run at once when `initial.autorun` is set.
#[component]
pub fn Bench(
    /// The form's starting values.
    initial: RawSettings,
    /// URLs of result files to load for comparison as the page starts (none by default).
    #[prop(optional)]
    imports: Vec<String>,
    /// The share link the page was opened from, imported as `shared-link` (none by default).
    #[prop(optional_no_strip)]
    shared_link: Option<String>,
    /// The case the headline compares the others with (`reference=` in the query); the defaults when `None`.
    #[prop(optional_no_strip)]
    reference: Option<String>,
) -> impl IntoView {
    let state = PageState::new();
    state.reference.set_value(reference);
    provide_context(state);
    if !imports.is_empty() {
        spawn_local(serve_link::import_all(state, imports));
    }
    if initial.autorun {
        state.start(initial.clone());
    }
    view! {
        <main>
            <h1>"httpbench " <span class="sub">"— the browser's HTTP stack, timed from WebAssembly"</span></h1>
            <p class="lede">
                "How fast does this browser fetch over HTTP from WebAssembly? Each client (fetch, XMLHttpRequest, \
                 gloo-net) sends the same GETs to the target, fresh and kept alive, against the same loop in plain \
                 JavaScript (js-fetch), the baseline; the answer comes first."
            </p>
            <form::SettingsForm initial=initial />
            <Status />
            <results::Results />
            // Export, share and compare right after the results, the environment after them.
            <import_export::ImportExport shared_link=shared_link />
            <environment::EnvironmentPanel />
            <history::History />
        </main>
    }
}

/// The status line and progress bar: requests done of the run's requests for a count, rounds done of the
/// run's rounds for a duration (whose request total is unknown until it ends); while a run goes on, each
/// case's rate in its last round.
#[component]
fn Status() -> impl IntoView {
    let state = expect_context::<PageState>();
    let rates = move || {
        let p = state.progress.get().filter(|p| state.running.get() && !p.rates.is_empty())?;
        let each: Vec<String> = p.rates.iter().map(|(label, rate)| format!("{label} {rate} req/s")).collect();
        Some(format!("Last round: {}", each.join(" · ")))
    };
    let bar = move || state.progress.with(|p| p.as_ref().map_or((0, 1), |p| p.bar()));
    let by_requests = move || state.progress.with(|p| p.as_ref().is_none_or(|p| p.total_requests.is_some()));
    view! {
        <section class="status" aria-label="Status">
            <p data-testid="status" data-state=move || state.phase().as_str() role="status" aria-live="polite">
                {move || state.message.get()}
            </p>
            <progress
                data-testid="progress"
                max=move || bar().1.max(1)
                value=move || bar().0
                aria-label=move || if by_requests() { "Requests done" } else { "Rounds done" }
            ></progress>
            <p class="live" data-testid="live-rates">{rates}</p>
        </section>
    }
}
