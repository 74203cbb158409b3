//! The `fetch` client: the page's `fetch` with `cache: "no-store"` and a timeout signal, the body read to the
//! end with `arrayBuffer()` (it stays in JavaScript memory; only its length crosses to wasm). The URL is a
//! JavaScript string made once per case: web-sys's `Window::fetch_with_str_and_init` would decode the Rust
//! string into a new JavaScript string on every request, work `js-fetch` does not do.

use js_sys::{JsString, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, RequestCache, RequestInit, Response};

use super::{js_failure, Answer, Phase};

#[wasm_bindgen]
extern "C" {
    /// The global `fetch(input, init)` (the window's, in a page).
    #[wasm_bindgen(catch, js_name = fetch)]
    fn global_fetch(input: &JsString, init: &RequestInit) -> Result<Promise, JsValue>;
}

/// One GET of `url`, bounded by `timeout_ms`.
pub(super) async fn get(url: &JsString, timeout_ms: u32) -> Answer {
    let init = RequestInit::new();
    init.set_cache(RequestCache::NoStore);
    init.set_signal(Some(&AbortSignal::timeout_with_u32(timeout_ms)));
    let sent = match global_fetch(url, &init) {
        Ok(promise) => JsFuture::from(promise).await,
        Err(e) => Err(e),
    };
    let response: Response = match sent {
        Ok(r) => r.unchecked_into(),
        Err(e) => return js_failure(&e, Phase::Head, None),
    };
    let status = response.status();
    let body = match response.array_buffer() {
        Ok(promise) => JsFuture::from(promise).await,
        Err(e) => Err(e),
    };
    match body {
        Ok(buffer) => Answer::response(status, buffer.unchecked_into::<js_sys::ArrayBuffer>().byte_length().into()),
        Err(e) => js_failure(&e, Phase::Body, Some(status)),
    }
}
