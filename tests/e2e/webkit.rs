//! The third browser engine: `run --browser webkit`, the page in a real WebKitGTK MiniBrowser on an Xvfb display
//! of its own, started by WebKitWebDriver only to trust the servers' own certificates and open the page (the
//! page measures and posts its results as in the other engines); its cases named by the engine beside the
//! native clients' in one report, over TLS on HTTP/1.1 and HTTP/2 with HTTP/3 left out with why, and nothing
//! of it left running when the run ends.

use httpbench_shared::model::Engine;

use crate::browser_plan::{case, every_case_ran_whole, every_request_timed_out_at_1s, BrowserRun};
use crate::support::cli::run;

/// Why these tests are ignored by a plain `cargo test`.
const NEEDS_WEBKIT: &str =
    "needs the built page (dist/), WebKitGTK's MiniBrowser, WebKitWebDriver and Xvfb: scripts/test.sh runs it";

/// The processes whose command line names `what`: (pid, command line).
fn running(what: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let cmdline = cmdline(pid);
        if cmdline.contains(what) {
            found.push((pid, cmdline));
        }
    }
    found
}

/// Process `pid`'s command line, its arguments joined by spaces.
fn cmdline(pid: u32) -> String {
    let bytes = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    String::from_utf8_lossy(&bytes).replace('\0', " ")
}

/// Whether process `pid`'s parent's command line names `parent`.
fn parent_runs(pid: u32, parent: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // After the command's name in parentheses: the state, then the parent's pid.
    let ppid = stat.rsplit(") ").next().and_then(|rest| rest.split(' ').nth(1)).and_then(|p| p.parse().ok());
    ppid.is_some_and(|ppid| cmdline(ppid).contains(parent))
}

#[test]
#[ignore = "needs the built page (dist/), WebKitGTK's MiniBrowser, WebKitWebDriver and Xvfb: scripts/test.sh runs it"]
fn run_browser_webkit_names_its_cases_by_the_engine_and_leaves_nothing_running() {
    let args = "-n 100 --warmup 10 --rounds 2 --clients curl --browser-clients fetch,xhr,js-fetch";
    let r = BrowserRun::new("run-webkit", args).engines("webkit").run();
    let (code, out, err) = (r.code, &r.out, &r.err);
    assert_eq!(code, 0, "{NEEDS_WEBKIT}\n{err}\n{out}");
    for label in ["native/curl/fresh", "webkit/fetch/reuse", "webkit/xhr/fresh", "webkit/js-fetch/reuse"] {
        assert!(out.lines().any(|l| l.starts_with(&format!("{label} "))), "a table row for {label}: {out}");
    }
    assert!(!out.contains("chromium/") && !out.contains("firefox/"), "webkit alone was asked for: {out}");
    assert_eq!(r.reports.len(), 2, "native and WebKit");
    let webkit = r.engine("webkit");
    let e = &webkit["environment"];
    let ua = e["user_agent"].as_str().unwrap();
    assert!(ua.contains("AppleWebKit/") && !ua.contains("Chrome/"), "{ua}");
    // WebKitGTK's user agent carries a Safari version that is not its own: none is read from it, and the
    // version the WebDriver session reported is recorded instead, and named in the header.
    assert_eq!(Engine::of_user_agent(Some(ua)), (Engine::Webkit, None), "{ua}");
    let version = e["browser_version"].as_str().expect("WebKitGTK's version, recorded");
    assert!(version.split('.').count() == 3 && version.split('.').all(|p| p.parse::<u32>().is_ok()), "{version}");
    assert!(out.lines().any(|l| l.contains(&format!("· webkit {version} ")) && l.contains("/wasm32")), "{out}");
    // Served with COOP/COEP by the embedded server: isolated, so the timer steps by 20 µs, not 1 ms.
    assert_eq!(e["cross_origin_isolated"], true, "{e}");
    let step = e["timer_resolution_ns"].as_f64().expect("a measured timer step");
    assert!(step > 0.0 && step <= 100_000.0, "{step} ns");
    assert_eq!(e["placement"]["pin"], "none", "placed as the other engines are: {e}");
    every_case_ran_whole(webkit, 100, 10, 4);
    // Everything WebKit's start-up started was ended with the run. Other tests may run WebKit meanwhile, so
    // what counts is a process whose starter is gone: a driver or a display whose parent is no httpbench, a
    // MiniBrowser whose parent is no driver.
    let orphans: Vec<String> = [("WebKitWebDriver --port=", "httpbench"), ("Xvfb -displayfd", "httpbench")]
        .into_iter()
        .chain([("MiniBrowser --automation", "WebKitWebDriver")])
        .flat_map(|(what, parent)| running(what).into_iter().filter(move |(pid, _)| !parent_runs(*pid, parent)))
        .map(|(pid, cmdline)| format!("{pid}: {cmdline}"))
        .collect();
    assert!(orphans.is_empty(), "left running after the run: {orphans:#?}");
}

