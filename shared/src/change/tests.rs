//! The gate's verdicts on constructed cases: both edges of the threshold, each metric's direction, missing
//! figures, cases in one run only, runs ordered by time, and environments that differ.

use std::collections::BTreeMap;
use std::time::Duration;

use super::*;
use crate::fixture;
use crate::model::{Case, Mode, Report};
use crate::stats::{CpuTime, Outcome, Recorder};
use crate::view::Source;

/// A case recorded by the real recorder: a round per rate, that many requests in 1 s each (each taking its
/// share of the second), and 10 µs of CPU per request.
fn case(rates: &[u64]) -> Case {
    let mut recorder = Recorder::new();
    let mut total = CpuTime::default();
    for &n in rates {
        for _ in 0..n {
            recorder.record(&Outcome::response(200, 0), Duration::from_nanos(1_000_000_000 / n));
        }
        let cpu = CpuTime { user: Duration::from_micros(10 * n), sys: Duration::ZERO };
        recorder.end_round(Duration::from_secs(1), Some(cpu));
        total = total + cpu;
    }
    recorder.finish("c", Mode::Reuse, Some(total))
}

fn rate(threshold: f64) -> Rule {
    Rule { metric: Metric::Rate, threshold }
}

const BASE: [u64; 5] = [1000, 1002, 998, 1001, 999];

#[test]
fn welch_interval_of_known_samples() {
    // Median latency per round, before: 100, 102, 98, 101, 99 (mean 100, var 2.5); after: 110, 111, 109, 112,
    // 108 (mean 110, var 2.5). se = √(0.5 + 0.5) = 1; df = 8; t(8) = 2.306: +10% ± 2.306%.
    let with_p50 = |p50: [f64; 5]| {
        let mut c = case(&BASE);
        c.rounds.iter_mut().zip(p50).for_each(|(r, p)| r.latency_p50_ns = Some(p));
        c.latency_ns.as_mut().unwrap().p50 = p50.iter().sum::<f64>() / 5.0;
        c
    };
    let (b, a) = (with_p50([100.0, 102.0, 98.0, 101.0, 99.0]), with_p50([110.0, 111.0, 109.0, 112.0, 108.0]));
    let c = judge("c".into(), &b, &a, Rule { metric: Metric::P50, threshold: 0.05 });
    assert!((c.slowdown.unwrap() - 0.10).abs() < 1e-12);
    let (lo, hi) = c.interval.unwrap();
    assert!((lo - (10.0 - 2.306) / 100.0).abs() < 1e-9 && (hi - (10.0 + 2.306) / 100.0).abs() < 1e-9, "{lo} {hi}");
    assert_eq!(c.verdict, Verdict::Slower);
    let c = judge("c".into(), &a, &b, Rule { metric: Metric::P50, threshold: 0.05 });
    assert_eq!(c.verdict, Verdict::Faster, "{c:?}");
}

#[test]
fn verdicts_on_both_sides_of_the_threshold() {
    let judged = |after: &[u64], t: f64| judge("c".into(), &case(&BASE), &case(after), rate(t)).verdict;
    // 10% less rate = 11.1% more time per request, ± about 0.4%.
    let slower = [900, 902, 898, 901, 899];
    assert_eq!(judged(&slower, 0.05), Verdict::Slower);
    assert_eq!(judged(&slower, 0.108), Verdict::Slower, "just inside the threshold's edge");
    assert_eq!(judged(&slower, 0.111), Verdict::Inconclusive, "the interval straddles the threshold");
    assert_eq!(judged(&slower, 0.12), Verdict::Unchanged, "the whole interval is within the threshold");
    let faster = [1100, 1102, 1098, 1101, 1099];
    assert_eq!(judged(&faster, 0.05), Verdict::Faster);
    assert_eq!(judged(&faster, 0.0905), Verdict::Inconclusive);
    assert_eq!(judged(&[1000, 1003, 997, 1002, 998], 0.02), Verdict::Unchanged);
    // Noisy rounds: a 3% drop in the mean with ±10% rounds is not a verdict at 5%.
    assert_eq!(judged(&[1070, 870, 970, 1020, 920], 0.05), Verdict::Inconclusive);
}

#[test]
fn too_few_rounds_or_a_missing_figure_is_not_judged_slower() {
    let c = judge("c".into(), &case(&[1000]), &case(&[500]), rate(0.05));
    assert_eq!(c.verdict, Verdict::Inconclusive);
    assert!(c.reason.unwrap().contains("--rounds"));
    let mut browser = case(&[500, 500, 500]);
    browser.cpu_user_secs = None;
    browser.rounds.iter_mut().for_each(|r| r.cpu_secs = None);
    let c = judge("c".into(), &case(&BASE), &browser, Rule { metric: Metric::Cpu, threshold: 0.05 });
    assert_eq!(c.verdict, Verdict::Unjudged);
    assert!(c.reason.unwrap().contains("CPU"));
}

