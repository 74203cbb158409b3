//! libcurl's multi interface, `curl-multi`: one thread drives N easy handles at once, as libcurl users do
//! concurrency. Reuse mode keeps the handles and the multi handle's connection cache (over HTTP/2 its
//! requests share one connection, multiplexed, new transfers waiting for it with `CURLOPT_PIPEWAIT`); fresh mode makes a new handle per request that forbids reuse,
//! so each request opens and closes its own connection.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use curl::easy::Easy2;
use curl::multi::{Easy2Handle, Multi};
use httpbench_shared::model::HttpVersion;
use httpbench_shared::session::RoundBudget;
use httpbench_shared::{ErrorKind, Mode, Outcome};

use super::curl::{kind, new_handle, outcome_of, phases_of, Counter};
use super::pool::{Pool, Record, Round, RoundEnd, Sample, Tickets};
use super::DriverConfig;
use httpbench_shared::protocol::ClientInfo;

use super::library::Library;

/// libcurl's multi interface at any level, one multi handle: the `curl-multi` row of the client table.
pub(super) struct Lib;

impl Library for Lib {
    fn name(&self) -> &'static str {
        "curl-multi"
    }

    fn driver(&self, config: &DriverConfig, in_flight: usize) -> anyhow::Result<Box<dyn Pool>> {
        Ok(Box::new(CurlMulti::new(config, in_flight)))
    }

    fn version(&self, _: &ClientInfo) -> String {
        super::curl::version()
    }

    fn cannot_speak(&self, http: HttpVersion) -> Option<String> {
        super::curl::cannot_speak(http)
    }
}

/// Longest wait for socket activity before the loop looks at the stop flag again.
const WAIT: Duration = Duration::from_millis(50);

/// The multi client: a multi handle and the easy handles it keeps for reuse.
pub(super) struct CurlMulti {
    config: DriverConfig,
    in_flight: usize,
    multi: Multi,
    idle: Vec<Easy2<Counter>>,
}

/// A transfer in progress.
struct Transfer {
    handle: Easy2Handle<Counter>,
    start: Instant,
}

impl CurlMulti {
    /// A multi client keeping `in_flight` transfers going.
    pub(super) fn new(config: &DriverConfig, in_flight: usize) -> Self {
        CurlMulti { config: config.clone(), in_flight: in_flight.max(1), multi: Multi::new(), idle: Vec::new() }
    }

    /// An easy handle for the next request: a kept one in reuse mode, else a new one.
    fn handle(&mut self) -> Result<Easy2<Counter>, curl::Error> {
        if let Some(mut h) = self.idle.pop() {
            h.get_mut().reset();
            return Ok(h);
        }
        let mut h = new_handle(&self.config)?;
        match self.config.mode {
            Mode::Fresh => {
                h.fresh_connect(true)?;
                h.forbid_reuse(true)?;
                // libcurl 8 keeps TLS sessions in the multi handle, shared by its transfers: without this, a
                // fresh transfer resumed the last one's session (1 full handshake and 11 resumed in 12 fresh
                // requests with curl-sys's bundled libcurl 8; Debian's 7.88 keeps them per handle).
                h.ssl_sessionid_cache(false)?;
            }
            // Over HTTP/2 a new transfer waits for a connection being set up to multiplex on it, rather than
            // open one of its own: what libcurl's documentation advises for multiplexing.
            Mode::Reuse if self.config.http == HttpVersion::Http2 => h.pipewait(true)?,
            Mode::Reuse => {}
        }
        Ok(h)
    }

    /// Start one transfer under `token`; a request that cannot even start is a failed sample.
    fn start(&mut self, token: usize) -> Result<Transfer, Sample> {
        let start = Instant::now();
        let failed = |kind, reason: String| Sample {
            outcome: Outcome::failed(kind, None),
            latency: start.elapsed(),
            phases: None,
            reason: Some(reason),
        };
        let h = self.handle().map_err(|e| failed(kind(&e), e.to_string()))?;
        let mut handle = self.multi.add2(h).map_err(|e| failed(ErrorKind::Other, e.to_string()))?;
        handle.set_token(token).map_err(|e| failed(kind(&e), e.to_string()))?;
        Ok(Transfer { handle, start })
    }

