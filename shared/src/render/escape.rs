//! Text from someone else's result file (client names, error reasons, tags, versions) reaches a terminal
//! through the text, Markdown and CSV reports and through error messages. Control characters in it would be
//! obeyed there: ESC sequences change the window title or colours, OSC 52 writes the clipboard, and the
//! Unicode bidirectional controls reorder what is shown. They are shown escaped instead (`\x1b`, `\u{202e}`);
//! a newline and a tab stay, as the reports' own layout uses them.

use std::borrow::Cow;

/// `text` with every control character but `\n` and `\t`, and every bidirectional control, escaped.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let risky = |c: char| (c.is_control() && c != '\n' && c != '\t') || is_bidi(c);
    if !text.chars().any(risky) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !risky(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

/// The Unicode bidirectional embedding, override and isolate controls.
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_and_layout_stays() {
        assert!(matches!(escape_controls("curl/fresh  1.2 ms\n\tok"), Cow::Borrowed(_)));
        assert_eq!(escape_controls("a\u{1b}]0;title\u{7}b"), r"a\x1b]0;title\x07b");
        assert_eq!(escape_controls("\u{1b}]52;c;SGVsbG8=\u{1b}\\"), r"\x1b]52;c;SGVsbG8=\x1b\");
        assert_eq!(escape_controls("x\u{9b}31m\u{202e}y\r\u{7f}"), r"x\u{9b}31m\u{202e}y\x0d\x7f");
        assert_eq!(escape_controls("naïve µs ±"), "naïve µs ±");
    }
}
