//! QUIC peers for the hostile HTTP/3 tests that HTTP/3 itself cannot be asked to be: a server that forgets
//! every connection once its handshake is done (so that the client's next packet is answered by a stateless
//! reset), a server that speaks no QUIC version a client does (version negotiation), and a raw client that
//! sends the embedded server a request header block written by hand.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Stops a peer's thread when dropped.
pub(crate) struct Stopper(Arc<AtomicBool>);

impl Drop for Stopper {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A UDP socket on `addr` that shares its port (SO_REUSEPORT): a server's next generation is bound before
/// the last one goes, so no packet of the client's finds the port closed.
fn shared_port(addr: SocketAddr) -> std::net::UdpSocket {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::DGRAM, None).unwrap();
    socket.set_reuse_port(true).unwrap();
    socket.bind(&addr.into()).unwrap();
    socket.into()
}

/// An HTTP/3 server on 127.0.0.1 that forgets each connection without a word once its handshake is done:
/// the endpoint that made it stops (its runtime is dropped, so it sends nothing more), and the next one on the
/// same port, with the same reset key, answers the client's next packet with a valid stateless reset (RFC 9000
/// 10.3) and accepts the next connection, to forget it in turn. Its URL, the CA file, and its guard.
pub(crate) fn resetting_server(dir: &std::path::Path) -> (String, String, Stopper) {
    let (config, ca) = crate::h3::quic_config(dir);
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &[7; 32]);
    let mut endpoint_config = quinn::EndpointConfig::new(Arc::new(key));
    endpoint_config.cid_generator(|| Box::new(RandomIds));
    let first = shared_port("127.0.0.1:0".parse().unwrap());
    let addr = first.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        let mut socket = first;
        while !stopped.load(Ordering::Relaxed) {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let generation = runtime.block_on(first_handshake(&endpoint_config, &config, socket, &stopped));
            let Some(kept) = generation else { break };
            socket = shared_port(addr);
            // The connection's driver dies with the runtime: no CONNECTION_CLOSE, no more packets.
            drop(runtime);
            drop(kept);
        }
    });
    (format!("https://{addr}/"), ca.display().to_string(), Stopper(stop))
}

/// Connection IDs of 8 random bytes that every generation of a server takes for its own: quinn's default
/// generator signs its IDs with a key of its own, and drops, without a stateless reset, a packet whose ID
/// another generation signed.
struct RandomIds;

impl quinn::ConnectionIdGenerator for RandomIds {
    fn generate_cid(&mut self) -> quinn::ConnectionId {
        let mut id = [0u8; 8];
        ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut id).unwrap();
        quinn::ConnectionId::new(&id)
    }

    fn cid_len(&self) -> usize {
        8
    }

    fn cid_lifetime(&self) -> Option<Duration> {
        None
    }
}

/// What a generation of a resetting server leaves, dropped only once its runtime is gone (so that nothing is
/// sent for it); nothing of it may outlive that, or its socket would stay open and keep some of the client's
/// packets (SO_REUSEPORT shares them out) from the next generation.
struct Forgotten {
    _endpoint: quinn::Endpoint,
    _conn: quinn::Connection,
    _said: Option<quinn::SendStream>,
}

/// Serve on `socket` until a handshake is done: what is to be forgotten (`None` once `stop` is set).
async fn first_handshake(
    endpoint_config: &quinn::EndpointConfig,
    config: &quinn::ServerConfig,
    socket: std::net::UdpSocket,
    stop: &AtomicBool,
) -> Option<Forgotten> {
    let runtime = quinn::default_runtime().unwrap();
    let endpoint = quinn::Endpoint::new(endpoint_config.clone(), Some(config.clone()), socket, runtime).ok()?;
    loop {
        tokio::select! {
            incoming = endpoint.accept() => {
                if let Ok(conn) = incoming?.await {
                    let said = last_words(&conn).await;
                    return Some(Forgotten { _endpoint: endpoint, _conn: conn, _said: said });
                }
            }
            () = tokio::time::sleep(Duration::from_millis(50)) => {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
            }
        }
    }
}

