//! The run session both front ends drive: the plan (warm-up, rounds, interleaving, a count or a duration), one
//! recorder per case, and the settings, in one sans-IO state machine (the pattern of quinn-proto and hyper's
//! protocol cores). The CLI's runner and the page's loop ask it what to run next ([`Session::next_step`]), do the
//! requests and read their own clock, hand back each outcome with its duration and each round's wall time,
//! and finally take the [`Report`] from it. A new dimension of a case is added here once, not per front end.

use std::time::Duration;

use crate::model::{Case, Environment, ErrorKind, HttpVersion, Report, Settings, Target, Tool, SCHEMA_VERSION};
use crate::stats::{Bin, CpuTime, Handshakes, Outcome, PhaseTimes, Recorder};

/// Bars of each case's latency histogram (the page's chart).
pub const HISTOGRAM_BINS: usize = 30;

/// What the front end should do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Make `requests` unmeasured requests with case `case`'s client.
    Warmup {
        /// Index into [`Session::cases`].
        case: usize,
        /// Requests to make.
        requests: u64,
    },
    /// Measure one round of case `case`: requests while `budget` wants more, each timed and handed to
    /// [`Session::record`], then [`Session::end_round`] with the round's wall time.
    Round {
        /// Index into [`Session::cases`].
        case: usize,
        /// 0-based round number.
        round: u32,
        /// How much this round may use.
        budget: RoundBudget,
    },
    /// Pass `pass` of the plan begins ([`Plan::pass_of`]: a round of every case when the rounds interleave,
    /// the whole plan when they do not). Only a session that [takes turns](Session::take_turns) hands this out:
    /// its front end waits here until the other sides of the run (the native clients, each browser engine)
    /// have had their turn at the pass before ([`Turns`]), then asks for the next step.
    Turn {
        /// 0-based pass number.
        pass: u32,
    },
    /// Nothing left (or the run was stopped): take the report with [`Session::finish`].
    Done,
}

/// What the session cannot know itself: who wrote the report, where it ran, what it requested.
#[derive(Debug, Clone)]
pub struct Header {
    /// The program.
    pub tool: Tool,
    /// The machine or browser.
    pub environment: Environment,
    /// The URL requested.
    pub target: Target,
}

/// One case's latency histogram, named by its case so it can never be matched to the wrong one.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseHistogram {
    /// The case.
    pub key: CaseKey,
    /// [`HISTOGRAM_BINS`] bars from the fastest request to p99.
    pub bins: Vec<Bin>,
}

/// What a finished (or stopped) session produced.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The result file: the cases that measured anything, in case order.
    pub report: Report,
    /// The latency histogram of each case of the report.
    pub histograms: Vec<CaseHistogram>,
    /// Whether the run was stopped before its plan was done.
    pub stopped: bool,
    /// Why it stopped after its warm-up, when every warm-up request failed ([`Session::unreachable`]).
    pub unreachable: Option<Unreachable>,
}

/// A run in progress. See the module documentation for the protocol.
pub struct Session {
    plan: Plan,
    matrix: Matrix,
    skipped: Vec<String>,
    timeout: Option<Duration>,
    cases: Vec<CaseState>,
    order: Vec<(usize, u32)>,
    /// Next warm-up to hand out, then index into `order`.
    next_warmup: usize,
    next_round: usize,
    stopped: bool,
    /// Whether the session hands out [`Step::Turn`]s, and the last one it handed out.
    turns: bool,
    last_turn: Option<u32>,
    /// Set when every warm-up request failed, and the run stopped there.
    unreachable: Option<Unreachable>,
}

impl Session {
    /// A session of one case per cell of `matrix` its client can run ([`Matrix`]). `timeout` is the
    /// per-request deadline the front end applies, recorded in the settings (`None` where it cannot set one).
    pub fn new(plan: Plan, matrix: Matrix, timeout: Option<Duration>) -> Self {
        let (keys, skipped) = matrix.cases();
        let cases: Vec<CaseState> = keys
            .into_iter()
            .map(|key| CaseState {
                key,
                recorder: Recorder::new(),
                cpu: Some(CpuTime::default()),
                round_start: 0,
                aborted: None,
                reasons: Vec::new(),
                handshakes: None,
                observed_http: None,
                connections: None,
                link_counts: None,
                warmup: Default::default(),
            })
            .collect();
        let order = plan.order(cases.len());
        let plan = Plan { rounds: plan.rounds.max(1), ..plan };
        Session {
            plan,
            matrix,
            skipped,
            timeout,
            cases,
            order,
            next_warmup: 0,
            next_round: 0,
            stopped: false,
            turns: false,
            last_turn: None,
            unreachable: None,
        }
    }

