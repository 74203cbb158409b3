//! The HTTP versions a case can ask for, as the result file writes them (`1.1`, `2`, `3`), and how ALPN and
//! Resource Timing name them.

use std::fmt;

use serde::Serialize;

/// An HTTP version a case asks for and its responses are checked to come over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum HttpVersion {
    /// HTTP/1.1.
    #[default]
    #[serde(rename = "1.1")]
    Http11,
    /// HTTP/2, negotiated by ALPN over TLS.
    #[serde(rename = "2")]
    Http2,
    /// HTTP/3 over QUIC (TLS 1.3 inside, ALPN `h3`), on UDP (schema version 5).
    #[serde(rename = "3")]
    Http3,
}

impl super::named::Named for HttpVersion {
    const ALL: &'static [Self] = &[HttpVersion::Http11, HttpVersion::Http2, HttpVersion::Http3];
    const NAMES: &'static [&'static str] = &["1.1", "2", "3"];
}

super::named::deserialize_by_name!(HttpVersion);

impl HttpVersion {
    /// `1.1`, `2` or `3`, as reports write it.
    pub fn as_str(self) -> &'static str {
        <HttpVersion as super::named::Named>::NAMES[self as usize]
    }

    /// `h1`, `h2` or `h3`, the suffix of a case name when more than one version runs.
    pub fn short(self) -> &'static str {
        match self {
            HttpVersion::Http11 => "h1",
            HttpVersion::Http2 => "h2",
            HttpVersion::Http3 => "h3",
        }
    }

    /// The version of an ALPN protocol id or a Resource Timing `nextHopProtocol` (`http/1.1`, `h2`, `h3`);
    /// `None` for anything else (`http/1.0`, a draft's `h3-29`, an empty string).
    pub fn from_alpn(id: &str) -> Option<HttpVersion> {
        match id {
            "http/1.1" => Some(HttpVersion::Http11),
            "h2" => Some(HttpVersion::Http2),
            "h3" => Some(HttpVersion::Http3),
            _ => None,
        }
    }

    /// Whether it needs TLS: HTTP/2 is measured over TLS only (by ALPN), HTTP/3 has TLS 1.3 inside QUIC.
    pub fn needs_tls(self) -> bool {
        self != HttpVersion::Http11
    }
}

impl fmt::Display for HttpVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HTTP/{}", self.as_str())
    }
}