    /// Take a finished transfer out of the multi handle: its sample, and its handle kept in reuse mode.
    fn finish(&mut self, t: Transfer, result: Result<(), curl::Error>) -> Sample {
        let latency = t.start.elapsed();
        let Ok(mut h) = self.multi.remove2(t.handle) else {
            let outcome = Outcome::failed(ErrorKind::Other, None);
            return Sample { outcome, latency, phases: None, reason: Some("libcurl lost a transfer".into()) };
        };
        // A message's result carries no description; the handle's error buffer does ("no alternative
        // certificate subject name matches"), as the easy interface's errors have it.
        let result = result.map_err(|mut e| {
            if let Some(extra) = h.take_error_buf() {
                e.set_extra(extra);
            }
            e
        });
        let sample = match result.and_then(|()| outcome_of(&mut h)) {
            Ok(outcome) => {
                let phases = outcome.failure().is_none().then(|| phases_of(&mut h, &self.config)).flatten();
                Sample { outcome, latency, phases, reason: None }
            }
            Err(e) => {
                Sample { outcome: Outcome::failed(kind(&e), None), latency, phases: None, reason: Some(e.to_string()) }
            }
        };
        if self.config.mode == Mode::Reuse && sample.reason.is_none() {
            self.idle.push(h);
        }
        sample
    }
}

/// Fill every free slot while `take` gives tickets: a request that cannot even start is recorded as failed
/// and its slot takes the next ticket, so failures to start spend the round's count like any failure (they
/// once ended the round: one request recorded per slot, 1 of `-n 20`, and no warning). Whether tickets remain.
fn fill<T>(
    slots: &mut [Option<T>],
    mut take: impl FnMut() -> bool,
    mut start: impl FnMut(usize) -> Result<T, Sample>,
    record: &mut dyn FnMut(Sample),
) -> bool {
    for (token, slot) in slots.iter_mut().enumerate() {
        while slot.is_none() {
            if !take() {
                return false;
            }
            match start(token) {
                Ok(t) => *slot = Some(t),
                Err(sample) => record(sample),
            }
        }
    }
    true
}

impl Pool for CurlMulti {
    fn run(&mut self, round: Round<'_>, record: &mut dyn Record) -> RoundEnd {
        self.round(round.budget, round.stop, &mut |s| record.sample(s));
        RoundEnd::default()
    }
}

impl CurlMulti {
    /// The round in libcurl's multi loop.
    fn round(&mut self, budget: RoundBudget, stop: &AtomicBool, record: &mut dyn FnMut(Sample)) {
        let tickets = Tickets::new(budget);
        let mut slots: Vec<Option<Transfer>> = (0..self.in_flight).map(|_| None).collect();
        let mut more = true;
        loop {
            if more {
                let take = || !stop.load(Ordering::Relaxed) && tickets.take();
                more = fill(&mut slots, take, |token| self.start(token), record);
            }
            if slots.iter().all(Option::is_none) {
                return;
            }
            if let Err(e) = self.multi.perform() {
                // The multi handle itself broke: every transfer in it fails.
                for t in slots.iter_mut().filter_map(Option::take) {
                    let mut sample = self.finish(t, Ok(()));
                    sample.outcome = Outcome::failed(ErrorKind::Other, None);
                    sample.reason = Some(format!("libcurl's multi handle failed: {e}"));
                    record(sample);
                }
                return;
            }
            let mut done: Vec<(usize, Result<(), curl::Error>)> = Vec::new();
            self.multi.messages(|m| {
                if let (Ok(token), Some(result)) = (m.token(), m.result()) {
                    done.push((token, result));
                }
            });
            if done.is_empty() {
                let _ = self.multi.wait(&mut [], WAIT);
            }
            for (token, result) in done {
                if let Some(t) = slots.get_mut(token).and_then(Option::take) {
                    record(self.finish(t, result));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn failed() -> Sample {
        Sample {
            outcome: Outcome::failed(ErrorKind::Protocol, None),
            latency: Duration::ZERO,
            phases: None,
            reason: None,
        }
    }

    /// Every start failing spends the whole count, `-c 4` or not; starts that work fill their slots.
    #[test]
    fn requests_that_cannot_start_are_each_recorded() {
        for slots in [1, 4] {
            let tickets = Tickets::new(RoundBudget::Requests(20));
            let mut free: Vec<Option<()>> = vec![None; slots];
            let mut recorded = 0;
            let more = fill(&mut free, || tickets.take(), |_| Err(failed()), &mut |_| recorded += 1);
            assert_eq!((recorded, more), (20, false), "{slots} slots");
        }
        let tickets = Tickets::new(RoundBudget::Requests(20));
        let mut free: Vec<Option<usize>> = vec![None; 4];
        let (mut recorded, mut calls) = (0, 0);
        let start = |token: usize| {
            calls += 1;
            if calls % 2 == 0 {
                Ok(token)
            } else {
                Err(failed())
            }
        };
        assert!(fill(&mut free, || tickets.take(), start, &mut |_| recorded += 1));
        assert_eq!((recorded, free), (4, vec![Some(0), Some(1), Some(2), Some(3)]));
    }
}
