//! The gate of `compare --fail-if-slower`: judge the newest run against the one before, tell the verdict on
//! stderr in one line per kind, and choose the exit code (3 when it fails; 2 for `--strict` on environments
//! that differ or a partial run, and for nothing to judge).

use std::process::ExitCode;

use httpbench_shared::change::{Change, Comparison, Verdict};
use httpbench_shared::render::{escape_controls, PARTIAL};

use crate::options::{CompareOptions, Gate};
use crate::usage::Usage;

/// Exit code of a failed gate, beside 0 (passed), 1 (an export failed) and 2 (bad input).
pub(super) const FAILED: u8 = 3;

/// Refuse what cannot be judged: with `--strict`, runs whose environments differ or that are partial; with a
/// gate, one run alone, runs with no case in common, or cases none of which has the metric. `last` is the
/// newest comparison.
pub(super) fn check(last: Option<&Comparison>, options: &CompareOptions) -> Result<(), Usage> {
    let Some(cmp) = last else {
        return match options.gate {
            Some(_) => Err(Usage(
                "--fail-if-slower: these files hold one run, nothing to judge it against (a report given twice \
                 counts once); give a base and a change"
                    .to_string(),
            )),
            None => Ok(()),
        };
    };
    if options.strict && !cmp.differences.is_empty() {
        return Err(Usage(format!(
            "{} and {} are not comparable (--strict): {}",
            cmp.before,
            cmp.after,
            cmp.differences.join("; ")
        )));
    }
    if let Some(run) = cmp.partial.first().filter(|_| options.strict) {
        return Err(Usage(format!("{run} {PARTIAL} (--strict): run it to its end")));
    }
    if options.gate.is_some() && cmp.changes.is_empty() {
        return Err(Usage(format!(
            "{} and {} have no case in common (same client, mode, HTTP version and load): nothing to judge",
            cmp.before, cmp.after
        )));
    }
    if options.gate.is_some() && cmp.changes.iter().all(|c| c.verdict == Verdict::Unjudged) {
        let metric = cmp.rule.metric;
        let why = cmp.changes.iter().find_map(|c| c.reason.as_deref()).unwrap_or("the figure is missing");
        return Err(Usage(format!(
            "{} and {}: judged nothing by {} (--metric {metric}): {why}; choose another --metric",
            cmp.before,
            cmp.after,
            metric.describe()
        )));
    }
    Ok(())
}

/// Tell the gate's verdict on stderr and give its exit code (`None`: the gate passed).
pub(super) fn verdict(cmp: &Comparison, gate: Gate) -> Option<ExitCode> {
    let of = |v: Verdict| -> Vec<&Change> { cmp.changes.iter().filter(|c| c.verdict == v).collect() };
    let names = |changes: &[&Change]| escape_controls(&list(changes, false)).into_owned();
    let (failed, slower, inconclusive, unjudged) =
        (of(Verdict::Failed), of(Verdict::Slower), of(Verdict::Inconclusive), of(Verdict::Unjudged));
    let threshold = cmp.rule.threshold * 100.0;
    let metric = cmp.rule.metric.describe();
    for d in &cmp.differences {
        eprintln!("httpbench: warning: environments differ, {}", escape_controls(d));
    }
    for run in &cmp.partial {
        eprintln!("httpbench: warning: {} {PARTIAL}", escape_controls(run));
    }
    if !unjudged.is_empty() {
        let why = escape_controls(&list(&unjudged, true)).into_owned();
        eprintln!("httpbench: warning: {} case(s) unjudged ({metric}): {why}", unjudged.len());
    }
    if !inconclusive.is_empty() {
        eprintln!(
            "httpbench: warning: {} case(s) inconclusive at {threshold}% ({metric}): {}; raise --rounds or -n",
            inconclusive.len(),
            names(&inconclusive)
        );
    }
    if !failed.is_empty() {
        let why = escape_controls(&list(&failed, true)).into_owned();
        eprintln!(
            "httpbench: gate failed: {} case(s) of {} fail where {} did not: {why}",
            failed.len(),
            cmp.after,
            cmp.before
        );
    }
    if !slower.is_empty() {
        eprintln!(
            "httpbench: gate failed: {} case(s) of {} slower than {} beyond {threshold}% ({metric}): {}",
            slower.len(),
            cmp.after,
            cmp.before,
            names(&slower)
        );
    }
    if !failed.is_empty() || !slower.is_empty() {
        return Some(ExitCode::from(FAILED));
    }
    if gate.fail_if_inconclusive && !(inconclusive.is_empty() && unjudged.is_empty()) {
        eprintln!("httpbench: gate failed: inconclusive or unjudged cases (--fail-if-inconclusive)");
        return Some(ExitCode::from(FAILED));
    }
    eprintln!("httpbench: gate passed: {} ({} vs {}, {metric}, {threshold}%)", cmp.tally(), cmp.after, cmp.before);
    None
}

/// The cases' names, comma-separated, each with its reason in brackets when `why`.
fn list(changes: &[&Change], why: bool) -> String {
    let one = |c: &&Change| match (&c.reason, why) {
        (Some(r), true) => format!("{} ({r})", c.case),
        _ => c.case.clone(),
    };
    changes.iter().map(one).collect::<Vec<_>>().join(", ")
}
