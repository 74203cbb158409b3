//! The one bound on a client's name, wherever a name enters: a result file (and so a shared link, which is
//! one), and `--client-cmd NAME=...`. Names become labels, chart legends and table cells; a name of 74 KB
//! once made a format width overflow in the renderer, and one with an escape sequence reached the terminal.
//! Letters, digits, `.`, `_` and `-`, at most [`MAX_NAME_CHARS`]: every name the catalog, the built-in
//! command clients and the page use fits, with room to spare.

/// Longest client name: the longest real one (`python-requests`) is 15.
pub const MAX_NAME_CHARS: usize = 64;

/// Whether `name` may name a client; the error says why not, quoting the name shortened and escaped.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || "._-".contains(c);
    if !name.is_empty() && name.len() <= MAX_NAME_CHARS && name.chars().all(ok_char) {
        return Ok(());
    }
    Err(format!("'{}' cannot name a client: use 1 to {MAX_NAME_CHARS} letters, digits, '.', '_' and '-'", shown(name)))
}

/// `text` as an error message may quote it: at most 40 characters (an ellipsis and the full length after
/// a longer one), control characters escaped.
pub fn shown(text: &str) -> String {
    const SHOWN: usize = 40;
    let count = text.chars().count();
    let head: String = text.chars().take(SHOWN).collect();
    let head = crate::render::escape_controls(&head).into_owned();
    if count > SHOWN {
        format!("{head}... ({count} characters)")
    } else {
        head
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_names_pass_and_others_say_why() {
        for name in ["curl", "reqwest-async", "python-requests", "js-fetch", "my.client_2", &"a".repeat(64)] {
            assert_eq!(check_name(name), Ok(()), "{name}");
        }
        for (name, says) in [
            ("", "'' cannot name"),
            ("my client", "'my client' cannot name"),
            ("a/b", "'a/b'"),
            ("\u{1b}]0;owned\u{7}", r"'\x1b]0;owned\x07' cannot name"),
        ] {
            let e = check_name(name).unwrap_err();
            assert!(e.contains(says) && e.contains("1 to 64 letters"), "{name:?}: {e}");
        }
        let e = check_name(&"x".repeat(70_000)).unwrap_err();
        assert!(e.contains("... (70000 characters)") && e.len() < 200, "{e}");
    }
}
