//! The error kinds of QUIC and HTTP/3 failures, for every client on quinn and h3: the raw floor calls these
//! with its errors, reqwest's errors reach them through [`super::classify::chain_kind`]. One mapping, read
//! from the errors' types rather than their words, so that the same fault is the same kind whichever of those
//! clients meets it (python-aioquic's adapter follows the same rules in its own language).
//!
//! The rules: a TLS alert or a refused certificate is `tls`; a stateless reset (the peer no longer knows the
//! connection) or a close by the peer, at the transport or the HTTP/3 level, before the response ended is
//! `reset`; no QUIC version in common, or bytes that break QUIC or HTTP/3 (a header section over the bound,
//! a malformed frame) is `protocol`; an idle connection is `timeout`.

use h3::error::{ConnectionError, StreamError};
use h3::quic::ConnectionErrorIncoming;
use httpbench_shared::ErrorKind;

/// The kind of a failed QUIC connection.
pub(super) fn connection_kind(e: &quinn::ConnectionError) -> ErrorKind {
    use quinn::ConnectionError as E;
    match e {
        E::TimedOut => ErrorKind::Timeout,
        E::Reset => ErrorKind::Reset,
        E::VersionMismatch => ErrorKind::Protocol,
        E::TransportError(t) if crypto_code(t.code) => ErrorKind::Tls,
        E::ConnectionClosed(c) if crypto_code(c.error_code) => ErrorKind::Tls,
        // rustls's refusal of a certificate, when it comes without an alert code.
        E::TransportError(_) if e.to_string().contains("certificate") => ErrorKind::Tls,
        E::ConnectionClosed(_) | E::ApplicationClosed(_) => ErrorKind::Reset,
        E::TransportError(_) => ErrorKind::Protocol,
        E::LocallyClosed | E::CidsExhausted => ErrorKind::Other,
    }
}

/// Whether a QUIC transport error code carries a TLS alert (0x0100 to 0x01ff, RFC 9001 4.8). Only a
/// transport close (CONNECTION_CLOSE of type 0x1c) carries one: HTTP/3's own codes share that range
/// (H3_NO_ERROR is 0x100) in the application's close (type 0x1d), which quinn keeps apart.
fn crypto_code(code: quinn::TransportErrorCode) -> bool {
    (0x100..0x200).contains(&u64::from(code))
}

/// The kind of a failed HTTP/3 connection, as h3 reports it.
pub(super) fn h3_connection_kind(e: &ConnectionError) -> ErrorKind {
    match e {
        ConnectionError::Remote { 0: incoming, .. } => incoming_kind(incoming),
        ConnectionError::Timeout { .. } => ErrorKind::Timeout,
        // h3 closed the connection itself: the peer broke HTTP/3 (a malformed or unexpected frame).
        ConnectionError::Local { .. } => ErrorKind::Protocol,
        _ => ErrorKind::Other,
    }
}

/// What ended the connection, as h3 saw it from quinn.
fn incoming_kind(e: &ConnectionErrorIncoming) -> ErrorKind {
    match e {
        ConnectionErrorIncoming::ApplicationClose { .. } => ErrorKind::Reset,
        ConnectionErrorIncoming::Timeout => ErrorKind::Timeout,
        ConnectionErrorIncoming::Undefined(inner) => {
            inner.downcast_ref::<quinn::ConnectionError>().map_or(ErrorKind::Other, connection_kind)
        }
        ConnectionErrorIncoming::InternalError(_) => ErrorKind::Other,
    }
}

/// The kind of a failed request stream.
pub(super) fn stream_kind(e: &StreamError) -> ErrorKind {
    match e {
        // The peer reset the stream, or went away (GOAWAY) before it was answered.
        StreamError::RemoteTerminate { .. } | StreamError::RemoteClosing { .. } => ErrorKind::Reset,
        StreamError::ConnectionError { 0: c, .. } => h3_connection_kind(c),
        // h3 refused the stream's bytes: a malformed message or a header section over the bound.
        StreamError::StreamError { .. } | StreamError::HeaderTooBig { .. } => ErrorKind::Protocol,
        _ => ErrorKind::Other,
    }
}

/// The kind of an error of the QUIC or HTTP/3 stack found in a chain of causes, if `e` is one.
pub(super) fn kind_of(e: &(dyn std::error::Error + 'static)) -> Option<ErrorKind> {
    if let Some(e) = e.downcast_ref::<quinn::ConnectionError>() {
        Some(connection_kind(e))
    } else if let Some(e) = e.downcast_ref::<StreamError>() {
        Some(stream_kind(e))
    } else {
        e.downcast_ref::<ConnectionError>().map(h3_connection_kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quic_closes_are_told_apart_by_their_frame_not_their_code() {
        // The same number, 0x100 + 0x2a: a TLS alert (bad certificate) in a transport close, H3_NO_ERROR + 0x2a
        // in an application close.
        let code = quinn::TransportErrorCode::crypto(0x2a);
        let transport = quinn::ConnectionError::ConnectionClosed(quinn::ConnectionClose {
            error_code: code,
            frame_type: None,
            reason: bytes::Bytes::new(),
        });
        assert_eq!(connection_kind(&transport), ErrorKind::Tls);
        let application = quinn::ConnectionError::ApplicationClosed(quinn::ApplicationClose {
            error_code: quinn::VarInt::from_u32(0x12a),
            reason: bytes::Bytes::new(),
        });
        assert_eq!(connection_kind(&application), ErrorKind::Reset);
        assert_eq!(connection_kind(&quinn::ConnectionError::VersionMismatch), ErrorKind::Protocol);
        assert_eq!(connection_kind(&quinn::ConnectionError::Reset), ErrorKind::Reset);
    }

    /// reqwest's shape: its error, whose source is the boxed error of the stack underneath.
    #[derive(Debug)]
    struct Wrapper(Box<dyn std::error::Error + Send + Sync>);

    impl std::fmt::Display for Wrapper {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("error sending request")
        }
    }

    impl std::error::Error for Wrapper {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&*self.0)
        }
    }

    #[test]
    fn a_quic_error_is_found_in_a_chain_of_causes() {
        let wrapped = Wrapper(Box::new(quinn::ConnectionError::Reset));
        assert_eq!(kind_of(&wrapped), None);
        assert_eq!(super::super::classify::chain_kind(&wrapped), Some(ErrorKind::Reset));
        let vn = Wrapper(Box::new(quinn::ConnectionError::VersionMismatch));
        assert_eq!(super::super::classify::chain_kind(&vn), Some(ErrorKind::Protocol));
    }
}
