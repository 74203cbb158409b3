//! `httpbench run` end to end: every client and mode against the embedded server and against a server written
//! in the test, the report formats, exports, and the exit codes for bad input and failing targets.

use crate::schema::validate;
use crate::support::cli::{cases, run, run_json};
use crate::support::scratch;
use crate::support::serve::Serve;
use crate::support::servers::{refused_port, TestServer};

use crate::support::table::all_libraries;

#[test]
fn every_client_and_mode_against_the_embedded_server() {
    let (code, v, err) = run_json(&["run", "-n", "25", "--warmup", "2", "--clients", "all", "--mode", "both"]);
    assert_eq!(code, 0, "stderr: {err}");
    validate(&v);
    assert_eq!(v["target"]["embedded_server"], true);
    assert!(v["target"]["url"].as_str().unwrap().starts_with("http://127.0.0.1:"));
    let cases = cases(&v);
    assert_eq!(cases.len(), 2 * all_libraries().len());
    for client in all_libraries() {
        for mode in ["fresh", "reuse"] {
            let c = cases.iter().find(|c| c["client"] == client && c["mode"] == mode).expect("case present");
            assert_eq!(c["iterations"], 25, "{client}/{mode}");
            assert_eq!(c["ok"], 25, "{client}/{mode}: {c}");
            assert_eq!(c["bytes"], 25 * 612, "{client}/{mode} reads every body to the end");
            assert_eq!(c["statuses"]["200"], 25);
            assert!(c["rate_wall"].as_f64().unwrap() > 0.0);
            assert!(c["cpu_user_secs"].as_f64().is_some(), "native cases record CPU time");
            let l = &c["latency_ns"];
            assert!(l["min"].as_f64().unwrap() <= l["p50"].as_f64().unwrap());
            assert!(l["p50"].as_f64().unwrap() <= l["max"].as_f64().unwrap());
        }
    }
    assert!(v["environment"]["client_versions"]["curl"].as_str().unwrap().starts_with("libcurl"));
}

#[test]
fn every_client_against_a_server_written_in_the_test() {
    static BODY: [u8; 1234] = [b'z'; 1234];
    let server = TestServer::fixed(&BODY);
    let (code, v, err) = run_json(&["run", &server.url, "-n", "20", "--warmup", "1", "--clients", "all"]);
    assert_eq!(code, 0, "stderr: {err}");
    validate(&v);
    assert_eq!(v["target"]["embedded_server"], false);
    for c in cases(&v) {
        assert_eq!(c["ok"], 20, "{c}");
        assert_eq!(c["bytes"], 20 * 1234, "{} {}", c["client"], c["mode"]);
    }
}

#[test]
fn the_text_report_answers_first_and_fits_a_terminal() {
    // Every native library client, both modes, two loads: the widest default report a plain run prints.
    let args = ["-n", "20", "--warmup", "1", "--rounds", "2", "--clients", "all", "--mode", "both", "-c", "1,2"];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let headline = out.find("Headline: time per request against a reference").expect("a headline");
    let table = out.find("\ncase ").expect("the compact table");
    assert!(headline < table, "the answer comes first: {out}");
    assert!(out.contains("fresh/c1: against ") && out.contains("reuse/c2: against "), "a block per load: {out}");
    assert!(out.contains("note: 2 rounds of some cases"), "too few rounds are said: {out}");
    let long: Vec<&str> = out.lines().filter(|l| l.chars().count() > 100).collect();
    assert!(long.is_empty(), "lines over 100 columns: {long:#?}");
    assert!(
        !out.contains("Benchmark: timing") && !out.contains("mean ± σ"),
        "Perl's lines and the wide table wait for --wide: {out}"
    );
}

