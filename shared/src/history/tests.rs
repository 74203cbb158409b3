//! Histories built from recorded cases: a slowdown found at its run with the figures on either side, machines
//! and plans kept apart, accepted change points, and changes too small to report.

use std::time::Duration;

use super::*;
use crate::fixture;
use crate::model::{EnvironmentKind, Mode, Report};
use crate::stats::{CpuTime, Outcome, Recorder};

/// A case `client`/reuse recorded by the real recorder: 5 rounds of about `rate` requests in 1 s each, jittered
/// by `rng` (±1%).
fn case(client: &str, rate: f64, rng: &mut fastrand::Rng) -> crate::model::Case {
    let mut recorder = Recorder::new();
    for _ in 0..5 {
        let n = (rate * (0.99 + 0.02 * rng.f64())) as u64;
        for _ in 0..n {
            recorder.record(&Outcome::response(200, 0), Duration::from_nanos(1_000_000_000 / n));
        }
        recorder.end_round(Duration::from_secs(1), Some(CpuTime::default()));
    }
    recorder.finish(client, Mode::Reuse, None)
}

fn run(id: i64, cases: Vec<crate::model::Case>, cpu: &str) -> StoredRun {
    let mut report: Report = fixture::report(EnvironmentKind::Native);
    report.environment.cpu = Some(cpu.into());
    report.environment.started_unix_ms = Some(1_700_000_000_000 + id as u64 * 60_000);
    report.cases = cases;
    StoredRun { id, label: Some(format!("c{id:03}")), accepted: false, reports: vec![report] }
}

/// 30 runs of `a` (1000 req/s, 800 from run 16 on) and `b` (500 req/s throughout).
fn history() -> Vec<StoredRun> {
    let mut rng = fastrand::Rng::with_seed(42);
    (1..=30)
        .map(|id| {
            let a = if id < 16 { 1000.0 } else { 800.0 };
            run(id, vec![case("a", a, &mut rng), case("b", 500.0, &mut rng)], "Test CPU")
        })
        .collect()
}

#[test]
fn a_slowdown_is_found_at_its_run_and_nowhere_else() {
    let analysis = analyse(&history(), &Query::default());
    assert_eq!(analysis.runs, 30);
    let names: Vec<&str> = analysis.series.iter().map(|s| s.case.as_str()).collect();
    assert_eq!(names, ["a/reuse/h1", "b/reuse/h1"]);
    let a = &analysis.series[0];
    assert_eq!(a.points.len(), 30);
    assert_eq!(a.changes.len(), 1, "{:?}", a.changes);
    let change = &a.changes[0];
    assert_eq!((change.run, change.label.as_deref(), change.index), (16, Some("c016"), 15));
    assert_eq!(change.verdict, crate::change::Verdict::Slower);
    // 1000 → 800 req/s: −20% of the rate, its interval around it and clear of zero.
    assert!((change.change + 0.2).abs() < 0.01, "{change:?}");
    assert!(change.change_low < change.change && change.change < change.change_high && change.change_high < -0.15);
    assert!((1.0 / change.before.cost - 1000.0).abs() < 10.0 && (1.0 / change.after.cost - 800.0).abs() < 10.0);
    assert!(change.before.low < change.before.cost && change.before.cost < change.before.high);
    assert!(change.p_value <= 0.01);
    assert!(analysis.series[1].changes.is_empty(), "{:?}", analysis.series[1].changes);
}

#[test]
fn another_machine_starts_another_series() {
    let mut runs = history();
    // Runs 16 on moved to a faster machine: a new series, not a change point.
    for r in &mut runs[15..] {
        r.reports[0].environment.cpu = Some("Other CPU".into());
    }
    let analysis = analyse(&runs, &Query::default());
    assert_eq!(analysis.series.len(), 4);
    assert!(analysis.series.iter().all(|s| s.changes.is_empty()), "{:?}", analysis.series);
    assert_ne!(analysis.series[0].machine.digest, analysis.series[2].machine.digest);
    assert!(analysis.series[2].machine.facts.contains(&"CPU: Other CPU".to_string()));
}

#[test]
fn another_plan_starts_another_series() {
    let mut runs = history();
    for r in &mut runs[15..] {
        r.reports[0].settings.count = Some(999);
    }
    let analysis = analyse(&runs, &Query::default());
    assert_eq!(analysis.series.len(), 4);
    assert_ne!(analysis.series[0].plan, analysis.series[2].plan);
}

#[test]
fn an_accepted_run_marks_its_change_points() {
    let mut runs = history();
    runs[15].accepted = true;
    let analysis = analyse(&runs, &Query::default());
    assert!(analysis.series[0].changes[0].accepted);
}

#[test]
fn changes_below_the_minimum_are_dropped() {
    let query = Query { min_change: 0.25, ..Query::default() };
    let analysis = analyse(&history(), &query);
    assert!(analysis.series[0].changes.is_empty());
}

#[test]
fn cost_metrics_keep_their_direction() {
    // p50 latency grows when the rate falls: a positive change, slower.
    let query = Query { metric: crate::change::Metric::P50, ..Query::default() };
    let analysis = analyse(&history(), &query);
    let change = &analysis.series[0].changes[0];
    assert_eq!(change.run, 16);
    assert!((change.change - 0.25).abs() < 0.02, "{change:?}");
    assert_eq!(change.verdict, crate::change::Verdict::Slower);
}

/// The renderings of a history, by snapshot: the table, the change list, the Markdown comment and one series'
/// section of the dashboard.
#[test]
fn renderings() {
    let mut runs = history();
    runs.truncate(20);
    // An acceptance at a run without a change point hides nothing.
    runs[17].accepted = true;
    let analysis = analyse(&runs, &Query::default());
    insta::assert_snapshot!("table", crate::render::history_text(&analysis));
    insta::assert_snapshot!("changes", crate::render::changes_text(&analysis));
    insta::assert_snapshot!("markdown", crate::render::changes_markdown(&analysis, None));
    insta::assert_snapshot!("section", crate::render::history_sections(&analysis, "a/reuse"));
    let html = crate::render::history_html(&analysis, "bench.db");
    assert!(html.starts_with("<!doctype html>") && html.contains("<title>httpbench history: bench.db</title>"));
    assert_eq!(html.matches("<section class=\"series\"").count(), 2);
    assert!(html.contains("prefers-color-scheme: dark"), "a dark scheme, charts included");
    // The JSON reads back as the same analysis.
    assert_eq!(super::from_json(&super::to_json(&analysis)), Ok(analysis));
}
