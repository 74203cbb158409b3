//! Result files as links: the page puts a finished run in its URL's fragment (`#r=` and the result file,
//! deflated (raw DEFLATE, RFC 1951) and base64url-encoded without padding), and opening such a link shows that
//! report. `httpbench share` makes such a link from result files, and `compare` reads links as it reads files,
//! so a browser's numbers posted as one link can be compared with a native run. The page does the same coding
//! in JavaScript (`CompressionStream("deflate-raw")`, in `index.html`); the two are tested against each other.

use std::io::{Read, Write};

use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine;
use thiserror::Error;

/// What starts the result in a link's fragment.
pub const MARK: &str = "#r=";
/// Longest link the page offers (longer runs are exported as a file instead): browsers take far longer
/// URLs, but chat and mail programs cut them around here.
pub const MAX_LINK_CHARS: usize = 32_000;
/// Largest result a link may inflate to: far beyond any real run (a few KiB per case), and a bound on a
/// hostile link that would inflate without end.
pub const MAX_INFLATED_BYTES: u64 = 16 * 1024 * 1024;

/// A link that holds no result file.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum LinkError {
    /// No `#r=` in it.
    #[error("no shared result in it (expected a page link with {MARK}...)")]
    NoResult,
    /// The part after `#r=` is not base64url.
    #[error("the shared result is not base64url ({0}); was the link cut short?")]
    NotBase64(String),
    /// It does not inflate.
    #[error("the shared result does not inflate ({0}); was the link cut short?")]
    NotDeflate(String),
    /// It inflates beyond [`MAX_INFLATED_BYTES`].
    #[error("the shared result inflates beyond {MAX_INFLATED_BYTES} bytes: not a result file")]
    TooLarge,
}

/// `page` with `json` (a result file's text) in its fragment.
pub fn encode(page: &str, json: &str) -> String {
    let mut deflate = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    let _ = deflate.write_all(json.as_bytes());
    let packed = deflate.finish().unwrap_or_default();
    let base = page.split('#').next().unwrap_or(page);
    format!("{base}{MARK}{}", URL_SAFE_NO_PAD.encode(packed))
}

/// Whether `text` is a link with a shared result (rather than a file name).
pub fn is_link(text: &str) -> bool {
    text.contains(MARK)
}

/// The result file's text in `link`.
pub fn decode(link: &str) -> Result<String, LinkError> {
    let (_, data) = link.split_once(MARK).ok_or(LinkError::NoResult)?;
    // Up to the next fragment parameter, if a host added one; padding accepted, whitespace of a pasted link not.
    let data = data.split('&').next().unwrap_or(data).trim_end_matches('=');
    let packed = URL_SAFE_NO_PAD
        .decode(data)
        .or_else(|_| URL_SAFE.decode(data))
        .map_err(|e| LinkError::NotBase64(e.to_string()))?;
    let mut text = String::new();
    let mut inflate = flate2::read::DeflateDecoder::new(packed.as_slice()).take(MAX_INFLATED_BYTES + 1);
    inflate.read_to_string(&mut text).map_err(|e| LinkError::NotDeflate(e.to_string()))?;
    if text.len() as u64 > MAX_INFLATED_BYTES {
        return Err(LinkError::TooLarge);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_survives_the_round_trip_and_the_page_part_is_kept() {
        let report = httpbench_shared::fixture::report(httpbench_shared::EnvironmentKind::Browser);
        let json = serde_json::to_string(&report).unwrap();
        let link = encode("https://me.github.io/httpbench/?n=5#old", &json);
        assert!(link.starts_with("https://me.github.io/httpbench/?n=5#r="), "{link}");
        assert!(!link[link.find(MARK).unwrap() + 3..].contains(['+', '/', '=']), "base64url without padding");
        assert!(link.len() < json.len(), "deflated: {} vs {}", link.len(), json.len());
        assert_eq!(decode(&link).unwrap(), json);
        assert!(is_link(&link) && !is_link("results/today.json"));
    }

    #[test]
    fn broken_links_say_what_is_wrong() {
        assert_eq!(decode("https://x/"), Err(LinkError::NoResult));
        assert!(matches!(decode("https://x/#r=ab$cd"), Err(LinkError::NotBase64(_))));
        assert!(matches!(decode("https://x/#r=AAAA"), Err(LinkError::NotDeflate(_)) | Err(LinkError::TooLarge)));
        let cut = encode("https://x/", &"{\"a\": 1}".repeat(500));
        for by in [20, 21, 22, 23] {
            let got = decode(&cut[..cut.len() - by]);
            assert!(
                matches!(got, Err(LinkError::NotDeflate(_)) | Err(LinkError::NotBase64(_))),
                "cut by {by}: {got:?}"
            );
        }
    }

    #[test]
    fn a_link_that_inflates_without_end_is_refused() {
        let bomb = encode("https://x/", &" ".repeat(MAX_INFLATED_BYTES as usize + 10));
        assert!(bomb.len() < 40_000, "{}", bomb.len());
        assert_eq!(decode(&bomb), Err(LinkError::TooLarge));
    }
}
