//! The seal of a `run --browser` page: a random secret the run makes for each page it starts and hands to
//! that page alone, which every turn, status and result request of the page carries (`seal=SECRET` in its
//! query). The run's server answers such requests only when the seal is the one it was given for that page,
//! so no program of another user on the machine, and no web page, can take a page's turn, speak for it or
//! post its figures (a program of the run's own user could read the start page below, as it could read the
//! run's memory: the seal keeps out who cannot do that). The page gets its seal in its address's fragment (`#seal=SECRET`), which no request sends
//! and which the page removes from its address as soon as it has read it; the CLI puts that address in a
//! start page inside the browser's private profile folder, never on a command line (`/proc/PID/cmdline` is
//! world-readable). Both halves live here: the seal's form, how requests carry it and how the page finds it.
//! The random bytes come from the CLI (shared reads no system source), and comparing seals in constant time
//! is the server's job (it has the crate for it).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// The query parameter and fragment key that carry a seal.
pub const SEAL_PARAM: &str = "seal";

/// Random bytes in a seal: 256 bits, not to be guessed.
pub const SEAL_BYTES: usize = 32;

/// Characters of a seal: [`SEAL_BYTES`] in unpadded base64url.
pub const SEAL_CHARS: usize = 43;

/// The seal made of `random` (from the system's random source).
pub fn new_seal(random: &[u8; SEAL_BYTES]) -> String {
    URL_SAFE_NO_PAD.encode(random)
}

/// Whether `seal` has a seal's form: [`SEAL_CHARS`] characters of base64url. Anything else is no seal, and
/// is never compared (or echoed: a message names no secret).
pub fn is_seal(seal: &str) -> bool {
    seal.len() == SEAL_CHARS && seal.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The seal a request's query carries (`seal=SECRET`), if it has a seal's form.
pub fn asked_seal(query: Option<&str>) -> Option<&str> {
    query?.split('&').find_map(|kv| value_of(kv)).filter(|s| is_seal(s))
}

/// The fragment that hands `seal` to the page: `#seal=SECRET`.
pub fn seal_fragment(seal: &str) -> String {
    format!("#{SEAL_PARAM}={seal}")
}

/// The seal in a page's fragment (`#seal=SECRET`, as [`seal_fragment`] writes it), if it has one.
pub fn seal_of_fragment(fragment: &str) -> Option<&str> {
    value_of(fragment.strip_prefix('#').unwrap_or(fragment)).filter(|s| is_seal(s))
}

/// The value of `seal=VALUE`, if `pair` is that pair.
fn value_of(pair: &str) -> Option<&str> {
    pair.strip_prefix(SEAL_PARAM)?.strip_prefix('=')
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEAL: &str = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde";

    #[test]
    fn a_seal_round_trips_through_the_fragment_and_the_query() {
        assert!(is_seal(SEAL));
        let made = new_seal(&[0xfb; SEAL_BYTES]);
        assert!(is_seal(&made) && made.len() == SEAL_CHARS, "{made}");
        assert_eq!(seal_of_fragment(&seal_fragment(SEAL)), Some(SEAL));
        assert_eq!(asked_seal(Some(&format!("page=chromium&seal={SEAL}&pass=2"))), Some(SEAL));
    }

    #[test]
    fn anything_else_is_no_seal() {
        for bad in ["", "short", &SEAL[1..], &format!("{SEAL}x"), &SEAL.replace('A', "+"), &SEAL.replace('A', "%")] {
            assert!(!is_seal(bad), "{bad}");
            assert_eq!(asked_seal(Some(&format!("page=chromium&seal={bad}"))), None, "{bad}");
            assert_eq!(seal_of_fragment(&format!("#seal={bad}")), None, "{bad}");
        }
        assert_eq!(asked_seal(Some("page=chromium")), None);
        assert_eq!(asked_seal(None), None);
        assert_eq!(seal_of_fragment("#r=abc"), None, "a share link's fragment is no seal");
    }
}
