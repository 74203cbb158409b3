//! The page's link to `httpbench serve`: when the page was served by it (`serve.json` answers beside the
//! page), every finished run is posted back to its results endpoint, where the terminal prints it and saves
//! it, and the run's progress and a refusal of its plan go to its status endpoint (shared's `PageStatus`), so
//! `run --browser` hears how the page is doing. A page that run started carries its seal (shared's
//! `protocol::seal`) in its fragment: [`take_seal`] keeps it and drops it from the address, and every turn,
//! status and result request of the page carries it, since the run's server answers nothing else.
//! `?import=URL,URL` (read by shared's `PageQuery`) loads result files at start (e.g. `/results/NAME.json`
//! saved by the server), so a link can open a browser-vs-native comparison. On any other static host both
//! quietly do nothing.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo_net::http::Request;
use httpbench_shared::model::Report;
use httpbench_shared::protocol::{self, PageStatus};
use httpbench_shared::Source;
use leptos::prelude::*;

use super::import_export::import_text;
use super::PageState;
use crate::clients::js_fetch;

/// `serve.json`, `{"results": "/results", ...}`: the path of the results endpoint (a struct, not a
/// `serde_json::Value`, which would bring a second copy of every deserializer into the page).
#[derive(serde::Deserialize)]
struct ServeDescription {
    results: String,
    /// Where the page posts its status (a server older than the status endpoint names none).
    #[serde(default)]
    status: Option<String>,
}

thread_local! {
    /// `serve.json` as first read: `Some(None)` once it is known that no `httpbench serve` served the page.
    static DESCRIPTION: RefCell<Option<Option<Rc<ServeDescription>>>> = const { RefCell::new(None) };
    /// When the last progress was posted (ms since the epoch).
    static LAST_PROGRESS_MS: Cell<f64> = const { Cell::new(0.0) };
    /// Status posts still in flight.
    static POSTING: Cell<u32> = const { Cell::new(0) };
    /// The seal `run --browser` gave the page, if it did.
    static SEAL: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keep the seal the page's fragment carries (`#seal=SECRET`, from a `run --browser` start page) for its
/// requests, and take it out of the address, so that neither a share link nor a screenshot of the page shows
/// it. A page with no seal in its fragment keeps its fragment (a share link's `#r=`).
pub(super) fn take_seal() {
    let fragment = crate::browser::fragment();
    let Some(seal) = protocol::seal_of_fragment(&fragment) else { return };
    SEAL.with_borrow_mut(|s| *s = Some(seal.to_string()));
    if let Some(window) = web_sys::window() {
        let location = window.location();
        let bare = location.pathname().unwrap_or_default() + &location.search().unwrap_or_default();
        if let Ok(history) = window.history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&bare));
        }
    }
}

/// The page's seal, if the run gave it one.
fn seal() -> Option<String> {
    SEAL.with_borrow(Clone::clone)
}

/// How many times a page asks for its turn before it goes on without one: each ask is held up to
/// `TURN_HOLD` (a minute), so two hours of other sides' passes.
const MAX_TURN_ASKS: u32 = 120;

/// Least time between two progress posts: the CLI's wait allows a minute of silence, and each post is a
/// request beside the measured ones.
const PROGRESS_POST_MS: f64 = 5_000.0;

/// The server's description, read once per page load.
async fn description() -> Option<Rc<ServeDescription>> {
    if let Some(known) = DESCRIPTION.with_borrow(Clone::clone) {
        return known;
    }
    let answer = Request::get("serve.json").send().await.ok().filter(|r| r.ok());
    let read = match answer {
        Some(r) => r.json::<ServeDescription>().await.ok().map(Rc::new),
        None => None,
    };
    DESCRIPTION.with_borrow_mut(|d| *d = Some(read.clone()));
    read
}

