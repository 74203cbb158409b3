//! Export and import of result files: download this page's run as a result file of the CLI's schema
//! (`environment.kind = "browser"`) or share it as a link (the result in the URL's fragment, coded by shared's
//! `protocol::share`, as `httpbench share` codes it), and import one or more result files (file picker, paste,
//! or the share link the page was opened from), e.g. the CLI's `--export-json` output, to compare browser and
//! native cases in one report and one table.

use httpbench_shared::parse::parse_reports;
use httpbench_shared::protocol::share;
use httpbench_shared::Source;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use super::PageState;

/// Parse `text` (one report or an array) and add its reports under `tag`, or, for a run history's JSON, show
/// it as its dashboard; the error names the source.
pub(super) fn import_text(state: PageState, tag: &str, text: &str) -> Result<usize, String> {
    if httpbench_shared::history::is_json(text) {
        let analysis = httpbench_shared::history::from_json(text).map_err(|e| format!("{tag}: {e}"))?;
        let n = analysis.series.len();
        state.history.set(Some(analysis));
        return Ok(n);
    }
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

/// The tag of the report a share link holds, in the imports and in errors.
const SHARED_LINK_TAG: &str = "shared-link";

/// Import the result in `link` (a share link, or a page fragment `#r=...`) under the tag `shared-link`, as a
/// picked file is imported; the error names the link by that tag.
fn import_link(state: PageState, link: &str) -> Result<usize, String> {
    let text = share::decode(link).map_err(|e| format!("{SHARED_LINK_TAG}: {e}"))?;
    import_text(state, SHARED_LINK_TAG, &text)
}

/// This run's result file, as Export JSON writes it and a share link carries it.
fn own_json(state: PageState) -> Option<String> {
    state.own.with_untracked(|own| own.as_ref().map(|r| httpbench_shared::render::json(&[Source::new(r)])))
}

/// The link to this run, or why there is none.
fn share_own(state: PageState) -> Result<String, String> {
    let json = own_json(state).ok_or_else(|| "no run to share yet".to_string())?;
    let link = share::encode(&crate::browser::address(), &json);
    share::check_length(&link).map(|()| link).map_err(|e| format!("{e}: use Export JSON"))
}

/// Put `link` on the clipboard and say in `said` whether it is there.
fn copy(link: String, said: RwSignal<String>) {
    spawn_local(async move {
        said.set(if crate::browser::copy_to_clipboard(&link).await {
            "Copied to the clipboard.".into()
        } else {
            "The browser gave no clipboard here: select the link and copy it.".into()
        });
    });
}

/// A file name without its directory and `.json`, as a short tag.
fn tag_of(file_name: &str) -> String {
    file_name.rsplit('/').next().unwrap_or(file_name).trim_end_matches(".json").to_string()
}

/// Import the files a file input's change event `ev` picked; what goes wrong is said in `error`.
pub(super) fn import_picked(state: PageState, ev: &leptos::ev::Event, error: RwSignal<String>) {
    let input = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
    import_files(state, input.and_then(|i| i.files()), error);
}

/// Import `files` (picked or dropped), each under its name as a tag; what goes wrong is said in `error`.
pub(super) fn import_files(state: PageState, files: Option<web_sys::FileList>, error: RwSignal<String>) {
    let Some(files) = files else { return };
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
}

/// The export and import controls, on the page state (context).
// The component macro's expansion is flagged by unreachable_pub whatever the function's visibility.
#[allow(unreachable_pub)]
#[component]
pub(super) fn ImportExport(
    /// The share link the page was opened from (its fragment `#r=...`), imported at once; none by default.
    #[prop(optional_no_strip)]
    shared_link: Option<String>,
) -> impl IntoView {
    let state = expect_context::<PageState>();
    // A page opened from a share link shows its report at once; a broken link says why, where imports do.
    let opened = shared_link.and_then(|link| import_link(state, &link).err());
    let error = RwSignal::new(opened.unwrap_or_default());
    let pasted = RwSignal::new(String::new());
    let link = RwSignal::new(String::new());
    let copied = RwSignal::new(String::new());
    let share = move |_| match share_own(state) {
        Ok(l) => {
            link.set(l.clone());
            copy(l, copied);
        }
        Err(e) => {
            link.set(String::new());
            copied.set(e);
        }
    };
    let export = move |_| {
        if let Some(json) = own_json(state) {
            let name = format!(
                "httpbench-web-{}.json",
                js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default().replace(':', "-")
            );
            if let Err(e) = crate::browser::download(&name, &json) {
                error.set(e);
            }
        }
    };
    let pick = move |ev: leptos::ev::Event| import_picked(state, &ev, error);
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
            <div class="buttons">
                <button
                    type="button"
                    data-testid="export-json"
                    disabled=move || state.own.with(|o| o.is_none())
                    on:click=export
                >
                    "Export JSON"
                </button>
                <button
                    type="button"
                    data-testid="share"
                    disabled=move || state.own.with(|o| o.is_none())
                    on:click=share
                >
                    "Share as link"
                </button>
            </div>
            <label for="share-link">"Link to this run (press Share as link)"</label>
            <div class="copy-line">
                <input id="share-link" data-testid="share-link" readonly prop:value=move || link.get() />
                <button
                    type="button"
                    data-testid="copy-link"
                    disabled=move || link.with(String::is_empty)
                    on:click=move |_| copy(link.get_untracked(), copied)
                >
                    "Copy"
                </button>
            </div>
            <p role="status" data-testid="copy-status">{move || copied.get()}</p>
            <label for="import-file">
                "Import result files (JSON, e.g. httpbench --export-json), or a run history (httpbench history DB --format json)"
            </label>
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
