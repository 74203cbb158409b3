//! QUIC peers for the hostile HTTP/3 tests that HTTP/3 itself cannot be asked to be: a server that forgets
//! every connection once its handshake is done (the client's next packets are answered by stateless
//! resets), a server that speaks no QUIC version a client does (version negotiation), and a raw client that
//! sends the embedded server a request header block written by hand.

use std::collections::HashMap;
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

/// The key every stateless reset token of a resetting server is made from: quinn's token for a connection ID
/// is the first 16 bytes of its HMAC-SHA256 under the endpoint's reset key (RFC 9000 10.3.2).
fn reset_key() -> ring::hmac::Key {
    ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &[7; 32])
}

/// An HTTP/3 server on 127.0.0.1 that forgets each connection once its handshake is done: a quinn server
/// behind a UDP relay written here. Once a handshake is done, the relay stops passing the client's
/// short-header packets on and answers each with the stateless reset (RFC 9000 10.3) a server that lost the
/// connection's state would send: the token quinn gave the client for that connection ID, from the same key.
/// The server keeps sending (what it sent is never acknowledged), so the client keeps answering, and a reset
/// cannot be missed. A client's next Initial (a new connection) is passed on again. Its URL, the CA file,
/// and its guard.
pub(crate) fn resetting_server(dir: &std::path::Path) -> (String, String, Stopper) {
    let (config, ca) = crate::h3::quic_config(dir);
    let mut endpoint_config = quinn::EndpointConfig::new(Arc::new(reset_key()));
    endpoint_config.cid_generator(|| Box::new(RandomIds));
    let server = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let server_addr = server.local_addr().unwrap();
    let front = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    front.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    let url = format!("https://{}/", front.local_addr().unwrap());
    let (stop, forgetting) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    let (stopped, forgets) = (stop.clone(), forgetting.clone());
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let runtime = quinn::default_runtime().unwrap();
            let endpoint = quinn::Endpoint::new(endpoint_config, Some(config), server, runtime).unwrap();
            while !stopped.load(Ordering::Relaxed) {
                let Ok(Some(incoming)) = tokio::time::timeout(Duration::from_millis(50), endpoint.accept()).await
                else {
                    continue;
                };
                tokio::spawn(forget(incoming, forgets.clone()));
            }
        });
    });
    let stopped = stop.clone();
    std::thread::spawn(move || relay(front, server_addr, &forgetting, &stopped));
    (url, ca.display().to_string(), Stopper(stop))
}

/// Connection IDs of 8 random bytes, said here so that the relay knows where a short header's ID ends.
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

/// One connection of a resetting server: its handshake, then the relay told to forget it, then something
/// the client must acknowledge (a stream of a reserved type, 0x21, RFC 9114 6.2.3, which HTTP/3 clients
/// ignore): the client may have had everything it sent acknowledged already, and this makes it answer.
async fn forget(incoming: quinn::Incoming, forgetting: Arc<AtomicBool>) {
    let Ok(conn) = incoming.await else { return };
    forgetting.store(true, Ordering::Relaxed);
    if let Ok(mut stream) = conn.open_uni().await {
        let _ = stream.write_all(&[0x21]).await;
        // Kept open with the connection (dropped, it would be finished).
        conn.closed().await;
        drop(stream);
    }
}

/// The relay of a resetting server: `front` is the client's side, `server` quinn's address. Each client
/// address gets a socket of its own towards the server (so the server's answers find their way back).
fn relay(front: std::net::UdpSocket, server: SocketAddr, forgetting: &AtomicBool, stop: &Arc<AtomicBool>) {
    let (front, key) = (Arc::new(front), reset_key());
    let mut towards: HashMap<SocketAddr, std::net::UdpSocket> = HashMap::new();
    let mut buf = vec![0u8; 65536];
    while !stop.load(Ordering::Relaxed) {
        let Ok((n, client)) = front.recv_from(&mut buf) else { continue };
        let packet = &buf[..n];
        let long = packet[0] & 0x80 != 0;
        if long && packet[0] & 0x30 == 0 {
            // An Initial: a new connection, to be made.
            forgetting.store(false, Ordering::Relaxed);
        }
        if !long && forgetting.load(Ordering::Relaxed) {
            if let Some(reset) = stateless_reset(&key, packet) {
                let _ = front.send_to(&reset, client);
            }
            continue;
        }
        let up = towards.entry(client).or_insert_with(|| back_to(front.clone(), client, stop.clone()));
        let _ = up.send_to(packet, server);
    }
}

/// A socket towards the server for `client`, whose answers a thread sends on to `client` from `front`.
fn back_to(front: Arc<std::net::UdpSocket>, client: SocketAddr, stop: Arc<AtomicBool>) -> std::net::UdpSocket {
    let up = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    up.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    let back = up.try_clone().unwrap();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 65536];
        while !stop.load(Ordering::Relaxed) {
            if let Ok((n, _)) = back.recv_from(&mut buf) {
                let _ = front.send_to(&buf[..n], client);
            }
        }
    });
    up
}

/// The stateless reset answering the short-header packet `packet` (RFC 9000 10.3): shorter than it, at least
/// 21 bytes, with the fixed bit, ending in the token of its destination connection ID (8 bytes, [`RandomIds`]).
fn stateless_reset(key: &ring::hmac::Key, packet: &[u8]) -> Option<Vec<u8>> {
    let id = packet.get(1..9)?;
    let len = (packet.len() - 1).min(43);
    if len < 21 {
        return None;
    }
    let mut reset = vec![0x55; len - 16];
    reset[0] = 0x40 | 0x15;
    reset.extend_from_slice(&ring::hmac::sign(key, id).as_ref()[..16]);
    Some(reset)
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
