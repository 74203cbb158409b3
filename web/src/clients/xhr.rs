//! The `xhr` client: XMLHttpRequest through web-sys, `responseType = "arraybuffer"`, with the request's own
//! timeout. Its events are turned into a promise: `load` resolves it, `error`, `timeout` and `abort` reject it
//! with the event, whose type says which.

use httpbench_shared::ErrorKind;
use js_sys::{ArrayBuffer, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{XmlHttpRequest, XmlHttpRequestResponseType};

use super::Answer;

/// One GET of `url`.
pub(super) async fn get(url: &str, timeout_ms: u32) -> Answer {
    let xhr = match XmlHttpRequest::new() {
        Ok(x) => x,
        Err(_) => return Answer::failed(ErrorKind::Other, None, "cannot make an XMLHttpRequest".into()),
    };
    if xhr.open_with_async("GET", url, true).is_err() {
        // `open` throws only for a URL the browser cannot parse.
        return Answer::failed(ErrorKind::Other, None, format!("XMLHttpRequest cannot open {url}"));
    }
    xhr.set_response_type(XmlHttpRequestResponseType::Arraybuffer);
    xhr.set_timeout(timeout_ms);
    let done = Promise::new(&mut |resolve, reject| {
        xhr.set_onload(Some(&resolve));
        xhr.set_onerror(Some(&reject));
        xhr.set_ontimeout(Some(&reject));
        xhr.set_onabort(Some(&reject));
    });
    if xhr.send().is_err() {
        return Answer::failed(ErrorKind::Connect, None, "XMLHttpRequest send() failed".into());
    }
    match JsFuture::from(done).await {
        Ok(_) => {
            let status = xhr.status().unwrap_or(0);
            let bytes =
                xhr.response().ok().and_then(|r| r.dyn_into::<ArrayBuffer>().ok()).map_or(0, |b| b.byte_length());
            Answer::response(status, bytes.into())
        }
        Err(event) => {
            let event = Reflect::get(&event, &JsValue::from_str("type")).ok().and_then(|t| t.as_string());
            let event = event.unwrap_or_else(|| "error".into());
            let kind = if event == "timeout" { ErrorKind::Timeout } else { ErrorKind::Connect };
            Answer::failed(kind, None, format!("XMLHttpRequest {event} event"))
        }
    }
}
