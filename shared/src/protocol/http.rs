//! The HTTP versions a run measures, as users choose them: a list of `1.1`, `2` and `3` (`--http 1.1,2,3`), or
//! `both` for `1.1,2`. The one parser of that choice; each version it names becomes a dimension of the run's
//! cases.

use std::fmt;
use std::str::FromStr;

use crate::model::HttpVersion;

/// Which HTTP versions to run: at least one, each once, in version order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpChoice(Vec<HttpVersion>);

impl Default for HttpChoice {
    /// HTTP/1.1 alone.
    fn default() -> Self {
        HttpChoice(vec![HttpVersion::Http11])
    }
}

impl HttpChoice {
    /// HTTP/1.1 and HTTP/2, the spelling `both`.
    pub fn both() -> Self {
        HttpChoice(vec![HttpVersion::Http11, HttpVersion::Http2])
    }

    /// The versions, in version order.
    pub fn versions(&self) -> Vec<HttpVersion> {
        self.0.clone()
    }

    /// The choice that runs exactly `versions` (HTTP/1.1 for none).
    pub fn of(versions: &[HttpVersion]) -> Self {
        // Through the crate's one sort (crate::order): a `sort` of its own is one more copy of std's in the page.
        let mut chosen = crate::order::sorted_by(versions, &|a, b| a.cmp(b));
        chosen.dedup();
        match chosen.is_empty() {
            true => HttpChoice::default(),
            false => HttpChoice(chosen),
        }
    }

    /// Whether any of them needs TLS (HTTP/2 and HTTP/3: httpbench measures neither in cleartext).
    pub fn needs_tls(&self) -> bool {
        self.0.iter().any(|v| v.needs_tls())
    }
}

impl fmt::Display for HttpChoice {
    /// As typed: `both` for HTTP/1.1 and HTTP/2, else the versions joined by commas (`1.1,2,3`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == HttpChoice::both() {
            return f.write_str("both");
        }
        let names: Vec<&str> = self.0.iter().map(|v| v.as_str()).collect();
        f.write_str(&names.join(","))
    }
}

impl FromStr for HttpChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let mut versions = Vec::new();
        for part in s.split(',').map(str::trim) {
            match part {
                "1.1" | "1" | "h1" => versions.push(HttpVersion::Http11),
                "2" | "h2" => versions.push(HttpVersion::Http2),
                "3" | "h3" => versions.push(HttpVersion::Http3),
                "both" => versions.extend([HttpVersion::Http11, HttpVersion::Http2]),
                other => {
                    return Err(format!(
                        "HTTP version '{other}' is not one httpbench runs: give 1.1, 2, 3, a list (1.1,2,3) or both"
                    ))
                }
            }
        }
        Ok(HttpChoice::of(&versions))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_print_and_list_their_versions() {
        for text in ["1.1", "2", "3", "both", "1.1,3", "2,3", "1.1,2,3"] {
            let c: HttpChoice = text.parse().unwrap();
            assert_eq!(c.to_string(), text);
            assert_eq!(HttpChoice::of(&c.versions()), c);
        }
        assert_eq!("h2".parse::<HttpChoice>().unwrap().versions(), [HttpVersion::Http2]);
        assert_eq!("3, 1, 3".parse::<HttpChoice>().unwrap().versions(), [HttpVersion::Http11, HttpVersion::Http3]);
        assert_eq!("1.1,2".parse::<HttpChoice>().unwrap().to_string(), "both", "the old spelling stays");
        assert!(!HttpChoice::default().needs_tls() && HttpChoice::both().needs_tls());
        assert!("3".parse::<HttpChoice>().unwrap().needs_tls());
        let e = "1.1,4".parse::<HttpChoice>().unwrap_err();
        assert!(e.contains("'4'") && e.contains("1.1,2,3"), "{e}");
        assert!("".parse::<HttpChoice>().is_err(), "an empty list names no version");
    }
}
