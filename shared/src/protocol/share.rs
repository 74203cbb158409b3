//! Result files as links: a finished run travels in a page link's fragment, `#r=` and the result file
//! compressed with raw DEFLATE (RFC 1951) and coded as base64url without padding. The fragment never reaches a
//! server, so a static host serves the page and the reader's browser alone sees the numbers. The page's Share
//! button makes such links and opens them; `httpbench share` makes them and `compare` reads them as files.
//! This is the format's one home: both front ends call it, so a link made by one always opens in the other.
//!
//! Both caps are checked here: a link longer than [`MAX_LINK_CHARS`] is too long to share ([`check_length`]:
//! the page refuses it, the CLI warns and prints it all the same), and a link whose result inflates beyond
//! [`MAX_INFLATED_BYTES`] is refused when its output reaches the cap, never inflated further.

use base64::alphabet::URL_SAFE;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;
use miniz_oxide::inflate::TINFLStatus;
use thiserror::Error;

/// What starts the result in a link's fragment.
pub const MARK: &str = "#r=";
/// Longest link offered for sharing (longer runs are shared as a file): browsers take far longer URLs, but chat
/// and mail programs cut them around here.
pub const MAX_LINK_CHARS: usize = 32_000;
/// Largest result a link may inflate to: far beyond any real run (a few KiB per case), and a bound on a hostile
/// link that would inflate without end (a 40 KB link can hold gigabytes of one repeated byte).
pub const MAX_INFLATED_BYTES: usize = 16 * 1024 * 1024;

/// DEFLATE's best compression (miniz's level 9, zlib's `-9`): a result file is small, so the slower search is
/// not felt, and the link is the shorter.
const LEVEL: u8 = 9;

/// base64url (RFC 4648 §5) written without padding, read with or without it: a link that went through a
/// program that padded it still opens.
const BASE64URL: GeneralPurpose = GeneralPurpose::new(
    &URL_SAFE,
    GeneralPurposeConfig::new().with_encode_padding(false).with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Why a link cannot be shared, or holds no result file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LinkError {
    /// No `#r=` in it.
    #[error("no shared result in it (expected a page link with {MARK}...)")]
    NoResult,
    /// The part after `#r=` is not base64url: cut inside a character group, or mangled by a program.
    #[error("the shared result is not base64url ({0}); was the link cut short?")]
    NotBase64(String),
    /// It does not inflate: a DEFLATE stream cut short, or not one at all.
    #[error("the shared result does not inflate ({0}); was the link cut short?")]
    NotDeflate(String),
    /// It inflates to bytes that are not UTF-8, so not to a result file.
    #[error("the shared result is not text (invalid UTF-8 at byte {0}): not a result file")]
    NotText(usize),
    /// It inflates beyond [`MAX_INFLATED_BYTES`].
    #[error("the shared result inflates beyond {MAX_INFLATED_BYTES} bytes: not a result file")]
    TooLarge,
    /// The link is longer than [`MAX_LINK_CHARS`]; it holds this many characters.
    #[error("Too long for a link ({0} characters, more than the {MAX_LINK_CHARS} many programs keep)")]
    TooLong(usize),
}

/// `page` (its own fragment dropped) with `json`, a result file's text, in its fragment: the link at any length
/// ([`check_length`] says whether it is short enough to share).
pub fn encode(page: &str, json: &str) -> String {
    let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), LEVEL);
    let base = page.split('#').next().unwrap_or(page);
    format!("{base}{MARK}{}", BASE64URL.encode(packed))
}

/// [`LinkError::TooLong`] when `link` is longer than [`MAX_LINK_CHARS`]: the page refuses to offer it, the
/// CLI warns.
pub fn check_length(link: &str) -> Result<(), LinkError> {
    // Counted in characters, as the programs that cut links count; a link of the page's is ASCII anyway.
    match link.chars().count() {
        n if n > MAX_LINK_CHARS => Err(LinkError::TooLong(n)),
        _ => Ok(()),
    }
}

