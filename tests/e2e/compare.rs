//! `httpbench compare`: result files rendered together, and bad files refused by name.

use crate::support::cli::{export_run, run, SMALL_RAW};
use crate::support::scratch;

#[test]
fn two_saved_runs_render_as_one_report() {
    let dir = scratch("compare");
    let a = dir.join("before.json");
    let b = dir.join("after.json");
    for f in [&a, &b] {
        export_run(f, &["-n", "10", "--warmup", "0", "--clients", "curl,raw", "--mode", "reuse"]);
    }
    let (code, out, err) = run(&["compare", a.to_str().unwrap(), b.to_str().unwrap(), "--wide"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Benchmark: timing 10 iterations of after/curl, after/raw, before/curl, before/raw..."),
        "{out}"
    );
    assert!(out.contains("[before] httpbench") && out.contains("[after] httpbench"), "{out}");
    assert!(out.contains("Change from before to after (wall rate, judged as time per request; 95% interval"), "{out}");
    for case in ["curl ", "raw "] {
        let line = out.lines().find(|l| l.trim_start().starts_with(case) && l.contains(" → ")).expect("a change line");
        let verdicts = ["▼ slower", "▲ faster", "≈ same", "? inconclusive"];
        assert!(
            line.contains("% [")
                && line.contains("req/s, ")
                && verdicts.iter().any(|v| line.contains(&format!(", {v}"))),
            "{line}"
        );
    }
}

#[test]
fn bad_result_files_are_refused_by_name() {
    let dir = scratch("compare-bad");
    let cases = [
        ("malformed.json", "{ not json", "not valid JSON"),
        ("version.json", r#"{"schema_version": 99}"#, "schema_version 99"),
        ("missing.json", r#"{"schema_version": 1}"#, "missing field"),
        ("array.json", "[1, 2]", "not an httpbench result file"),
    ];
    for (name, content, why) in cases {
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        let (code, out, err) = run(&["compare", path.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(out.is_empty());
        assert!(err.contains(name) && err.contains(why), "{name}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    let (code, _, err) = run(&["compare", dir.join("absent.json").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("absent.json"), "{err}");
}

#[test]
fn hostile_result_files_are_refused_by_name() {
    let dir = scratch("compare-hostile");
    let good = dir.join("good.json");
    let base: serde_json::Value =
        serde_json::from_str(&export_run(&good, &[&SMALL_RAW[..], &["--rounds", "1"]].concat())).unwrap();
    let with = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v = base.clone();
        edit(&mut v);
        v.to_string()
    };
    let cases: Vec<(&str, String, &str)> = vec![
        ("negative.json", with(&|v| v["cases"][0]["wall_secs"] = (-1.0).into()), "wall_secs is -1"),
        ("huge-count.json", with(&|v| v["cases"][0]["iterations"] = serde_json::json!(1e308)), "invalid result file"),
        ("ok-above-iterations.json", with(&|v| v["cases"][0]["ok"] = 10_000.into()), "exceeds iterations"),
        ("nan.json", base.to_string().replace("\"wall_secs\":", "\"wall_secs\":NaN,\"x\":"), "not valid JSON"),
        ("nested.json", "[".repeat(100_000), "not valid JSON"),
        ("unknown-field.json", with(&|v| v["surprise"] = true.into()), "unknown field"),
    ];
    for (name, content, why) in cases {
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        let (code, out, err) = run(&["compare", path.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(out.is_empty(), "{name}");
        assert!(err.contains(name) && err.contains(why), "{name}: {err}");
        assert!(!err.contains("panicked"));
    }
    // A 1 GiB file (sparse, so the test writes nothing) is refused before it is read.
    let big = dir.join("huge.json");
    std::fs::File::create(&big).unwrap().set_len(1 << 30).unwrap();
    let (code, _, err) = run(&["compare", big.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("huge.json") && err.contains("too large"), "{err}");
}

/// A result file of the version-1 layout (written before HTTP versions and TLS) still compares, as HTTP/1.1
/// in plaintext, next to a version-2 run over TLS with both HTTP versions.
#[test]
fn a_version_1_file_compares_with_a_current_run() {
    let dir = scratch("compare-v1");
    let v1 = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/tests/data/v1-report.json");
    let v2 = dir.join("tls.json");
    export_run(&v2, &["--tls", "--http", "both", "-n", "10", "--warmup", "0", "--clients", "curl", "--mode", "reuse"]);
    let (code, out, err) = run(&["compare", v1.to_str().unwrap(), v2.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let reports: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((reports[0]["schema_version"].as_u64(), reports[1]["schema_version"].as_u64()), (Some(1), Some(5)));
    assert_eq!(reports[0]["cases"][0]["http_version"], "1.1");
    let (code, out, err) = run(&["compare", v1.to_str().unwrap(), v2.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("v1-report/raw/fresh/h1") && out.contains("tls/curl/reuse/h2"), "{out}");
}

/// Issue 36: the same file given N times pooled its rounds N times (60 copies turned `inconclusive` into
/// `slower`). A report given twice, by path or by content (a copy), counts once and a warning says so.
#[test]
fn a_report_given_twice_counts_once_and_says_so() {
    let dir = scratch("compare-twice");
    let (a, b, copy) = (dir.join("a.json"), dir.join("b.json"), dir.join("copy-of-b.json"));
    for f in [&a, &b] {
        export_run(f, &["-n", "50", "--rounds", "3", "--warmup", "0", "--clients", "raw", "--mode", "reuse"]);
    }
    std::fs::copy(&b, &copy).unwrap();
    let p = |f: &std::path::Path| f.to_str().unwrap().to_string();
    let (code, json, err) = run(&[
        "compare",
        &p(&a),
        "--against",
        &p(&b),
        &p(&b),
        &p(&copy),
        "--fail-if-slower",
        "50%",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    for given in [p(&b), p(&copy)] {
        assert!(err.contains(&format!("warning: {given}: the same report as b (given twice): counted once")), "{err}");
    }
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["reports"].as_array().unwrap().len(), 2, "each report once");
    assert_eq!(v["gate"]["after"], "b", "the change side is b alone");
    let (code, out, err) = run(&["compare", &p(&a), &p(&a), "--fail-if-slower", "5%"]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("the same report as a (given twice)") && err.contains("these files hold one run"), "{err}");
}

/// Issue 36: `compare live.json dead.json` (a run against the embedded server, one against a URL, placed
/// alike) warned `different CPU placements (live: split, dead: split)`. A server that could not be placed is
/// not a placement difference; a pin that differs is named with each run's.
#[test]
fn the_placement_warning_names_what_differs_or_says_nothing() {
    let dir = scratch("compare-placement");
    let (live, dead, other) = (dir.join("live.json"), dir.join("dead.json"), dir.join("other.json"));
    let server = crate::support::servers::TestServer::fixed(b"placed");
    export_run(&live, &[&SMALL_RAW[..], &["--pin", "same"]].concat());
    export_run(&dead, &[&["run", server.url.as_str()][..], &SMALL_RAW, &["--pin", "same"]].concat());
    export_run(&other, &[&SMALL_RAW[..], &["--pin", "none"]].concat());
    let p = |f: &std::path::Path| f.to_str().unwrap().to_string();
    let (code, out, err) = run(&["compare", &p(&live), &p(&dead), "--wide"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("[dead] placement: pin same") && out.contains("server not pinnable (external URL)"), "{out}");
    assert!(!out.contains("different CPU placements"), "{out}");
    let (code, out, err) = run(&["compare", &p(&live), &p(&other)]);
    assert_eq!(code, 0, "{err}");
    // One short line on a terminal, the whole warning with --wide.
    assert!(out.contains("warning: different CPU placements (pin: live same, other none"), "{out}");
    assert!(out.lines().all(|l| l.chars().count() <= 100), "{out}");
    let (_, wide, _) = run(&["compare", &p(&live), &p(&other), "--wide"]);
    assert!(
        wide.contains("warning: these reports ran under different CPU placements (pin: live same, other none"),
        "{wide}"
    );
}
