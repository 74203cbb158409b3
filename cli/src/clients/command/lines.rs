//! The lines a command client prints, read strictly: a request line (`<ns> <status> <body_bytes>`, or
//! `<ns> 0 0 <kind>` for a failure, optionally followed by a space and a one-line reason), `end`, or
//! `version <text>`. Anything else is named back in the error, so a broken adapter says which line broke it.

use std::time::Duration;

use httpbench_shared::{ErrorKind, Outcome};

/// One line of an adapter's answer.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Line<'a> {
    /// One request: how long it took by the adapter's clock, and what happened.
    Request {
        /// The adapter's own measurement of the request.
        latency: Duration,
        /// What happened.
        outcome: Outcome,
        /// Why it failed, in the adapter's words, where it said (the rest of a failure line).
        reason: Option<&'a str>,
    },
    /// The batch is complete.
    End,
    /// The adapter's library and version.
    Version(&'a str),
}

/// Longest line accepted: a request line is under 40 bytes, a version line a sentence.
pub(super) const MAX_LINE: usize = 1024;

/// Parse one line (without its newline). The error says what is wrong with it; the caller names the line.
pub(super) fn parse(line: &str) -> Result<Line<'_>, String> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line == "end" {
        return Ok(Line::End);
    }
    if let Some(text) = line.strip_prefix("version ") {
        return Ok(Line::Version(text.trim()));
    }
    // Everything after the fourth field is the reason: it has spaces of its own.
    let mut fields = line.splitn(5, ' ');
    let (Some(ns), Some(status), Some(bytes)) = (fields.next(), fields.next(), fields.next()) else {
        return Err("expected '<nanoseconds> <status> <body_bytes>', '<nanoseconds> 0 0 <kind>' or 'end'".into());
    };
    let kind = fields.next();
    let reason = fields.next().map(str::trim).filter(|r| !r.is_empty());
    let ns: u64 = ns.parse().map_err(|_| format!("'{ns}' is not a whole number of nanoseconds"))?;
    let latency = Duration::from_nanos(ns);
    let status: u16 = status.parse().map_err(|_| format!("'{status}' is not an HTTP status"))?;
    let bytes: u64 = bytes.parse().map_err(|_| format!("'{bytes}' is not a byte count"))?;
    let outcome = match (status, kind) {
        (0, Some(_)) if bytes != 0 => return Err("a failure line is '<nanoseconds> 0 0 <kind>'".into()),
        (0, Some(kind)) => Outcome::failed(ErrorKind::from_name(kind).ok_or_else(|| unknown_kind(kind))?, None),
        (0, None) => return Err("status 0 needs the error kind as a fourth field".into()),
        (100..=599, None) => Outcome::response(status, bytes),
        (100..=599, Some(_)) => return Err("a response line has three fields; a kind goes with status 0".into()),
        _ => return Err(format!("status {status} is not an HTTP status (100-599, or 0 for a failure)")),
    };
    Ok(Line::Request { latency, outcome, reason })
}

fn unknown_kind(kind: &str) -> String {
    let kinds: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
    format!("unknown error kind '{kind}': expected one of {}", kinds.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_kinds_of_line() {
        assert_eq!(
            parse("1500 200 612"),
            Ok(Line::Request {
                latency: Duration::from_nanos(1500),
                outcome: Outcome::response(200, 612),
                reason: None
            })
        );
        let failed = Outcome::failed(ErrorKind::Timeout, None);
        let at = Duration::from_nanos(10);
        assert_eq!(parse("10 0 0 timeout"), Ok(Line::Request { latency: at, outcome: failed, reason: None }));
        // An old adapter's line and a new one's, with a reason of several words.
        let failed = Outcome::failed(ErrorKind::Tls, None);
        assert_eq!(
            parse("10 0 0 tls  Can't connect (hostname verification failed) "),
            Ok(Line::Request {
                latency: at,
                outcome: failed,
                reason: Some("Can't connect (hostname verification failed)")
            })
        );
        assert_eq!(parse("end\r"), Ok(Line::End));
        assert_eq!(parse("version LWP 6.68 (perl 5.36)"), Ok(Line::Version("LWP 6.68 (perl 5.36)")));
        // A 404 is a complete response: the session counts it as a `status` failure.
        let Ok(Line::Request { outcome, .. }) = parse("9 404 40") else { panic!() };
        assert_eq!(outcome.failure(), Some(ErrorKind::Status));
    }

    #[test]
    fn every_malformed_line_says_what_is_wrong() {
        for (line, says) in [
            ("", "expected '<nanoseconds>"),
            ("ok", "expected"),
            ("1.5 200 612", "'1.5' is not a whole number"),
            ("-3 200 612", "'-3'"),
            ("10 OK 612", "'OK' is not an HTTP status"),
            ("10 200 lots", "'lots' is not a byte count"),
            ("10 0 0", "needs the error kind"),
            ("10 0 5 reset", "a failure line is '<nanoseconds> 0 0 <kind>'"),
            ("10 0 0 gremlins", "unknown error kind 'gremlins': expected one of connect, dns"),
            ("10 200 612 timeout", "a kind goes with status 0"),
            ("10 999 1", "status 999"),
            ("10 200 1 x y", "a kind goes with status 0"),
            ("  10 200 612", "'' is not a whole number"),
        ] {
            let e = parse(line).unwrap_err();
            assert!(e.contains(says), "{line:?}: {e}");
        }
    }
}
