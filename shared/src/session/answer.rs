//! Whether a report answers the plan it was asked for: `run --browser` hands each page the run's plan and
//! takes the page's report only when it is that plan's answer (the environment and engine asked, the same
//! settings, every case of the matrix once and nothing else, each with the rounds and requests planned). A
//! report that does not fit is refused with what differs, never merged: its figures would stand in the report
//! as the run's. One home for the rule, beside the session that runs the plan.

use std::collections::HashSet;
use std::time::Duration;

use super::{Budget, CaseKey, Matrix, Plan};
use crate::model::{Engine, Report};

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

/// The settings the report records against the plan and the matrix.
fn check_settings(report: &Report, asked: &Asked<'_>) -> Result<(), String> {
    let (s, plan, m) = (&report.settings, asked.plan, asked.matrix);
    let differs =
        |what: &str, got: String, want: String| Err(format!("it ran {what} {got} where the run asked {want}"));
    match plan.budget {
        Budget::Count(n) if s.count != Some(n) || s.duration_secs.is_some() => {
            return differs("a count of", shown(s.count), n.to_string());
        }
        Budget::Duration(d)
            if s.count.is_some() || s.duration_secs.is_none_or(|x| (x - d.as_secs_f64()).abs() > 1e-6) =>
        {
            return differs("a duration of", format!("{:?} s", s.duration_secs), format!("{} s", d.as_secs_f64()));
        }
        _ => {}
    }
    if (s.rounds, s.warmup, s.interleave) != (plan.rounds, plan.warmup, plan.interleave) {
        let got = format!("{} rounds, warm-up {}, interleave {}", s.rounds, s.warmup, s.interleave);
        let want = format!("{} rounds, warm-up {}, interleave {}", plan.rounds, plan.warmup, plan.interleave);
        return differs("", got, want);
    }
    if s.clients != m.clients || s.modes != m.modes || s.tls != m.tls {
        return differs(
            "the clients, modes and TLS",
            format!("{:?} {:?} {}", s.clients, s.modes, s.tls),
            format!("{:?} {:?} {}", m.clients, m.modes, m.tls),
        );
    }
    if !m.negotiated && s.http_versions != m.http_versions {
        return differs("the HTTP versions", format!("{:?}", s.http_versions), format!("{:?}", m.http_versions));
    }
    let timeout_ms = asked.timeout.map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
    if s.timeout_ms != timeout_ms {
        return differs("a timeout of", format!("{} ms", shown(s.timeout_ms)), format!("{} ms", shown(timeout_ms)));
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
