//! The `gloo-net` client: its fetch wrapper with `cache: "no-store"` and a timeout signal, the body read with
//! `binary()`, which copies it into wasm memory as a `Vec<u8>` (part of what this client costs).

use gloo_net::http::Request;
use gloo_net::Error;
use httpbench_shared::ErrorKind;
use web_sys::{AbortSignal, RequestCache};

use super::{Answer, Phase};

/// One GET of `url`.
pub(super) async fn get(url: &str, timeout_ms: u32) -> Answer {
    let signal = AbortSignal::timeout_with_u32(timeout_ms);
    let response = match Request::get(url).cache(RequestCache::NoStore).abort_signal(Some(&signal)).send().await {
        Ok(r) => r,
        Err(e) => return Answer::failed(kind(&e, Phase::Head), None, e.to_string()),
    };
    let status = response.status();
    match response.binary().await {
        Ok(body) => Answer::response(status, body.len() as u64),
        Err(e) => Answer::failed(kind(&e, Phase::Body), Some(status), e.to_string()),
    }
}

fn kind(e: &Error, phase: Phase) -> ErrorKind {
    match e {
        Error::JsError(js) => super::kind_by_name(Some(js.name.as_str()), phase),
        _ => ErrorKind::Other,
    }
}
