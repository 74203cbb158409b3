//! Plain HTTP exchanges written with std, to test a server without any client under test: a GET, a POST, or
//! any bytes, each on a connection of its own with a read timeout.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Plain GET with std, returning (head, body).
pub(crate) fn get(url_base: &str, path: &str) -> (String, Vec<u8>) {
    let addr = url_base.trim_start_matches("http://").trim_end_matches('/');
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let split = all.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head");
    (String::from_utf8_lossy(&all[..split]).into_owned(), all[split + 4..].to_vec())
}

/// Send raw request bytes and return (status line and headers, body).
pub(crate) fn exchange(url_base: &str, request: &[u8]) -> (String, Vec<u8>) {
    let addr = url_base.trim_start_matches("http://").trim_end_matches('/');
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = s.write_all(request);
    let mut all = Vec::new();
    let _ = s.read_to_end(&mut all);
    match all.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(split) => (String::from_utf8_lossy(&all[..split]).into_owned(), all[split + 4..].to_vec()),
        None => (String::from_utf8_lossy(&all).into_owned(), Vec::new()),
    }
}

/// POST `body` to `path` with `Connection: close`.
pub(crate) fn post(url_base: &str, path: &str, body: &[u8]) -> (String, Vec<u8>) {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    exchange(url_base, &[head.as_bytes(), body].concat())
}
