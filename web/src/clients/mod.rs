//! The browser clients under test, one module each, behind one async `request`, so the runner times every
//! client the same way. Shared rules: sequential GETs, `cache: no-store`, every body read to the end and its
//! length recorded, a per-request timeout. `js-fetch` is different by design: its whole round runs inside
//! JavaScript (see [`js_fetch`]), the floor the wasm clients are compared with.
//!
//! A browser tells a page little about why a request failed: a refused connection, a DNS failure and a CORS
//! refusal are all the same `TypeError`. Failures before a response head are therefore `connect`, failures
//! while reading the body `truncated`, and a timeout `timeout`.

mod fetch;
mod gloo;
pub mod js_fetch;
#[cfg(feature = "reqwest")]
mod reqwest;
mod xhr;

use std::time::Duration;

use httpbench_shared::protocol;
use httpbench_shared::{EnvironmentKind, ErrorKind, Mode, Outcome};
use wasm_bindgen::JsValue;

/// What one request came to: its outcome and, for a failure, what the browser said of it (one line), which
/// the session keeps as the first reason of its kind.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The outcome, as the session records it.
    pub outcome: Outcome,
    /// The browser's words for a failure (`TypeError: Failed to fetch`).
    pub reason: Option<String>,
}

impl Answer {
    /// A response, ok or not by its status.
    pub fn response(status: u16, body_bytes: u64) -> Self {
        Answer { outcome: Outcome::response(status, body_bytes), reason: None }
    }

    /// A failure of `kind`, after a response head with `status` if one came, and why.
    pub fn failed(kind: ErrorKind, status: Option<u16>, reason: String) -> Self {
        Answer { outcome: Outcome::failed(kind, status), reason: Some(reason) }
    }
}

/// One browser client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// `window.fetch` through web-sys, body read with `arrayBuffer()`.
    Fetch,
    /// `gloo-net`'s fetch wrapper, body read with `binary()` (copied into wasm memory).
    Gloo,
    /// XMLHttpRequest through web-sys, `responseType = "arraybuffer"`.
    Xhr,
    /// reqwest compiled to wasm32 (its fetch backend), body read with `bytes()`.
    #[cfg(feature = "reqwest")]
    Reqwest,
    /// The same sequential fetch loop written in plain JavaScript: the floor.
    JsFetch,
}

impl Client {
    /// The client of a browser name of shared's catalog (`protocol::CLIENTS`), if this build has it. Only
    /// catalog names get this far: a name the catalog does not list is no client, whatever this match says.
    pub fn from_name(name: &str) -> Option<Client> {
        let info = protocol::client(EnvironmentKind::Browser, name)?;
        match info.name {
            "fetch" => Some(Client::Fetch),
            "gloo-net" => Some(Client::Gloo),
            "xhr" => Some(Client::Xhr),
            #[cfg(feature = "reqwest")]
            "reqwest" => Some(Client::Reqwest),
            "js-fetch" => Some(Client::JsFetch),
            _ => None,
        }
    }

    /// What the result file records as this client's version.
    pub fn version(self) -> String {
        match self {
            Client::Fetch => "window.fetch via web-sys ".to_string() + env!("HTTPBENCH_WEB_SYS_VERSION"),
            Client::Gloo => "gloo-net ".to_string() + env!("HTTPBENCH_GLOO_NET_VERSION"),
            Client::Xhr => "XMLHttpRequest via web-sys ".to_string() + env!("HTTPBENCH_WEB_SYS_VERSION"),
            #[cfg(feature = "reqwest")]
            Client::Reqwest => "reqwest ".to_string() + env!("HTTPBENCH_REQWEST_VERSION") + " (wasm32, fetch backend)",
            Client::JsFetch => "plain JavaScript fetch loop".to_string(),
        }
    }
}

/// A client set up for one case: reqwest keeps its `Client` between requests in reuse mode.
pub struct Driver {
    client: Client,
    url: String,
    /// Every request's deadline, in milliseconds (the plan's timeout).
    timeout_ms: u32,
    /// The same URL as a JavaScript string, made once (the `fetch` client hands it over as is).
    url_js: js_sys::JsString,
    #[cfg(feature = "reqwest")]
    reqwest: Option<::reqwest::Client>,
}

impl Driver {
    /// A driver of `client` for `url` (already carrying `close=1` in fresh mode), each request bounded by
    /// `timeout`.
    pub fn new(client: Client, url: String, mode: Mode, timeout: Duration) -> Self {
        #[cfg(not(feature = "reqwest"))]
        let _ = mode;
        Driver {
            client,
            timeout_ms: timeout_ms(timeout),
            url_js: js_sys::JsString::from(url.as_str()),
            url,
            // Reuse: one client for all requests; fresh: a new one per request, as the CLI's fresh mode does.
            #[cfg(feature = "reqwest")]
            reqwest: (client == Client::Reqwest && mode == Mode::Reuse).then(::reqwest::Client::new),
        }
    }

    /// The client this driver runs.
    pub fn client(&self) -> Client {
        self.client
    }

    /// The URL requested.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Every request's deadline, in milliseconds.
    pub fn timeout_ms(&self) -> u32 {
        self.timeout_ms
    }

    /// Make one GET, read the whole body, and say what happened. `js-fetch` runs by rounds, not here.
    pub async fn request(&self) -> Answer {
        let timeout = self.timeout_ms;
        match self.client {
            Client::Fetch => fetch::get(&self.url_js, timeout).await,
            Client::Gloo => gloo::get(&self.url, timeout).await,
            Client::Xhr => xhr::get(&self.url, timeout).await,
            #[cfg(feature = "reqwest")]
            Client::Reqwest => match &self.reqwest {
                Some(c) => reqwest::get(c, &self.url, timeout).await,
                None => reqwest::get(&::reqwest::Client::new(), &self.url, timeout).await,
            },
            Client::JsFetch => js_fetch::single(&self.url, timeout).await,
        }
    }
}

/// A timeout in whole milliseconds, as the browser's timers take it (at most `u32::MAX`, 49 days).
pub fn timeout_ms(timeout: Duration) -> u32 {
    u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX).max(1)
}

/// Where in a request an error happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before a response head arrived.
    Head,
    /// While reading the body.
    Body,
}

/// The failure a JavaScript error tells (`TimeoutError`/`AbortError` from the timeout signal, else by phase),
/// with its name and message as the reason.
pub fn js_failure(error: &JsValue, phase: Phase, status: Option<u16>) -> Answer {
    let field = |k: &str| js_sys::Reflect::get(error, &JsValue::from_str(k)).ok().and_then(|n| n.as_string());
    let name = field("name");
    let reason = format!("{}: {}", name.as_deref().unwrap_or("Error"), field("message").unwrap_or_default());
    Answer::failed(kind_by_name(name.as_deref(), phase), status, reason)
}

/// The kind of a failure by the JavaScript error's name and where in the request it happened.
pub(crate) fn kind_by_name(name: Option<&str>, phase: Phase) -> ErrorKind {
    match (name, phase) {
        (Some("TimeoutError" | "AbortError"), _) => ErrorKind::Timeout,
        (_, Phase::Head) => ErrorKind::Connect,
        (_, Phase::Body) => ErrorKind::Truncated,
    }
}