    /// Share the plan's passes with the other sides of one run (the native clients and the browser engines,
    /// each with its own session): from now on the session hands out a [`Step::Turn`] before each pass's first
    /// round, where its front end waits for its turn, so the sides' rounds interleave as its own cases' do.
    pub fn take_turns(&mut self) {
        self.turns = true;
    }

    /// Case `case`'s name for progress and messages: `client/mode`, then a part for each dimension with
    /// several values (`h2`, `64k`, `d5ms`, `c16`; [`Matrix::label`]).
    pub fn label(&self, case: usize) -> String {
        self.cases.get(case).map(|c| self.matrix.label(&c.key)).unwrap_or_default()
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The cases, in case order; [`Step`]s refer to them by index.
    pub fn cases(&self) -> Vec<&CaseKey> {
        self.cases.iter().map(|c| &c.key).collect()
    }

    /// Measured requests the whole run will make, if it runs by count.
    pub fn measured_requests(&self) -> Option<u64> {
        match self.plan.budget {
            Budget::Count(n) => Some(n.saturating_mul(self.cases.len() as u64)),
            Budget::Duration(_) => None,
        }
    }

    /// Rounds not handed out yet, over every case (for progress: a scan of many levels says how many are left).
    pub fn rounds_left(&self) -> usize {
        self.order.len().saturating_sub(self.next_round)
    }

    /// Warm-up requests the whole run will make.
    pub fn warmup_requests(&self) -> u64 {
        self.plan.warmup.saturating_mul(self.cases.len() as u64)
    }

    /// What to do next: every case's warm-up first, then the rounds in plan order (each pass announced by a
    /// [`Step::Turn`] when the session [takes turns](Session::take_turns), the first before the warm-ups: a
    /// side warms up in its own turn, alone on the machine and over its own emulated link, never beside
    /// another side), then [`Step::Done`]. Steps of an [aborted](Session::abort) case are left out.
    pub fn next_step(&mut self) -> Step {
        if self.stopped {
            return Step::Done;
        }
        if self.turns && self.last_turn.is_none() && !self.order.is_empty() {
            self.last_turn = Some(0);
            return Step::Turn { pass: 0 };
        }
        while self.next_warmup < self.cases.len() {
            let case = self.next_warmup;
            self.next_warmup += 1;
            if self.plan.warmup > 0 && self.cases[case].aborted.is_none() {
                return Step::Warmup { case, requests: self.plan.warmup };
            }
        }
        // Once, after the warm-ups: a target that failed them all would fail every round too. Not in a run
        // shared with other sides, which wait for this one's turns.
        if self.next_round == 0 && self.plan.warmup > 0 && !self.turns && self.unreachable.is_none() {
            self.unreachable = warmup::unreachable(self.cases.iter().map(|c| (&c.warmup, c.aborted.is_some())));
            if self.unreachable.is_some() {
                self.stopped = true;
                return Step::Done;
            }
        }
        while let Some(&(case, round)) = self.order.get(self.next_round) {
            if self.cases[case].aborted.is_some() {
                self.next_round += 1;
                continue;
            }
            let pass = self.plan.pass_of(round);
            if self.turns && self.last_turn != Some(pass) {
                self.last_turn = Some(pass);
                return Step::Turn { pass };
            }
            self.next_round += 1;
            let c = &mut self.cases[case];
            c.round_start = c.recorder.iterations();
            return Step::Round { case, round, budget: self.plan.round_budget(round) };
        }
        Step::Done
    }

    /// Stop case `case` for good, for `reason` (one line: its client broke, so more of it would measure
    /// nothing); the first reason given is kept. End its current round with [`Session::end_round`] first, so
    /// what it measured in it counts. The other cases go on; the report keeps what this one measured and says
    /// why it stopped.
    pub fn abort(&mut self, case: usize, reason: String) {
        if let Some(c) = self.cases.get_mut(case) {
            c.aborted.get_or_insert(reason);
        }
    }

    /// Record one measured request of case `case` and how long it took. A response observed over another HTTP
    /// version than the case asked for counts as a `protocol` error, with that as its reason.
    pub fn record(&mut self, case: usize, outcome: &Outcome, latency: Duration) {
        let Some(c) = self.cases.get_mut(case) else { return };
        match outcome.http {
            Some(seen) if seen != c.key.http && outcome.failure().is_none() => {
                c.recorder.record(&Outcome::failed(ErrorKind::Protocol, outcome.status), latency);
                let reason = format!("the response came over {seen}, {} was asked for", c.key.http);
                c.note_reason(ErrorKind::Protocol, reason);
            }
            _ => c.recorder.record(outcome, latency),
        }
    }

    /// Record one measured request as [`Session::record`] does, with the reason of its failure where the front
    /// end has one: the first reason of each kind of failure is kept, the rest add nothing. The one entry the
    /// front ends record a request through, so the rule lives here once.
    pub fn record_sample(&mut self, case: usize, outcome: &Outcome, latency: Duration, reason: Option<&str>) {
        self.record(case, outcome, latency);
        if let (Some(kind), Some(reason)) = (outcome.error, reason) {
            if self.wants_reason(case, kind) {
                self.note_reason(case, kind, reason.to_string());
            }
        }
    }

    /// Record one warm-up request of case `case` (no figure keeps it): when every warm-up request of every case
    /// failed, the session stops after the warm-up ([`Session::unreachable`]), `reason` the first one's.
    pub fn record_warmup(&mut self, case: usize, outcome: &Outcome, reason: Option<&str>) {
        if let Some(c) = self.cases.get_mut(case) {
            c.warmup.record(outcome, reason);
        }
    }

    /// Whether case `case`'s warm-up has no failure yet, whose reason the front end should then describe.
    pub fn wants_warmup_reason(&self, case: usize) -> bool {
        self.cases.get(case).is_some_and(|c| c.warmup.first_failure.is_none())
    }

    /// Why the run stopped after its warm-up, when every warm-up request failed.
    pub fn unreachable(&self) -> Option<&Unreachable> {
        self.unreachable.as_ref()
    }

    /// Whether case `case` has no reason yet for failures of `kind` (so a front end whose describing costs time
    /// need only describe the first failure of each kind).
    pub fn wants_reason(&self, case: usize, kind: ErrorKind) -> bool {
        self.cases.get(case).is_some_and(|c| !c.reasons.iter().any(|(k, _)| *k == kind))
    }

    /// Give the reason for a failure of `kind` in case `case`, in one line, apart from its request (a front end
    /// that hears reasons apart from outcomes); the first of each kind is kept.
    pub fn note_reason(&mut self, case: usize, kind: ErrorKind, reason: String) {
        if let Some(c) = self.cases.get_mut(case) {
            c.note_reason(kind, reason);
        }
    }

    /// The HTTP version case `case`'s responses came over, as a browser tells it (Resource Timing's
    /// `nextHopProtocol`; it negotiates by ALPN on its own). Where the matrix [negotiated](Matrix::negotiated)
    /// the version the case records what it saw (the first report kept); where the case asked for a version,
    /// another one stops the case with that reason, as [`Session::record`] counts it for a native client.
    pub fn observe_http(&mut self, case: usize, seen: HttpVersion) {
        let negotiated = self.matrix.negotiated;
        let Some(c) = self.cases.get_mut(case) else { return };
        if negotiated {
            c.observed_http.get_or_insert(seen);
        } else if seen != c.key.http {
            c.aborted.get_or_insert(format!("the responses came over {seen}, {} was asked for", c.key.http));
        }
    }

    /// Add the TLS handshakes the server saw during one of case `case`'s rounds (none at all is a count too:
    /// a reused connection made its handshake in the warm-up).
    pub fn record_handshakes(&mut self, case: usize, seen: &[Handshakes]) {
        let Some(c) = self.cases.get_mut(case) else { return };
        let all = c.handshakes.get_or_insert_with(Vec::new);
        for h in seen {
            match all.iter_mut().find(|m| m.version == h.version && m.cipher_suite == h.cipher_suite) {
                Some(m) => *m = m.clone() + h.clone(),
                None => all.push(h.clone()),
            }
        }
    }

    /// Add the connections the server accepted during one of case `case`'s rounds (zero is a count too: a
    /// reused connection was opened in the warm-up).
    pub fn record_connections(&mut self, case: usize, accepted: u64) {
        if let Some(c) = self.cases.get_mut(case) {
            c.connections = Some(c.connections.unwrap_or(0) + accepted);
        }
    }

    /// Add what the emulated link did to the packets of one of case `case`'s rounds.
    pub fn record_link(&mut self, case: usize, counts: &crate::model::LinkCounts) {
        if let Some(c) = self.cases.get_mut(case) {
            c.link_counts.get_or_insert_with(Default::default).add(counts);
        }
    }

    /// Record the connection phases of one ok request, where the client reports them (its timers, or the
    /// browser's Resource Timing).
    pub fn record_phases(&mut self, case: usize, phases: &PhaseTimes) {
        if let Some(c) = self.cases.get_mut(case) {
            c.recorder.record_phases(phases);
        }
    }

    /// Close the round of case `case` that the last [`Step::Round`] began: it took `wall`, and the client used
    /// `cpu` (`None` where the front end cannot tell). A round that recorded no request is not counted.
    pub fn end_round(&mut self, case: usize, wall: Duration, cpu: Option<CpuTime>) {
        let Some(c) = self.cases.get_mut(case) else { return };
        if c.recorder.iterations() == c.round_start {
            return;
        }
        c.recorder.end_round(wall, cpu);
        c.cpu = match (c.cpu, cpu) {
            (Some(a), Some(r)) => Some(a + r),
            _ => None,
        };
    }

    /// Stop the run: [`Session::next_step`] answers [`Step::Done`] from now on. What was measured is kept.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// The run settings this session measures with, as the result file records them.
    pub fn settings(&self) -> Settings {
        Settings { skipped: self.skipped.clone(), ..planned_settings(&self.plan, &self.matrix, self.timeout) }
    }

    /// The report: every case that measured at least one request or was aborted, in case order, and their
    /// histograms.
    pub fn finish(self, header: Header) -> Finished {
        let settings = self.settings();
        let stopped = self.stopped || self.next_round < self.order.len();
        let measured: Vec<&CaseState> =
            self.cases.iter().filter(|c| c.recorder.iterations() > 0 || c.aborted.is_some()).collect();
        let tls = self.matrix.tls;
        let cases: Vec<Case> = measured.iter().map(|c| c.case(tls)).collect();
        let mut settings = settings;
        if measured.iter().any(|c| c.observed_http.is_some()) {
            // A browser's cases ran over what it negotiated: the versions seen, in case order.
            settings.http_versions.clear();
            for c in &cases {
                if !settings.http_versions.contains(&c.http_version) {
                    settings.http_versions.push(c.http_version);
                }
            }
        }
        // Keyed as the report's case reads (a browser's observed version), so a row finds its own histogram
        // by `CaseKey::of` its case.
        let histograms = measured
            .iter()
            .zip(&cases)
            .map(|(c, case)| CaseHistogram { key: CaseKey::of(case), bins: c.recorder.histogram(HISTOGRAM_BINS) })
            .collect();
        let report = Report {
            schema_version: SCHEMA_VERSION,
            tool: header.tool,
            environment: header.environment,
            target: header.target,
            settings,
            // The one home of "stopped" for both front ends: a stopped run's file says it is partial.
            partial: stopped,
            cases,
        };
        Finished { report, histograms, stopped: stopped && self.unreachable.is_none(), unreachable: self.unreachable }
    }
}

/// The settings a run of `plan` over `matrix` with `timeout` records (nothing skipped yet): one home for the
/// session's report and for checking a report against the plan it was handed ([`check_answer`]).
pub fn planned_settings(plan: &Plan, matrix: &Matrix, timeout: Option<Duration>) -> Settings {
    let (count, duration_secs) = match plan.budget {
        Budget::Count(n) => (Some(n), None),
        Budget::Duration(d) => (None, Some(d.as_secs_f64())),
    };
    Settings {
        count,
        duration_secs,
        rounds: plan.rounds,
        interleave: plan.interleave,
        warmup: plan.warmup,
        modes: matrix.modes.clone(),
        clients: matrix.clients.clone(),
        timeout_ms: timeout.map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
        tls: matrix.tls,
        http_versions: matrix.http_versions.clone(),
        skipped: Vec::new(),
    }
}

mod answer;
mod case;
mod field;
mod input;
mod key;
mod matrix;
mod plan;
mod targets;
mod turns;
mod warmup;
pub use answer::{check_answer, Asked};
use case::CaseState;
pub use field::{Field, Spelling};
pub use input::{FrontEnd, Input, InputError, RawPlan, Side};
pub use key::CaseKey;
pub use matrix::Matrix;
pub use plan::{Budget, Limits, Plan, PlanError, RoundBudget};
pub use targets::Targets;
pub use turns::Turns;
pub use warmup::Unreachable;

#[cfg(test)]
mod tests;
