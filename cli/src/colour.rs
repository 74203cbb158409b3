//! Colour for the text report on a terminal: each verdict in its colour, warnings, the headline's reference.
//! Only where a terminal takes it: stdout is one and `NO_COLOR` is unset (no-color.org); a pipe, a file and
//! every export stay plain. The styles are anstyle's (clap's own, already in the tree); the report's words and
//! glyphs say the same without colour.

use std::io::IsTerminal;

use anstyle::{AnsiColor, Style};
use httpbench_shared::change::Verdict;

/// Whether stdout takes colour.
pub(crate) fn wanted() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The verdicts as the reports word them ([`Verdict::label`]), each with its style.
fn verdicts() -> [(String, Style); 5] {
    let bold = |c: AnsiColor| Style::new().fg_color(Some(c.into())).bold();
    [
        (Verdict::Slower.label(), bold(AnsiColor::Red)),
        (Verdict::Failed.label(), bold(AnsiColor::Red)),
        (Verdict::Faster.label(), bold(AnsiColor::Green)),
        (Verdict::Inconclusive.label(), bold(AnsiColor::Yellow)),
        (Verdict::Unchanged.label(), Style::new().dimmed()),
    ]
}

/// `text` (already escaped: the styles added here are the only control sequences in it) with its verdicts,
/// warnings and references styled.
pub(crate) fn paint(text: &str) -> String {
    let warning = Style::new().fg_color(Some(AnsiColor::Yellow.into())).bold();
    let mut out = String::with_capacity(text.len() + 256);
    for line in text.split_inclusive('\n') {
        let mut line = line.to_string();
        for (word, style) in verdicts() {
            line = line.replace(&word, &format!("{style}{word}{style:#}"));
        }
        if let Some(rest) = line.strip_prefix("warning:") {
            line = format!("{warning}warning:{warning:#}{rest}");
        }
        // A headline block's title: `reuse: against native/curl (the fastest ...)`: the reference in bold.
        if let Some((head, rest)) = line.split_once("against ").filter(|(h, _)| !h.starts_with(' ')) {
            if let Some((reference, tail)) = rest.split_once(" (") {
                let bold = Style::new().bold();
                line = format!("{head}against {bold}{reference}{bold:#} ({tail}");
            }
        }
        out.push_str(&line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::paint;

    /// `s` less its SGR sequences (`ESC [ ... m`).
    fn strip(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                chars.by_ref().find(|&c| c == 'm');
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn verdicts_warnings_and_the_reference_are_styled_and_nothing_else_changes() {
        let text = "Headline: time per request\nreuse: against native/curl (the fastest, 1 ms/req)\n  ▼ slower  ureq  +1 µs\n  ≈ same  raw\nwarning: noisy rounds\ncase  req/s\n";
        let painted = paint(text);
        assert!(painted.contains("▼ slower\u{1b}[0m") && painted.contains("31m▼ slower"), "{painted:?}");
        assert!(painted.contains("against \u{1b}[1mnative/curl\u{1b}[0m ("), "{painted:?}");
        assert!(painted.contains("warning:\u{1b}[0m noisy rounds"), "{painted:?}");
        // Without its styles, the text is what it was.
        assert_eq!(strip(&painted), text);
        assert!(paint("case  req/s\n").eq("case  req/s\n"));
    }
}
