//! `reqwest::blocking`: a new `Client` per request in fresh mode (each brings its own runtime thread, which is
//! what a fresh blocking client costs), one client with its pool in reuse mode.

use std::io::{self, Read};
use std::time::Instant;

use httpbench_shared::model::HttpVersion;
use httpbench_shared::{ErrorKind, Mode, Outcome};
use reqwest::blocking::Client;

use super::classify::chain_kind;
use super::library::{blocking, Library};
use super::tls;
use super::{Driver, DriverConfig, Pool};

/// reqwest's blocking client, one per driver: the `reqwest` row of the client table.
pub struct Lib;

impl Library for Lib {
    fn name(&self) -> &'static str {
        "reqwest"
    }

    fn driver(&self, config: &DriverConfig, in_flight: usize) -> anyhow::Result<Box<dyn Pool>> {
        blocking(in_flight, || Ok(ReqwestDriver::new(config)))
    }
}

/// The blocking reqwest client.
pub struct ReqwestDriver {
    config: DriverConfig,
    client: Option<Client>,
    last_error: Option<String>,
}

impl ReqwestDriver {
    /// A driver.
    pub fn new(config: &DriverConfig) -> Self {
        ReqwestDriver { config: config.clone(), client: None, last_error: None }
    }

    fn perform(&mut self) -> Result<Outcome, Failure> {
        // Fresh: a new client for every request; reuse: the one kept.
        let client = match self.client.as_ref() {
            Some(c) if self.config.mode == Mode::Reuse => c,
            _ => self.client.insert(new_client(&self.config)?),
        };
        let deadline = Instant::now() + self.config.timeout;
        let request = client.get(self.config.url.as_str()).version(tls::reqwest_version(self.config.http));
        let mut response = request.send()?;
        let status = response.status().as_u16();
        let http = observed(response.version());
        let declared = unchecked_length(http, response.content_length());
        let bytes = read_to_deadline(&mut response, deadline, declared)?;
        held_to_length(declared, bytes)?;
        Ok(Outcome::response(status, bytes).over(http))
    }
}

/// The Content-Length a response over `http` said, where reqwest does not check the body against it itself:
/// over HTTP/3 (hyper does over HTTP/1.1 and HTTP/2; reqwest's HTTP/3 took a body longer than it as ok).
pub fn unchecked_length(http: Option<HttpVersion>, declared: Option<u64>) -> Option<u64> {
    declared.filter(|_| http == Some(HttpVersion::Http3))
}

/// A body of `got` bytes held to its `declared` length ([`super::classify::body_against_length`]).
pub fn held_to_length(declared: Option<u64>, got: u64) -> Result<(), Failure> {
    match super::classify::body_against_length(declared, got) {
        Some((kind, why)) => Err(Failure::Body(kind, why)),
        None => Ok(()),
    }
}

/// Read the whole body by `deadline`, or until it passes its `declared` length. reqwest's blocking client
/// applies its timeout to each read, so a peer that sends a byte now and then would hold one request forever;
/// the deadline makes `--timeout` cover the whole request, as for every other client. A read in flight may
/// pass it by at most one read timeout.
fn read_to_deadline(
    response: &mut reqwest::blocking::Response,
    deadline: Instant,
    declared: Option<u64>,
) -> Result<u64, Failure> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut bytes = 0u64;
    loop {
        if Instant::now() >= deadline {
            return Err(Failure::Deadline);
        }
        match response.read(&mut buf) {
            Ok(0) => return Ok(bytes),
            Ok(n) if declared.is_some_and(|d| bytes + n as u64 > d) => return Ok(bytes + n as u64),
            Ok(n) => bytes += n as u64,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Failure::Read(e)),
        }
    }
}

/// A client set up as every request of this driver uses it (public for the client set-up benchmark). Each one
/// starts its own runtime thread, which dropping the client joins.
pub fn new_client(config: &DriverConfig) -> Result<Client, Failure> {
    let tls = tls::client_config(config.cacert.as_deref(), config.http).map_err(|_| Failure::Tls)?;
    Ok(tls::configure_reqwest!(Client::builder(), config, tls).build()?)
}

impl Driver for ReqwestDriver {
    fn request(&mut self) -> Outcome {
        self.perform().unwrap_or_else(|e| {
            self.last_error = Some(e.describe());
            e.outcome()
        })
    }

    fn failure_reason(&mut self) -> Option<String> {
        self.last_error.take()
    }
}

/// The HTTP version of a response, as reqwest (hyper) read it.
pub fn observed(version: reqwest::Version) -> Option<HttpVersion> {
    match version {
        reqwest::Version::HTTP_11 => Some(HttpVersion::Http11),
        reqwest::Version::HTTP_2 => Some(HttpVersion::Http2),
        reqwest::Version::HTTP_3 => Some(HttpVersion::Http3),
        _ => None,
    }
}

/// Why a request failed: reqwest's error, or no TLS configuration to give the client.
pub enum Failure {
    /// The shared TLS configuration could not be built.
    Tls,
    /// Anything reqwest reports.
    Reqwest(reqwest::Error),
    /// The whole-request deadline passed while the body was still coming.
    Deadline,
    /// Reading the body failed (reqwest's error inside the I/O error, where it is one).
    Read(io::Error),
    /// The body did not match its Content-Length: its kind and why.
    Body(ErrorKind, String),
}

impl Failure {
    /// What went wrong, in one line.
    pub fn describe(&self) -> String {
        match self {
            Failure::Tls => "the TLS configuration could not be built".into(),
            Failure::Reqwest(e) => super::classify::describe(e),
            Failure::Deadline => "the body was still coming at the request's deadline (--timeout)".into(),
            Failure::Read(e) => super::classify::describe(e),
            Failure::Body(_, why) => why.clone(),
        }
    }

    /// The failed request this counts as.
    pub fn outcome(&self) -> Outcome {
        match self {
            Failure::Tls => Outcome::failed(ErrorKind::Tls, None),
            Failure::Reqwest(e) => Outcome::failed(kind(e), None),
            Failure::Deadline => Outcome::failed(ErrorKind::Timeout, None),
            Failure::Read(e) => match e.get_ref().and_then(|inner| inner.downcast_ref::<reqwest::Error>()) {
                Some(inner) => Outcome::failed(kind(inner), None),
                None => Outcome::failed(super::classify::io_kind(e), None),
            },
            Failure::Body(kind, _) => Outcome::failed(*kind, None),
        }
    }
}

impl From<reqwest::Error> for Failure {
    fn from(e: reqwest::Error) -> Self {
        Failure::Reqwest(e)
    }
}

/// reqwest's own flags first, then the source chain for the finer kinds (DNS, reset, truncated).
pub fn kind(e: &reqwest::Error) -> ErrorKind {
    if e.is_timeout() {
        return ErrorKind::Timeout;
    }
    if e.is_redirect() {
        return ErrorKind::Redirect;
    }
    match chain_kind(e) {
        Some(kind) => kind,
        None if e.is_connect() => ErrorKind::Connect,
        None if e.is_body() || e.is_decode() => ErrorKind::Truncated,
        None => ErrorKind::Other,
    }
}
