//! The clients under test: one module per client, all behind one [`Driver`] trait, so the runner times every
//! client the same way. Fairness rules shared by all: no proxy, no redirects followed (a 3xx counts as a
//! `status` failure), no compression, TCP_NODELAY on, every body read to the end and its length checked.
//! [`LIBRARIES`] is the one list of the in-process client modules, each matched to its row of the shared client
//! table; [`Client`] is any client a run can name: such a library or a command client.

mod classify;
mod client;
pub mod command;
mod contained;
pub mod curl;
mod curl_multi;
mod deadline;
mod hyper;
pub mod library;
pub mod pool;
mod quic_errors;
mod raw;
pub mod reqwest_async;
pub mod reqwest_blocking;
pub mod tls;
pub mod ureq;

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use httpbench_shared::{CpuTime, Mode, Outcome};
use url::Url;

pub use client::Client;
pub use library::Library;

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
    pub cacert: Option<std::sync::Arc<crate::tls::CaFile>>,
    /// The HTTP version to ask for (HTTP/2 by ALPN, over TLS).
    pub http: httpbench_shared::model::HttpVersion,
}

/// The in-process client libraries, one module each, in the client table's order: each the driver of the
/// table's `Made::Library` row of its name (a test holds the two together).
pub static LIBRARIES: &[&dyn Library] =
    &[&curl::Lib, &curl_multi::Lib, &ureq::Lib, &reqwest_blocking::Lib, &reqwest_async::Lib, &hyper::Lib, &raw::Lib];

/// The library module of the client named `name`.
pub fn library(name: &str) -> Option<&'static dyn Library> {
    LIBRARIES.iter().copied().find(|l| l.name() == name)
}

/// Install the process-wide rustls crypto provider (ring) once, before any TLS client is built: with two
/// TLS users in one binary rustls cannot pick a provider by itself.
pub fn init_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

#[cfg(test)]
mod tests {
    use httpbench_shared::protocol::libraries;

    use super::*;

    /// The modules drive exactly the table's libraries, in its order, and each reports a version.
    #[test]
    fn every_library_row_has_its_module_and_nothing_else_does() {
        let rows: Vec<&str> = libraries().map(|c| c.name).collect();
        let modules: Vec<&str> = LIBRARIES.iter().map(|l| l.name()).collect();
        assert_eq!(modules, rows);
        for info in libraries() {
            let version = library(info.name).map(|l| l.version(info)).unwrap_or_default();
            assert!(!version.is_empty() && !version.contains("unknown"), "{}: {version}", info.name);
        }
    }
}
