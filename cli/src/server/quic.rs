//! HTTP/3 for the embedded server: QUIC (quinn) on UDP of the TCP listener's port, TLS 1.3 inside it with the
//! server's certificate, ALPN `h3`, and the same target routes as over TCP (h3 framing). What a fresh client
//! measures is a full QUIC handshake per request: the server never offers a session ticket, so there is no
//! resumption and no 0-RTT, and each handshake is counted in the tally `GET /tls/handshakes` reads, as over
//! TCP. `close=1` closes the QUIC connection once its response is sent (HTTP/3 has no `Connection: close`),
//! and every QUIC connection is counted by `GET /stats/connections`. The server's own endpoints (page, results,
//! status, turns, counters) stay on TCP.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use bytes::{Buf, Bytes};
use http_body_util::BodyExt;
use hyper::header;
use quinn::crypto::rustls::QuicServerConfig;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use super::conn::Conn;
use super::{handshakes, routes, State};

/// The one cipher suite QUIC's server offers: the suite every QUIC stack must support (RFC 9001), so the one
/// every handshake negotiates and the tally can name without asking the session.
const SUITE: &str = "TLS13_AES_128_GCM_SHA256";

/// How long a client may take over its QUIC handshake, as over TCP.
const HANDSHAKE_LIMIT: Duration = Duration::from_secs(10);

/// The QUIC server configuration for `chain` and `key`: TLS 1.3 with [`SUITE`] alone, ALPN `h3`, no session
/// tickets (no resumption, no 0-RTT).
pub(super) fn config(
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> anyhow::Result<QuicServerConfig> {
    let mut provider = rustls::crypto::ring::default_provider();
    provider.cipher_suites.retain(|s| s.suite().as_str() == Some(SUITE));
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    config.alpn_protocols = vec![b"h3".to_vec()];
    config.send_tls13_tickets = 0;
    config.session_storage = Arc::new(rustls::server::NoServerSessionStorage {});
    config.max_early_data_size = 0;
    QuicServerConfig::try_from(config).context("QUIC needs TLS13_AES_128_GCM_SHA256")
}

/// A QUIC endpoint on UDP `addr` (the TCP listener's address) serving `config`.
pub(super) fn endpoint(addr: SocketAddr, config: &Arc<QuicServerConfig>) -> anyhow::Result<quinn::Endpoint> {
    let mut server = quinn::ServerConfig::with_crypto(config.clone());
    server.transport_config(crate::tls::quic_transport());
    quinn::Endpoint::server(server, addr).with_context(|| format!("cannot listen for HTTP/3 on UDP {addr}"))
}

/// Accept QUIC connections until the endpoint closes, one task each.
pub(super) async fn serve(endpoint: quinn::Endpoint, state: Arc<State>) {
    while let Some(incoming) = endpoint.accept().await {
        state.connections.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(connection(incoming, state.clone()));
    }
}

/// One QUIC connection: its handshake (bounded and counted), then its request streams, each answered on a
/// task of its own. A request with `close=1` makes the connection go away (GOAWAY, as over HTTP/2) as soon as
/// it is read, before it is answered: the client learns it with the response at the latest, so its next
/// request goes on a new connection instead of racing the GOAWAY on this one (Chromium failed about 8% of
/// fresh requests when the GOAWAY came after the response).
async fn connection(incoming: quinn::Incoming, state: Arc<State>) {
    let Ok(Ok(conn)) = tokio::time::timeout(HANDSHAKE_LIMIT, incoming).await else { return };
    let seen = handshakes::Seen { version: "TLSv1.3".into(), cipher_suite: SUITE.into(), resumed: false };
    state.handshakes.count(&seen, true);
    // A request's header section is bounded (h3 answers one over it with a 431): unbounded, 40,000 fields
    // made a task panic inside `http`, and a 16 MiB value was kept.
    let mut builder = h3::server::builder();
    builder.max_field_section_size(crate::tls::MAX_FIELD_SECTION_BYTES);
    let Ok(mut h3) = builder.build(h3_quinn::Connection::new(conn)).await else { return };
    // What the server keeps of the connection: the case tags its requests carried, as over TCP.
    let kept = Arc::new(Conn::default());
    // Ends when the client closes the connection or breaks it.
    while let Ok(Some(resolver)) = h3.accept().await {
        let Ok(Ok((req, stream))) = tokio::time::timeout(HANDSHAKE_LIMIT, resolver.resolve_request()).await else {
            continue;
        };
        let close = httpbench_shared::protocol::asks_to_close(req.uri().query());
        let (state, kept) = (state.clone(), kept.clone());
        tokio::spawn(async move { answer(&state, &kept, req, stream).await });
        if close {
            // Requests after this one are refused; this one and those before it are answered.
            let _ = h3.shutdown(1).await;
        }
    }
}

/// Answer one request of connection `conn` with the target routes (think time and the case tags as over TCP)
/// or the counters (a page reads its cases' connections from the origin it requested).
async fn answer<S>(state: &State, conn: &Conn, req: hyper::Request<()>, mut stream: h3::server::RequestStream<S, Bytes>)
where
    S: h3::quic::BidiStream<Bytes>,
{
    let (path, query) = (req.uri().path(), req.uri().query());
    if let Some(tag) = httpbench_shared::protocol::conns_tag(query) {
        state.tags.note(&conn.tags, tag, std::time::Instant::now());
    }
    let counters = path == super::CONNECTIONS_PATH || path == super::HANDSHAKES_PATH;
    // Think time for the target routes only, as over TCP: the counters answer at once.
    let delay = httpbench_shared::protocol::asks_for_delay(query).unwrap_or(state.default_delay_ms);
    if let Some(ms) = Some(delay).filter(|ms| *ms > 0 && !counters) {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    let response = match counters {
        true => {
            let mut counted = super::conn::counters(state, conn, path, query);
            // Read by a page of another origin (the page is served over TCP).
            counted.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, header::HeaderValue::from_static("*"));
            counted
        }
        false => routes::respond(&req),
    };
    let (mut head, mut body) = response.into_parts();
    // Connection-specific headers are malformed in HTTP/3 (RFC 9114, 4.2); the length is said, as over TCP,
    // so a client can tell a body cut short.
    head.headers.remove(header::CONNECTION);
    if let Some(n) = hyper::body::Body::size_hint(&body).exact() {
        head.headers.insert(header::CONTENT_LENGTH, n.into());
    }
    let sent = async {
        stream.send_response(hyper::Response::from_parts(head, ())).await?;
        while let Some(Ok(frame)) = body.frame().await {
            if let Ok(mut data) = frame.into_data() {
                let bytes = data.copy_to_bytes(data.remaining());
                stream.send_data(bytes).await?;
            }
        }
        stream.finish().await
    };
    let _ = sent.await;
}
