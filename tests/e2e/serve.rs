//! `httpbench serve`: the target endpoints and the headers a browser page needs.

use crate::helpers::{get, Serve};

#[test]
fn index_bytes_status_and_close() {
    let s = Serve::start();
    assert!(s.url.starts_with("http://127.0.0.1:"), "binds loopback by default: {}", s.url);
    let (head, body) = get(&s.url, "/");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body.len(), 612);
    let lower = head.to_ascii_lowercase();
    for h in ["access-control-allow-origin: *", "timing-allow-origin: *", "cross-origin-resource-policy: cross-origin"]
    {
        assert!(lower.contains(h), "missing {h}: {head}");
    }
    let (head, body) = get(&s.url, "/bytes/100000");
    assert!(head.contains("content-length: 100000"), "{head}");
    assert_eq!(body.len(), 100_000);
    let (head, _) = get(&s.url, "/status/503");
    assert!(head.starts_with("HTTP/1.1 503"), "{head}");
    let (head, _) = get(&s.url, "/?close=1");
    assert!(head.to_ascii_lowercase().contains("connection: close"), "{head}");
    let (head, _) = get(&s.url, "/bytes/nope");
    assert!(head.starts_with("HTTP/1.1 400"), "{head}");
}

#[test]
fn a_busy_port_is_a_clear_error() {
    let s = Serve::start();
    let port = s.url.trim_end_matches('/').rsplit(':').next().unwrap().to_string();
    let (code, _, err) = crate::helpers::run(&["serve", "--port", &port]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&port) && err.contains("--port 0"), "{err}");
}
