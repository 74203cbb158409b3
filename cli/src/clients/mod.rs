//! The clients under test: one module per client, all behind one [`Driver`] trait, so the runner times every
//! client the same way. Fairness rules shared by all: no proxy, no redirects followed (a 3xx counts as a
//! `status` failure), no compression, TCP_NODELAY on, every body read to the end and its length checked.
//! [`Client`] is any client a run can name: an in-process library ([`ClientKind`]) or a command client.

mod classify;
pub mod command;
mod contained;
pub mod curl;
mod curl_multi;
mod deadline;
pub mod pool;
mod quic_errors;
mod raw;
mod raw_h3;
mod raw_pool;
pub mod reqwest_async;
pub mod reqwest_blocking;
pub mod tls;
pub mod ureq;

use std::fmt;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use httpbench_shared::protocol::native_clients;
use httpbench_shared::{CpuTime, Mode, Outcome};
use url::Url;

use crate::progress::Printer;

/// One client, ready to make sequential requests in one mode.
pub trait Driver {
    /// Make one GET of the target, read the whole body, and say what happened. Never panics on bad peers.
    fn request(&mut self) -> Outcome;

    /// A client in another process, which makes and times its requests itself a batch at a time: the runner
    /// then hands it whole batches and meters that process's CPU. `None` (the default): an in-process
    /// client, timed by the runner one [`Driver::request`] at a time.
    fn batched(&mut self) -> Option<&mut dyn Batched> {
        None
    }

    /// A client that keeps several requests in flight: the runner then hands it whole rounds
    /// ([`pool::Pool::run`]) and records its samples. `None` (the default): one request at a time.
    fn pool(&mut self) -> Option<&mut dyn pool::Pool> {
        None
    }

    /// Why the last failed [`Driver::request`] failed, in one line, where the client said (the runner asks
    /// for the first failure of each kind only).
    fn failure_reason(&mut self) -> Option<String> {
        None
    }

    /// How the last ok [`Driver::request`]'s time was spent (connect, TLS handshake, first byte), where the
    /// client keeps timers (libcurl) or its own clock (raw). Read after the request's latency was taken.
    fn phases(&mut self) -> Option<httpbench_shared::PhaseTimes> {
        None
    }
}

/// Why a batch ended early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchError {
    /// One line naming the client and what went wrong.
    pub reason: String,
    /// How long the batch waited after the client's last good answer (a hang's wait): left out of the
    /// round's wall time, which is the time of requests.
    pub idle: Duration,
}

/// A client that times its own requests, in batches (a command client).
pub trait Batched {
    /// Make `n` sequential requests and hand each outcome, with the latency the client measured and the
    /// reason of a failure where the client gave one, to `record` in order. `Err` says why the batch ended early: the client broke, or `stop` was set. The client is
    /// unusable after it; what it answered before was recorded.
    fn batch(
        &mut self,
        n: u64,
        stop: &AtomicBool,
        record: &mut dyn FnMut(&Outcome, Duration, Option<&str>),
    ) -> Result<(), BatchError>;

    /// CPU time the client's processes used so far, where the OS says.
    fn cpu(&self) -> Option<CpuTime>;

    /// The library and version the client reported, if it did.
    fn version(&self) -> Option<String>;
}

/// Stands in for a client that could not be set up: every request fails at once as `other`, so the case
/// still appears in the report with its failure.
pub struct Broken;

impl Driver for Broken {
    fn request(&mut self) -> Outcome {
        Outcome::failed(httpbench_shared::ErrorKind::Other, None)
    }
}

/// Stands in for a case its client cannot run in this build ([`Client::cannot_speak`]): it makes no request,
/// so the session leaves the case out of the report, whose `skipped` says why.
pub struct Unable;

impl pool::Pool for Unable {
    fn run(&mut self, _: httpbench_shared::session::RoundBudget, _: &AtomicBool, _: &mut dyn FnMut(pool::Sample)) {}

    fn in_flight(&self) -> usize {
        1
    }
}

