//! The floor: a std `TcpStream` (over TLS, a rustls connection on it directly), a request fixed in advance,
//! and a response read by `Content-Length` (or until close). No client library does less work, so the gap
//! between it and a library is that library's overhead. Chunked bodies are not decoded (the embedded server
//! never sends them); such a response counts as `protocol`. HTTP/1.1 here; over HTTP/3 the floor is `raw_h3`.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::ServerName;

use socket2::{Domain, Protocol, Socket, Type};

use httpbench_shared::model::HttpVersion;
use httpbench_shared::{ErrorKind, Mode, Outcome, PhaseTimes};

use crate::clients::classify::io_kind;
use crate::clients::deadline::Timed;
use crate::clients::{Driver, DriverConfig};

const BUF_BYTES: usize = 64 * 1024;

/// The raw-socket client.
pub(crate) struct RawDriver {
    config: DriverConfig,
    addrs: Result<Vec<SocketAddr>, ErrorKind>,
    request: Vec<u8>,
    stream: Option<Conn>,
    buf: Vec<u8>,
    /// For `https`: the rustls configuration (shared by every connection; resumption is off) and the name
    /// the certificate must be valid for. `Err` when it cannot be built: every request then fails as `tls`.
    tls: Option<Result<(Arc<rustls::ClientConfig>, ServerName<'static>), String>>,
    last_error: Option<String>,
    /// The last ok request's phases, by this client's own clock.
    phases: Option<PhaseTimes>,
}

/// A connection: plain TCP, or TLS on it; either way every read ends by the request's deadline.
enum Conn {
    Plain(Timed),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, Timed>>),
}

impl Conn {
    /// The next request on this connection is due by `deadline`.
    fn set_deadline(&mut self, deadline: Instant) {
        match self {
            Conn::Plain(s) => s.set_deadline(deadline),
            Conn::Tls(s) => s.sock.set_deadline(deadline),
        }
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.read(buf),
            Conn::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.write(buf),
            Conn::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Conn::Plain(s) => s.flush(),
            Conn::Tls(s) => s.flush(),
        }
    }
}

/// The parts of a response head the raw client needs.
pub(super) struct Head {
    pub(super) status: u16,
    /// Body bytes that arrived in the same reads as the head.
    pub(super) buffered_body: usize,
    pub(super) content_length: Option<u64>,
    pub(super) close: bool,
    /// `HTTP/1.1` on the status line (httparse reads only 1.0 and 1.1).
    pub(super) http11: bool,
    /// When the first byte of the response arrived.
    first_byte: Option<Instant>,
}

impl Head {
    /// Whether the response has no body whatever its headers say (1xx, 204, 304).
    pub(super) fn bodiless(&self) -> bool {
        matches!(self.status, 204 | 304) || (100..200).contains(&self.status)
    }
}

impl RawDriver {
    /// Resolve the host once and build the request bytes.
    pub(crate) fn new(config: &DriverConfig) -> Self {
        let (addrs, request) = (resolve(config), request_bytes(config));
        let host = config.url.host_str().unwrap_or("");
        let tls = (config.url.scheme() == "https").then(|| tls_setup(config, host));
        RawDriver {
            config: config.clone(),
            addrs,
            request,
            stream: None,
            buf: vec![0; BUF_BYTES],
            tls,
            last_error: None,
            phases: None,
        }
    }

    /// A new connection, over TLS for `https` (the handshake happens with the first write).
    fn open(&mut self, deadline: Instant) -> Result<Conn, ErrorKind> {
        let tcp = Timed::new(self.connect(deadline)?, self.config.timeout, deadline);
        match &self.tls {
            None => Ok(Conn::Plain(tcp)),
            Some(Err(e)) => {
                self.last_error = Some(e.clone());
                Err(ErrorKind::Tls)
            }
            Some(Ok((config, name))) => match rustls::ClientConnection::new(config.clone(), name.clone()) {
                Ok(conn) => Ok(Conn::Tls(Box::new(rustls::StreamOwned::new(conn, tcp)))),
                Err(e) => {
                    self.last_error = Some(e.to_string());
                    Err(ErrorKind::Tls)
                }
            },
        }
    }