/// Over TLS (each server accepted by its own certificate in the WebDriver session, verification on): HTTP/1.1
/// and HTTP/2 cases with the version each came over, a handshake per fresh request, six connections per host
/// over HTTP/1.1 and one over HTTP/2; HTTP/3 left out of WebKit's cases with why.
#[test]
#[ignore = "needs the built page (dist/), WebKitGTK's MiniBrowser, WebKitWebDriver and Xvfb: scripts/test.sh runs it"]
fn webkit_over_tls_speaks_h1_and_h2_and_leaves_h3_out_with_why() {
    let args = "--tls --http 1.1,2,3 -c 1,8 -n 48 --warmup 8 --rounds 2 --clients curl --browser-clients fetch";
    let r = BrowserRun::new("run-webkit-tls", args).engines("webkit").run();
    let (code, out, err) = (r.code, &r.out, &r.err);
    assert_eq!(code, 0, "{NEEDS_WEBKIT}\n{err}\n{out}");
    assert!(out.lines().any(|l| l.starts_with("webkit/fetch/reuse/h2/c8 ")), "{out}");
    let report = r.engine("webkit");
    assert_eq!(report["settings"]["http_versions"], serde_json::json!(["1.1", "2", "3"]));
    let skipped = report["settings"]["skipped"].to_string();
    assert!(skipped.contains("fetch over HTTP/3 (WebKitGTK's network stack, libsoup, has no HTTP/3)"), "{skipped}");
    assert!(out.contains("WebKitGTK's network stack, libsoup, has no HTTP/3"), "the report says why: {out}");
    let cases = report["cases"].as_array().unwrap();
    assert!(cases.iter().all(|c| c["http_version"] != "3"), "{cases:#?}");
    for c in cases {
        assert_eq!(c["ok"], 48, "{c:#}");
        assert!(c["aborted"].is_null(), "the version it asked for, observed: {c:#}");
    }
    let used = |mode, http, level| case(report, "fetch", mode, http, level)["connections"].as_u64().unwrap();
    assert_eq!(used("fresh", "1.1", 8), 56, "one per request, warm-up included");
    let h1 = used("reuse", "1.1", 8);
    assert!((6..=18).contains(&h1), "six connections per host over HTTP/1.1 per step: {h1}");
    let h2 = used("reuse", "2", 8);
    assert!((1..=3).contains(&h2), "HTTP/2 multiplexes on one connection per step: {h2}");
    let fresh = case(report, "fetch", "fresh", "2", 1);
    assert!(fresh["phases_ns"]["tls_mean"].as_f64() > Some(0.0), "a handshake per request: {fresh:#}");
}

#[test]
fn webkit_alone_over_http3_is_refused_before_any_work_with_why() {
    let (code, out, err) = run(&["run", "--browser", "webkit", "--tls", "--http", "3", "-n", "5"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "no work before the check: {out}");
    assert!(err.contains("no webkit case can run: fetch over HTTP/3 (WebKitGTK's network stack"), "{err}");
    assert!(err.contains("add a version webkit speaks to --http or leave it out of --browser"), "{err}");
}

/// WebKit's driver and display are checked with MiniBrowser, before any work: with a PATH that has neither,
/// the first is named with how to install it.
#[test]
fn a_missing_webkit_driver_is_named_before_any_work() {
    let out = crate::support::cli::bin()
        .args(["run", "--browser", "webkit", "--webkit", "/bin/sh", "-n", "5"])
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty(), "no work before the check");
    assert!(err.contains("--browser webkit needs WebKitWebDriver, and none is on PATH: install it"), "{err}");
    assert!(err.contains("scripts/setup-web.sh --webkit"), "{err}");
}

#[test]
fn a_missing_webkit_is_named_before_any_work() {
    let (code, out, err) = run(&["run", "--browser", "webkit", "--webkit", "/nonexistent/MiniBrowser", "-n", "5"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "no work before the check: {out}");
    assert!(err.contains("--webkit /nonexistent/MiniBrowser: no such file"), "{err}");
}

/// A server slower than `--timeout` gets `timeout` errors in WebKit too, each request ended at its 1 s deadline
/// (exit 1, both halves reported); and a plan the page cannot run (a client it was built without) is refused
/// by the page in WebKit, in its words, after the native cases were reported.
#[test]
#[ignore = "needs the built page (dist/), WebKitGTK's MiniBrowser, WebKitWebDriver and Xvfb: scripts/test.sh runs it"]
fn webkit_times_out_at_the_deadline_and_its_page_refuses_what_it_cannot_run() {
    let args = "--server-delay 3s --timeout 1 -n 2 --warmup 0 --rounds 1 --mode reuse --clients raw";
    let r = BrowserRun::new("run-webkit-timeout", args).engines("webkit").args("--browser-clients fetch,xhr").run();
    assert_eq!(r.code, 1, "{NEEDS_WEBKIT}\n{}\n{}", r.err, r.out);
    every_request_timed_out_at_1s(r.engine("webkit")["cases"].as_array().unwrap());
    let args = "-n 4 --warmup 0 --rounds 1 --clients raw --browser-clients reqwest";
    let r = BrowserRun::new("run-webkit-refused", args).engines("webkit").run();
    assert_eq!(r.code, 2, "{}\n{}", r.err, r.out);
    assert!(r.err.contains("the page refused the plan: clients: unknown client 'reqwest'"), "{}", r.err);
    assert!(r.out.lines().any(|l| l.starts_with("raw/fresh ")), "the native cases are still reported: {}", r.out);
}
