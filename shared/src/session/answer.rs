//! Whether a report answers the plan it was asked for: `run --browser` hands each page the run's plan and
//! takes the page's report only when it is that plan's answer (the environment and engine asked, the same
//! settings, every case of the matrix once and nothing else, each with the rounds and requests planned). A
//! report that does not fit is refused with what differs, never merged: its figures would stand in the report
//! as the run's. One home for the rule, beside the session that runs the plan.

use std::collections::HashSet;
use std::time::Duration;

use super::{Budget, CaseKey, Matrix, Plan};
use crate::model::{Engine, Report, Settings};

/// What a run asked of a report.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    /// The plan: budget, warm-up, rounds, interleaving.
    pub plan: &'a Plan,
    /// The cases' dimensions.
    pub matrix: &'a Matrix,
    /// Every request's deadline.
    pub timeout: Option<Duration>,
    /// The browser engine that was to run it, if a browser was.
    pub engine: Option<Engine>,
}

/// `Ok` when `report` answers `asked`; else the first thing that differs, in one line (`it ran 20 requests
/// per case where the run asked 50`).
pub fn check_answer(report: &Report, asked: &Asked<'_>) -> Result<(), String> {
    let e = &report.environment;
    if e.kind != asked.matrix.environment {
        return Err(format!(
            "it is a {} report where the run asked for {}",
            e.kind.as_str(),
            asked.matrix.environment.as_str()
        ));
    }
    if let Some(engine) = asked.engine {
        let (seen, _) = Engine::of_user_agent(e.user_agent.as_deref());
        if seen != engine {
            return Err(format!("its user agent names {seen}, where the run started {engine}"));
        }
    }
    if report.partial {
        return Err("it is partial: the page stopped before its plan was done".into());
    }
    check_settings(report, asked)?;
    check_cases(report, asked)
}

/// The settings the report records against those the plan records ([`super::planned_settings`]).
fn check_settings(report: &Report, asked: &Asked<'_>) -> Result<(), String> {
    let (s, want) = (&report.settings, super::planned_settings(asked.plan, asked.matrix, asked.timeout));
    let differs =
        |what: &str, got: String, want: String| Err(format!("it ran {what} {got} where the run asked {want}"));
    // A duration went to the page as text and back: equal to a microsecond.
    let same_duration = match (s.duration_secs, want.duration_secs) {
        (Some(a), Some(b)) => (a - b).abs() <= 1e-6,
        (a, b) => a == b,
    };
    if s.count != want.count || !same_duration {
        return match want.count {
            Some(n) => differs("a count of", shown(s.count), n.to_string()),
            None => differs("a duration of", format!("{:?} s", s.duration_secs), format!("{:?} s", want.duration_secs)),
        };
    }
    if (s.rounds, s.warmup, s.interleave) != (want.rounds, want.warmup, want.interleave) {
        let plan = |s: &Settings| format!("{} rounds, warm-up {}, interleave {}", s.rounds, s.warmup, s.interleave);
        return differs("a plan of", plan(s), plan(&want));
    }
    if (&s.clients, &s.modes, s.tls) != (&want.clients, &want.modes, want.tls) {
        let what = |s: &Settings| format!("{:?} {:?} TLS {}", s.clients, s.modes, s.tls);
        return differs("the clients, modes and TLS", what(s), what(&want));
    }
    // Where the matrix let the browser negotiate, the report records what it saw.
    if !asked.matrix.negotiated && s.http_versions != want.http_versions {
        return differs("the HTTP versions", format!("{:?}", s.http_versions), format!("{:?}", want.http_versions));
    }
    if s.timeout_ms != want.timeout_ms {
        return differs(
            "a timeout of",
            format!("{} ms", shown(s.timeout_ms)),
            format!("{} ms", shown(want.timeout_ms)),
        );
    }
    Ok(())
}

/// Every case of the matrix once and nothing else; each that was not aborted with its rounds, and with a
/// count, its requests.
fn check_cases(report: &Report, asked: &Asked<'_>) -> Result<(), String> {
    let (planned, _) = asked.matrix.cases();
    let planned: HashSet<CaseKey> = planned.into_iter().collect();
    let mut seen = HashSet::new();
    for case in &report.cases {
        let key = CaseKey::of(case);
        let label = asked.matrix.label(&key);
        if !planned.contains(&key) {
            return Err(format!("it has a case the run did not ask for: {label}"));
        }
        if !seen.insert(key) {
            return Err(format!("it has case {label} twice"));
        }
        if case.aborted.is_some() {
            continue;
        }
        if case.rounds.len() != asked.plan.rounds as usize {
            return Err(format!(
                "case {label} has {} rounds where the run asked {}",
                case.rounds.len(),
                asked.plan.rounds
            ));
        }
        if let Budget::Count(n) = asked.plan.budget {
            let in_rounds: u64 = case.rounds.iter().map(|r| r.iterations).sum();
            if case.iterations != n || in_rounds != n {
                return Err(format!("case {label} made {} requests where the run asked {n}", case.iterations));
            }
        }
    }
    match planned.iter().find(|k| !seen.contains(*k)) {
        Some(missing) => Err(format!("case {} is missing", asked.matrix.label(missing))),
        None => Ok(()),
    }
}

/// An optional figure in a message.
fn shown(value: Option<u64>) -> String {
    value.map_or_else(|| "none".into(), |v| v.to_string())
}
