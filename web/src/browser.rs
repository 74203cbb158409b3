//! What the page learns from the browser and asks of it: the query string, the address and fragment (share
//! links), the environment recorded in a report (user agent, `crossOriginIsolated`, the measured
//! `performance.now()` step), downloads, the clipboard, and a yield to the event loop so the page repaints
//! between rounds.

use std::collections::BTreeMap;

use httpbench_shared::clock::{resolution, SystemClock};
use httpbench_shared::model::Engine;
use httpbench_shared::protocol::PageQuery;
use httpbench_shared::{Environment, EnvironmentKind};
use js_sys::{Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::clients::Client;

/// Reads of `performance.now()` used to find its step: about 30 ms at 100 µs steps, plenty of steps seen.
const RESOLUTION_READS: u32 = 100_000;

/// The page's query string, read by shared's [`PageQuery`] (the one `httpbench run --browser` writes).
pub fn page_query() -> PageQuery {
    let search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    PageQuery::parse(&search)
}

/// The page's address as the browser shows it: the base of the page's share links.
pub fn address() -> String {
    web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default()
}

/// The page's fragment (`#r=...` when it was opened from a share link), empty when it has none.
pub fn fragment() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// The page's origin (`http://host:port`), the default target; `null` for a page opened from a file.
pub fn origin() -> String {
    web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default()
}

/// The engine this page's plan is made for, read off its user agent (shared's [`Engine::of_page`]): the plan
/// leaves out what its HTTP stack cannot speak, as `run --browser` does for it.
pub fn engine() -> Option<Engine> {
    Engine::of_page(&web_sys::window()?.navigator().user_agent().ok()?)
}

/// The browser environment, with the versions of `clients`.
pub fn environment(clients: &[String]) -> Environment {
    let window = web_sys::window();
    let navigator = window.as_ref().map(|w| w.navigator());
    let global = js_sys::global();
    let isolated = Reflect::get(&global, &JsValue::from_str("crossOriginIsolated")).ok().and_then(|v| v.as_bool());
    // `extend`, not `collect`: collecting into a B-tree sorts, and the sort weighs 3.1 KB gzip in the page
    // (measured); extending inserts one by one, just as clear.
    let mut client_versions = BTreeMap::new();
    client_versions
        .extend(clients.iter().filter_map(|name| Client::from_name(name).map(|c| (name.clone(), c.version()))));
    Environment {
        kind: EnvironmentKind::Browser,
        os: navigator.as_ref().and_then(|n| n.platform().ok()).unwrap_or_else(|| "unknown".into()),
        arch: "wasm32".into(),
        cpu: None,
        cpus_online: navigator.as_ref().map(|n| n.hardware_concurrency() as u64).filter(|n| *n > 0),
        user_agent: navigator.as_ref().and_then(|n| n.user_agent().ok()),
        cross_origin_isolated: isolated,
        timer_resolution_ns: resolution(&SystemClock::new(), RESOLUTION_READS).map(|d| d.as_nanos() as f64),
        client_versions,
        placement: None,
        // Date.now(): the wall clock, which orders runs (the monotonic clock times them).
        started_unix_ms: Some(js_sys::Date::now() as u64),
        // The page cannot know it: `run --browser` records it where the user agent does not carry it.
        browser_version: None,
        kernel: None,
    }
}

/// How this page is cross-origin isolated: by the headers it was served with, by its service worker
/// (`web/sw.js`, which adds them on hosts that cannot), or not at all.
pub fn isolation() -> &'static str {
    let global = js_sys::global();
    let get = |o: &JsValue, k: &str| Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED);
    if get(&global, "crossOriginIsolated").as_bool() != Some(true) {
        return "not isolated";
    }
    let controller = get(&get(&get(&global, "navigator"), "serviceWorker"), "controller");
    if controller.is_object() {
        "by the page's service worker"
    } else {
        "by the server's headers"
    }
}

/// Let the browser run its event loop (repaint, handle a click on Cancel) before going on.
pub async fn yield_now() {
    let promise = Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback(&resolve);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Offer `text` as a file download named `file_name`.
pub fn download(file_name: &str, text: &str) -> Result<(), String> {
    let fail = |e: JsValue| format!("cannot offer {file_name} for download: {e:?}");
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/json");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document.create_element("a").map_err(fail)?.unchecked_into();
    a.set_href(&url);
    a.set_download(file_name);
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Put `text` on the clipboard; whether the browser took it (it refuses on plain http, where
/// `navigator.clipboard` is undefined, and without the user's gesture).
pub async fn copy_to_clipboard(text: &str) -> bool {
    let Some(navigator) = web_sys::window().map(|w| w.navigator()) else { return false };
    // Looked up rather than called: `navigator.clipboard` is undefined on plain http, and a method call on
    // undefined would throw through the wasm.
    let clipboard = Reflect::get(&navigator, &JsValue::from_str("clipboard")).unwrap_or(JsValue::UNDEFINED);
    if !clipboard.is_object() {
        return false;
    }
    // Awaited so that a refusal is handled here, not reported as an unhandled rejection.
    JsFuture::from(clipboard.unchecked_into::<web_sys::Clipboard>().write_text(text)).await.is_ok()
}

/// The text of a file the user picked.
pub async fn read_file(file: &web_sys::File) -> Result<String, String> {
    let text = JsFuture::from(file.text()).await.map_err(|e| format!("cannot read {}: {e:?}", file.name()))?;
    text.as_string().ok_or_else(|| format!("{} is not text", file.name()))
}
