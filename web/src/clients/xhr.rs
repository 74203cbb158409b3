//! The `xhr` client: XMLHttpRequest through web-sys, `responseType = "arraybuffer"`, with the request's own
//! timeout. Its events are turned into a promise: `load` resolves it, `error`, `timeout` and `abort` reject it
//! with the event, whose type says which.

use httpbench_shared::{ErrorKind, Outcome};
use js_sys::{ArrayBuffer, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{XmlHttpRequest, XmlHttpRequestResponseType};

use super::TIMEOUT_MS;

/// One GET of `url`.
pub async fn get(url: &str) -> Outcome {
    let xhr = match XmlHttpRequest::new() {
        Ok(x) => x,
        Err(_) => return Outcome::failed(ErrorKind::Other, None),
    };
    if xhr.open_with_async("GET", url, true).is_err() {
        // `open` throws only for a URL the browser cannot parse.
        return Outcome::failed(ErrorKind::Other, None);
    }
    xhr.set_response_type(XmlHttpRequestResponseType::Arraybuffer);
    xhr.set_timeout(TIMEOUT_MS);
    let done = Promise::new(&mut |resolve, reject| {
        xhr.set_onload(Some(&resolve));
        xhr.set_onerror(Some(&reject));
        xhr.set_ontimeout(Some(&reject));
        xhr.set_onabort(Some(&reject));
    });
    if xhr.send().is_err() {
        return Outcome::failed(ErrorKind::Connect, None);
    }
    match JsFuture::from(done).await {
        Ok(_) => {
            let status = xhr.status().unwrap_or(0);
            let bytes =
                xhr.response().ok().and_then(|r| r.dyn_into::<ArrayBuffer>().ok()).map_or(0, |b| b.byte_length());
            Outcome::response(status, bytes.into())
        }
        Err(event) => {
            let kind = Reflect::get(&event, &JsValue::from_str("type")).ok().and_then(|t| t.as_string());
            Outcome::failed(
                if kind.as_deref() == Some("timeout") { ErrorKind::Timeout } else { ErrorKind::Connect },
                None,
            )
        }
    }
}
