//! The `raw` floor over HTTP/3: quinn and h3 directly, no pool, no client library around them, on a
//! current-thread tokio runtime. Fresh mode is a new QUIC connection per request, each with a full handshake
//! (the TLS configuration resumes nothing and sends no early data), closed once its response is read; reuse is
//! one connection whose requests are streams (with requests in flight, every one on it, as HTTP/3 means them
//! to be). Every request is bounded by `--timeout` as a whole: a server that never answers on UDP (nothing
//! listening: QUIC hears no refusal) is a `timeout`, as is one that stops mid-body.

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use bytes::{Buf, Bytes};
use httpbench_shared::model::HttpVersion;
use httpbench_shared::{ErrorKind, Mode, Outcome, PhaseTimes};
use tokio::runtime::{Builder, Runtime};

use crate::clients::classify::body_against_length;
use crate::clients::pool::{Done, Record, Round, RoundEnd};
use crate::clients::quic_errors::{connection_kind, h3_connection_kind, stream_kind};
use crate::clients::DriverConfig;

type Sender = h3::client::SendRequest<h3_quinn::OpenStreams, Bytes>;

/// The HTTP/3 floor, keeping `in_flight` requests in flight.
pub(super) struct RawH3 {
    config: DriverConfig,
    runtime: Runtime,
    endpoint: quinn::Endpoint,
    quic: quinn::ClientConfig,
    addr: SocketAddr,
    host: String,
    /// Reuse mode: the one connection's request sender, once made (again after a failure).
    shared: tokio::sync::Mutex<Option<Sender>>,
    in_flight: usize,
}

/// Why a request failed: its kind and the reason in the library's words.
type Failure = (ErrorKind, String);

impl RawH3 {
    /// A client of `config`'s URL (https), with its own runtime and UDP socket.
    pub(super) fn new(config: &DriverConfig, in_flight: usize) -> anyhow::Result<Self> {
        let runtime = Builder::new_current_thread().enable_all().build()?;
        let host = config.url.host_str().context("the URL has no host")?.trim_matches(['[', ']']).to_string();
        let port = config.url.port_or_known_default().context("the URL has no port")?;
        let addr = (host.as_str(), port).to_socket_addrs()?.next().context("the host has no address")?;
        let tls = crate::clients::tls::client_config(config.cacert.as_deref(), HttpVersion::Http3)?;
        let quic = quinn::crypto::rustls::QuicClientConfig::try_from(tls).context("no TLS 1.3 for QUIC")?;
        let mut quic = quinn::ClientConfig::new(Arc::new(quic));
        quic.transport_config(crate::tls::quic_transport());
        let bind: SocketAddr = if addr.is_ipv6() { "[::]:0" } else { "0.0.0.0:0" }.parse()?;
        let endpoint = {
            let _guard = runtime.enter();
            quinn::Endpoint::client(bind).context("cannot open a UDP socket for QUIC")?
        };
        let shared = tokio::sync::Mutex::new(None);
        Ok(RawH3 { config: config.clone(), runtime, endpoint, quic, addr, host, shared, in_flight })
    }

    /// A new QUIC connection with its HTTP/3 sender, and how long its handshake took; the connection's driver
    /// runs as a task of its own.
    async fn connect(&self) -> Result<(quinn::Connection, Sender, Duration), Failure> {
        let start = Instant::now();
        let connecting = self
            .endpoint
            .connect_with(self.quic.clone(), self.addr, &self.host)
            .map_err(|e| (ErrorKind::Connect, format!("cannot connect to {}: {e}", self.addr)))?;
        let conn = connecting.await.map_err(|e| connection_failure(&e))?;
        let handshake = start.elapsed();
        // A response's header section is bounded: unbounded, 40,000 fields made `http` panic.
        let mut builder = h3::client::builder();
        builder.max_field_section_size(crate::tls::MAX_FIELD_SECTION_BYTES);
        let (mut driver, sender) = builder
            .build(h3_quinn::Connection::new(conn.clone()))
            .await
            .map_err(|e| (h3_connection_kind(&e), e.to_string()))?;
        tokio::spawn(async move { std::future::poll_fn(|cx| driver.poll_close(cx)).await });
        Ok((conn, sender, handshake))
    }