#[test]
fn cost_metrics_are_slower_when_they_grow() {
    // Same rates, but CPU per request doubles in the second run.
    let mut after = case(&BASE);
    after.rounds.iter_mut().for_each(|r| r.cpu_secs = r.cpu_secs.map(|s| s * 2.0));
    after.cpu_user_secs = after.cpu_user_secs.map(|s| s * 2.0);
    let cpu = Rule { metric: Metric::Cpu, threshold: 0.05 };
    let c = judge("c".into(), &case(&BASE), &after, cpu);
    assert_eq!(c.verdict, Verdict::Slower, "{c:?}");
    assert!((c.slowdown.unwrap() - 1.0).abs() < 1e-9);
    assert_eq!(judge("c".into(), &case(&BASE), &case(&BASE), rate(0.05)).verdict, Verdict::Unchanged);
    // p50 rises as the rate falls in these cases.
    let p50 = Rule { metric: Metric::P50, threshold: 0.05 };
    assert_eq!(judge("c".into(), &case(&BASE), &case(&[900, 902, 898, 901, 899]), p50).verdict, Verdict::Slower);
}

fn report(cases: Vec<Case>, started: Option<u64>) -> Report {
    let mut r = fixture::report(crate::model::EnvironmentKind::Native);
    r.cases = cases;
    r.environment.started_unix_ms = started;
    r
}

#[test]
fn a_case_in_one_run_only_is_listed_not_judged_and_differences_are_named() {
    let mut other = case(&BASE);
    other.mode = Mode::Fresh;
    let before = report(vec![case(&BASE), other], Some(1));
    let mut after = report(vec![case(&[900, 902, 898, 901, 899])], Some(2));
    after.tool.build_profile = "debug".into();
    after.environment.client_versions = BTreeMap::from([("curl".to_string(), "libcurl/8.0".to_string())]);
    let sources = [Source::tagged(&before, Some("base")), Source::tagged(&after, Some("new"))];
    let runs = runs(&sources);
    assert_eq!(runs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["base", "new"], "two: as given");
    let reversed = super::runs(&[sources[1], sources[0]]);
    assert_eq!(reversed[0].name, "new", "two runs keep the user's order, whenever each ran");
    let cmp = compare(&runs[0], &runs[1], rate(0.05));
    assert_eq!(cmp.changes.len(), 1);
    assert_eq!(cmp.changes[0].verdict, Verdict::Slower);
    assert_eq!(cmp.only_before.len(), 1, "{cmp:?}");
    assert!(cmp.only_before[0].contains("fresh"), "{:?}", cmp.only_before);
    assert!(cmp.differences.iter().any(|d| d.starts_with("build profile: ")), "{:?}", cmp.differences);
    assert_eq!(cmp.tally(), "1 slower");
}

#[test]
fn thresholds_parse_as_percentages() {
    assert_eq!(parse_threshold("5%"), Ok(0.05));
    assert_eq!(parse_threshold("2.5"), Ok(0.025));
    let e = parse_threshold("-3%").unwrap_err();
    assert!(e.contains("'-3%'") && e.contains("above 0"), "{e}");
    assert!(parse_threshold("five").is_err());
}

#[test]
fn pooled_runs_carry_the_drift_between_files_into_the_interval() {
    // Two base files that drifted 10% apart, and a change file between them: each base file alone calls the
    // change slower or faster by ~5%, beyond a 2% threshold; pooled, the base's rounds span the drift and the
    // verdict is inconclusive, as it should be when nothing changed.
    let (low, high) = (report(vec![case(&BASE)], None), report(vec![case(&[1100, 1102, 1098, 1101, 1099])], None));
    let change = report(vec![case(&[1050, 1052, 1048, 1051, 1049])], None);
    let one = |base: &Report| {
        let sources = [Source::tagged(base, Some("base")), Source::tagged(&change, Some("new"))];
        let runs = runs(&sources);
        compare(&runs[0], &runs[1], rate(0.02)).changes[0].verdict
    };
    assert_eq!((one(&low), one(&high)), (Verdict::Faster, Verdict::Slower));
    let sources = [
        Source::tagged(&low, Some("a")).in_run("base"),
        Source::tagged(&high, Some("b")).in_run("base"),
        Source::tagged(&change, Some("new")).in_run("new"),
    ];
    let runs = runs(&sources);
    assert_eq!(runs.len(), 2);
    let cmp = compare(&runs[0], &runs[1], rate(0.02));
    assert_eq!(cmp.changes.len(), 1, "one case, its rounds from both base files");
    assert_eq!(cmp.changes[0].verdict, Verdict::Inconclusive, "{cmp:?}");
    assert!((cmp.changes[0].before.unwrap() - 1050.0).abs() < 1.0, "the pooled rate: all ok over all wall time");
}

/// A case of `n` requests a round over `rounds` rounds of 1 s, every one failed with `kind`.
fn dead(n: u64, rounds: usize, kind: crate::model::ErrorKind) -> Case {
    let mut recorder = Recorder::new();
    for _ in 0..rounds {
        for _ in 0..n {
            recorder.record(&Outcome::failed(kind, None), Duration::from_micros(50));
        }
        recorder.end_round(Duration::from_secs(1), None);
    }
    recorder.finish("c", Mode::Reuse, None)
}