/// A [`pool::Pool`] as a driver: the runner finds it by [`Driver::pool`]; a lone [`Driver::request`] is a
/// round of one request.
pub struct Pooled<P: pool::Pool>(pub P);

impl<P: pool::Pool> Driver for Pooled<P> {
    fn request(&mut self) -> Outcome {
        let mut last = Outcome::failed(httpbench_shared::ErrorKind::Other, None);
        self.0.run(httpbench_shared::session::RoundBudget::Requests(1), &AtomicBool::new(false), &mut |s| {
            last = s.outcome;
        });
        last
    }

    fn pool(&mut self) -> Option<&mut dyn pool::Pool> {
        Some(&mut self.0)
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
    /// `--cacert`: the CAs a TLS client trusts instead of its built-in roots.
    pub cacert: Option<std::sync::Arc<tls::CaFile>>,
    /// The HTTP version to ask for (HTTP/2 by ALPN, over TLS).
    pub http: httpbench_shared::model::HttpVersion,
}

/// The native clients httpbench can drive; names, descriptions and the default selection come from the
/// shared catalog (`httpbench_shared::protocol::CLIENTS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClientKind {
    /// libcurl through the `curl` crate.
    Curl,
    /// libcurl's multi interface: one thread, an easy handle per request in flight.
    CurlMulti,
    /// `ureq` 3 (blocking, pure Rust).
    Ureq,
    /// `reqwest::blocking` (hyper on a background tokio runtime).
    Reqwest,
    /// `reqwest` async on a current-thread tokio runtime.
    ReqwestAsync,
    /// std `TcpStream` (and rustls on it for https) with a fixed request: the floor.
    Raw,
}

impl ClientKind {
    /// Every client, in catalog order.
    pub const ALL: [ClientKind; 6] = [
        ClientKind::Curl,
        ClientKind::CurlMulti,
        ClientKind::Ureq,
        ClientKind::Reqwest,
        ClientKind::ReqwestAsync,
        ClientKind::Raw,
    ];

