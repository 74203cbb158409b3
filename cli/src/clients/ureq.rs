//! `ureq` 3: a new `Agent` per request in fresh mode, one agent with its connection pool in reuse mode.

use std::io;
use std::net::{IpAddr, SocketAddr};

use httpbench_shared::model::HttpVersion;
use httpbench_shared::{ErrorKind, Mode, Outcome};
use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};
use ureq::Agent;

use super::classify::{chain_kind, io_kind};
use super::library::{blocking, Library};
use super::{Driver, DriverConfig, Pool};

/// ureq, a blocking agent per driver: the `ureq` row of the client table.
pub struct Lib;

impl Library for Lib {
    fn name(&self) -> &'static str {
        "ureq"
    }

    fn driver(&self, config: &DriverConfig, in_flight: usize) -> anyhow::Result<Box<dyn Pool>> {
        blocking(in_flight, || Ok(UreqDriver::new(config)))
    }
}

/// The ureq client.
pub struct UreqDriver {
    config: DriverConfig,
    agent: Option<Agent>,
    last_error: Option<String>,
}

impl UreqDriver {
    /// A driver.
    pub fn new(config: &DriverConfig) -> Self {
        UreqDriver { config: config.clone(), agent: None, last_error: None }
    }

    fn perform(&mut self) -> Result<Outcome, ureq::Error> {
        // Fresh: a new agent for every request; reuse: the one kept.
        let agent = match self.agent.as_ref() {
            Some(a) if self.config.mode == Mode::Reuse => a,
            _ => self.agent.insert(new_agent(&self.config)),
        };
        let mut response = agent.get(self.config.url.as_str()).call()?;
        let status = response.status().as_u16();
        let http = (response.version() == ureq::http::Version::HTTP_11).then_some(HttpVersion::Http11);
        let mut reader = response.body_mut().with_config().limit(u64::MAX).reader();
        let bytes = io::copy(&mut reader, &mut io::sink()).map_err(ureq::Error::Io)?;
        Ok(Outcome::response(status, bytes).over(http))
    }
}

impl Driver for UreqDriver {
    fn request(&mut self) -> Outcome {
        self.perform().unwrap_or_else(|e| {
            self.last_error = Some(super::classify::describe(&e));
            Outcome::failed(kind(&e), None)
        })
    }

    fn failure_reason(&mut self) -> Option<String> {
        self.last_error.take()
    }
}

/// An agent set up as every request of this driver uses it (public for the client set-up benchmark).
pub fn new_agent(config: &DriverConfig) -> Agent {
    let mut builder = Agent::config_builder();
    if let Some(ca) = &config.cacert {
        let certs: Vec<_> = ca.certs.iter().map(|c| ureq::tls::Certificate::from_der(c).to_owned()).collect();
        let tls = ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::new_with_certs(&certs)).build();
        builder = builder.tls_config(tls);
    }
    let ureq_config = builder
        .timeout_global(Some(config.timeout))
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .no_delay(true)
        .build();
    Agent::with_parts(ureq_config, DefaultConnector::default(), LiteralsInPlace(DefaultResolver::default()))
}

/// ureq's `DefaultResolver` spawns a thread per lookup whenever a timeout applies (so that it can give up on a
/// slow getaddrinfo), even when the host is an IP literal and there is nothing to look up: in fresh mode, a new
/// Agent per request, that was a thread spawned and joined per request (strace: clone3, futex, mmap per request;
/// ~20% of ureq's fresh rate). libcurl answers IP literals without its resolver; this does the same for ureq.
/// Names still go to ureq's own resolver, with its timeout. (`Resolver` is in ureq's `unversioned` API: the
/// lockfile pins the version.)
#[derive(Debug)]
struct LiteralsInPlace(DefaultResolver);

impl Resolver for LiteralsInPlace {
    fn resolve(&self, uri: &Uri, config: &Config, timeout: NextTimeout) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let literal = uri.host().and_then(|h| h.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().ok());
        let port = uri.port_u16().or_else(|| match uri.scheme_str() {
            Some("https") => Some(443),
            Some("http") => Some(80),
            _ => None,
        });
        match (literal, port) {
            (Some(ip), Some(port)) => {
                let mut addrs = self.empty();
                addrs.push(SocketAddr::new(ip, port));
                Ok(addrs)
            }
            _ => self.0.resolve(uri, config, timeout),
        }
    }
}

fn kind(e: &ureq::Error) -> ErrorKind {
    match e {
        ureq::Error::Timeout(_) => ErrorKind::Timeout,
        ureq::Error::HostNotFound => ErrorKind::Dns,
        ureq::Error::ConnectionFailed => ErrorKind::Connect,
        ureq::Error::TooManyRedirects | ureq::Error::RedirectFailed => ErrorKind::Redirect,
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) => ErrorKind::Tls,
        ureq::Error::Protocol(_) | ureq::Error::Http(_) => ErrorKind::Protocol,
        ureq::Error::Io(io) => unwrap_io(io),
        other => chain_kind(other).unwrap_or(ErrorKind::Other),
    }
}

/// ureq wraps its own errors inside `io::Error` when reading the body, and rustls's (a certificate it does not
/// trust) in the handshake; look inside first.
fn unwrap_io(io: &io::Error) -> ErrorKind {
    let inner = io.get_ref();
    if inner.is_some_and(|i| i.downcast_ref::<rustls::Error>().is_some()) {
        return ErrorKind::Tls;
    }
    match inner.and_then(|i| i.downcast_ref::<ureq::Error>()) {
        Some(inner) => kind(inner),
        None => io_kind(io),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(url: &str) -> Result<Vec<SocketAddr>, ureq::Error> {
        let uri: Uri = url.parse().expect("a valid URI");
        let r = LiteralsInPlace(DefaultResolver::default());
        r.resolve(&uri, &Config::default(), NextTimeout::default()).map(|a| a.iter().copied().collect())
    }

    #[test]
    fn ip_literals_are_answered_in_place_with_the_scheme_port() {
        assert_eq!(resolve("http://127.0.0.1:8080/").unwrap(), ["127.0.0.1:8080".parse().unwrap()]);
        assert_eq!(resolve("http://127.0.0.1/").unwrap(), ["127.0.0.1:80".parse().unwrap()]);
        assert_eq!(resolve("https://10.0.0.1/x").unwrap(), ["10.0.0.1:443".parse().unwrap()]);
        assert_eq!(resolve("http://[::1]:9/").unwrap(), ["[::1]:9".parse().unwrap()]);
    }

    #[test]
    fn names_go_to_ureqs_resolver() {
        // "localhost" is answered by the system resolver from /etc/hosts (no DNS traffic), not by the literal path.
        let addrs = resolve("http://localhost:8080/").unwrap();
        assert!(!addrs.is_empty() && addrs.iter().all(|a| a.port() == 8080 && a.ip().is_loopback()), "{addrs:?}");
    }
}