    fn connect(&self, deadline: Instant) -> Result<TcpStream, ErrorKind> {
        let addrs = self.addrs.as_ref().map_err(|k| *k)?;
        let mut last = ErrorKind::Connect;
        for addr in addrs {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ErrorKind::Timeout);
            }
            match connect_blocking(addr, left, self.config.timeout) {
                Ok(s) => return Ok(s),
                Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => last = ErrorKind::Timeout,
                Err(e) => last = io_kind(&e),
            }
        }
        Err(last)
    }

    /// One exchange on the current (or a new) connection. `Err((kind, retry))`: retry is true when a reused
    /// connection turned out closed before any byte came back, the normal keep-alive race.
    fn exchange(&mut self, deadline: Instant) -> Result<Outcome, (ErrorKind, bool)> {
        let reused = self.stream.is_some();
        let start = Instant::now();
        let (mut connected, mut shaken) = (start, start);
        let mut stream = match self.stream.take() {
            Some(mut s) => {
                s.set_deadline(deadline);
                s
            }
            None => {
                let mut s = self.open(deadline).map_err(|k| (k, false))?;
                connected = Instant::now();
                if let Conn::Tls(tls) = &mut s {
                    // The handshake, on its own, so its time is a phase (it would happen with the first write);
                    // its reads end by the deadline like every other (a peer dripping it byte by byte once
                    // kept one request going for minutes).
                    let rustls::StreamOwned { conn, sock } = tls.as_mut();
                    while conn.is_handshaking() {
                        if let Err(e) = conn.complete_io(sock) {
                            self.last_error = Some(crate::clients::classify::describe(&e));
                            return Err((io_kind(&e), false));
                        }
                    }
                }
                shaken = Instant::now();
                s
            }
        };
        let mut noted = |e: io::Error| {
            self.last_error = Some(crate::clients::classify::describe(&e));
            io_kind(&e)
        };
        stream.write_all(&self.request).map_err(|e| (noted(e), reused))?;
        let head = read_head(&mut stream, &mut self.buf, deadline, &mut noted)
            .map_err(|(k, nothing)| (k, reused && nothing))?;
        let body = read_body(&mut stream, &mut self.buf, &head, deadline, &mut noted).map_err(|k| (k, false))?;
        self.phases = Some(PhaseTimes {
            connect: connected - start,
            tls: matches!(stream, Conn::Tls(_)).then(|| shaken - connected),
            ttfb: head.first_byte.map_or(Duration::ZERO, |t| t - start),
        });
        if self.config.mode == Mode::Reuse && !head.close && head.content_length.is_some() {
            self.stream = Some(stream);
        }
        Ok(Outcome::response(head.status, body).over(head.http11.then_some(HttpVersion::Http11)))
    }
}

impl Driver for RawDriver {
    fn request(&mut self) -> Outcome {
        let deadline = Instant::now() + self.config.timeout;
        match self.exchange(deadline) {
            Ok(o) => o,
            Err((_, true)) => self.exchange(deadline).unwrap_or_else(|(k, _)| Outcome::failed(k, None)),
            Err((k, false)) => Outcome::failed(k, None),
        }
    }

    fn failure_reason(&mut self) -> Option<String> {
        self.last_error.take()
    }

    fn phases(&mut self) -> Option<PhaseTimes> {
        self.phases.take()
    }
}

/// The addresses of the URL's host, resolved once per driver (`dns` when there are none).
pub(super) fn resolve(config: &DriverConfig) -> Result<Vec<SocketAddr>, ErrorKind> {
    let url = &config.url;
    let host = url.host_str().unwrap_or("");
    let port = url.port_or_known_default().unwrap_or(80);
    (host.trim_start_matches('[').trim_end_matches(']'), port)
        .to_socket_addrs()
        .map(|a| a.collect::<Vec<_>>())
        .map_err(|_| ErrorKind::Dns)
        .and_then(|a| if a.is_empty() { Err(ErrorKind::Dns) } else { Ok(a) })
}

/// The one request the raw client sends, fixed in advance (`Connection: close` in fresh mode).
pub(super) fn request_bytes(config: &DriverConfig) -> Vec<u8> {
    let url = &config.url;
    let host = url.host_str().unwrap_or("");
    let mut target = url.path().to_string();
    if let Some(q) = url.query() {
        target.push('?');
        target.push_str(q);
    }
    let authority = match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    };
    let connection = if config.mode == Mode::Fresh { "Connection: close\r\n" } else { "" };
    format!(
        "GET {target} HTTP/1.1\r\nHost: {authority}\r\nUser-Agent: httpbench-raw\r\nAccept: */*\r\n{connection}\r\n"
    )
    .into_bytes()
}

/// The TLS set-up of a raw driver: the shared client configuration (`--cacert`'s CAs, HTTP/1.1 by ALPN) and
/// the server name of `host`.
fn tls_setup(config: &DriverConfig, host: &str) -> Result<(Arc<rustls::ClientConfig>, ServerName<'static>), String> {
    let tls = crate::clients::tls::client_config(config.cacert.as_deref(), config.http).map_err(|e| e.to_string())?;
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let name = ServerName::try_from(bare.to_string()).map_err(|e| format!("'{host}' is not a server name: {e}"))?;
    Ok((Arc::new(tls), name))
}

