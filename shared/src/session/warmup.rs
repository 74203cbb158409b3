//! What the warm-up tells before anything is measured: when every warm-up request of every case failed, the
//! target is down or wrong, and measuring it would print tables of failures. The session then stops after the
//! warm-up ([`Unreachable`]) and the front end says why in one line, with what to check.

use crate::model::ErrorKind;
use crate::stats::Outcome;

/// One case's warm-up: requests, ok ones, and the first failure with its reason.
#[derive(Debug, Clone, Default)]
pub(super) struct Tally {
    pub(super) requests: u64,
    pub(super) ok: u64,
    pub(super) first_failure: Option<(ErrorKind, Option<String>)>,
}

impl Tally {
    /// Count one warm-up request; the first failure's kind and reason are kept.
    pub(super) fn record(&mut self, outcome: &Outcome, reason: Option<&str>) {
        self.requests += 1;
        match outcome.failure() {
            None => self.ok += 1,
            Some(kind) => {
                let reason = reason.map(str::to_string).or_else(|| outcome.status.map(|s| format!("HTTP {s}")));
                self.first_failure.get_or_insert((kind, reason));
            }
        }
    }
}

/// Why a run stopped after its warm-up: every warm-up request of every case failed, this the first failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreachable {
    /// The kind of the first failure.
    pub kind: ErrorKind,
    /// What the client said of it, where it said anything.
    pub reason: Option<String>,
}

impl Unreachable {
    /// One line: `every request to URL failed in the warm-up (connect: Connection refused); is the server
    /// running?`.
    pub fn message(&self, target: &str) -> String {
        let why = match &self.reason {
            Some(r) => format!("{}: {r}", self.kind),
            None => self.kind.to_string(),
        };
        format!("every request to {target} failed in the warm-up ({why}); {}", self.hint())
    }

    /// What to check for this kind of failure.
    fn hint(&self) -> &'static str {
        match self.kind {
            ErrorKind::Connect => "is the server running, on that port?",
            ErrorKind::Dns => "is the host name right?",
            ErrorKind::Tls => "does its certificate name the host, and is its CA given (--cacert)?",
            ErrorKind::Timeout => "is the server answering within --timeout?",
            ErrorKind::Status => "does the URL answer 2xx to a GET?",
            ErrorKind::Redirect => "give the URL it redirects to",
            _ => "check the URL and the server",
        }
    }
}

/// The run's target is unreachable when the warm-up ran and every case that was not stopped made warm-up
/// requests, none of them ok: the first case's first failure says why.
pub(super) fn unreachable<'a>(tallies: impl Iterator<Item = (&'a Tally, bool)>) -> Option<Unreachable> {
    let mut first = None;
    for (tally, aborted) in tallies {
        if aborted {
            continue;
        }
        if tally.requests == 0 || tally.ok > 0 {
            return None;
        }
        first = first.or_else(|| tally.first_failure.clone());
    }
    first.map(|(kind, reason)| Unreachable { kind, reason })
}
