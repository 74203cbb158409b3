//! The `fetch` client: `window.fetch` through web-sys with `cache: "no-store"` and a timeout signal, the body
//! read to the end with `arrayBuffer()` (it stays in JavaScript memory; only its length crosses to wasm).

use httpbench_shared::{ErrorKind, Outcome};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, RequestCache, RequestInit, Response};

use super::{js_error_kind, Phase, TIMEOUT_MS};

/// One GET of `url`.
pub async fn get(url: &str) -> Outcome {
    let Some(window) = web_sys::window() else {
        return Outcome::failed(ErrorKind::Other, None);
    };
    let init = RequestInit::new();
    init.set_cache(RequestCache::NoStore);
    init.set_signal(Some(&AbortSignal::timeout_with_u32(TIMEOUT_MS)));
    let response: Response = match JsFuture::from(window.fetch_with_str_and_init(url, &init)).await {
        Ok(r) => r.unchecked_into(),
        Err(e) => return Outcome::failed(js_error_kind(&e, Phase::Head), None),
    };
    let status = response.status();
    let body = match response.array_buffer() {
        Ok(promise) => JsFuture::from(promise).await,
        Err(e) => Err(e),
    };
    match body {
        Ok(buffer) => Outcome::response(status, buffer.unchecked_into::<js_sys::ArrayBuffer>().byte_length().into()),
        Err(e) => Outcome::failed(js_error_kind(&e, Phase::Body), Some(status)),
    }
}
