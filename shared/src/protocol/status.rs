//! What the page tells `httpbench serve` while it runs (`POST /status`, one line of text): how far it got, so
//! `run --browser` bounds its wait by the page's silence rather than by a guess of how long the run takes;
//! and that it refused its plan, so `run --browser` fails at once with the page's own message instead of
//! waiting for a result that never comes. The page writes it, the server reads it and hands it to the CLI.

/// Where the page posts its status, beside the results endpoint.
pub const STATUS_PATH: &str = "/status";

/// Largest status body the server reads; a longer one is cut (a status is one line).
pub const MAX_STATUS_BYTES: usize = 4096;

/// One word from the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageStatus {
    /// The run goes on: what it runs now (`round 2/5 fetch/reuse · 11 rounds left`).
    Progress(String),
    /// The page will not run its plan, for this reason (naming the bad value, as the form says it).
    Refused(String),
}

impl PageStatus {
    /// The body to post: `progress TEXT` or `refused TEXT`, on one line.
    pub fn to_body(&self) -> String {
        let (word, text) = match self {
            PageStatus::Progress(t) => ("progress", t),
            PageStatus::Refused(t) => ("refused", t),
        };
        format!("{word} {}", one_line(text))
    }

    /// Read a posted body; `None` for anything else. Control characters become spaces, so a status printed
    /// to a terminal cannot move its cursor or change its title.
    pub fn parse(body: &str) -> Option<PageStatus> {
        let mut end = body.len().min(MAX_STATUS_BYTES);
        while !body.is_char_boundary(end) {
            end -= 1;
        }
        let (word, text) = body[..end].split_once(' ').unwrap_or((&body[..end], ""));
        let text = one_line(text);
        match word {
            "progress" => Some(PageStatus::Progress(text)),
            "refused" => Some(PageStatus::Refused(text)),
            _ => None,
        }
    }
}

fn one_line(text: &str) -> String {
    let spaced: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    spaced.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_round_trips_on_one_line_and_nothing_else_reads_as_one() {
        for s in [PageStatus::Progress("round 1/5 fetch/reuse".into()), PageStatus::Refused("count 0 ...".into())] {
            assert_eq!(PageStatus::parse(&s.to_body()), Some(s));
        }
        let hostile = PageStatus::parse("refused a\nb\x1b]0;title\x07");
        assert_eq!(hostile, Some(PageStatus::Refused("a b ]0;title".into())));
        assert_eq!(PageStatus::parse("saved x"), None);
        assert_eq!(PageStatus::parse(""), None);
        let long = format!("progress {}", "é".repeat(MAX_STATUS_BYTES));
        assert!(matches!(PageStatus::parse(&long), Some(PageStatus::Progress(t)) if t.len() < MAX_STATUS_BYTES));
    }
}