    /// Name on the command line and in reports: the catalog's.
    pub fn name(self) -> &'static str {
        match self {
            ClientKind::Curl => "curl",
            ClientKind::CurlMulti => "curl-multi",
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

    /// The library version recorded in the report.
    pub fn version(self) -> String {
        match self {
            ClientKind::Curl | ClientKind::CurlMulti => curl::version(),
            ClientKind::Ureq => format!("ureq {}", env!("HTTPBENCH_VERSION_UREQ")),
            ClientKind::Reqwest | ClientKind::ReqwestAsync => {
                format!("reqwest {} (hyper {})", env!("HTTPBENCH_VERSION_REQWEST"), env!("HTTPBENCH_VERSION_HYPER"))
            }
            ClientKind::Raw => format!(
                "std::net::TcpStream (rustc {}), rustls {} over TLS, quinn {} + h3 {} over HTTP/3",
                env!("HTTPBENCH_RUSTC_VERSION"),
                env!("HTTPBENCH_VERSION_RUSTLS"),
                env!("HTTPBENCH_VERSION_QUINN"),
                env!("HTTPBENCH_VERSION_H3")
            ),
        }
    }

    /// Why this build's copy of the client cannot make requests over `http`, if it cannot: asked of the
    /// library at run time (the catalog says what the client speaks; a libcurl may be built without HTTP/2).
    pub fn cannot_speak(self, http: httpbench_shared::model::HttpVersion) -> Option<String> {
        match self {
            ClientKind::Curl | ClientKind::CurlMulti => curl::cannot_speak(http),
            _ => None,
        }
    }

    /// A driver for this client keeping `in_flight` requests in flight (1: sequential); fails only when the
    /// client cannot be set up at all. Blocking clients get a thread and a driver each; reqwest-async tasks on
    /// one runtime; curl-multi is one multi handle at any level; raw over plaintext one epoll loop, over
    /// HTTP/3 tasks on one runtime (quinn and h3).
    pub fn driver(self, config: &DriverConfig, in_flight: usize) -> anyhow::Result<Box<dyn Driver>> {
        Ok(match (self, in_flight) {
            (ClientKind::Raw, n) if config.http == httpbench_shared::model::HttpVersion::Http3 => {
                Box::new(Pooled(raw_h3::RawH3::new(config, n)?))
            }
            (ClientKind::CurlMulti, n) => Box::new(Pooled(curl_multi::CurlMulti::new(config, n))),
            (_, 0 | 1) => self.one(config)?,
            (ClientKind::ReqwestAsync, n) => Box::new(Pooled(reqwest_async::AsyncPool::new(config, n)?)),
            (ClientKind::Raw, n) if config.url.scheme() == "http" => {
                Box::new(Pooled(raw_pool::RawPool::new(config, n)?))
            }
            (_, n) => {
                let drivers = (0..n).map(|_| self.one(config)).collect::<anyhow::Result<Vec<_>>>()?;
                Box::new(Pooled(pool::Threads::new(drivers)))
            }
        })
    }

    /// A driver making one request at a time, to be moved to a pool's thread; a panic in its library is one
    /// failed request ([`contained`]).
    fn one(self, config: &DriverConfig) -> anyhow::Result<Box<dyn Driver + Send>> {
        let driver: Box<dyn Driver + Send> = match self {
            ClientKind::Curl | ClientKind::CurlMulti => Box::new(curl::CurlDriver::new(config)),
            ClientKind::Ureq => Box::new(ureq::UreqDriver::new(config)),
            ClientKind::Reqwest => Box::new(reqwest_blocking::ReqwestDriver::new(config)),
            ClientKind::ReqwestAsync => Box::new(reqwest_async::ReqwestAsyncDriver::new(config)?),
            ClientKind::Raw => Box::new(raw::RawDriver::new(config)),
        };
        Ok(Box::new(contained::Contained::new(driver)))
    }
}

impl fmt::Display for ClientKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A client a run can name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Client {
    /// A library in this process.
    Lib(ClientKind),
    /// Another process speaking the command-client protocol.
    Command(command::Spec),
}

impl Client {
    /// Its name in `--clients` and in reports.
    pub fn name(&self) -> &str {
        match self {
            Client::Lib(k) => k.name(),
            Client::Command(s) => &s.name,
        }
    }

    /// The library version, where it is known before the run (a command client reports its own).
    pub fn version(&self) -> Option<String> {
        match self {
            Client::Lib(k) => Some(k.version()),
            Client::Command(_) => None,
        }
    }

    /// The HTTP versions a command client speaks beyond HTTP/1.1 alone, for the session's matrix (the
    /// catalog knows the in-process clients').
    pub fn declared_versions(&self) -> Option<&'static [httpbench_shared::model::HttpVersion]> {
        match self {
            Client::Command(command::Spec { program: command::Program::Builtin(b), .. }) => b.versions,
            _ => None,
        }
    }

    /// Why this client cannot make requests over `http` in this build, if it cannot ([`ClientKind::cannot_speak`]).
    pub fn cannot_speak(&self, http: httpbench_shared::model::HttpVersion) -> Option<String> {
        match self {
            Client::Lib(k) => k.cannot_speak(http),
            Client::Command(_) => None,
        }
    }

    /// A driver for one case, keeping `in_flight` requests in flight (a command client makes one at a time:
    /// the session leaves it out of other levels). A library that cannot be set up, or an adapter that does
    /// not start, still gives a driver: its failure becomes the case's. Starting an adapter waits for it
    /// (bounded, and `stop` ends the wait).
    pub fn driver(
        &self,
        config: &DriverConfig,
        in_flight: usize,
        stop: &AtomicBool,
        printer: &Printer,
    ) -> Box<dyn Driver> {
        match self {
            Client::Lib(k) => k.driver(config, in_flight).unwrap_or_else(|e| {
                eprintln!("httpbench: {k}/{}: cannot set up the client: {e:#}", config.mode);
                Box::new(Broken)
            }),
            Client::Command(spec) => Box::new(command::CommandDriver::start(spec, config, stop, printer)),
        }
    }
}

impl fmt::Display for Client {
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
