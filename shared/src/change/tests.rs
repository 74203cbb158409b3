//! The gate's verdicts on constructed cases: both edges of the threshold, each metric's direction, missing
//! figures, cases in one run only, runs ordered by time, and environments that differ.

use std::collections::BTreeMap;

use super::*;
use crate::fixture;
use crate::model::{Case, Latency, Mode, Report, Round};
use crate::view::Source;

/// A case whose rounds ran at these rates (requests in 1 s each), with `cpu_ms` CPU per round and p50 latency.
fn case(rates: &[u64]) -> Case {
    let rounds: Vec<Round> = rates
        .iter()
        .map(|&r| Round {
            iterations: r,
            ok: r,
            wall_secs: 1.0,
            cpu_secs: Some(r as f64 * 1e-5),
            latency_p50_ns: Some(1e9 / r as f64),
            latency_p99_ns: None,
        })
        .collect();
    let ok: u64 = rates.iter().sum();
    let wall_secs = rates.len() as f64;
    Case {
        client: "c".into(),
        mode: Mode::Reuse,
        http_version: Default::default(),
        tls: None,
        tls_full_handshakes: None,
        tls_resumed_handshakes: None,
        concurrency: None,
        body_bytes: None,
        server_delay_ms: None,
        connections: None,
        iterations: ok,
        ok,
        errors: BTreeMap::new(),
        error_reasons: Vec::new(),
        statuses: BTreeMap::new(),
        wall_secs,
        cpu_user_secs: Some(ok as f64 * 1e-5),
        cpu_sys_secs: Some(0.0),
        rate_wall: ok as f64 / wall_secs,
        rate_cpu: None,
        bytes: 0,
        latency_ns: Some(Latency {
            min: 0.0,
            mean: 0.0,
            stddev: 0.0,
            p50: wall_secs * 1e9 / ok as f64,
            p90: 0.0,
            p99: 0.0,
            p999: 0.0,
            max: 0.0,
        }),
        latency_outliers: 0,
        latency_mean_without_outliers_ns: None,
        rounds,
        rate_wall_spread: None,
        phases_ns: None,
        aborted: None,
    }
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