/// Whether `text` is a link with a shared result (rather than a file name).
pub fn is_link(text: &str) -> bool {
    text.contains(MARK)
}

/// The result file's text in `link` (a whole link, or its fragment alone).
pub fn decode(link: &str) -> Result<String, LinkError> {
    let (_, data) = link.split_once(MARK).ok_or(LinkError::NoResult)?;
    // Up to the next fragment parameter, if a host added one. Whitespace is not skipped: a link with a space
    // in it was mangled on its way, and is refused as such.
    let data = data.split('&').next().unwrap_or(data);
    let packed = BASE64URL.decode(data).map_err(|e| LinkError::NotBase64(e.to_string()))?;
    let text = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_INFLATED_BYTES).map_err(|e| {
        match e.status {
            // The output reached the cap with more to come.
            TINFLStatus::HasMoreOutput => LinkError::TooLarge,
            _ => LinkError::NotDeflate(e.to_string()),
        }
    })?;
    String::from_utf8(text).map_err(|e| LinkError::NotText(e.utf8_error().valid_up_to()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link the page made before this module existed, with the browser's own `CompressionStream("deflate-raw")`
    /// and `btoa` (index.html of 0.1.0): links already shared keep opening.
    const BROWSER_LINK: &str = "https://me.github.io/httpbench/?n=5#r=q1YqTs5IzU2ML0stKs7Mz1OyMtRRyssvSVWyUspNTElVS\
        KpUKMlIVShITE9VL1Zwzs8tKEotBqkMLilKTcy1Uji8J-_w-uT8lFSFQ1uLlWoB";

    #[test]
    fn a_result_survives_the_round_trip_and_the_page_part_is_kept() {
        let report = crate::fixture::report(crate::EnvironmentKind::Browser);
        let json = serde_json::to_string(&report).unwrap();
        let link = encode("https://me.github.io/httpbench/?n=5#old", &json);
        assert!(link.starts_with("https://me.github.io/httpbench/?n=5#r="), "{link}");
        assert!(!link[link.find(MARK).unwrap() + 3..].contains(['+', '/', '=']), "base64url without padding");
        assert!(link.len() < json.len(), "deflated: {} vs {}", link.len(), json.len());
        assert_eq!(decode(&link).unwrap(), json);
        assert_eq!(check_length(&link), Ok(()));
        assert!(is_link(&link) && !is_link("results/today.json"));
    }

    #[test]
    fn the_format_is_raw_deflate_in_base64url() {
        // Pinned, so a change of compressor, level or alphabet shows here: links are read by other versions.
        insta::assert_snapshot!(encode("https://x/", r#"{"a": 1}"#), @"https://x/#r=q1ZKVLJSMKwFAA");
        assert_eq!(
            decode(BROWSER_LINK).unwrap(),
            r#"{"schema_version":1,"note":"made by the page's CompressionStream: ünïcode µs"}"#
        );
    }

    #[test]
    fn padding_a_fragment_alone_and_later_parameters_are_read() {
        let link = encode("https://x/", "{}");
        let data = &link[link.find(MARK).unwrap()..];
        assert_eq!(decode(data).unwrap(), "{}", "location.hash alone");
        let padding = "=".repeat((4 - (data.len() - 3) % 4) % 4);
        assert_eq!(decode(&format!("{link}{padding}")).unwrap(), "{}");
        assert_eq!(decode(&format!("{link}&utm_source=chat")).unwrap(), "{}");
    }

    #[test]
    fn broken_links_say_what_is_wrong() {
        assert_eq!(decode("https://x/"), Err(LinkError::NoResult));
        assert!(matches!(decode("https://x/#r=ab$cd"), Err(LinkError::NotBase64(_))));
        assert!(matches!(decode("https://x/#r=AAAA"), Err(LinkError::NotDeflate(_))));
        assert!(matches!(decode("https://x/#r="), Err(LinkError::NotDeflate(_))));
        let not_utf8 = miniz_oxide::deflate::compress_to_vec(b"{\"a\": \xff}", LEVEL);
        assert_eq!(decode(&format!("#r={}", BASE64URL.encode(not_utf8))), Err(LinkError::NotText(6)));
    }

    #[test]
    fn a_link_cut_anywhere_is_refused_and_asks_whether_it_was_cut() {
        let whole = encode("https://x/", &"{\"a\": 1}".repeat(500));
        let start = whole.find(MARK).unwrap() + MARK.len();
        for end in start..whole.len() {
            let got = decode(&whole[..end]);
            assert!(
                matches!(got, Err(LinkError::NotDeflate(_)) | Err(LinkError::NotBase64(_))),
                "cut at {end} of {}: {got:?}",
                whole.len()
            );
            assert!(got.unwrap_err().to_string().ends_with("was the link cut short?"));
        }
    }

    #[test]
    fn a_link_that_inflates_without_end_is_refused() {
        let bomb = encode("https://x/", &" ".repeat(MAX_INFLATED_BYTES + 1));
        assert!(bomb.len() < 40_000, "{}", bomb.len());
        assert_eq!(decode(&bomb), Err(LinkError::TooLarge));
        let at_the_cap = encode("https://x/", &" ".repeat(MAX_INFLATED_BYTES));
        assert_eq!(decode(&at_the_cap).map(|t| t.len()), Ok(MAX_INFLATED_BYTES));
    }

    #[test]
    fn a_link_longer_than_the_cap_is_too_long_to_share_and_says_its_length() {
        let json = serde_json::to_string(&crate::fixture::report(crate::EnvironmentKind::Native)).unwrap();
        // The link's length is the page's plus the data's: a page address of the right length puts it at the cap.
        let data = encode("", &json);
        let page = |chars: usize| format!("https://x/?p={}", "a".repeat(chars - "https://x/?p=".len()));
        let at_the_cap = encode(&page(MAX_LINK_CHARS - data.len()), &json);
        assert_eq!((at_the_cap.len(), check_length(&at_the_cap)), (MAX_LINK_CHARS, Ok(())));
        let over = encode(&page(MAX_LINK_CHARS - data.len() + 1), &json);
        assert_eq!(check_length(&over), Err(LinkError::TooLong(MAX_LINK_CHARS + 1)));
        assert_eq!(decode(&over).unwrap(), json, "too long to share, still a link");
        // Characters, not bytes: 'é' is two bytes.
        assert_eq!(check_length(&"é".repeat(MAX_LINK_CHARS)), Ok(()));
    }

    #[test]
    fn the_messages_name_the_problem() {
        let all = [
            LinkError::NoResult,
            LinkError::NotBase64("Invalid symbol 36, offset 2.".into()),
            LinkError::NotDeflate("Truncated input stream".into()),
            LinkError::NotText(6),
            LinkError::TooLarge,
            LinkError::TooLong(40_123),
        ];
        insta::assert_snapshot!(all.map(|e| e.to_string()).join("\n"), @r"
        no shared result in it (expected a page link with #r=...)
        the shared result is not base64url (Invalid symbol 36, offset 2.); was the link cut short?
        the shared result does not inflate (Truncated input stream); was the link cut short?
        the shared result is not text (invalid UTF-8 at byte 6): not a result file
        the shared result inflates beyond 16777216 bytes: not a result file
        Too long for a link (40123 characters, more than the 32000 many programs keep)
        ");
    }
}

/// No text makes the decoder panic (or allocate without bound): links come from anyone.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod fuzz {
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_text_decodes_or_says_why(text in "\\PC{0,200}", data in "[A-Za-z0-9_=-]{0,300}") {
            let _ = super::decode(&text);
            let _ = super::decode(&format!("#r={data}"));
        }

        #[test]
        fn any_deflate_like_bytes_decode_or_say_why(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
            let _ = super::decode(&format!("#r={}", base64::Engine::encode(&super::BASE64URL, bytes)));
        }
    }
}
