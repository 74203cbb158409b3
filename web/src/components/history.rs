//! A run history opened on the page (`httpbench history DB --format json`, imported as a result file is): the
//! same dashboard as `history --export-html`, drawn by shared's renderer, with a filter by case.

use leptos::prelude::*;

use super::PageState;

/// The history's heading, its filter, and a section per series that matches it; nothing before one is opened.
// The component macro's expansion is flagged by unreachable_pub whatever the function's visibility.
#[allow(unreachable_pub)]
#[component]
pub(super) fn History() -> impl IntoView {
    let state = expect_context::<PageState>();
    let filter = RwSignal::new(String::new());
    move || {
        state.history.with(|h| {
            h.as_ref().map(|a| {
                let heading = httpbench_shared::render::history_heading(a);
                let sections = move || {
                    state.history.with(|h| {
                        h.as_ref()
                            .map(|a| httpbench_shared::render::history_sections(a, &filter.get()))
                            .unwrap_or_default()
                    })
                };
                view! {
                    <section class="history" aria-label="Run history" data-testid="history">
                        <style>{httpbench_shared::render::HISTORY_CSS}</style>
                        <h2>"Run history"</h2>
                        <p class="meta">{heading}</p>
                        <p>
                            <label for="history-filter">"Filter by case "</label>
                            <input
                                type="search"
                                id="history-filter"
                                data-testid="history-filter"
                                placeholder="curl/reuse"
                                prop:value=move || filter.get()
                                on:input=move |ev| filter.set(event_target_value(&ev))
                            />
                        </p>
                        <div data-testid="history-series" inner_html=sections></div>
                    </section>
                }
            })
        })
    }
}
