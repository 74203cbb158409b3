//! How the cases of two runs are matched: per environment (native, each browser engine), its reports in a
//! run pooled into one list of cases (`compare A1.json A2.json --against B1.json B2.json`: each case's rounds
//! from every file of its side, so the drift between runs of one side enters the spread the gate judges by),
//! and each case keyed without the dimensions each side holds at one value (the [`Plan`]).

use super::Run;
use crate::model::{Case, Report};
use crate::session::CaseKey;

/// One environment in two runs: each run's reports of that environment pooled into one report, where it has any.
pub(super) struct Side {
    /// The earlier run's reports of this kind, pooled.
    pub before: Option<Report>,
    /// The later run's, pooled.
    pub after: Option<Report>,
}

/// The environments (by [`Environment::name`](crate::model::Environment::name)) in either run, in the order first seen, each with both runs' pooled reports.
pub(super) fn sides(before: &Run<'_>, after: &Run<'_>) -> Vec<Side> {
    let mut names: Vec<&str> = Vec::new();
    for r in before.reports.iter().chain(&after.reports) {
        if !names.contains(&r.environment.name()) {
            names.push(r.environment.name());
        }
    }
    let of = |run: &Run<'_>, name: &str| {
        let reports: Vec<&Report> = run.reports.iter().copied().filter(|r| r.environment.name() == name).collect();
        pool(&reports)
    };
    names.into_iter().map(|k| Side { before: of(before, k), after: of(after, k) }).collect()
}

/// The first report, its cases joined by the others' cases of the same key (`None` for no report). A single
/// report is returned as it is.
fn pool(reports: &[&Report]) -> Option<Report> {
    let (first, rest) = reports.split_first()?;
    let mut pooled = (*first).clone();
    for r in rest {
        for c in &r.cases {
            match pooled.cases.iter_mut().find(|p| CaseKey::of(p) == CaseKey::of(c)) {
                Some(p) => merge(p, c),
                None => pooled.cases.push(c.clone()),
            }
        }
    }
    Some(pooled)
}

/// Add `c`'s rounds and totals to `into`. Percentiles do not add up: the pooled case keeps the first file's
/// (a p50 or p99 gate judges the per-round percentiles, which are all kept).
fn merge(into: &mut Case, c: &Case) {
    into.rounds.extend(c.rounds.iter().copied());
    into.iterations += c.iterations;
    into.ok += c.ok;
    into.wall_secs += c.wall_secs;
    into.rate_wall = if into.wall_secs > 0.0 { into.ok as f64 / into.wall_secs } else { 0.0 };
    let add = |a: Option<f64>, b: Option<f64>| Some(a? + b?);
    into.cpu_user_secs = add(into.cpu_user_secs, c.cpu_user_secs);
    into.cpu_sys_secs = add(into.cpu_sys_secs, c.cpu_sys_secs);
}

/// The dimensions of a load that each of two reports holds at one value: the plan, not a case's identity. A
/// base run and a change run with `--server-delay 2ms` (or another body size, level, HTTP version or link) still
/// match case by case, and the difference is named.
pub(super) struct Plan {
    /// Which of (HTTP version, body size, server delay, concurrency, link) are left out of the key.
    fixed: [bool; 5],
    /// `server delay: none vs 2 ms`, for each fixed dimension whose value differs.
    pub differences: Vec<String>,
}

impl Plan {
    pub(super) fn of(b: &[Case], a: &[Case]) -> Plan {
        let names = ["HTTP version", "body size", "server delay", "requests in flight", "link"];
        let show = |c: &Case, i: usize| match i {
            0 => c.http_version.short().to_string(),
            1 => c.body_bytes.map_or_else(|| "the target as given".to_string(), crate::protocol::size_label),
            2 => c.server_delay_ms.map_or_else(|| "none".to_string(), |ms| format!("{ms} ms")),
            3 => c.in_flight().to_string(),
            _ => c.link().map_or_else(|| "loopback".to_string(), |l| l.label()),
        };
        let single = |cases: &[Case], i: usize| -> Option<String> {
            let first = show(cases.first()?, i);
            cases.iter().all(|c| show(c, i) == first).then_some(first)
        };
        let mut plan = Plan { fixed: [false; 5], differences: Vec::new() };
        for (i, name) in names.iter().enumerate() {
            if let (Some(x), Some(y)) = (single(b, i), single(a, i)) {
                plan.fixed[i] = true;
                if x != y {
                    plan.differences.push(format!("{name}: {x} vs {y}"));
                }
            }
        }
        plan
    }

    /// The case's key without the fixed dimensions.
    pub(super) fn key(&self, c: &Case) -> CaseKey {
        let mut key = CaseKey::of(c);
        if self.fixed[0] {
            key.http = Default::default();
        }
        if self.fixed[1] {
            key.body_bytes = None;
        }
        if self.fixed[2] {
            key.server_delay_ms = None;
        }
        if self.fixed[3] {
            key.concurrency = 1;
        }
        if self.fixed[4] {
            key.link = None;
        }
        key
    }
}