/// Before a server forgets `conn`: something the client must acknowledge, put on the wire. The client may
/// have had everything it sent acknowledged already, and would then send nothing more for the next
/// generation to answer with a reset; its acknowledgement of this is such a packet. It is a stream of a
/// reserved type (0x21, RFC 9114 6.2.3), which HTTP/3 clients ignore.
/// The stream is kept until the connection is forgotten (dropped sooner, it would be finished or reset).
async fn last_words(conn: &quinn::Connection) -> Option<quinn::SendStream> {
    let sent = conn.stats().frame_tx.stream;
    let mut stream = conn.open_uni().await.ok()?;
    stream.write_all(&[0x21]).await.ok()?;
    for _ in 0..1000 {
        if conn.stats().frame_tx.stream > sent {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    Some(stream)
}

/// A "server" on 127.0.0.1 (UDP) that answers every QUIC Initial with a version negotiation offering only
/// a reserved version nobody speaks (0x1a2a3a4a, RFC 9000 15): its URL and its guard.
pub(crate) fn version_negotiator() -> (String, Stopper) {
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    let url = format!("https://{}/", socket.local_addr().unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 2048];
        while !stopped.load(Ordering::Relaxed) {
            let Ok((n, from)) = socket.recv_from(&mut buf) else { continue };
            if let Some(answer) = negotiation(&buf[..n]) {
                let _ = socket.send_to(&answer, from);
            }
        }
    });
    (url, Stopper(stop))
}

/// The version negotiation packet answering the long-header packet `packet` (RFC 9000 17.2.1): its
/// connection IDs swapped, and one version.
fn negotiation(packet: &[u8]) -> Option<Vec<u8>> {
    let long = packet.first()? & 0x80 != 0;
    let dcid_len = usize::from(*packet.get(5)?);
    let dcid = packet.get(6..6 + dcid_len)?;
    let scid_len = usize::from(*packet.get(6 + dcid_len)?);
    let scid = packet.get(7 + dcid_len..7 + dcid_len + scid_len)?;
    if !long || packet.get(1..5)? == [0, 0, 0, 0] {
        return None;
    }
    let mut out = vec![0xc0, 0, 0, 0, 0, scid_len as u8];
    out.extend_from_slice(scid);
    out.push(dcid_len as u8);
    out.extend_from_slice(dcid);
    out.extend_from_slice(&0x1a2a_3a4a_u32.to_be_bytes());
    Some(out)
}

/// Send `serve`'s HTTP/3 port at `addr` (trusting the CA file `ca`) one request whose HEADERS frame is
/// `request` (written by hand: h3 would refuse to send what the server says it will not take), and read the
/// response stream's bytes, within 30 s. `Err` says what failed.
pub(crate) fn hostile_request(addr: SocketAddr, ca: &str, request: Vec<u8>) -> Result<Vec<u8>, String> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let ca = std::fs::read(ca).unwrap();
    runtime.block_on(async move {
        let exchange = async {
            let conn = connect(addr, &ca).await?;
            let mut control = conn.open_uni().await.map_err(|e| e.to_string())?;
            control.write_all(&[0x00, 0x04, 0x00]).await.map_err(|e| e.to_string())?;
            let (mut send, mut recv) = conn.open_bi().await.map_err(|e| e.to_string())?;
            send.write_all(&request).await.map_err(|e| e.to_string())?;
            send.finish().map_err(|e| e.to_string())?;
            let answer = recv.read_to_end(1 << 20).await.map_err(|e| e.to_string());
            conn.close(0u32.into(), b"");
            answer
        };
        tokio::time::timeout(Duration::from_secs(30), exchange).await.map_err(|_| "no answer in 30 s".to_string())?
    })
}

/// A QUIC connection (ALPN h3) to `addr`, trusting the PEM certificates `ca`.
async fn connect(addr: SocketAddr, ca: &[u8]) -> Result<quinn::Connection, String> {
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls::pki_types::CertificateDer::pem_slice_iter(ca) {
        roots.add(cert.map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    tls.alpn_protocols = vec![b"h3".to_vec()];
    let quic = quinn::crypto::rustls::QuicClientConfig::try_from(tls).map_err(|e| e.to_string())?;
    let mut endpoint = quinn::Endpoint::client("127.0.0.1:0".parse().unwrap()).map_err(|e| e.to_string())?;
    endpoint.set_default_client_config(quinn::ClientConfig::new(Arc::new(quic)));
    let connecting = endpoint.connect(addr, "127.0.0.1").map_err(|e| e.to_string())?;
    connecting.await.map_err(|e| e.to_string())
}
