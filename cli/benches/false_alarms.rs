//! How often `httpbench history` finds a change point where there is none, on this machine's real spread:
//! each series of a real history (`history DB --format json`, runs of one unchanged plan) is resampled into
//! 100 series of 30 runs drawn with replacement from its own runs (pure noise, with the figures' real
//! distribution and the rounds' real spread), and the change points of each are counted, with the default
//! query (p ≤ 0.01, changes of 2% or more) and with the test alone (no minimum change). Also the search's
//! time per series. Prints figures; `scripts/bench-history.sh` makes the history and runs it.

use std::time::Instant;

use httpbench_shared::history::{changes, Point, Query, RunFigure, MAX_POINTS};
use serde_json::Value;

const SERIES: usize = 100;
const RUNS: usize = 30;

fn main() {
    let path =
        std::env::args().skip(1).find(|a| a.ends_with(".json")).expect("the path of `history --format json` output");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
    let mut rng = fastrand::Rng::with_seed(2026);
    for s in v["analysis"]["series"].as_array().expect("series") {
        let real: Vec<RunFigure> = s["points"]
            .as_array()
            .expect("points")
            .iter()
            .map(|p| RunFigure {
                cost: p["figure"]["cost"].as_f64().expect("cost"),
                stderr: p["figure"]["stderr"].as_f64(),
                rounds: p["figure"]["rounds"].as_u64().unwrap_or(0) as u32,
            })
            .collect();
        let mean = real.iter().map(|f| f.cost).sum::<f64>() / real.len() as f64;
        let sd = (real.iter().map(|f| (f.cost - mean).powi(2)).sum::<f64>() / (real.len() as f64 - 1.0)).sqrt();
        let (mut alarms, mut alarms_test_only) = (0, 0);
        let started = Instant::now();
        for _ in 0..SERIES {
            let points: Vec<Point> = (0..RUNS)
                .map(|i| Point {
                    run: i as i64 + 1,
                    label: None,
                    started_unix_ms: None,
                    figure: real[rng.usize(..real.len())],
                })
                .collect();
            if !changes(&points, &Query::default()).is_empty() {
                alarms += 1;
            }
            if !changes(&points, &Query { min_change: 0.0, ..Query::default() }).is_empty() {
                alarms_test_only += 1;
            }
        }
        let per_series = started.elapsed() / (2 * SERIES as u32);
        // The longest series searched ([`MAX_POINTS`] runs): what `history` costs on a long-kept history.
        let long: Vec<Point> = (0..MAX_POINTS)
            .map(|i| Point {
                run: i as i64 + 1,
                label: None,
                started_unix_ms: None,
                figure: real[rng.usize(..real.len())],
            })
            .collect();
        let started = Instant::now();
        let found = changes(&long, &Query::default()).len();
        let long_took = started.elapsed();
        println!(
            "{}: {} real runs, spread between runs {:.1}% (CV); false alarms in {SERIES} noise series of {RUNS} runs: \
             {alarms} with the default query, {alarms_test_only} by the test alone (p <= 0.01); {per_series:?} per series; \
             {MAX_POINTS} runs: {long_took:?}, {found} change points",
            s["case"].as_str().unwrap_or("?"),
            real.len(),
            100.0 * sd / mean
        );
    }
}
