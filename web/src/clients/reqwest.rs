//! The `reqwest` client compiled to wasm32: reqwest's fetch backend with `cache: "no-store"` and its own
//! timeout, the body read with `bytes()` (copied into wasm memory).

use std::time::Duration;

use httpbench_shared::{ErrorKind, Outcome};

use super::TIMEOUT_MS;

/// One GET of `url` with `client`.
pub async fn get(client: &reqwest::Client, url: &str) -> Outcome {
    let request = client.get(url).fetch_cache_no_store().timeout(Duration::from_millis(TIMEOUT_MS.into()));
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) if e.is_timeout() => return Outcome::failed(ErrorKind::Timeout, None),
        Err(e) if e.is_builder() => return Outcome::failed(ErrorKind::Other, None),
        Err(_) => return Outcome::failed(ErrorKind::Connect, None),
    };
    let status = response.status().as_u16();
    match response.bytes().await {
        Ok(body) => Outcome::response(status, body.len() as u64),
        Err(e) if e.is_timeout() => Outcome::failed(ErrorKind::Timeout, Some(status)),
        Err(_) => Outcome::failed(ErrorKind::Truncated, Some(status)),
    }
}
