//! The Perl-style renderer against what Perl's own Benchmark.pm prints for the same times.
//!
//! `perl/scenarios.json` holds the times; `perl/golden.pl` feeds them to Benchmark.pm's `timethese` and
//! `cmpthese` and wrote `perl/golden/*.txt`. The first test needs no Perl; the second re-runs the generator
//! (Perl is on this machine kind) so the committed goldens cannot drift from Benchmark.pm.

use std::path::{Path, PathBuf};
use std::process::Command;

use httpbench_shared::perl::{cmpthese, timethese, RateBasis, Timing};
use serde::Deserialize;

#[derive(Deserialize)]
struct Scenario {
    name: String,
    cases: Vec<PerlCase>,
}

#[derive(Deserialize)]
struct PerlCase {
    name: String,
    real: f64,
    user: f64,
    sys: f64,
    n: u64,
}

fn perl_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/perl")
}

fn scenarios() -> Vec<Scenario> {
    let text = std::fs::read_to_string(perl_dir().join("scenarios.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn render(s: &Scenario) -> String {
    let timings: Vec<Timing> = s
        .cases
        .iter()
        .map(|c| Timing {
            name: c.name.clone(),
            wall_secs: c.real,
            cpu_secs: Some((c.user, c.sys)),
            iterations: c.n,
            rate_wall: c.n as f64 / c.real,
        })
        .collect();
    let rates: Vec<(String, f64)> = timings.iter().map(|t| (t.name.clone(), t.rate(RateBasis::Cpu))).collect();
    timethese(&timings, RateBasis::Cpu, None) + &cmpthese(&rates)
}

#[test]
fn perl_style_output_equals_benchmark_pm_byte_for_byte() {
    let all = scenarios();
    assert!(all.len() >= 8, "the scenarios cover 2 and 6 cases, s/iter, negative and huge percentages");
    for s in &all {
        let golden = std::fs::read_to_string(perl_dir().join("golden").join(format!("{}.txt", s.name))).unwrap();
        let ours = render(s);
        assert_eq!(
            ours, golden,
            "scenario '{}' differs from Benchmark.pm:\n--- ours\n{ours}--- perl\n{golden}",
            s.name
        );
    }
}

#[test]
fn committed_goldens_are_what_benchmark_pm_prints_today() {
    let out = tempfile_dir();
    let status = Command::new("perl").arg(perl_dir().join("golden.pl")).arg(&out).status();
    let status = match status {
        Ok(s) => s,
        Err(e) => {
            panic!("perl is needed to regenerate the goldens (scripts/setup.sh installs it): {e}")
        }
    };
    assert!(status.success(), "golden.pl failed");
    for s in scenarios() {
        let file = format!("{}.txt", s.name);
        let fresh = std::fs::read_to_string(out.join(&file)).unwrap();
        let committed = std::fs::read_to_string(perl_dir().join("golden").join(&file)).unwrap();
        assert_eq!(fresh, committed, "{file}: regenerate with `perl shared/tests/perl/golden.pl`");
    }
    let _ = std::fs::remove_dir_all(out);
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("httpbench-golden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
