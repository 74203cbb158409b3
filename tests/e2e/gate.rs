//! `httpbench compare --fail-if-slower`: the regression gate end to end, on real runs against the embedded
//! server: a server delay really slows every case (exit 3, the cases named, in text, Markdown and JSON); two
//! runs of one plan pass; environments that differ warn (or, with `--strict`, refuse); the trend of three runs.
//! And what a gate must not pass (issue 36): a change whose every request fails, a gate that judged nothing,
//! figures that overflow, a run stopped before its end.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::cli::{export_run, run};
use crate::support::servers::TestServer;
use crate::support::{scratch, wait_until};

const PLAN: [&str; 10] = ["-n", "300", "--rounds", "5", "--warmup", "20", "--clients", "curl,raw", "--mode", "reuse"];

fn plan_run(path: &Path, extra: &[&str]) {
    let mut args = PLAN.to_vec();
    args.extend(extra);
    export_run(path, &args);
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// base.json and slow.json (the same plan with a 2 ms server delay) in a scratch folder of `name`.
fn runs(name: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(name);
    let (base, slow) = (dir.join("base.json"), dir.join("slow.json"));
    plan_run(&base, &[]);
    plan_run(&slow, &["--server-delay", "2ms"]);
    (base, slow)
}

#[test]
fn a_real_slowdown_fails_the_gate_naming_the_cases_in_every_format() {
    let (base, slow) = runs("gate");
    let (code, out, err) = run(&["compare", s(&base), s(&slow), "--fail-if-slower", "5%"]);
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(err.contains("gate failed: 2 case(s) of slow slower than base beyond 5% (wall rate): curl, raw"), "{err}");
    let lines: Vec<&str> = out.lines().filter(|l| l.contains(" → ") && l.ends_with("slower")).collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(out.contains("matched across a change of server delay: none vs 2 ms"), "{out}");
    let (code, md, _) = run(&["compare", s(&base), s(&slow), "--fail-if-slower", "5%", "--format", "markdown"]);
    assert_eq!(code, 3);
    assert!(md.starts_with("**Change from base to slow") && md.matches("| **▼ slower** |").count() == 2, "{md}");
    let (code, json, _) = run(&["compare", s(&base), s(&slow), "--fail-if-slower", "5%", "--format", "json"]);
    assert_eq!(code, 3);
    let v: Value = serde_json::from_str(&json).expect("JSON");
    let verdicts: Vec<&str> =
        v["gate"]["changes"].as_array().unwrap().iter().map(|c| c["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts, ["slower", "slower"], "{json}");
    assert!(v["gate"]["changes"][0]["interval"][0].as_f64().unwrap() > 0.05);
    assert_eq!(v["reports"].as_array().unwrap().len(), 2);
    // The other way round it is faster, and the gate passes.
    let (code, out, err) = run(&["compare", s(&slow), s(&base), "--fail-if-slower", "5%"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.lines().filter(|l| l.contains(" → ") && l.ends_with("faster")).count() == 2
            && err.contains("gate passed: 2 faster"),
        "{err}"
    );
}

/// Two runs of one plan back to back pass a gate whose threshold is above this machine's run-to-run drift
/// (the bench script `scripts/bench-gate.sh` counts false alarms at 5%, too noisy a threshold to test on a
/// shared machine).
#[test]
fn two_runs_of_one_plan_pass_and_a_single_round_is_inconclusive() {
    let dir = scratch("gate-same");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    plan_run(&a, &[]);
    plan_run(&b, &[]);
    let (code, out, err) = run(&["compare", s(&a), s(&b), "--fail-if-slower", "50%"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("gate passed"), "{err}");
    let (one, two) = (dir.join("one.json"), dir.join("two.json"));
    export_run(&one, &["-n", "50", "--rounds", "1", "--clients", "raw", "--mode", "reuse"]);
    export_run(&two, &["-n", "50", "--rounds", "1", "--clients", "raw", "--mode", "reuse"]);
    let (code, out, err) = run(&["compare", s(&one), s(&two), "--fail-if-slower", "5%"]);
    assert_eq!(code, 0, "inconclusive alone passes: {out}\n{err}");
    assert!(
        out.contains("inconclusive (fewer than 2 rounds") && err.contains("1 case(s) inconclusive"),
        "{out}\n{err}"
    );
    let (code, _, err) = run(&["compare", s(&one), s(&two), "--fail-if-slower", "5%", "--fail-if-inconclusive"]);
    assert_eq!(code, 3, "{err}");
}

#[test]
fn environments_that_differ_warn_and_strict_refuses_them() {
    let dir = scratch("gate-env");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    plan_run(&a, &[]);
    let mut other: Value = serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    let profile = other["tool"]["build_profile"].as_str().unwrap().to_string();
    other["tool"]["build_profile"] = if profile == "release" { "debug" } else { "release" }.into();
    std::fs::write(&b, other.to_string()).unwrap();
    let (code, _, err) = run(&["compare", s(&a), s(&b), "--fail-if-slower", "5%"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: environments differ, build profile: "), "{err}");
    let (code, out, err) = run(&["compare", s(&a), s(&b), "--fail-if-slower", "5%", "--strict"]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("are not comparable (--strict): build profile: ") && out.is_empty(), "{err}");
}

#[test]
fn a_gate_needs_two_runs_with_a_case_in_common() {
    let dir = scratch("gate-usage");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    export_run(&a, &["-n", "20", "--rounds", "2", "--clients", "raw", "--mode", "reuse"]);
    export_run(&b, &["-n", "20", "--rounds", "2", "--clients", "curl", "--mode", "reuse"]);
    let (code, _, err) = run(&["compare", s(&a), "--fail-if-slower", "5%"]);
    assert_eq!(code, 2);
    assert!(err.contains("--fail-if-slower needs two result files or more"), "{err}");
    let (code, out, err) = run(&["compare", s(&a), s(&b), "--fail-if-slower", "5%"]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("have no case in common") && out.is_empty(), "{err}");
    let (code, _, err) = run(&["compare", s(&a), s(&b), "--fail-if-slower=-5%"]);
    assert_eq!(code, 2);
    assert!(err.contains("'-5%' is not a threshold"), "{err}");
}

#[test]
fn three_runs_make_a_trend_in_text_and_html() {
    let (base, slow) = runs("gate-trend");
    let dir = scratch("gate-trend-later");
    let later = dir.join("later.json");
    plan_run(&later, &["--server-delay", "2ms"]);
    let html = dir.join("trend.html");
    // Given out of order: the trend follows the runs' start times.
    let (code, out, err) = run(&["compare", s(&later), s(&slow), s(&base), "--export-html", s(&html)]);
    assert_eq!(code, 0, "{err}");
    let start = out.find("Trend of wall rate over 3 runs").expect("trend table");
    let header = out[start..].lines().nth(1).unwrap();
    let at = |name: &str| header.find(name).unwrap_or_else(|| panic!("{name} in {header}"));
    assert!(at("base") < at("slow") && at("slow") < at("later"), "{header}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("data-testid=\"trend-chart\""));
}

/// The CI recipe's script, with the two sides' binaries given (no builds): the real binary as the base, and as
/// the change the same binary behind a wrapper that asks the embedded server for a 2 ms delay, so the change is
/// really slower. The gate fails with 3 and writes the Markdown verdict to the step summary; the same binary on
/// both sides passes.
#[test]
fn the_ci_recipe_gates_a_change_against_its_base() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("gate-ci");
    let real = env!("CARGO_BIN_EXE_httpbench");
    let slow = dir.join("slow-httpbench");
    let wrapper = format!(
        "#!/bin/sh\nif [ \"$1\" = run ]; then shift; exec '{real}' run --server-delay 2ms \"$@\"; fi\nexec '{real}' \"$@\"\n"
    );
    std::fs::write(&slow, wrapper).unwrap();
    std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/gate-ci.sh");
    let gate = |new_bin: &str, name: &str, threshold: &str| {
        let summary = dir.join(format!("{name}-summary.md"));
        let out = std::process::Command::new("bash")
            .arg(&script)
            .args(["main", threshold])
            .env("HTTPBENCH_BASE_BIN", real)
            .env("HTTPBENCH_NEW_BIN", new_bin)
            .env("HTTPBENCH_GATE_PLAN", "-n 200 --rounds 3 --warmup 10 --clients raw --mode reuse")
            .env("HTTPBENCH_GATE_DIR", dir.join(name))
            .env("GITHUB_STEP_SUMMARY", &summary)
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (
            out.status.code(),
            text(&out.stdout) + &text(&out.stderr),
            std::fs::read_to_string(summary).unwrap_or_default(),
        )
    };
    let (code, out, summary) = gate(slow.to_str().unwrap(), "slow", "5%");
    assert_eq!(code, Some(3), "{out}");
    assert!(summary.starts_with("**Change from base-1 and 1 more to new-1 and 1 more"), "{summary}");
    assert!(summary.contains("| **▼ slower** |"), "{summary}");
    // Above this shared machine's run-to-run drift: the false-alarm rate at 5% is the bench script's to count.
    let (code, out, _) = gate(real, "same", "50%");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("gate passed"), "{out}");
}

/// `--against`: each side's files pooled into one run (A B A B on one machine), its rounds from every file.
#[test]
fn files_of_each_side_pool_into_one_run_with_against() {
    let dir = scratch("gate-against");
    let files: Vec<PathBuf> = ["a1", "b1", "a2", "b2"].iter().map(|n| dir.join(format!("{n}.json"))).collect();
    for (i, f) in files.iter().enumerate() {
        let delay: &[&str] = if i % 2 == 1 { &["--server-delay", "2ms"] } else { &[] };
        export_run(
            f,
            &[&["-n", "100", "--rounds", "3", "--warmup", "10", "--clients", "raw", "--mode", "reuse"], delay].concat(),
        );
    }
    let args = ["compare", s(&files[0]), s(&files[2]), "--against", s(&files[1]), s(&files[3])];
    let (code, json, err) = run(&[&args[..], &["--fail-if-slower", "5%", "--format", "json"]].concat());
    assert_eq!(code, 3, "{err}");
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (v["gate"]["before"].as_str(), v["gate"]["after"].as_str()),
        (Some("a1 and 1 more"), Some("b1 and 1 more"))
    );
    assert_eq!(v["gate"]["changes"].as_array().unwrap().len(), 1, "one case: the four files' raw, pooled per side");
    assert_eq!(v["reports"].as_array().unwrap().len(), 4);
}

/// Issue 36: a change whose every request failed (its server gone) passed as `4 unjudged`, even with
/// `--fail-if-inconclusive --strict`. The same URL both times: the base while a server answers there, the
/// change once it is gone.
#[test]
fn a_change_whose_every_request_fails_fails_the_gate_naming_the_kinds() {
    let dir = scratch("gate-dead");
    let (base, dead) = (dir.join("base.json"), dir.join("dead.json"));
    let plan = ["-n", "100", "--rounds", "3", "--warmup", "0", "--clients", "curl,raw", "--mode", "reuse"];
    let server = TestServer::fixed(b"alive");
    let url = server.url.clone();
    export_run(&base, &[&["run", url.as_str()][..], &plan].concat());
    drop(server);
    let addr = url.trim_start_matches("http://").trim_end_matches('/').to_string();
    let gone = || std::net::TcpStream::connect(&addr).is_err();
    wait_until("the server gone", std::time::Duration::from_secs(10), gone, String::new);
    let export = ["--format", "csv", "--export-json", s(&dead)];
    let (code, _, err) = run(&[&["run", url.as_str()][..], &plan, &export].concat());
    assert_eq!(code, 1, "failed requests exit 1, and the file is written: {err}");
    let gate = ["--fail-if-slower", "5%", "--fail-if-inconclusive", "--strict"];
    let (code, out, err) = run(&[&["compare", s(&base), s(&dead)][..], &gate].concat());
    assert_eq!(code, 3, "{out}\n{err}");
    let why = "no ok request: connect 100 of 100";
    assert!(
        err.contains(&format!("gate failed: 2 case(s) of dead fail where base did not: curl ({why}), raw ({why})")),
        "{err}"
    );
    assert!(!err.contains("gate passed"), "{err}");
    let raw = out.lines().find(|l| l.trim_start().starts_with("raw ") && l.contains(" → ")).expect("raw's change line");
    assert!(raw.ends_with(&format!("failed ({why})")), "{raw}");
    // No statistic of the report is infinite or NaN: the dead cases have no rate to chart.
    assert!(!out.contains("Inf") && !out.contains("NaN"), "{out}");
    assert!(!out.contains("Headline"), "runs compared: the change lines are the answer: {out}");
    let (code, json, _) = run(&[&["compare", s(&base), s(&dead), "--format", "json"][..], &gate].concat());
    assert_eq!(code, 3);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["gate"]["changes"][0]["verdict"], "failed", "{json}");
}

/// Issue 36: `--metric p99` on files without percentiles per round (written before version 4) passed having
/// judged nothing. The same files by rate are judged.
#[test]
fn a_gate_that_judges_nothing_does_not_pass() {
    let dir = scratch("gate-nothing");
    let v3 = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/tests/data/v3-report.json");
    let mut rerun: Value = serde_json::from_str(&std::fs::read_to_string(&v3).unwrap()).unwrap();
    rerun["tool"]["version"] = "0.0.1-rerun".into();
    let again = dir.join("again.json");
    std::fs::write(&again, rerun.to_string()).unwrap();
    let (code, out, err) = run(&["compare", s(&v3), s(&again), "--metric", "p99", "--fail-if-slower", "5%"]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(
            "v3-report and again: judged nothing by p99 latency (--metric p99): no round of the base has its \
                      p99 latency: no latency recorded per round (no ok request, or a file before version 4); choose \
                      another --metric"
        ),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let (code, _, err) = run(&["compare", s(&v3), s(&again), "--fail-if-slower", "5%"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("gate passed") && !err.contains("unjudged"), "{err}");
}

/// Issue 36: rounds of 1e300 s made every variance NaN and every case inconclusive. A file whose figures agree
/// with each other but overflow is refused when read, naming the file and the field.
#[test]
fn figures_that_overflow_are_refused_when_the_file_is_read() {
    let dir = scratch("gate-overflow");
    let good = dir.join("good.json");
    let text =
        export_run(&good, &["-n", "20", "--rounds", "2", "--warmup", "0", "--clients", "raw", "--mode", "reuse"]);
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let c = &mut v["cases"][0];
    c["rounds"].as_array_mut().unwrap().iter_mut().for_each(|r| r["wall_secs"] = 1e300.into());
    c["wall_secs"] = 2e300.into();
    c["rate_wall"] = (c["ok"].as_f64().unwrap() / 2e300).into();
    c["rate_wall_spread"] = Value::Null;
    let huge = dir.join("huge.json");
    std::fs::write(&huge, v.to_string()).unwrap();
    let (code, out, err) = run(&["compare", s(&good), s(&huge), "--fail-if-slower", "5%"]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(
            "huge.json: impossible value: cases[0] (raw reuse): wall_secs is 2e300, expected 0 or a time from \
                      1e-9 s to 1e9 s"
        ),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// Issue 36: an interrupted run's export says it is partial (here SIGTERM, as a CI job's timeout sends it), and
/// the gate says so when it reads one; `--strict` refuses it.
#[test]
fn a_stopped_run_exports_a_partial_file_and_the_gate_says_so() {
    use std::process::{Command, Stdio};
    let dir = scratch("gate-partial");
    let (base, stopped) = (dir.join("base.json"), dir.join("stopped.json"));
    let server = TestServer::fixed(b"partial");
    let plan = ["--warmup", "0", "--clients", "raw", "--mode", "reuse", "--rounds", "2"];
    export_run(&base, &[&["run", server.url.as_str(), "-n", "200"][..], &plan].concat());
    let child = Command::new(env!("CARGO_BIN_EXE_httpbench"))
        .args(["run", server.url.as_str(), "-n", "10000000"])
        .args(plan)
        .args(["--format", "csv", "--export-json", s(&stopped)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Stop it once it is measuring, not after a guessed pause: the base made 200 requests.
    server.requests(400, std::time::Duration::from_secs(60));
    // SAFETY: sending SIGTERM to the child we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&stopped).unwrap()).unwrap();
    crate::schema::validate(&file);
    assert_eq!(file["partial"], true);
    let whole: Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    assert!(whole.get("partial").is_none(), "a whole run's file has no partial field");
    let (code, out, err) = run(&["compare", s(&base), s(&stopped), "--fail-if-slower", "50%", "--wide"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let said = "stopped is partial: it was stopped before its plan was done, and its cases hold what it measured";
    assert!(err.contains(&format!("httpbench: warning: {said}")), "{err}");
    assert!(out.contains(&format!("  warning: {said}")) && out.contains("warning: [stopped] is partial"), "{out}");
    let (code, out, err) = run(&["compare", s(&base), s(&stopped), "--fail-if-slower", "50%", "--strict"]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains(said) && err.contains("(--strict): run it to its end"), "{err}");
}
