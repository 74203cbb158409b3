//! The HTTP versions a run measures, as users choose them: `1.1`, `2` or `both` (`--http`). The one parser of
//! that choice; each version it names becomes a dimension of the run's cases.

use std::fmt;
use std::str::FromStr;

use crate::model::HttpVersion;

/// Which HTTP versions to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum HttpChoice {
    /// HTTP/1.1 only.
    #[default]
    #[cfg_attr(feature = "clap", value(name = "1.1", alias = "1", alias = "h1"))]
    Http11,
    /// HTTP/2 only (over TLS, by ALPN), for the clients that speak it.
    #[cfg_attr(feature = "clap", value(name = "2", alias = "h2"))]
    Http2,
    /// HTTP/1.1, then HTTP/2, as separate cases.
    Both,
}

impl HttpChoice {
    /// The versions, 1.1 before 2.
    pub fn versions(self) -> Vec<HttpVersion> {
        match self {
            HttpChoice::Http11 => vec![HttpVersion::Http11],
            HttpChoice::Http2 => vec![HttpVersion::Http2],
            HttpChoice::Both => vec![HttpVersion::Http11, HttpVersion::Http2],
        }
    }

    /// The choice that runs exactly `versions` (`both` for both).
    pub fn of(versions: &[HttpVersion]) -> Self {
        match (versions.contains(&HttpVersion::Http11), versions.contains(&HttpVersion::Http2)) {
            (false, true) => HttpChoice::Http2,
            (true, true) => HttpChoice::Both,
            _ => HttpChoice::Http11,
        }
    }

    /// Whether HTTP/2 is among them (it needs TLS: httpbench does not measure cleartext HTTP/2).
    pub fn wants_http2(self) -> bool {
        self != HttpChoice::Http11
    }

    /// The name as typed.
    pub fn as_str(self) -> &'static str {
        match self {
            HttpChoice::Http11 => "1.1",
            HttpChoice::Http2 => "2",
            HttpChoice::Both => "both",
        }
    }
}

impl fmt::Display for HttpChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for HttpChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "1.1" | "1" | "h1" => Ok(HttpChoice::Http11),
            "2" | "h2" => Ok(HttpChoice::Http2),
            "both" => Ok(HttpChoice::Both),
            other => Err(format!("HTTP version '{other}' is not one httpbench runs: give 1.1, 2 or both")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_print_and_list_their_versions() {
        for c in [HttpChoice::Http11, HttpChoice::Http2, HttpChoice::Both] {
            assert_eq!(c.as_str().parse::<HttpChoice>(), Ok(c));
            assert_eq!(HttpChoice::of(&c.versions()), c);
        }
        assert_eq!("h2".parse::<HttpChoice>(), Ok(HttpChoice::Http2));
        assert_eq!(HttpChoice::Both.versions(), [HttpVersion::Http11, HttpVersion::Http2]);
        assert!(!HttpChoice::Http11.wants_http2() && HttpChoice::Both.wants_http2());
        assert!("3".parse::<HttpChoice>().unwrap_err().contains("'3'"));
    }
}
