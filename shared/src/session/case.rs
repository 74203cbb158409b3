//! What the session keeps of one case while it runs ([`CaseState`]: its recorder, CPU, reasons, handshakes,
//! connections), and the case of the report it finishes as.

use super::CaseKey;
use crate::model::{Case, ErrorKind, HttpVersion};
use crate::stats::{CpuTime, Handshakes, Recorder};

/// One case of a session in progress.
pub(super) struct CaseState {
    pub(super) key: CaseKey,
    pub(super) recorder: Recorder,
    /// Summed over the rounds; `None` once any round's CPU time was unknown.
    pub(super) cpu: Option<CpuTime>,
    /// Iterations recorded when the current round began.
    pub(super) round_start: u64,
    /// Why the case was stopped early, once it was.
    pub(super) aborted: Option<String>,
    /// The first reason given for each kind of failure.
    pub(super) reasons: Vec<(ErrorKind, String)>,
    /// The HTTP version a browser reported its responses came over (it negotiates, nobody asks it).
    pub(super) observed_http: Option<HttpVersion>,
    /// Handshakes the server saw during this case's rounds, by (TLS version, cipher suite); `None` until the
    /// front end reported any (it can only for its own server).
    pub(super) handshakes: Option<Vec<Handshakes>>,
    /// Connections the server accepted during this case's rounds; `None` until the front end reported any.
    pub(super) connections: Option<u64>,
    /// What the emulated link did to its packets in its rounds; `None` until the front end reported any.
    pub(super) link_counts: Option<crate::model::LinkCounts>,
    /// Its warm-up's requests, ok ones and first failure.
    pub(super) warmup: super::warmup::Tally,
}

impl CaseState {
    /// Keep `reason` if it is the first for `kind`.
    pub(super) fn note_reason(&mut self, kind: ErrorKind, reason: String) {
        if !self.reasons.iter().any(|(k, _)| *k == kind) {
            self.reasons.push((kind, reason));
        }
    }

    /// The finished case: the recorder's figures, and what the session knows of the case.
    pub(super) fn case(&self, tls: bool) -> Case {
        let seen = self.handshakes.as_deref().filter(|_| tls);
        let mut case = Case {
            http_version: self.observed_http.unwrap_or(self.key.http),
            tls: seen.and_then(suite),
            tls_full_handshakes: seen.map(|s| s.iter().map(|h| h.full).sum()),
            tls_resumed_handshakes: seen.map(|s| s.iter().map(|h| h.resumed).sum()),
            // In report order, without a sort (the page would carry one more sort for it).
            error_reasons: ErrorKind::ALL
                .iter()
                .filter_map(|kind| self.reasons.iter().find(|(k, _)| k == kind))
                .map(|(k, r)| format!("{k}: {r}"))
                .collect(),
            aborted: self.aborted.clone(),
            concurrency: Some(u64::from(self.key.concurrency)).filter(|c| *c > 1),
            body_bytes: self.key.body_bytes,
            server_delay_ms: self.key.server_delay_ms,
            connections: self.connections,
            ..self.recorder.finish(&self.key.client, self.key.mode, self.cpu)
        };
        case.set_link(self.key.link);
        case.set_link_counts(self.link_counts);
        case
    }
}

/// `VERSION SUITE` of most of a case's handshakes, if it made any.
fn suite(seen: &[Handshakes]) -> Option<String> {
    let most = seen.iter().filter(|h| h.full + h.resumed > 0).max_by_key(|h| h.full + h.resumed)?;
    Some(format!("{} {}", most.version, most.cipher_suite))
}
