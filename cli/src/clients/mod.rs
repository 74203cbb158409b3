//! The clients under test: one module per client, each driven as one [`Pool`] (a blocking [`Driver`] as a pool
//! of one, [`Sequential`]), so the runner drives every client the same way. Fairness rules shared by all: no
//! proxy, no redirects followed (a 3xx counts as a `status` failure), no compression, TCP_NODELAY on, every
//! body read to the end and its length checked.
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
mod sequential;
pub mod tls;
pub mod ureq;

use std::time::Duration;

use httpbench_shared::{Mode, Outcome};
use url::Url;

pub use client::Client;
pub use library::Library;
pub use pool::Pool;
pub use sequential::Sequential;

/// A blocking client, ready to make sequential requests in one mode: the runner drives it as a pool of one
/// ([`Sequential`]), or a thread each for a level ([`pool::Threads`]).
pub trait Driver {
    /// Make one GET of the target, read the whole body, and say what happened. Never panics on bad peers.
    fn request(&mut self) -> Outcome;

    /// Why the last failed [`Driver::request`] failed, in one line, where the client said (asked for the first
    /// failure of each kind only).
    fn failure_reason(&mut self) -> Option<String> {
        None
    }

    /// How the last ok [`Driver::request`]'s time was spent (connect, TLS handshake, first byte), where the
    /// client keeps timers (libcurl) or its own clock (raw). Read after the request's latency was taken.
    fn phases(&mut self) -> Option<httpbench_shared::PhaseTimes> {
        None
    }
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

impl Pool for Unable {
    fn run(&mut self, _: pool::Round<'_>, _: &mut dyn pool::Record) -> pool::RoundEnd {
        pool::RoundEnd::default()
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
