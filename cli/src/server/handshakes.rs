//! The TLS handshakes the embedded server completed, by TLS version and cipher suite, full and resumed: the
//! tally and the text `GET /tls/handshakes` answers with (the runner's [`super::probe`] reads it around each
//! round), so each case's report says what was negotiated and that fresh clients resumed nothing. A
//! connection that asks for the tally is taken out of it, so reading it never changes it.

use std::sync::Mutex;

use httpbench_shared::stats::Handshakes;

/// The tally, shared by the server's connections.
#[derive(Debug, Default)]
pub(crate) struct Tally(Mutex<Vec<Handshakes>>);

/// What one connection's handshake was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seen {
    /// `TLSv1.3`.
    pub version: String,
    /// `TLS13_AES_256_GCM_SHA384`.
    pub cipher_suite: String,
    /// Whether it resumed a session.
    pub resumed: bool,
}

impl Seen {
    /// The handshake of a server connection that completed it.
    pub(crate) fn of(conn: &rustls::ServerConnection) -> Seen {
        let version = conn.protocol_version().and_then(|v| v.as_str()).unwrap_or("unknown").replace('_', ".");
        let cipher_suite = conn.negotiated_cipher_suite().and_then(|s| s.suite().as_str()).unwrap_or("unknown");
        let resumed = conn.handshake_kind() == Some(rustls::HandshakeKind::Resumed);
        Seen { version, cipher_suite: cipher_suite.to_string(), resumed }
    }
}

impl Tally {
    /// Count one handshake (`add`), or take one back (not `add`: a connection that only reads the tally).
    pub(crate) fn count(&self, seen: &Seen, add: bool) {
        let Ok(mut all) = self.0.lock() else { return };
        let i = match all.iter().position(|h| h.version == seen.version && h.cipher_suite == seen.cipher_suite) {
            Some(i) => i,
            None => {
                let (version, cipher_suite) = (seen.version.clone(), seen.cipher_suite.clone());
                all.push(Handshakes { version, cipher_suite, full: 0, resumed: 0 });
                all.len() - 1
            }
        };
        let n = if seen.resumed { &mut all[i].resumed } else { &mut all[i].full };
        *n = if add { *n + 1 } else { n.saturating_sub(1) };
    }

    /// `full N resumed M`, then one `VERSION SUITE FULL RESUMED` line per negotiated pair.
    pub(crate) fn text(&self) -> String {
        let all = self.0.lock().map(|a| a.clone()).unwrap_or_default();
        let (full, resumed) = all.iter().fold((0, 0), |(f, r), h| (f + h.full, r + h.resumed));
        let mut s = format!("full {full} resumed {resumed}\n");
        for h in &all {
            s.push_str(&format!("{} {} {} {}\n", h.version, h.cipher_suite, h.full, h.resumed));
        }
        s
    }
}

/// The pairs of a tally's text; `None` if it is not one.
pub(crate) fn parse(text: &str) -> Option<Vec<Handshakes>> {
    let mut lines = text.lines();
    lines.next().filter(|l| l.starts_with("full "))?;
    lines
        .map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            [v, s, f, r] => Some(Handshakes {
                version: v.into(),
                cipher_suite: s.into(),
                full: f.parse().ok()?,
                resumed: r.parse().ok()?,
            }),
            _ => None,
        })
        .collect()
}

/// What `after` counted beyond `before`, pair by pair.
pub(crate) fn since(before: &[Handshakes], after: &[Handshakes]) -> Vec<Handshakes> {
    after
        .iter()
        .map(|a| {
            let b = before.iter().find(|b| b.version == a.version && b.cipher_suite == a.cipher_suite);
            let (full, resumed) = b.map_or((0, 0), |b| (b.full, b.resumed));
            Handshakes { full: a.full.saturating_sub(full), resumed: a.resumed.saturating_sub(resumed), ..a.clone() }
        })
        .filter(|h| h.full + h.resumed > 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tally_text_reads_back_and_differences_are_per_pair() {
        let tally = Tally::default();
        let seen = |v: &str, resumed| Seen { version: v.into(), cipher_suite: "S".into(), resumed };
        let before = parse(&tally.text()).unwrap();
        assert!(before.is_empty());
        for s in [seen("TLSv1.3", false), seen("TLSv1.3", false), seen("TLSv1.3", true), seen("TLSv1.2", false)] {
            tally.count(&s, true);
        }
        tally.count(&seen("TLSv1.2", false), false);
        let text = tally.text();
        assert!(text.starts_with("full 2 resumed 1\nTLSv1.3 S 2 1\nTLSv1.2 S 0 0\n"), "{text}");
        let after = parse(&text).unwrap();
        let d = since(&before, &after);
        assert_eq!(d, [Handshakes { version: "TLSv1.3".into(), cipher_suite: "S".into(), full: 2, resumed: 1 }]);
        assert_eq!(parse("hello"), None);
        assert_eq!(parse("full 1 resumed 0\nTLSv1.3 S x 0\n"), None);
    }
}