/// A blocking connect bounded by the send timeout, which Linux applies to `connect` (it fails with EINPROGRESS
/// when the time is up). Timed even on loopback: a server whose accept queue is full drops SYNs, and an untimed
/// connect would retry for minutes. Three system calls fewer per connection than std's `connect_timeout`
/// (non-blocking on, poll, non-blocking off), which matters in fresh mode where every request connects.
/// The read timeout set here is the first; [`Timed`] keeps it within the deadline of each request.
fn connect_blocking(addr: &SocketAddr, connect: Duration, read: Duration) -> io::Result<TcpStream> {
    let socket = Socket::new(Domain::for_address(*addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_write_timeout(Some(connect))?;
    socket.set_read_timeout(Some(read))?;
    socket.set_tcp_nodelay(true)?;
    socket.connect(&(*addr).into())?;
    Ok(socket.into())
}

/// How a read error becomes an error kind (and, for the driver, its reason).
type Noted<'a> = dyn FnMut(io::Error) -> ErrorKind + 'a;

/// Read into `buf[filled..]`, honouring the request deadline.
fn read_some(stream: &mut Conn, buf: &mut [u8], deadline: Instant, noted: &mut Noted<'_>) -> Result<usize, ErrorKind> {
    if Instant::now() >= deadline {
        return Err(ErrorKind::Timeout);
    }
    loop {
        match stream.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(noted(e)),
        }
    }
}

/// Read until the end of the head, noting how many body bytes came with it. The error's flag is true when the
/// peer closed before sending anything.
fn read_head(
    stream: &mut Conn,
    buf: &mut [u8],
    deadline: Instant,
    noted: &mut Noted<'_>,
) -> Result<Head, (ErrorKind, bool)> {
    let (mut filled, mut first_byte) = (0, None);
    loop {
        if filled == buf.len() {
            return Err((ErrorKind::Protocol, false));
        }
        let n = read_some(stream, &mut buf[filled..], deadline, noted).map_err(|k| (k, filled == 0))?;
        if n == 0 {
            return Err((if filled == 0 { ErrorKind::Reset } else { ErrorKind::Protocol }, filled == 0));
        }
        if filled == 0 {
            first_byte = Some(Instant::now());
        }
        filled += n;
        if let Some((end, mut head)) = parse_head(&buf[..filled]).map_err(|()| (ErrorKind::Protocol, false))? {
            head.buffered_body = filled - end;
            head.first_byte = first_byte;
            return Ok(head);
        }
    }
}

/// Read the rest of the body, counting it (the bytes themselves are not kept).
fn read_body(
    stream: &mut Conn,
    buf: &mut [u8],
    head: &Head,
    deadline: Instant,
    noted: &mut Noted<'_>,
) -> Result<u64, ErrorKind> {
    let mut got = head.buffered_body as u64;
    if head.bodiless() {
        return Ok(0);
    }
    match head.content_length {
        Some(len) => {
            while got < len {
                let n = read_some(stream, buf, deadline, noted)?;
                if n == 0 {
                    return Err(ErrorKind::Truncated);
                }
                got += n as u64;
            }
            Ok(len.min(got))
        }
        None => loop {
            let n = read_some(stream, buf, deadline, noted)?;
            if n == 0 {
                return Ok(got);
            }
            got += n as u64;
        },
    }
}

/// Parse a response head with httparse (the parser hyper uses, SIMD-accelerated): `Ok(None)` while the head is
/// still incomplete, `Ok(Some((head length, head)))` once it is whole, `Err` for anything that is not an HTTP/1.x
/// response this client can count (including chunked bodies, which it does not decode).
pub(super) fn parse_head(bytes: &[u8]) -> Result<Option<(usize, Head)>, ()> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut response = httparse::Response::new(&mut headers);
    let end = match response.parse(bytes).map_err(|_| ())? {
        httparse::Status::Complete(end) => end,
        httparse::Status::Partial => return Ok(None),
    };
    let status = response.code.ok_or(())?;
    let mut h = Head {
        status,
        buffered_body: 0,
        content_length: None,
        close: response.version == Some(0),
        http11: response.version == Some(1),
        first_byte: None,
    };
    // Only the three headers this client acts on are decoded; httparse has already trimmed their values.
    for header in response.headers.iter() {
        let name = header.name;
        if name.eq_ignore_ascii_case("content-length") {
            h.content_length = Some(std::str::from_utf8(header.value).map_err(|_| ())?.parse().map_err(|_| ())?);
        } else if name.eq_ignore_ascii_case("transfer-encoding") && header.value.eq_ignore_ascii_case(b"chunked") {
            return Err(());
        } else if name.eq_ignore_ascii_case("connection") {
            h.close = header.value.eq_ignore_ascii_case(b"close");
        }
    }
    Ok(Some((end, h)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_are_parsed_or_refused() {
        let head = |b: &[u8]| parse_head(b).map(|h| h.map(|(end, h)| (end, h.status, h.content_length, h.close)));
        let ok = b"HTTP/1.1 200 OK\r\nContent-Length: 612\r\nConnection: keep-alive\r\n\r\nbody";
        assert_eq!(head(ok), Ok(Some((ok.len() - 4, 200, Some(612), false))));
        assert_eq!(head(b"HTTP/1.0 404 Not Found\r\n\r\n"), Ok(Some((26, 404, None, true))));
        assert_eq!(head(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"), Ok(Some((38, 200, None, true))));
        assert_eq!(head(b"HTTP/1.1 200 OK\r\nContent-Le"), Ok(None), "a partial head waits for more");
        assert_eq!(head(b"SSH-2.0-OpenSSH_9.2\r\n"), Err(()));
        assert_eq!(head(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), Err(()));
        assert_eq!(head(b"HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n"), Err(()));
    }
}