#[test]
fn a_change_that_fails_requests_the_base_did_not_is_failed_naming_the_kinds() {
    use crate::model::ErrorKind;
    // Every request refused: fast, no figure to judge by any metric, and broken.
    for metric in [Metric::Rate, Metric::P99] {
        let c = judge("c".into(), &case(&BASE), &dead(100, 5, ErrorKind::Connect), Rule { metric, threshold: 0.05 });
        assert_eq!(c.verdict, Verdict::Failed, "{metric}: {c:?}");
        assert_eq!(c.reason.as_deref(), Some("no ok request: connect 500 of 500"));
    }
    // Ok requests, as fast as before, but a kind of failure the base never had.
    let mut flaky = case(&BASE);
    flaky.errors.insert(ErrorKind::Timeout, 3);
    flaky.iterations += 3;
    let c = judge("c".into(), &case(&BASE), &flaky, rate(0.05));
    assert_eq!(c.verdict, Verdict::Failed, "{c:?}");
    assert_eq!(
        c.reason.as_deref(),
        Some(format!("fails requests the base did not: timeout 3 of {}", flaky.iterations).as_str())
    );
    assert!(c.interval.is_some(), "the metric's figures are kept beside the verdict");
    // A kind the base failed too is left to the metric; so is a base that fails what the change does not.
    assert_eq!(judge("c".into(), &flaky, &flaky.clone(), rate(0.05)).verdict, Verdict::Unchanged);
    assert_eq!(judge("c".into(), &flaky, &case(&BASE), rate(0.05)).verdict, Verdict::Unchanged);
    let mut cmp = compare(&empty(), &empty(), rate(0.05));
    cmp.changes.push(c);
    assert_eq!(cmp.tally(), "1 failed");
}

fn empty() -> Run<'static> {
    Run { name: "x".into(), reports: Vec::new(), started_unix_ms: None }
}

#[test]
fn a_metric_missing_from_every_round_is_unjudged_not_inconclusive() {
    // A file before version 4: latency for the case, none per round. More rounds would not help.
    let old = |c: Case| Case {
        rounds: c.rounds.iter().map(|r| crate::model::Round { latency_p99_ns: None, ..*r }).collect(),
        ..c
    };
    let c = judge("c".into(), &old(case(&BASE)), &case(&BASE), Rule { metric: Metric::P99, threshold: 0.05 });
    assert_eq!(c.verdict, Verdict::Unjudged, "{c:?}");
    let reason = c.reason.unwrap();
    assert!(
        reason.starts_with("no round of the base has its p99 latency") && reason.contains("before version 4"),
        "{reason}"
    );
    let c = judge("c".into(), &case(&BASE), &old(case(&BASE)), Rule { metric: Metric::P99, threshold: 0.05 });
    assert!(c.reason.unwrap().starts_with("no round of the change"));
}

#[test]
fn figures_that_overflow_never_give_a_nan_verdict() {
    // Rounds of 1e300 s (a file refuses them; a case built in memory does not): their variance overflows.
    let huge = |c: Case| Case {
        rounds: c.rounds.iter().map(|r| crate::model::Round { wall_secs: r.wall_secs * 1e300, ..*r }).collect(),
        wall_secs: c.wall_secs * 1e300,
        rate_wall: c.rate_wall / 1e300,
        ..c
    };
    let c = judge("c".into(), &huge(case(&BASE)), &huge(case(&[900, 1100, 1000, 950, 1050])), rate(0.05));
    assert_eq!(c.verdict, Verdict::Unjudged, "{c:?}");
    assert!(c.reason.unwrap().contains("out of range"));
    assert!(c.slowdown.is_none() && c.interval.is_none());
    // At the edge a file allows (1e9 s a round), every figure is finite.
    let edge = |c: Case| Case {
        rounds: c.rounds.iter().map(|r| crate::model::Round { wall_secs: 1e9, ..*r }).collect(),
        wall_secs: 5e9,
        rate_wall: c.ok as f64 / 5e9,
        ..c
    };
    let c = judge("c".into(), &edge(case(&BASE)), &edge(case(&[900, 1100, 1000, 950, 1050])), rate(0.05));
    let (lo, hi) = c.interval.unwrap();
    assert!(lo.is_finite() && hi.is_finite() && c.slowdown.unwrap().is_finite(), "{c:?}");
}

#[test]
fn a_partial_run_is_named_in_the_comparison() {
    let before = report(vec![case(&BASE)], Some(1));
    let mut after = report(vec![case(&BASE)], Some(2));
    after.partial = true;
    let sources = [Source::tagged(&before, Some("base")), Source::tagged(&after, Some("stopped"))];
    let runs = runs(&sources);
    assert_eq!(compare(&runs[0], &runs[1], rate(0.05)).partial, ["stopped"]);
    after.partial = false;
    let sources = [Source::tagged(&before, Some("base")), Source::tagged(&after, Some("whole"))];
    let runs = super::runs(&sources);
    assert!(compare(&runs[0], &runs[1], rate(0.05)).partial.is_empty());
}