    /// The sender of a request, and the handshake it waited for (zero on a connection made before): in fresh
    /// mode a new connection's (to be closed after it), in reuse mode the one connection's, made by the first
    /// request that needs it while the others wait for it.
    async fn sender(&self) -> Result<(Option<quinn::Connection>, Sender, Duration), Failure> {
        if self.config.mode == Mode::Fresh {
            let (conn, sender, handshake) = self.connect().await?;
            return Ok((Some(conn), sender, handshake));
        }
        let mut shared = self.shared.lock().await;
        if let Some(sender) = shared.as_ref() {
            return Ok((None, sender.clone(), Duration::ZERO));
        }
        let (_, sender, handshake) = self.connect().await?;
        *shared = Some(sender.clone());
        Ok((None, sender, handshake))
    }

    /// One request, with its own connection (fresh) or the shared one (reuse: made anew after a failure, as
    /// a client reconnects after a broken connection), and its phases. QUIC has one handshake, the
    /// transport's and TLS's in one: it is counted whole as the TLS phase, with no connect phase before it.
    async fn request(&self) -> Result<(Outcome, PhaseTimes), Failure> {
        let start = Instant::now();
        let (own, mut sender, handshake) = self.sender().await?;
        let outcome = get(&mut sender, &self.config.url, start).await;
        match own {
            Some(conn) => conn.close(0u32.into(), b"done"),
            None if outcome.is_err() => *self.shared.lock().await = None,
            None => {}
        }
        let (outcome, ttfb) = outcome?;
        Ok((outcome, PhaseTimes { connect: Duration::ZERO, tls: Some(handshake), ttfb }))
    }
}

/// GET `url` on `sender`'s connection and read the whole body, held to its Content-Length (shorter is
/// `truncated`, longer `protocol`, found as soon as it passes). Answers the outcome and the time from `start`
/// to the response's head.
async fn get(sender: &mut Sender, url: &url::Url, start: Instant) -> Result<(Outcome, Duration), Failure> {
    let request = hyper::Request::get(url.as_str()).body(()).map_err(|e| (ErrorKind::Other, e.to_string()))?;
    let mut stream = sender.send_request(request).await.map_err(stream_failure)?;
    stream.finish().await.map_err(stream_failure)?;
    let response = stream.recv_response().await.map_err(stream_failure)?;
    let ttfb = start.elapsed();
    let expected =
        response.headers().get(hyper::header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let mut bytes = 0u64;
    while let Some(chunk) = stream.recv_data().await.map_err(stream_failure)? {
        bytes += chunk.remaining() as u64;
        if expected.is_some_and(|n| bytes > n) {
            break;
        }
    }
    if let Some(failure) = body_against_length(expected, bytes) {
        return Err(failure);
    }
    let status = response.status().as_u16();
    Ok((Outcome::response(status, bytes).over(Some(HttpVersion::Http3)), ttfb))
}

fn timed_out(timeout: Duration) -> Failure {
    (ErrorKind::Timeout, format!("no whole response within {timeout:?} (a QUIC server that never answers looks so)"))
}

/// A failed QUIC connection, with its kind ([`crate::clients::quic_errors`]).
fn connection_failure(e: &quinn::ConnectionError) -> Failure {
    (connection_kind(e), e.to_string())
}

/// A failed request stream, with its kind ([`crate::clients::quic_errors`]).
fn stream_failure(e: h3::error::StreamError) -> Failure {
    (stream_kind(&e), e.to_string())
}

impl crate::clients::pool::Pool for RawH3 {
    fn run(&mut self, round: Round<'_>, record: &mut dyn Record) -> RoundEnd {
        let (this, timeout) = (&*self, self.config.timeout);
        crate::clients::pool::run_tasks(&self.runtime, self.in_flight, round, record, || async move {
            let done = tokio::time::timeout(timeout, this.request()).await;
            match done.unwrap_or_else(|_| Err(timed_out(timeout))) {
                Ok((outcome, phases)) => Done { outcome, phases: Some(phases), reason: None },
                Err((kind, reason)) => Done::failed(Outcome::failed(kind, None), reason),
            }
        });
        RoundEnd::default()
    }
}
