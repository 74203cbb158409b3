//! The clients under test: one module per client, all behind one [`Driver`] trait, so the runner times every
//! client the same way. Fairness rules shared by all: no proxy, no redirects followed (a 3xx counts as a
//! `status` failure), no compression, TCP_NODELAY on, every body read to the end and its length checked.

mod classify;
pub mod curl;
mod raw;
pub mod reqwest_async;
pub mod reqwest_blocking;
mod tls;
pub mod ureq;

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use httpbench_shared::{Mode, Outcome};
use url::Url;

/// One client, ready to make sequential requests in one mode.
pub trait Driver {
    /// Make one GET of the target, read the whole body, and say what happened. Never panics on bad peers.
    fn request(&mut self) -> Outcome;
}

/// Stands in for a client that could not be set up: every request fails at once as `other`, so the case
/// still appears in the report with its failure.
pub struct Broken;

impl Driver for Broken {
    fn request(&mut self) -> Outcome {
        Outcome::failed(httpbench_shared::ErrorKind::Other, None)
    }
}

/// What every driver needs to know.
#[derive(Debug, Clone)]
pub struct DriverConfig {
    /// The URL to GET.
    pub url: Url,
    /// Connection mode.
    pub mode: Mode,
    /// Give up on one request after this long.
    pub timeout: Duration,
}

/// The native clients httpbench can measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClientKind {
    /// libcurl through the `curl` crate.
    Curl,
    /// `ureq` 3 (blocking, pure Rust).
    Ureq,
    /// `reqwest::blocking` (hyper on a background tokio runtime).
    Reqwest,
    /// `reqwest` async on a current-thread tokio runtime.
    ReqwestAsync,
    /// std `TcpStream` with a fixed request: the floor.
    Raw,
}

impl ClientKind {
    /// Every client, in the order they are listed.
    pub const ALL: [ClientKind; 5] =
        [ClientKind::Curl, ClientKind::Ureq, ClientKind::Reqwest, ClientKind::ReqwestAsync, ClientKind::Raw];

    /// The default selection: the three clients of the mission statement.
    pub const DEFAULT: [ClientKind; 3] = [ClientKind::Curl, ClientKind::Ureq, ClientKind::Reqwest];

    /// Name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            ClientKind::Curl => "curl",
            ClientKind::Ureq => "ureq",
            ClientKind::Reqwest => "reqwest",
            ClientKind::ReqwestAsync => "reqwest-async",
            ClientKind::Raw => "raw",
        }
    }

    /// Every client's name, for help and error messages.
    pub fn names() -> String {
        Self::ALL.iter().map(|c| c.name()).collect::<Vec<_>>().join(", ")
    }

    /// Whether the client can fetch this URL's scheme.
    pub fn supports_scheme(self, scheme: &str) -> bool {
        match self {
            ClientKind::Raw => scheme == "http",
            _ => scheme == "http" || scheme == "https",
        }
    }

    /// The library version recorded in the report.
    pub fn version(self) -> String {
        match self {
            ClientKind::Curl => curl::version(),
            ClientKind::Ureq => format!("ureq {}", env!("HTTPBENCH_VERSION_UREQ")),
            ClientKind::Reqwest | ClientKind::ReqwestAsync => {
                format!("reqwest {} (hyper {})", env!("HTTPBENCH_VERSION_REQWEST"), env!("HTTPBENCH_VERSION_HYPER"))
            }
            ClientKind::Raw => format!("std::net::TcpStream (rustc {})", env!("HTTPBENCH_RUSTC_VERSION")),
        }
    }

    /// A driver for this client; fails only when the client cannot be set up at all.
    pub fn driver(self, config: &DriverConfig) -> anyhow::Result<Box<dyn Driver>> {
        Ok(match self {
            ClientKind::Curl => Box::new(curl::CurlDriver::new(config)),
            ClientKind::Ureq => Box::new(ureq::UreqDriver::new(config)),
            ClientKind::Reqwest => Box::new(reqwest_blocking::ReqwestDriver::new(config)),
            ClientKind::ReqwestAsync => Box::new(reqwest_async::ReqwestAsyncDriver::new(config)?),
            ClientKind::Raw => Box::new(raw::RawDriver::new(config)),
        })
    }
}

impl fmt::Display for ClientKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ClientKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ClientKind::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| format!("unknown client '{s}': expected one of {}", ClientKind::names()))
    }
}

/// Install the process-wide rustls crypto provider (ring) once, before any TLS client is built: with two
/// TLS users in one binary rustls cannot pick a provider by itself.
pub fn init_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
