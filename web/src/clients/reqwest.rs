//! The `reqwest` client compiled to wasm32: reqwest's fetch backend with `cache: "no-store"` and its own
//! timeout, the body read with `bytes()` (copied into wasm memory).

use std::time::Duration;

use httpbench_shared::ErrorKind;

use super::Answer;

/// One GET of `url` with `client`.
pub(super) async fn get(client: &reqwest::Client, url: &str, timeout_ms: u32) -> Answer {
    let request = client.get(url).fetch_cache_no_store().timeout(Duration::from_millis(timeout_ms.into()));
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) if e.is_timeout() => return Answer::failed(ErrorKind::Timeout, None, e.to_string()),
        Err(e) if e.is_builder() => return Answer::failed(ErrorKind::Other, None, e.to_string()),
        Err(e) => return Answer::failed(ErrorKind::Connect, None, e.to_string()),
    };
    let status = response.status().as_u16();
    match response.bytes().await {
        Ok(body) => Answer::response(status, body.len() as u64),
        Err(e) if e.is_timeout() => Answer::failed(ErrorKind::Timeout, Some(status), e.to_string()),
        Err(e) => Answer::failed(ErrorKind::Truncated, Some(status), e.to_string()),
    }
}
