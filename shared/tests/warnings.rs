//! Each warning appears exactly when its condition holds: both sides of every threshold.

use std::collections::BTreeMap;

use httpbench_shared::model::{Spread, SCHEMA_VERSION};
use httpbench_shared::render::notes;
use httpbench_shared::view::rows;
use httpbench_shared::{Case, Environment, EnvironmentKind, Latency, Mode, Report, Settings, Source, Target, Tool};

fn case(cv: f64, outliers: u64, p50_ns: f64) -> Case {
    Case {
        client: "c".into(),
        mode: Mode::Reuse,
        iterations: 1000,
        ok: 1000,
        errors: BTreeMap::new(),
        statuses: BTreeMap::from([("200".into(), 1000)]),
        wall_secs: 1.0,
        cpu_user_secs: None,
        cpu_sys_secs: None,
        rate_wall: 1000.0,
        rate_cpu: None,
        bytes: 612_000,
        latency_ns: Some(Latency {
            min: p50_ns / 2.0,
            mean: p50_ns,
            stddev: 1.0,
            p50: p50_ns,
            p90: p50_ns,
            p99: p50_ns,
            p999: p50_ns,
            max: p50_ns * 2.0,
        }),
        latency_outliers: outliers,
        rounds: Vec::new(),
        rate_wall_spread: Some(Spread {
            rounds: 5,
            mean: 1000.0,
            stddev: cv * 1000.0,
            stderr: cv * 1000.0 / 5f64.sqrt(),
            ci95_low: 900.0,
            ci95_high: 1100.0,
            cv,
        }),
        phases_ns: None,
    }
}

fn report(case: Case, timer_ns: f64, profile: &str) -> Report {
    Report {
        schema_version: SCHEMA_VERSION,
        tool: Tool { name: "httpbench".into(), version: "0".into(), build_profile: profile.into() },
        environment: Environment {
            kind: EnvironmentKind::Browser,
            os: "Linux".into(),
            arch: "wasm32".into(),
            cpu: None,
            cpus_online: None,
            user_agent: Some("test".into()),
            cross_origin_isolated: Some(false),
            timer_resolution_ns: Some(timer_ns),
            client_versions: BTreeMap::new(),
            placement: None,
        },
        target: Target { url: "http://127.0.0.1/".into(), embedded_server: false },
        settings: Settings {
            count: Some(1000),
            duration_secs: None,
            rounds: 5,
            interleave: false,
            warmup: 0,
            modes: vec![Mode::Reuse],
            clients: vec!["c".into()],
            timeout_ms: None,
        },
        cases: vec![case],
    }
}

fn warnings(r: &Report) -> String {
    let sources = [Source::new(r)];
    notes(&sources, &rows(&sources)).join("\n")
}

const QUIET: (f64, u64, f64) = (0.05, 0, 1_000_000.0);

#[test]
fn a_quiet_run_has_no_warning() {
    let (cv, outliers, p50) = QUIET;
    assert_eq!(warnings(&report(case(cv, outliers, p50), 5_000.0, "release")), "");
}

#[test]
fn noisy_rounds_warn_above_ten_percent() {
    assert!(!warnings(&report(case(0.099, 0, 1e6), 5_000.0, "release")).contains("noisy"));
    let w = warnings(&report(case(0.101, 0, 1e6), 5_000.0, "release"));
    assert!(w.contains("vary by 10.1%") && w.contains("machine is noisy"), "{w}");
}

#[test]
fn outliers_warn_above_one_percent() {
    assert!(!warnings(&report(case(0.01, 10, 1e6), 5_000.0, "release")).contains("outliers"));
    let w = warnings(&report(case(0.01, 11, 1e6), 5_000.0, "release"));
    assert!(w.contains("11 of 1000 latencies are statistical outliers"), "{w}");
}

#[test]
fn a_coarse_timer_warns_above_five_percent_of_the_median() {
    // 100 µs steps (a browser that is not cross-origin isolated) against a 2 ms median: exactly 5%, no warning.
    assert!(!warnings(&report(case(0.01, 0, 2_000_000.0), 100_000.0, "release")).contains("coarse"));
    let w = warnings(&report(case(0.01, 0, 1_999_000.0), 100_000.0, "release"));
    assert!(w.contains("timer's step (100.0 µs) is coarse"), "{w}");
}

#[test]
fn a_debug_build_warns() {
    let (cv, outliers, p50) = QUIET;
    let w = warnings(&report(case(cv, outliers, p50), 5_000.0, "debug"));
    assert!(w.contains("is a debug build: its figures are meaningless"), "{w}");
}
