//! The HTTP versions a case can ask for, as the result file writes them (`1.1`, `2`), and how ALPN and
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
}

impl super::named::Named for HttpVersion {
    const ALL: &'static [Self] = &[HttpVersion::Http11, HttpVersion::Http2];
    const NAMES: &'static [&'static str] = &["1.1", "2"];
}

super::named::deserialize_by_name!(HttpVersion);

impl HttpVersion {
    /// `1.1` or `2`, as reports write it.
    pub fn as_str(self) -> &'static str {
        <HttpVersion as super::named::Named>::NAMES[self as usize]
    }

    /// `h1` or `h2`, the suffix of a case name when more than one version runs.
    pub fn short(self) -> &'static str {
        match self {
            HttpVersion::Http11 => "h1",
            HttpVersion::Http2 => "h2",
        }
    }

    /// The version of an ALPN protocol id or a Resource Timing `nextHopProtocol` (`http/1.1`, `h2`); `None`
    /// for anything else (`http/1.0`, `h3`, an empty string).
    pub fn from_alpn(id: &str) -> Option<HttpVersion> {
        match id {
            "http/1.1" => Some(HttpVersion::Http11),
            "h2" => Some(HttpVersion::Http2),
            _ => None,
        }
    }
}

impl fmt::Display for HttpVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HTTP/{}", self.as_str())
    }
}
