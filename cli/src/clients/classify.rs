//! Mapping client errors onto httpbench's error kinds by walking the error's source chain: the I/O error kind
//! or message deep inside says more than the client's top-level wrapper.

use std::error::Error;
use std::io;

use httpbench_shared::ErrorKind;

/// `err` and its sources in one line, each cause once (wrappers often repeat their source's words).
pub(super) fn describe(err: &(dyn Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut cur: Option<&(dyn Error + 'static)> = Some(err);
    while let Some(e) = cur {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = e.source();
    }
    parts.join(": ").replace('\n', " ")
}

/// The kind of an I/O error.
pub(super) fn io_kind(e: &io::Error) -> ErrorKind {
    use io::ErrorKind as K;
    // Connectors wrap I/O errors in I/O errors (reqwest's: Other around InvalidData around rustls's), and an
    // io::Error's `source()` skips the error it wraps: unwrap them here.
    let mut e = e;
    while let Some(inner) = e.get_ref().and_then(|i| i.downcast_ref::<io::Error>()) {
        e = inner;
    }
    // rustls reports a refused handshake (certificate, alert, not TLS at all) as InvalidData around its error.
    if e.get_ref().is_some_and(|inner| inner.downcast_ref::<rustls::Error>().is_some()) {
        return ErrorKind::Tls;
    }
    match e.kind() {
        K::ConnectionRefused | K::AddrNotAvailable | K::NetworkUnreachable | K::HostUnreachable => ErrorKind::Connect,
        K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe | K::NotConnected => ErrorKind::Reset,
        K::UnexpectedEof => ErrorKind::Truncated,
        K::TimedOut | K::WouldBlock => ErrorKind::Timeout,
        K::InvalidData => ErrorKind::Protocol,
        _ => message_kind(&e.to_string()).unwrap_or(ErrorKind::Other),
    }
}

/// Walk `err` and its sources; the deepest classifiable cause wins.
pub(super) fn chain_kind(err: &(dyn Error + 'static)) -> Option<ErrorKind> {
    let mut found = None;
    let mut cur: Option<&(dyn Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if e.downcast_ref::<rustls::Error>().is_some() {
            // A handshake refused either way (certificate, alert, no common protocol) is TLS whatever wraps it.
            return Some(ErrorKind::Tls);
        } else if let Some(kind) = super::quic_errors::kind_of(e) {
            // QUIC's and HTTP/3's errors say their kind by type (reqwest over HTTP/3 wraps them in words that
            // do not: a stateless reset was `other`).
            return Some(kind);
        } else if let Some(io) = e.downcast_ref::<io::Error>() {
            found = Some(io_kind(io));
        } else if let Some(kind) = message_kind(&e.to_string()) {
            found = Some(kind);
        }
        cur = e.source();
    }
    found
}

/// A whole body against the `Content-Length` its response said, for the clients whose library does not hold
/// it to that (over HTTP/3: h3 and reqwest's HTTP/3 count no bytes). `None` when they agree or no length was
/// said; a shorter body is `truncated`, a longer one `protocol`: a response whose body does not match its
/// length is malformed (RFC 9114 4.1.2), not cut short. A client may stop reading once `got` passes it.
pub(super) fn body_against_length(declared: Option<u64>, got: u64) -> Option<(ErrorKind, String)> {
    let declared = declared?;
    match got.cmp(&declared) {
        std::cmp::Ordering::Equal => None,
        std::cmp::Ordering::Less => {
            Some((ErrorKind::Truncated, format!("the body ended after {got} of its {declared} bytes (Content-Length)")))
        }
        std::cmp::Ordering::Greater => Some((
            ErrorKind::Protocol,
            format!("the body ran past its Content-Length of {declared} bytes (at least {got}): a malformed response"),
        )),
    }
}

/// Kinds recognisable only by the words of a message (hyper and resolvers do not expose them as types).
pub(super) fn message_kind(msg: &str) -> Option<ErrorKind> {
    let m = msg.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| m.contains(w));
    if has(&["dns error", "failed to lookup address", "name or service not known", "no address associated"]) {
        Some(ErrorKind::Dns)
    } else if has(&["timed out", "timeout"]) {
        Some(ErrorKind::Timeout)
    } else if has(&["connection refused", "failed to establish connection"]) {
        // reqwest over HTTP/3: a request that waited for another's connection attempt, which failed.
        Some(ErrorKind::Connect)
    } else if has(&["connection reset", "broken pipe", "connection closed before message completed", "remote reset"]) {
        // "Remote reset: H3_REQUEST_REJECTED": h3's words for a request stream the server reset.
        Some(ErrorKind::Reset)
    } else if has(&["end of file before message length reached", "incomplete", "unexpected eof"]) {
        Some(ErrorKind::Truncated)
    } else if has(&["invalid http", "invalid status", "parse", "header", "too large", "unexpected message"]) {
        // "received unexpected message from connection": hyper's words for bytes that came before it sent the
        // request (an SSH banner), seen under load when the banner beats the request.
        Some(ErrorKind::Protocol)
    } else if has(&["certificate", "tls", "handshake", "fatal alert"]) {
        Some(ErrorKind::Tls)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_map_to_kinds() {
        let refused = io::Error::new(io::ErrorKind::ConnectionRefused, "x");
        assert_eq!(io_kind(&refused), ErrorKind::Connect);
        let eof = io::Error::new(io::ErrorKind::UnexpectedEof, "x");
        assert_eq!(io_kind(&eof), ErrorKind::Truncated);
        let wrapped = io::Error::other("dns error: failed to lookup address information");
        assert_eq!(chain_kind(&wrapped), Some(ErrorKind::Dns));
        // hyper's words for a head over its limit.
        assert_eq!(message_kind("message head is too large"), Some(ErrorKind::Protocol));
        assert_eq!(message_kind("received unexpected message from connection"), Some(ErrorKind::Protocol));
        // reqwest over HTTP/3 (h3's and reqwest's words).
        assert_eq!(message_kind("Remote reset: H3_REQUEST_REJECTED"), Some(ErrorKind::Reset));
        assert_eq!(message_kind("failed to establish connection for HTTP/3 request"), Some(ErrorKind::Connect));
        let outer = io::Error::other(io::Error::new(io::ErrorKind::InvalidData, "invalid peer certificate"));
        assert_eq!(describe(&outer), "invalid peer certificate");
        // reqwest's shape for a TLS handshake that failed: Other around InvalidData around rustls's error.
        let refused = rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType);
        let nested = io::Error::other(io::Error::new(io::ErrorKind::InvalidData, refused));
        assert_eq!(io_kind(&nested), ErrorKind::Tls);
    }

    #[test]
    fn a_body_is_held_to_its_length_both_ways() {
        assert_eq!(body_against_length(Some(10), 10), None);
        assert_eq!(body_against_length(None, 10), None);
        let (kind, why) = body_against_length(Some(10), 4).unwrap();
        assert_eq!(
            (kind, why.as_str()),
            (ErrorKind::Truncated, "the body ended after 4 of its 10 bytes (Content-Length)")
        );
        let (kind, why) = body_against_length(Some(10), 20).unwrap();
        assert_eq!(kind, ErrorKind::Protocol);
        assert!(why.contains("past its Content-Length of 10 bytes") && !why.contains("Some("), "{why}");
    }
}
