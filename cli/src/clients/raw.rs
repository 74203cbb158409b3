//! The floor: a std `TcpStream`, a request fixed in advance, and a response read by `Content-Length` (or until
//! close). No client library does less work, so the gap between it and a library is that library's overhead.
//! Chunked bodies are not decoded (the embedded server never sends them); such a response counts as `protocol`.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Instant;

use httpbench_shared::{ErrorKind, Mode, Outcome};

use super::classify::io_kind;
use super::{Driver, DriverConfig};

const BUF_BYTES: usize = 64 * 1024;

/// The raw-socket client.
pub struct RawDriver {
    config: DriverConfig,
    addrs: Result<Vec<SocketAddr>, ErrorKind>,
    request: Vec<u8>,
    stream: Option<TcpStream>,
    buf: Vec<u8>,
}

/// The parts of a response head the raw client needs.
struct Head {
    status: u16,
    /// Body bytes that arrived in the same reads as the head.
    buffered_body: usize,
    content_length: Option<u64>,
    close: bool,
}

impl RawDriver {
    /// Resolve the host once and build the request bytes.
    pub fn new(config: &DriverConfig) -> Self {
        let url = &config.url;
        let host = url.host_str().unwrap_or("");
        let port = url.port_or_known_default().unwrap_or(80);
        let addrs = (host.trim_start_matches('[').trim_end_matches(']'), port)
            .to_socket_addrs()
            .map(|a| a.collect::<Vec<_>>())
            .map_err(|_| ErrorKind::Dns)
            .and_then(|a| if a.is_empty() { Err(ErrorKind::Dns) } else { Ok(a) });
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
        let request =
            format!("GET {target} HTTP/1.1\r\nHost: {authority}\r\nUser-Agent: httpbench-raw\r\nAccept: */*\r\n{connection}\r\n")
                .into_bytes();
        RawDriver { config: config.clone(), addrs, request, stream: None, buf: vec![0; BUF_BYTES] }
    }

    fn connect(&self, deadline: Instant) -> Result<TcpStream, ErrorKind> {
        let addrs = self.addrs.as_ref().map_err(|k| *k)?;
        let mut last = ErrorKind::Connect;
        for addr in addrs {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ErrorKind::Timeout);
            }
            // Timed even on loopback: a server whose accept queue is full drops SYNs, and a plain connect would
            // then retry for minutes.
            match TcpStream::connect_timeout(addr, left) {
                Ok(s) => {
                    s.set_nodelay(true).map_err(|e| io_kind(&e))?;
                    // Once per connection, not per read: the deadline is checked before every read, so a
                    // request ends within two timeouts even against a server that drips one byte at a time.
                    s.set_read_timeout(Some(self.config.timeout)).map_err(|e| io_kind(&e))?;
                    return Ok(s);
                }
                Err(e) => last = io_kind(&e),
            }
        }
        Err(last)
    }

    /// One exchange on the current (or a new) connection. `Err((kind, retry))`: retry is true when a reused
    /// connection turned out closed before any byte came back, the normal keep-alive race.
    fn exchange(&mut self, deadline: Instant) -> Result<Outcome, (ErrorKind, bool)> {
        let reused = self.stream.is_some();
        let mut stream = match self.stream.take() {
            Some(s) => s,
            None => self.connect(deadline).map_err(|k| (k, false))?,
        };
        stream.write_all(&self.request).map_err(|e| (io_kind(&e), reused))?;
        let head = read_head(&mut stream, &mut self.buf, deadline).map_err(|(k, nothing)| (k, reused && nothing))?;
        let body = read_body(&mut stream, &mut self.buf, &head, deadline).map_err(|k| (k, false))?;
        if self.config.mode == Mode::Reuse && !head.close && head.content_length.is_some() {
            self.stream = Some(stream);
        }
        Ok(Outcome::response(head.status, body))
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
}

/// Read into `buf[filled..]`, honouring the request deadline.
fn read_some(stream: &mut TcpStream, buf: &mut [u8], deadline: Instant) -> Result<usize, ErrorKind> {
    if Instant::now() >= deadline {
        return Err(ErrorKind::Timeout);
    }
    loop {
        match stream.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_kind(&e)),
        }
    }
}

/// Read until the end of the head, noting how many body bytes came with it. The error's flag is true when the
/// peer closed before sending anything.
fn read_head(stream: &mut TcpStream, buf: &mut [u8], deadline: Instant) -> Result<Head, (ErrorKind, bool)> {
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            return Err((ErrorKind::Protocol, false));
        }
        let n = read_some(stream, &mut buf[filled..], deadline).map_err(|k| (k, filled == 0))?;
        if n == 0 {
            return Err((if filled == 0 { ErrorKind::Reset } else { ErrorKind::Protocol }, filled == 0));
        }
        filled += n;
        if let Some(end) = find(&buf[..filled], b"\r\n\r\n") {
            let mut head = parse_head(&buf[..end]).ok_or((ErrorKind::Protocol, false))?;
            head.buffered_body = filled - (end + 4);
            return Ok(head);
        }
    }
}

/// Read the rest of the body, counting it (the bytes themselves are not kept).
fn read_body(stream: &mut TcpStream, buf: &mut [u8], head: &Head, deadline: Instant) -> Result<u64, ErrorKind> {
    let mut got = head.buffered_body as u64;
    if matches!(head.status, 204 | 304) || (100..200).contains(&head.status) {
        return Ok(0);
    }
    match head.content_length {
        Some(len) => {
            while got < len {
                let n = read_some(stream, buf, deadline)?;
                if n == 0 {
                    return Err(ErrorKind::Truncated);
                }
                got += n as u64;
            }
            Ok(len.min(got))
        }
        None => loop {
            let n = read_some(stream, buf, deadline)?;
            if n == 0 {
                return Ok(got);
            }
            got += n as u64;
        },
    }
}

fn parse_head(head: &[u8]) -> Option<Head> {
    let text = std::str::from_utf8(head).ok()?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next()?;
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next()?;
    if !version.starts_with("HTTP/1.") {
        return None;
    }
    let status: u16 = parts.next()?.parse().ok()?;
    let mut h = Head { status, buffered_body: 0, content_length: None, close: version == "HTTP/1.0" };
    for line in lines {
        let (name, value) = line.split_once(':')?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            h.content_length = Some(value.parse().ok()?);
        } else if name.eq_ignore_ascii_case("transfer-encoding") && value.eq_ignore_ascii_case("chunked") {
            return None;
        } else if name.eq_ignore_ascii_case("connection") {
            h.close = value.eq_ignore_ascii_case("close");
        }
    }
    Some(h)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_are_parsed_or_refused() {
        let h = parse_head(b"HTTP/1.1 200 OK\r\nContent-Length: 612\r\nConnection: keep-alive").unwrap();
        assert_eq!((h.status, h.content_length, h.close), (200, Some(612), false));
        let h = parse_head(b"HTTP/1.0 404 Not Found").unwrap();
        assert!(h.close);
        assert!(parse_head(b"SSH-2.0-OpenSSH_9.2").is_none());
        assert!(parse_head(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked").is_none());
        assert!(parse_head(b"HTTP/1.1 200 OK\r\nContent-Length: lots").is_none());
    }
}
