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
use std::time::Duration;

use httpbench_shared::protocol::native_clients;
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

/// The native clients httpbench can drive; names, descriptions and the default selection come from the
/// shared catalog (`httpbench_shared::protocol::CLIENTS`).
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
    /// Every client, in catalog order.
    pub const ALL: [ClientKind; 5] =
        [ClientKind::Curl, ClientKind::Ureq, ClientKind::Reqwest, ClientKind::ReqwestAsync, ClientKind::Raw];

    /// Name on the command line and in reports: the catalog's.
    pub fn name(self) -> &'static str {
        match self {
            ClientKind::Curl => "curl",
            ClientKind::Ureq => "ureq",
            ClientKind::Reqwest => "reqwest",
            ClientKind::ReqwestAsync => "reqwest-async",
            ClientKind::Raw => "raw",
        }
    }

    /// The client of a catalog name.
    pub fn from_name(name: &str) -> Option<ClientKind> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The catalog's default selection.
    pub fn defaults() -> Vec<ClientKind> {
        native_clients().filter(|c| c.default).filter_map(|c| Self::from_name(c.name)).collect()
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

/// Install the process-wide rustls crypto provider (ring) once, before any TLS client is built: with two
/// TLS users in one binary rustls cannot pick a provider by itself.
pub fn init_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The drivers cover exactly the catalog's native clients, in its order.
    #[test]
    fn every_catalog_client_has_a_driver() {
        let catalog: Vec<&str> = native_clients().map(|c| c.name).collect();
        let drivers: Vec<&str> = ClientKind::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(drivers, catalog);
    }
}