/// Tell `httpbench serve` how the run goes, if it served the page: a refusal at once, progress at most every
/// [`PROGRESS_POST_MS`], named by the page's id in a run (`page`). Best effort: nothing on the page waits for
/// it.
pub(super) async fn post_status(page: Option<String>, status: PageStatus) {
    if let PageStatus::Progress(_) = status {
        let now = js_sys::Date::now();
        if now - LAST_PROGRESS_MS.get() < PROGRESS_POST_MS {
            return;
        }
        LAST_PROGRESS_MS.set(now);
    }
    let Some(path) = description().await.and_then(|d| d.status.clone()) else { return };
    POSTING.set(POSTING.get() + 1);
    if let Ok(request) =
        Request::post(&named(&path, page.as_deref())).header("content-type", "text/plain").body(status.to_body())
    {
        let _ = request.send().await;
    }
    POSTING.set(POSTING.get() - 1);
}

/// Wait for page `page`'s turn at pass `pass` in a run of `httpbench run --browser` (shared's turn protocol):
/// first for its status posts still in flight to land (one that reached the server during another side's
/// pass would be counted there), then ask the server that served the page until it says `go`. A page with no
/// id, or no `httpbench serve` to answer, goes on at once; one told to wait [`MAX_TURN_ASKS`] times goes on
/// too. `false` when a page with a seal gets neither answer: its run's server refused it (no other server
/// serves a sealed page), and measuring now would run beside another side's pass.
pub(super) async fn take_turn(page: Option<String>, pass: u32) -> bool {
    let Some(page) = page else { return true };
    // Loopback posts land in milliseconds; a second at most.
    for _ in 0..250 {
        if POSTING.get() == 0 {
            break;
        }
        crate::browser::yield_now().await;
    }
    let hold_ms = protocol::TURN_HOLD.as_millis() as u32;
    for _ in 0..MAX_TURN_ASKS {
        let asked = protocol::turn_query(&page, pass, seal().as_deref());
        let answer = js_fetch::text(&asked, hold_ms + 30_000).await;
        match protocol::TurnAnswer::parse(&answer) {
            Some(protocol::TurnAnswer::Wait) => {}
            Some(protocol::TurnAnswer::Go) => return true,
            None => return seal().is_none(),
        }
    }
    true
}

/// `path` with the page's id in a run, and its seal, if it has them.
fn named(path: &str, page: Option<&str>) -> String {
    page.map_or_else(|| path.to_string(), |id| protocol::page_path(path, id, seal().as_deref()))
}

/// Post `report` to the server that served the page, if it is `httpbench serve`, named by the page's id in
/// a run (`page`); the outcome for the status line, or `None` when the page is hosted elsewhere.
pub(super) async fn post_back(page: Option<&str>, report: &Report) -> Option<String> {
    let results = named(&description().await?.results, page);
    let json = httpbench_shared::render::json(&[Source::new(report)]);
    let sent = match Request::post(&results).header("content-type", "application/json").body(json) {
        Ok(request) => request.send().await,
        Err(e) => return Some(format!("Not sent to httpbench serve: {e}.")),
    };
    Some(match sent {
        Ok(r) if r.ok() => "Sent to httpbench serve.".to_string(),
        Ok(r) => format!("httpbench serve refused the result ({}): {}", r.status(), r.text().await.unwrap_or_default()),
        Err(e) => format!("Not sent to httpbench serve: {e}."),
    })
}

/// Fetch and import every URL of `urls` (the query's `import`, read by shared's `PageQuery`); problems go to
/// the status line.
pub(super) async fn import_all(state: PageState, urls: Vec<String>) {
    let mut problems = Vec::new();
    for url in urls {
        let tag = url.rsplit('/').next().unwrap_or(&url).trim_end_matches(".json").to_string();
        let text = match Request::get(&url).send().await {
            Ok(r) if r.ok() => r.text().await.map_err(|e| format!("{url}: {e}")),
            Ok(r) => Err(format!("{url}: HTTP {}", r.status())),
            Err(e) => Err(format!("{url}: {e}")),
        };
        if let Err(e) = text.and_then(|t| import_text(state, &tag, &t).map(|_| ())) {
            problems.push(e);
        }
    }
    if !problems.is_empty() {
        state.message.set(format!("Import failed: {}", problems.join("; ")));
    }
}
