//! `httpbench compare`: result files rendered together, and bad files refused by name.

use crate::helpers::{run, scratch};

#[test]
fn two_saved_runs_render_as_one_report() {
    let dir = scratch("compare");
    let a = dir.join("before.json");
    let b = dir.join("after.json");
    for f in [&a, &b] {
        let (code, _, err) = run(&[
            "-n",
            "10",
            "--warmup",
            "0",
            "--clients",
            "curl,raw",
            "--mode",
            "reuse",
            "--export-json",
            f.to_str().unwrap(),
            "--format",
            "csv",
        ]);
        assert_eq!(code, 0, "{err}");
    }
    let (code, out, err) = run(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Benchmark: timing 10 iterations of after/curl, after/raw, before/curl, before/raw..."),
        "{out}"
    );
    assert!(out.contains("[before] httpbench") && out.contains("[after] httpbench"), "{out}");
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
