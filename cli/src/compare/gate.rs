//! The gate of `compare --fail-if-slower`: judge the newest run against the one before, tell the verdict on
//! stderr in one line per kind, and choose the exit code (3 when it fails; 2 for `--strict` on environments
//! that differ, or nothing to judge).

use std::process::ExitCode;

use httpbench_shared::change::{Comparison, Verdict};

use super::options::{CompareOptions, Gate};
use crate::options::Usage;

/// Exit code of a failed gate, beside 0 (passed), 1 (an export failed) and 2 (bad input).
pub const FAILED: u8 = 3;

/// Refuse what cannot be judged: with `--strict`, runs whose environments differ; with a gate, runs with no
/// case in common. `last` is the newest comparison.
pub fn check(last: Option<&Comparison>, options: &CompareOptions) -> Result<(), Usage> {
    let Some(cmp) = last else { return Ok(()) };
    if options.strict && !cmp.differences.is_empty() {
        return Err(Usage(format!(
            "{} and {} are not comparable (--strict): {}",
            cmp.before,
            cmp.after,
            cmp.differences.join("; ")
        )));
    }
    if options.gate.is_some() && cmp.changes.is_empty() {
        return Err(Usage(format!(
            "{} and {} have no case in common (same client, mode, HTTP version and load): nothing to judge",
            cmp.before, cmp.after
        )));
    }
    Ok(())
}

/// Tell the gate's verdict on stderr and give its exit code (`None`: the gate passed).
pub fn verdict(cmp: &Comparison, gate: Gate) -> Option<ExitCode> {
    let named =
        |v: Verdict| -> Vec<&str> { cmp.changes.iter().filter(|c| c.verdict == v).map(|c| c.case.as_str()).collect() };
    let (slower, inconclusive) = (named(Verdict::Slower), named(Verdict::Inconclusive));
    let threshold = cmp.rule.threshold * 100.0;
    let metric = cmp.rule.metric.describe();
    let show = |names: &[&str]| httpbench_shared::render::escape_controls(&names.join(", ")).into_owned();
    for d in &cmp.differences {
        eprintln!("httpbench: warning: environments differ, {}", httpbench_shared::render::escape_controls(d));
    }
    if !inconclusive.is_empty() {
        eprintln!(
            "httpbench: warning: {} case(s) inconclusive at {threshold}% ({metric}): {}; raise --rounds or -n",
            inconclusive.len(),
            show(&inconclusive)
        );
    }
    if !slower.is_empty() {
        eprintln!(
            "httpbench: gate failed: {} case(s) of {} slower than {} beyond {threshold}% ({metric}): {}",
            slower.len(),
            cmp.after,
            cmp.before,
            show(&slower)
        );
        return Some(ExitCode::from(FAILED));
    }
    if gate.fail_if_inconclusive && !inconclusive.is_empty() {
        eprintln!("httpbench: gate failed: inconclusive cases (--fail-if-inconclusive)");
        return Some(ExitCode::from(FAILED));
    }
    eprintln!("httpbench: gate passed: {} ({} vs {}, {metric}, {threshold}%)", cmp.tally(), cmp.after, cmp.before);
    None
}
