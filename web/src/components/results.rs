//! The results: shared's one composition of them ([`httpbench_shared::render::results`]), the same markup
//! and sections in the same order as the HTML report, styled by the same sheet (`shared/src/render/
//! report.css`, linked in `index.html`). This module only chooses what to show: this page's run with its
//! histograms, then the imported files.

use httpbench_shared::model::Report;
use httpbench_shared::session::Finished;
use httpbench_shared::{RenderOptions, Source};
use leptos::prelude::*;

use super::{PageState, Phase};
use wasm_bindgen::JsCast;

/// The reports as `shared` sources, borrowing from `reports`; `own` (this page's last run, whose report
/// [`PageState::sources`] puts first) lends that first source its histograms, which the composition then
/// finds by each case's key. Only this run's source gets them: an imported report may hold a case of the
/// same name (`reqwest` natively and in the browser), and a report read from a file keeps percentiles only.
fn sources<'a>(reports: &'a [(Option<String>, Report)], own: Option<&'a Finished>) -> Vec<Source<'a>> {
    let mut sources: Vec<Source<'a>> = reports.iter().map(|(tag, r)| Source::tagged(r, tag.as_deref())).collect();
    if let (Some(first), Some(own)) = (sources.first_mut(), own) {
        *first = first.with_histograms(&own.histograms);
    }
    sources
}

/// The results of everything shown as markup, in two (what ran with the headline; the rest): with this page's
/// run alone, its text report reads exactly as the CLI's report of it.
pub(super) fn markup(
    reports: &[(Option<String>, Report)],
    own: Option<&Finished>,
    reference: Option<String>,
) -> (String, String) {
    httpbench_shared::render::results_parts(&sources(reports, own), &RenderOptions { reference, ..Default::default() })
}

/// The results section, from the page state (context); empty until there is a run or an import.
// The component macro's expansion is flagged by unreachable_pub whatever the function's visibility.
#[allow(unreachable_pub)]
#[component]
pub(super) fn Results() -> impl IntoView {
    let state = expect_context::<PageState>();
    // Derived, not memoised: a memo would compare every report on each change (and its PartialEq costs the
    // page 3 KB of wasm); the list changes only when a run ends or a file is imported.
    let reports = Signal::derive(move || state.sources());
    let results = Memo::new(move |_| {
        let reference = state.reference.get_value();
        reports.with(|r| state.last.with(|last| markup(r, last.as_ref(), reference)))
    });
    let error = RwSignal::new(String::new());
    let own_json = move || state.own.get().map(|r| httpbench_shared::render::json(&[Source::new(&r)]));
    // A run that ends brings its answer into view and focus (a screen reader reads it next).
    Effect::new(move |was: Option<Phase>| {
        let now = state.phase();
        if was == Some(Phase::Running) && matches!(now, Phase::Done | Phase::Cancelled) {
            request_animation_frame(|| {
                let results = document().get_element_by_id("results");
                if let Some(section) = results.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
                    let _ = section.focus();
                }
            });
        }
        now
    });
    view! {
        <Show when=move || reports.with(|r| !r.is_empty())>
            // A result file dropped anywhere on the results is imported, as "compare with native" says.
            <section
                id="results"
                class="results"
                aria-label="Results"
                tabindex="-1"
                on:dragover=|ev: leptos::ev::DragEvent| ev.prevent_default()
                on:drop=move |ev: leptos::ev::DragEvent| {
                    ev.prevent_default();
                    let files = ev.data_transfer().and_then(|d| d.files());
                    super::import_export::import_files(state, files, error);
                }
            >
                <div inner_html=move || results.with(|(answer, _)| answer.clone())></div>
                // Right after the answer: set the browser's figures beside a native run's.
                <p class="compare-native" data-testid="compare-native" hidden=move || !state.imported.with(Vec::is_empty)>
                    "Compare with native: drop the file of " <code>"httpbench run --export-json native.json"</code>
                    " here, or import it under Export and compare. "
                    <span class="error" role="alert">{move || error.get()}</span>
                </p>
                <div inner_html=move || results.with(|(_, rest)| rest.clone())></div>
            </section>
        </Show>
        <pre hidden data-testid="result-json">{own_json}</pre>
    }
}
