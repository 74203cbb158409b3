//! The `js-fetch` client: a round of sequential fetches run entirely in JavaScript (`js_fetch.js`), which
//! hands back each request's duration, status and body length. It is the floor: what the browser's HTTP stack
//! costs with no WebAssembly in the loop. A cancel reaches the loop through the `stop` property of a control
//! object it reads between requests.

use std::time::Duration;

use httpbench_shared::{ErrorKind, Outcome};
use js_sys::{Float64Array, Int32Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::Answer;

#[wasm_bindgen(module = "/src/clients/js_fetch.js")]
extern "C" {
    #[wasm_bindgen(js_name = jsFetchRound)]
    fn js_fetch_round(
        url: &str,
        n: u32,
        timeout_ms: u32,
        control: &Object,
        max_ms: f64,
        in_flight: u32,
    ) -> js_sys::Promise;

    #[wasm_bindgen(js_name = textOf)]
    fn text_of(url: &str, timeout_ms: u32) -> js_sys::Promise;
}

/// A control object whose `stop` property the JavaScript loop checks between requests.
pub fn control() -> Object {
    let o = Object::new();
    set_stop(&o, false);
    o
}

/// Ask the JavaScript loop reading `control` to stop after its current request.
pub fn set_stop(control: &Object, stop: bool) {
    // Setting a property of a plain object cannot fail.
    let _ = Reflect::set(control, &JsValue::from_str("stop"), &JsValue::from_bool(stop));
}

/// What a stretch of the JavaScript loop made: one (outcome, duration) per request, and the first reason of
/// each kind of failure.
#[derive(Debug, Default)]
pub struct Stretch {
    /// The requests, in the order they were taken.
    pub requests: Vec<(Outcome, Duration)>,
    /// What the browser said of the first failure of each kind.
    pub reasons: Vec<(ErrorKind, String)>,
}

/// Run `n` requests of `url` in JavaScript, each bounded by `timeout_ms`, or fewer: the loop hands back after
/// the request that ends `max` of wall time (none: no limit), or when asked to stop. It makes at least one
/// request unless `n` is 0 or it was asked to stop, even when `max` is zero; `in_flight` requests at a time.
pub async fn round(
    url: &str,
    (n, timeout_ms): (u32, u32),
    control: &Object,
    max: Option<Duration>,
    in_flight: u32,
) -> Stretch {
    let max_ms = max.map_or(f64::INFINITY, |d| d.as_secs_f64() * 1000.0);
    let Ok(value) = JsFuture::from(js_fetch_round(url, n, timeout_ms, control, max_ms, in_flight)).await else {
        return Stretch::default();
    };
    let field = |name: &str| Reflect::get(&value, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
    let done = field("done").as_f64().unwrap_or(0.0) as usize;
    let durations = Float64Array::from(field("durations")).to_vec();
    let statuses = Int32Array::from(field("statuses")).to_vec();
    let bytes = Float64Array::from(field("bytes")).to_vec();
    let requests =
        (0..done.min(durations.len())).map(|i| (outcome(statuses[i], bytes[i] as u64), ms(durations[i]))).collect();
    let reasons_of = field("reasons");
    let reasons = [-1, -2, -3]
        .into_iter()
        .filter_map(|status| {
            let text = Reflect::get(&reasons_of, &JsValue::from_f64(status.into())).ok()?.as_string()?;
            Some((outcome(status, 0).error?, text))
        })
        .collect();
    Stretch { requests, reasons }
}

/// One request through the JavaScript loop (used for nothing timed: the runner measures js-fetch by rounds).
pub async fn single(url: &str, timeout_ms: u32) -> Answer {
    let stretch = round(url, (1, timeout_ms), &control(), None, 1).await;
    match stretch.requests.first() {
        Some((outcome, _)) => Answer { outcome: *outcome, reason: stretch.reasons.first().map(|(_, r)| r.clone()) },
        None => Answer::failed(ErrorKind::Other, None, "the JavaScript loop made no request".into()),
    }
}

/// The body of a GET of `url` as text; empty when there was no 2xx answer within `timeout_ms`.
pub async fn text(url: &str, timeout_ms: u32) -> String {
    JsFuture::from(text_of(url, timeout_ms)).await.ok().and_then(|v| v.as_string()).unwrap_or_default()
}

fn outcome(status: i32, bytes: u64) -> Outcome {
    match status {
        -2 => Outcome::failed(ErrorKind::Timeout, None),
        -3 => Outcome::failed(ErrorKind::Truncated, None),
        s => match u16::try_from(s) {
            Ok(code) if code > 0 => Outcome::response(code, bytes),
            _ => Outcome::failed(ErrorKind::Connect, None),
        },
    }
}

fn ms(v: f64) -> Duration {
    Duration::from_secs_f64(v.max(0.0) / 1000.0)
}
