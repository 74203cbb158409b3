//! Export and import of result files: download this page's run as a result file of the CLI's schema
//! (`environment.kind = "browser"`) or share it as a link (the result in the URL's fragment), and import one
//! or more result files (file picker or paste), e.g. the CLI's `--export-json` output, to compare browser and
//! native cases in one report and one table. A shared link is imported through the file picker.

use httpbench_shared::parse::parse_reports;
use httpbench_shared::Source;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use super::PageState;

/// Parse `text` (one report or an array) and add its reports under `tag`; the error names the source.
pub fn import_text(state: PageState, tag: &str, text: &str) -> Result<usize, String> {
    let reports = parse_reports(text).map_err(|e| format!("{tag}: {e}"))?;
    let n = reports.len();
    state.imported.update(|all| {
        for (i, r) in reports.into_iter().enumerate() {
            let t = if n > 1 { format!("{tag}#{}", i + 1) } else { tag.to_string() };
            all.push((t, r));
        }
    });
    Ok(n)
}

/// A file name without its directory and `.json`, as a short tag.
fn tag_of(file_name: &str) -> String {
    file_name.rsplit('/').next().unwrap_or(file_name).trim_end_matches(".json").to_string()
}

/// The export and import controls, on the page state (context).
#[component]
pub fn ImportExport() -> impl IntoView {
    let state = expect_context::<PageState>();
    let error = RwSignal::new(String::new());
    let pasted = RwSignal::new(String::new());
    let export = move |_| {
        if let Some(r) = state.own.get_untracked() {
            let json = httpbench_shared::render::json(&[Source::new(&r)]);
            let name = format!(
                "httpbench-web-{}.json",
                js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default().replace(':', "-")
            );
            if let Err(e) = crate::browser::download(&name, &json) {
                error.set(e);
            }
        }
    };
    let pick = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(files) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
        spawn_local(async move {
            let mut problems = Vec::new();
            for f in files {
                let result = match crate::browser::read_file(&f).await {
                    Ok(text) => import_text(state, &tag_of(&f.name()), &text),
                    Err(e) => Err(e),
                };
                problems.extend(result.err());
            }
            error.set(problems.join("\n"));
        });
    };
    let paste = move |_| match import_text(state, "pasted", &pasted.get_untracked()) {
        Ok(_) => {
            error.set(String::new());
            pasted.set(String::new());
        }
        Err(e) => error.set(e),
    };
    view! {
        <section class="import-export" aria-label="Import and export">
            <h2>"Export and compare"</h2>
            <button type="button" data-testid="export-json" disabled=move || state.own.with(|o| o.is_none()) on:click=export>
                "Export JSON"
            </button>
            // The link is made by `httpbenchShare` in index.html, from the result JSON the page already holds.
            <button type="button" data-testid="share" onclick="httpbenchShare()" disabled=move || state.own.with(|o| o.is_none())>
                "Share as link"
            </button>
            <input data-testid="share-link" aria-label="Link to this run" readonly />
            <label for="import-file">"Import result files (JSON, e.g. httpbench --export-json)"</label>
            <input id="import-file" data-testid="import-file" type="file" accept=".json,application/json" multiple on:change=pick />
            <label for="import-paste">"…or paste a result file"</label>
            <textarea
                id="import-paste"
                data-testid="import-paste"
                rows="4"
                prop:value=move || pasted.get()
                on:input=move |ev| pasted.set(event_target_value(&ev))
            ></textarea>
            <div class="buttons">
                <button type="button" data-testid="import-paste-button" on:click=paste>"Import pasted"</button>
                <button type="button" data-testid="import-clear" on:click=move |_| state.imported.set(Vec::new())>
                    "Clear imports"
                </button>
            </div>
            <p class="error" role="alert" data-testid="import-error">{move || error.get()}</p>
            <p data-testid="imported">
                {move || {
                    let tags: Vec<String> = state.imported.get().into_iter().map(|(t, _)| t).collect();
                    if tags.is_empty() { String::new() } else { format!("Compared with: {}", tags.join(", ")) }
                }}
            </p>
        </section>
    }
}
