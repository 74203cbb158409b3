//! A second browser engine: `run --browser firefox` and `--browser chromium,firefox`, the page in a real
//! headless Firefox ESR (no WebDriver: the page posts its results back to the embedded server, as in
//! Chromium), its cases named by the engine, beside Chromium's and the native clients' in one report; over
//! TLS trusting the run's CA in the run's own Firefox profile only.

use httpbench_shared::model::Engine;

use crate::browser_plan::{case, every_case_ran_whole, BrowserRun};
use crate::support::cli::run;

/// Why these tests are ignored by a plain `cargo test`.
const NEEDS_FIREFOX: &str = "needs the built page (dist/), Chromium and Firefox ESR: scripts/test.sh runs it";

#[test]
#[ignore = "needs the built page (dist/), Chromium and Firefox ESR: scripts/test.sh runs it"]
fn run_browser_firefox_names_its_cases_by_the_engine() {
    let args = "-n 100 --warmup 10 --rounds 2 --clients curl --browser-clients fetch,xhr,js-fetch";
    let r = BrowserRun::new("run-firefox", args).engines("firefox").run();
    let (code, out, err) = (r.code, &r.out, &r.err);
    assert_eq!(code, 0, "{NEEDS_FIREFOX}\n{err}\n{out}");
    for label in ["native/curl/fresh", "firefox/fetch/reuse", "firefox/xhr/fresh", "firefox/js-fetch/reuse"] {
        assert!(out.lines().any(|l| l.starts_with(&format!("{label} "))), "a table row for {label}: {out}");
    }
    assert!(!out.contains("chromium/"), "no Chromium was asked for: {out}");
    assert_eq!(r.reports.len(), 2, "native and Firefox");
    let firefox = r.engine("firefox");
    let e = &firefox["environment"];
    // The header names the engine and its version as the page saw it.
    let version = Engine::of_user_agent(e["user_agent"].as_str()).1.expect("Firefox's version in its user agent");
    assert!(out.lines().any(|l| l.contains(&format!("firefox {version} ")) && l.contains("/wasm32")), "{out}");
    // Served with COOP/COEP by the embedded server: isolated, so Firefox's timer steps by 20 µs, not 1 ms.
    assert_eq!(e["cross_origin_isolated"], true, "{e}");
    let step = e["timer_resolution_ns"].as_f64().expect("a measured timer step");
    assert!(step > 0.0 && step <= 100_000.0, "{step} ns");
    assert_eq!(e["placement"]["pin"], "none", "placed as Chromium is: {e}");
    every_case_ran_whole(firefox, 100, 10, 3);
}

