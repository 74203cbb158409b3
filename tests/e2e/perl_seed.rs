//! The original Perl benchmark (`../shared/www_bench.pl`: LWP, HTTP::Lite and WWW::Curl) run unchanged against
//! `httpbench serve`. Its modules come from Debian (scripts/setup.sh installs them).

use std::path::PathBuf;
use std::process::Command;

use crate::helpers::Serve;

fn seed_script() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/www_bench.pl");
    assert!(p.is_file(), "{} is missing: the seed script lives in shared/ beside the repository", p.display());
    p
}

#[test]
#[ignore = "needs Perl's LWP, HTTP::Lite and WWW::Curl (scripts/setup.sh installs them; scripts/test.sh runs it)"]
fn perl_seed_script_runs_unchanged_against_httpbench_serve() {
    let serve = Serve::start();
    let out = Command::new("perl")
        .arg(seed_script())
        .args(["200", &serve.url])
        .env("NO_PROXY", "*")
        .env_remove("http_proxy")
        .env_remove("HTTP_PROXY")
        .output()
        .expect("perl runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "perl failed: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("Benchmark: timing 200 iterations of curl, lite, lwp..."), "{stdout}");
    for name in ["curl", "lite", "lwp"] {
        let line = stdout.lines().find(|l| l.trim_start().starts_with(&format!("{name}:"))).expect("a timethese line");
        assert!(line.contains("wallclock secs") && line.contains("(n=200)"), "{line}");
    }
    // Every failure path of the script prints something else: an error line or a status line.
    assert!(!stdout.contains("An error happened"), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].contains("Compare COUNT: 200"), "{stdout}");
    assert!(lines[1].starts_with("Benchmark:"), "nothing printed between the count and the benchmark: {stdout}");
    assert!(lines.iter().any(|l| l.trim_start().starts_with("Rate ")), "cmpthese ran: {stdout}");
}