#[test]
fn wide_text_report_has_perl_blocks_and_the_whole_statistics_table() {
    let (code, out, err) = run(&["-n", "30", "--warmup", "1", "--clients", "curl,raw", "--mode", "reuse", "--wide"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Benchmark: timing 30 iterations of curl, raw...\n"), "{out}");
    assert!(out.contains("Rates: ok requests per wall-clock second"), "{out}");
    let timethese_line = out.lines().find(|l| l.starts_with("      curl: ")).expect("a timethese line for curl");
    assert!(timethese_line.contains(" wallclock secs (") && timethese_line.ends_with("/s (n=30)"), "{timethese_line}");
    let chart = out.lines().find(|l| l.trim_start().starts_with("Rate ")).expect("a cmpthese header");
    assert!(chart.contains("curl") && chart.contains("raw"), "{chart}");
    assert!(out.contains("case  ") && out.contains("mean ± σ") && out.contains("p99.9"), "{out}");
    assert!(err.contains("debug build") || !cfg!(debug_assertions), "a debug build says so: {err}");
}

#[test]
fn perl_flag_rates_by_cpu_time() {
    let (code, out, _) = run(&["-n", "20", "--warmup", "0", "--clients", "raw", "--mode", "fresh", "--perl"]);
    assert_eq!(code, 0);
    assert!(out.contains("Rates: iterations per CPU second"), "{out}");
}

#[test]
fn markdown_and_csv_formats() {
    let (code, md, _) = run(&["-n", "10", "--warmup", "0", "--clients", "raw", "--format", "markdown"]);
    assert_eq!(code, 0);
    assert!(md.contains("| case | ok | errors |") && md.contains("| raw/fresh |"), "{md}");
    let (code, csv, _) = run(&["-n", "10", "--warmup", "0", "--clients", "raw", "--format", "csv"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[0].starts_with("case,environment,client,mode,http_version,iterations,ok"));
    assert!(lines[1].starts_with("raw/fresh,native,raw,fresh,1.1,10,10,0,"), "{csv}");
}

#[test]
fn exports_are_written_whole() {
    let dir = scratch("exports");
    let json = dir.join("r.json");
    let md = dir.join("r.md");
    let csv = dir.join("r.csv");
    let (code, out, err) = run(&[
        "-n",
        "10",
        "--warmup",
        "0",
        "--clients",
        "curl",
        "--mode",
        "reuse",
        "--export-json",
        json.to_str().unwrap(),
        "--export-markdown",
        md.to_str().unwrap(),
        "--export-csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("curl ran at ") && out.contains(" req/s ["), "the report is printed: {out}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    validate(&v);
    assert!(std::fs::read_to_string(&md).unwrap().contains("| curl |"));
    assert!(std::fs::read_to_string(&csv).unwrap().lines().count() == 2);
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 3, "no temporary files left: {names:?}");
}

/// Exports are made to be published: created with the user's umask (0666 less it), as `cp` or a shell
/// redirection would, not the 0600 of a temporary file (issue 29). Two umasks, so the mode is not a default.
#[test]
fn exports_are_written_with_the_users_umask() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("exports-umask");
    for (umask, want) in [("022", 0o644), ("027", 0o640)] {
        let (json, html) = (dir.join(format!("r{umask}.json")), dir.join(format!("r{umask}.html")));
        let script = format!(
            "umask {umask}; exec \"$0\" -n 5 --warmup 0 --clients raw --mode reuse --no-progress \
             --export-json \"$1\" --export-html \"$2\" >/dev/null"
        );
        let status = std::process::Command::new("sh")
            .args(["-c", &script, env!("CARGO_BIN_EXE_httpbench"), json.to_str().unwrap(), html.to_str().unwrap()])
            .status()
            .unwrap();
        assert!(status.success());
        for f in [&json, &html] {
            let mode = std::fs::metadata(f).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, want, "{} under umask {umask}: {mode:o}", f.display());
        }
    }
}

#[test]
fn bad_urls_exit_2_with_one_line_naming_the_value() {
    for bad in ["ftp://example.com/", "not a url", "http://", "127.0.0.1:8080"] {
        let (code, out, err) = run(&["run", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(out.is_empty(), "no work done for {bad}");
        assert_eq!(err.trim_end().lines().count(), 1, "one line for {bad}: {err}");
        assert!(err.contains(bad), "the message names {bad}: {err}");
    }
}

#[test]
fn bad_options_exit_2_naming_the_flag() {
    let cases = [
        (vec!["--clients", "wget"], "'wget'"),
        (vec!["--mode", "sometimes"], "--mode"),
        (vec!["-n", "0"], "--count"),
        (vec!["--format", "xml"], "'xml'"),
        (vec!["--export-json", "/nonexistent-dir/x.json"], "/nonexistent-dir"),
        (vec!["--http", "2"], "--http 2"),
    ];
    for (args, named) in cases {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(named), "{args:?} → {err}");
    }
}

/// A URL with a user name or password is refused before any request, and the message never repeats the
/// password (9 of 13 clients sent it, the others did not, and the report kept it); a fragment never reaches
/// a request line (issue 29). The server records every request line it is sent.
#[test]
fn credentials_in_a_url_are_refused_and_a_fragment_is_never_sent() {
    let server = TestServer::fixed(b"ok");
    let addr = server.url.trim_start_matches("http://").trim_end_matches('/').to_string();
    for url in [format!("http://user:s3cret@{addr}/"), format!("http://user@{addr}/")] {
        for args in [vec!["run", url.as_str(), "-n", "5"], vec!["share", "x.json", "--page", url.as_str()]] {
            let (code, out, err) = run(&args);
            assert_eq!(code, 2, "{args:?}: {err}");
            assert!(
                out.is_empty() && err.contains(&format!("http://***@{addr}/ has a user name or password")),
                "{err}"
            );
            assert!(
                !err.contains("s3cret") && !err.contains("user@") && !err.contains("user:"),
                "the password is not repeated: {err}"
            );
            assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        }
    }
    let made = server.received();
    assert!(made.is_empty(), "no request was made: {made:?}");
    let url = format!("http://{addr}/p?q=1#frag");
    let (code, v, err) = run_json(&["run", &url, "-n", "2", "--warmup", "0", "--rounds", "1", "--clients", "all"]);
    assert_eq!(code, 0, "{err}");
    assert!(!v.to_string().contains("frag"), "the result file keeps the URL as sent: {}", v["target"]);
    // The run has ended, so every request it made is in the server's channel.
    let heads: Vec<String> = server.received().into_iter().map(|r| r.head).collect();
    assert_eq!(heads.len(), crate::support::table::all_libraries().len() * 2 * 2, "{heads:?}");
    for head in &heads {
        assert!(head.starts_with("GET /p?q=1 HTTP/1.1\r\n"), "{head}");
        assert!(!head.to_ascii_lowercase().contains("authorization"), "{head}");
    }
    // What --timeout allows, said when it is not given.
    let (code, _, err) = run(&["--timeout", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("'0'") && err.contains("above 0 and at most 3600"), "{err}");
}

#[test]
fn refused_port_counts_errors_and_still_prints_the_report() {
    let url = format!("http://127.0.0.1:{}/", refused_port());
    let args = ["run", &url, "-n", "5", "--warmup", "0", "--clients", "all", "--mode", "reuse", "--wide"];
    let (code, out, err) = run(&args);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("Benchmark: timing 5 iterations of"), "the report is printed: {out}");
    assert!(out.contains("warning: failed requests: curl 5 of 5 (connect: 5), curl-multi 5 of 5 (connect: 5), ureq 5 of 5 (connect: 5)"), "{out}");
    assert_eq!(out.matches("warning: failed requests").count(), 1, "one line for every failing case: {out}");
    let (code, v, _) = run_json(&["run", &url, "-n", "5", "--warmup", "0", "--clients", "all", "--mode", "reuse"]);
    assert_eq!(code, 1);
    validate(&v);
    for c in cases(&v) {
        assert_eq!(c["ok"], 0);
        assert_eq!(c["errors"]["connect"], 5, "{} reports a refused connection as connect: {c}", c["client"]);
        assert!(c["latency_ns"].is_null());
    }
}

#[test]
fn non_2xx_statuses_are_counted_not_ok() {
    let serve = Serve::start();
    let url = format!("{}status/404", serve.url);
    let (code, v, _) = run_json(&["run", &url, "-n", "6", "--warmup", "0", "--clients", "all", "--mode", "reuse"]);
    assert_eq!(code, 1);
    for c in cases(&v) {
        assert_eq!(c["ok"], 0, "{c}");
        assert_eq!(c["errors"]["status"], 6, "{c}");
        assert_eq!(c["statuses"]["404"], 6, "{c}");
    }
}

#[test]
fn rounds_and_duration() {
    let (code, v, err) =
        run_json(&["-n", "40", "--warmup", "0", "--rounds", "4", "--clients", "curl,raw", "--mode", "reuse"]);
    assert_eq!(code, 0, "{err}");
    validate(&v);
    assert_eq!(v["settings"]["rounds"], 4);
    assert_eq!(v["settings"]["interleave"], true);
    for c in cases(&v) {
        let rounds = c["rounds"].as_array().unwrap();
        assert_eq!(rounds.len(), 4);
        assert!(rounds.iter().all(|r| r["iterations"] == 10));
        let s = &c["rate_wall_spread"];
        assert!(s["ci95_low"].as_f64().unwrap() <= s["mean"].as_f64().unwrap());
        assert!(s["mean"].as_f64().unwrap() <= s["ci95_high"].as_f64().unwrap());
    }
    let (code, out, err) =
        run(&["--duration", "600ms", "--rounds", "3", "--warmup", "0", "--clients", "raw,curl", "--wide"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Benchmark: running curl/fresh, curl/reuse, raw/fresh, raw/reuse, each for at least 0.6 wallclock seconds..."),
        "{out}"
    );
    assert!(out.contains("at least 0.6 s per case") && out.contains("3 rounds, interleaved"), "{out}");
    assert!(out.contains("Headline: ") && out.contains(" against "), "{out}");
}

#[test]
fn ctrl_c_reports_and_exports_what_was_measured() {
    use std::process::Stdio;
    let dir = scratch("ctrl-c");
    let json = dir.join("partial.json");
    let server = TestServer::fixed(b"ctrl-c");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_httpbench"))
        .args(["run", &server.url, "-n", "10000000", "--warmup", "0", "--clients", "raw", "--mode", "reuse"])
        .args(["--rounds", "1"])
        .args(["--export-json", json.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once the client is measuring, not after a guessed pause.
    server.requests(200, std::time::Duration::from_secs(60));
    // SAFETY: sending SIGINT to the child we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(stdout.lines().any(|l| l.starts_with("raw ")), "the report of the measured requests is printed: {stdout}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    validate(&v);
    let c = &cases(&v)[0];
    let n = c["iterations"].as_u64().unwrap();
    assert!(n > 0 && n < 10_000_000, "{n}");
    assert_eq!(c["ok"].as_u64().unwrap(), n, "no request failed because of the interrupt");
}

/// `run -h` fits a terminal: at 100 columns, at most 60 lines, none wider, options under their headings; the
/// top-level help lists the commands and examples, not every option of `run` again; a misspelt flag keeps
/// clap's tip in its one line.
#[test]
fn help_fits_a_terminal_and_a_typo_gets_its_tip() {
    let help = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_httpbench"))
            .args(args)
            .env("COLUMNS", "100")
            .output()
            .expect("httpbench runs");
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    let short = help(&["run", "-h"]);
    assert!(short.lines().count() <= 60, "{} lines:\n{short}", short.lines().count());
    let wide: Vec<&str> = short.lines().filter(|l| l.chars().count() > 100).collect();
    assert!(wide.is_empty(), "{wide:#?}");
    for heading in ["Plan:", "Clients:", "Target and TLS:", "Browser:", "Output:"] {
        assert!(short.lines().any(|l| l == heading), "{heading}\n{short}");
    }
    let long = help(&["run", "--help"]);
    assert!(long.contains("Verification stays on: there is no --insecure."), "the prose is in --help: {long}");
    let top = help(&["--help"]);
    assert!(top.contains("Commands:") && top.contains("Examples:") && top.contains("  compare "), "{top}");
    assert!(!top.contains("--count"), "run's options stay in run's help: {top}");
    let (code, _, err) = run(&["run", "--round", "3"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("'--round'") && err.contains("tip: a similar argument exists: '--rounds'"), "{err}");
}

/// A target that refuses every warm-up request: the run stops there with one line naming the target, the
/// cause and what to check, exit 1, and no table of failures.
#[test]
fn a_target_that_refuses_every_warm_up_request_stops_with_one_line() {
    let url = format!("http://127.0.0.1:{}/", refused_port());
    let (code, out, err) = run(&["run", &url, "-n", "50", "--warmup", "3", "--clients", "curl,raw", "--mode", "reuse"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out, "", "nothing measured, nothing printed");
    let line = err.lines().find(|l| l.starts_with("httpbench: error: ")).expect("an error line");
    assert!(line.contains(&format!("every request to {url} failed in the warm-up (connect")), "{err}");
    assert!(line.ends_with("is the server running, on that port?"), "{err}");
    assert!(!err.contains("NaN") && !err.contains("Inf"), "{err}");
}
