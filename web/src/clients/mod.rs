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

use httpbench_shared::protocol;
use httpbench_shared::{EnvironmentKind, ErrorKind, Mode, Outcome};
use wasm_bindgen::JsValue;

/// Per-request timeout of every browser client, in milliseconds.
pub const TIMEOUT_MS: u32 = 10_000;

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
    /// The same URL as a JavaScript string, made once (the `fetch` client hands it over as is).
    url_js: js_sys::JsString,
    #[cfg(feature = "reqwest")]
    reqwest: Option<::reqwest::Client>,
}

impl Driver {
    /// A driver of `client` for `url` (already carrying `close=1` in fresh mode).
    pub fn new(client: Client, url: String, mode: Mode) -> Self {
        #[cfg(not(feature = "reqwest"))]
        let _ = mode;
        Driver {
            client,
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

    /// Make one GET, read the whole body, and say what happened. `js-fetch` runs by rounds, not here.
    pub async fn request(&self) -> Outcome {
        match self.client {
            Client::Fetch => fetch::get(&self.url_js).await,
            Client::Gloo => gloo::get(&self.url).await,
            Client::Xhr => xhr::get(&self.url).await,
            #[cfg(feature = "reqwest")]
            Client::Reqwest => match &self.reqwest {
                Some(c) => reqwest::get(c, &self.url).await,
                None => reqwest::get(&::reqwest::Client::new(), &self.url).await,
            },
            Client::JsFetch => js_fetch::single(&self.url).await,
        }
    }
}

/// Where in a request an error happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before a response head arrived.
    Head,
    /// While reading the body.
    Body,
}

/// The kind of a JavaScript error (`TimeoutError`/`AbortError` from the timeout signal, else by phase).
pub fn js_error_kind(error: &JsValue, phase: Phase) -> ErrorKind {
    let name = js_sys::Reflect::get(error, &JsValue::from_str("name")).ok().and_then(|n| n.as_string());
    kind_by_name(name.as_deref(), phase)
}

fn kind_by_name(name: Option<&str>, phase: Phase) -> ErrorKind {
    match (name, phase) {
        (Some("TimeoutError" | "AbortError"), _) => ErrorKind::Timeout,
        (_, Phase::Head) => ErrorKind::Connect,
        (_, Phase::Body) => ErrorKind::Truncated,
    }
}