/// The issue's own command, `run --browser chromium,firefox --tls --http both -c 1,8`: one report with the
/// native cases and both engines', each engine with its version and timer, each case with the HTTP version
/// it came over (Resource Timing) and the connections it used: six per host over HTTP/1.1 in both engines,
/// one over HTTP/2 (per step of the run). Fresh mode over HTTP/2 with 8 in flight is left out of both, with why.
#[test]
#[ignore = "needs the built page (dist/), Chromium and Firefox ESR: scripts/test.sh runs it"]
fn chromium_and_firefox_over_tls_h1_and_h2_at_two_levels_in_one_report() {
    let args = "--tls --http both -c 1,8 -n 48 --warmup 8 --rounds 2 --clients curl --browser-clients fetch";
    let r = BrowserRun::new("run-two-engines", args).engines("chromium,firefox").run();
    let (code, out, err) = (r.code, &r.out, &r.err);
    assert_eq!(code, 0, "{NEEDS_FIREFOX}\n{err}\n{out}");
    assert_eq!(r.reports.len(), 3, "native, Chromium, Firefox");
    for label in ["native/curl/fresh/h2/c8", "chromium/fetch/reuse/h1/c8", "firefox/fetch/reuse/h2/c8"] {
        assert!(out.lines().any(|l| l.starts_with(&format!("{label} "))), "a table row for {label}: {out}");
    }
    for engine in ["chromium", "firefox"] {
        let report = r.engine(engine);
        let e = &report["environment"];
        assert!(e["timer_resolution_ns"].as_f64() > Some(0.0), "{engine}: {e}");
        // The header names the engine with its version: `httpbench-web 0.1.0 (release) · firefox 153.0 Linux ...`.
        let version = Engine::of_user_agent(e["user_agent"].as_str()).1;
        let title = format!("· {engine} {} ", version.expect("the engine's version in its user agent"));
        assert!(out.lines().any(|l| l.contains(&title) && l.contains("/wasm32")), "{title}: {out}");
        assert_eq!(report["settings"]["http_versions"], serde_json::json!(["1.1", "2"]), "{engine}");
        let skipped = report["settings"]["skipped"].to_string();
        assert!(skipped.contains("fetch/fresh over HTTP/2 at concurrency 8"), "{engine}: {skipped}");
        for c in report["cases"].as_array().unwrap() {
            assert_eq!(c["ok"], 48, "{engine}: {c:#}");
            assert!(c["aborted"].is_null(), "{engine}: the version it asked for, observed: {c:#}");
        }
        let used = |mode, http, level| case(report, "fetch", mode, http, level)["connections"].as_u64();
        // Both modes interleave, and a fresh case's `close=1` ends the connections a reuse case left: the reuse
        // case opens its pool again at each step (warm-up, 2 rounds), up to six per host over HTTP/1.1 at each
        // (Chromium 6 + 6 + 6 seen, Firefox 14 in all). Without fresh cases it is six: the test below.
        let h1 = used("reuse", "1.1", 8).unwrap();
        assert!((6..=18).contains(&h1), "{engine}: six connections per host over HTTP/1.1 per step: {h1}");
        let h2 = used("reuse", "2", 8).unwrap();
        assert!((1..=3).contains(&h2), "{engine}: HTTP/2 multiplexes on one connection per step: {h2}");
        assert_eq!(used("fresh", "1.1", 8), Some(56), "{engine}: one per request, warm-up included");
        // A connection per request over HTTP/2 too; the first request of a pass may ride the connection the
        // page's turn was answered on (the page's own origin is the HTTP/2 target): 55 seen once in Firefox.
        let fresh = case(report, "fetch", "fresh", "2", 1);
        let opened = fresh["connections"].as_u64().unwrap_or(0);
        assert!((54..=56).contains(&opened), "{engine}: a connection per request over HTTP/2 too: {fresh:#}");
        // Resource Timing saw the TLS handshake the run's CA let the engine make.
        assert!(fresh["phases_ns"]["tls_mean"].as_f64() > Some(0.0), "{engine}: a handshake per request: {fresh:#}");
    }
}

/// Reuse alone at 8 in flight, in every engine (`--browser all`): each engine's limit of six connections per
/// host over HTTP/1.1, one connection over HTTP/2 (WebKit: at most two).
#[test]
#[ignore = "needs the built page (dist/), Chromium, Firefox ESR and WebKitGTK: scripts/test.sh runs it"]
fn every_engine_keeps_six_connections_per_host_over_http1_and_one_over_http2() {
    let args = "--tls --http both -c 8 -n 96 --warmup 16 --rounds 2 --mode reuse --clients curl-multi";
    let r = BrowserRun::new("run-two-engines-conns", args).args("--browser-clients fetch --wide").engines("all").run();
    assert_eq!(r.code, 0, "{NEEDS_FIREFOX}\n{}\n{}", r.err, r.out);
    assert_eq!(r.reports.len(), 1 + Engine::STARTED.len(), "native and every engine");
    for engine in Engine::STARTED.map(Engine::as_str) {
        let report = r.engine(engine);
        let used = |http| case(report, "fetch", "reuse", http, 8)["connections"].as_u64();
        assert_eq!(used("1.1"), Some(6), "{engine}: six per host");
        // libsoup may open a second connection for requests it queued before the first one's ALPN said h2
        // (WebKit: 2 seen once in 5 runs, 1 otherwise); never one per request in flight.
        let h2 = used("2").unwrap();
        let most = if engine == "webkit" { 2 } else { 1 };
        assert!((1..=most).contains(&h2), "{engine}: HTTP/2 multiplexes: {h2} connections");
    }
    assert!(r.out.contains("firefox/fetch/h1 6") && r.out.contains("chromium/fetch/h2 1"), "{}", r.out);
}

#[test]
fn a_missing_firefox_is_named_before_any_work() {
    let (code, out, err) = run(&["run", "--browser", "firefox", "--firefox", "/nonexistent/ff", "-n", "5"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "no work before the check: {out}");
    assert!(err.contains("--firefox /nonexistent/ff"), "{err}");
}

#[test]
fn a_browser_list_names_what_it_takes() {
    let (code, out, err) = run(&["run", "--browser", "safari", "-n", "5"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty() && err.contains("safari") && err.contains("chromium, firefox, webkit or all"), "{err}");
    // A URL after --browser was meant as the target.
    let (code, _, err) = run(&["run", "--browser", "http://127.0.0.1:9/", "-n", "5"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("give the URL before --browser"), "{err}");
}
