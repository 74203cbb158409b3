//! The browser half as a whole front end of the run session: `run --browser` hands the page its whole plan
//! (interleaving, the timeout, body sizes, server delays, HTTP versions with a target each) and the page runs
//! it as one session, whose settings say what was asked; a plan the page cannot run ends the run within
//! seconds with a message naming the value, whether the CLI refuses it up front or the page does.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use httpbench_shared::model::Engine;
use serde_json::Value;

use crate::schema::validate;
use crate::support::cli::run;
use crate::support::scratch;
use crate::support::site::dist;

/// `httpbench run --browser` on the built page with its results exported: every browser test's prelude.
pub(crate) struct BrowserRun {
    args: Vec<String>,
    export: PathBuf,
}

/// What a browser run gave: its exit code, stdout, stderr, and the exported reports (native, browser).
pub(crate) struct BrowserRunOutput {
    pub code: i32,
    pub out: String,
    pub err: String,
    pub reports: Vec<Value>,
}

impl BrowserRun {
    /// A run named `name` (its scratch folder), with `args` (split at spaces) after `run --browser`.
    pub(crate) fn new(name: &str, args: &str) -> Self {
        let export = scratch(name).join("combined.json");
        let mut all: Vec<String> = ["run", "--browser", "--page-dir"].map(String::from).to_vec();
        all.push(dist().to_str().unwrap().to_string());
        all.extend(["--export-json".to_string(), export.to_str().unwrap().to_string()]);
        BrowserRun { args: all, export }.args(args)
    }

    /// The browsers to run the page in (`--browser ENGINES`; Chromium alone without this).
    pub(crate) fn engines(mut self, engines: &str) -> Self {
        let at = self.args.iter().position(|a| a == "--browser").unwrap() + 1;
        self.args.insert(at, engines.to_string());
        self
    }

    /// More arguments, split at spaces.
    pub(crate) fn args(mut self, more: &str) -> Self {
        self.args.extend(more.split_whitespace().map(str::to_string));
        self
    }

    /// Run it to its end; each exported report is checked against the schema.
    pub(crate) fn run(self) -> BrowserRunOutput {
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        let (code, out, err) = run(&args);
        let reports: Vec<Value> = match std::fs::read_to_string(&self.export) {
            Ok(text) => serde_json::from_str::<Value>(&text).unwrap().as_array().cloned().unwrap_or_default(),
            Err(_) => Vec::new(),
        };
        reports.iter().for_each(validate);
        BrowserRunOutput { code, out, err, reports }
    }
}

impl BrowserRunOutput {
    /// The browser report.
    pub(crate) fn browser(&self) -> &Value {
        let found = self.reports.iter().find(|r| r["environment"]["kind"] == "browser");
        found.unwrap_or_else(|| panic!("no browser report: {}\n{}", self.err, self.out))
    }

    /// The report of the browser engine `name` (`chromium`, `firefox`: by its user agent).
    pub(crate) fn engine(&self, name: &str) -> &Value {
        let found = self.reports.iter().find(|r| {
            let (engine, _) = Engine::of_user_agent(r["environment"]["user_agent"].as_str());
            r["environment"]["kind"] == "browser" && engine.as_str() == name
        });
        found.unwrap_or_else(|| panic!("no {name} report: {}\n{}", self.err, self.out))
    }

    /// The browser report's cases.
    pub(crate) fn browser_cases(&self) -> &Vec<Value> {
        self.browser()["cases"].as_array().unwrap()
    }
}

/// The case of `client` in `mode` over `http` at `level` requests in flight, from a report's cases.
pub(crate) fn case<'a>(report: &'a Value, client: &str, mode: &str, http: &str, level: u64) -> &'a Value {
    let cases = report["cases"].as_array().unwrap();
    let found = cases.iter().find(|c| {
        c["client"] == client
            && c["mode"] == mode
            && c["http_version"] == http
            && c["concurrency"].as_u64().unwrap_or(1) == level
    });
    found.unwrap_or_else(|| panic!("{client}/{mode} over {http} at -c {level}: {cases:#?}"))
}

/// Every case of an engine's `report` of the embedded server's 612-byte answer ran whole: `n` ok requests,
/// not stopped; a fresh case opened a connection per request, warm-up included (`n + warmup`), give or take
/// the first request of a pass, which may ride a connection the page's own requests (its turn's answer, a
/// status post) kept alive to its origin, the target here: `fewer` at most.
pub(crate) fn every_case_ran_whole(report: &Value, n: u64, warmup: u64, fewer: u64) {
    for c in report["cases"].as_array().unwrap() {
        assert_eq!((c["ok"].as_u64(), c["iterations"].as_u64()), (Some(n), Some(n)), "{c:#}");
        assert_eq!(c["bytes"], n * 612, "{c:#}");
        assert!(c["aborted"].is_null(), "{c:#}");
        if c["mode"] == "fresh" {
            let opened = c["connections"].as_u64().unwrap_or(0);
            assert!((n + warmup - fewer..=n + warmup).contains(&opened), "{c:#}");
        }
    }
}

/// `--no-interleave` and `--timeout` reach the page: its settings record them, and its rounds ran case after
/// case (each case's rounds back to back, so the first case's rounds all end before the second's begin).
#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn the_page_hears_no_interleave_and_the_timeout() {
    let args = "--no-interleave --timeout 2.5 -n 30 --warmup 2 --rounds 3 --mode reuse";
    let r =
        BrowserRun::new("browser-plan-interleave", args).args("--clients raw --browser-clients fetch,js-fetch").run();
    assert_eq!(r.code, 0, "{}\n{}", r.err, r.out);
    let settings = &r.browser()["settings"];
    assert_eq!(
        (settings["interleave"].as_bool(), settings["timeout_ms"].as_u64()),
        (Some(false), Some(2500)),
        "{settings}"
    );
    assert_eq!(settings["rounds"], 3);
    assert_eq!(r.browser_cases().len(), 2);
}

/// One page run of every dimension: two body sizes with a server delay, over TLS with both HTTP versions,
/// each case against its own target (the version's server, `/bytes/N?delay_ms=5`), interleaved, the settings
/// saying what was asked.
#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn one_page_run_covers_sizes_delays_and_versions() {
    let r = BrowserRun::new("browser-plan-dimensions", "--tls --http both --body-size 0,16k --server-delay 5ms -n 12 --warmup 2 --rounds 2 --mode reuse --clients curl --browser-clients fetch")
    .run();
    assert_eq!(r.code, 0, "{}\n{}", r.err, r.out);
    let b = r.browser();
    assert_eq!(b["settings"]["http_versions"], serde_json::json!(["1.1", "2"]), "{}", b["settings"]);
    assert_eq!(b["settings"]["interleave"], true);
    assert_eq!(b["target"], r.reports[0]["target"], "the run's target, not a loaded one");
    let mut seen: Vec<(String, u64)> = Vec::new();
    for c in r.browser_cases() {
        let size = c["body_bytes"].as_u64().unwrap_or_else(|| panic!("the size asked for: {c:#}"));
        assert_eq!(c["server_delay_ms"], 5, "{c:#}");
        assert_eq!((c["ok"].as_u64(), c["bytes"].as_u64()), (Some(12), Some(12 * size)), "{c:#}");
        assert!(c["latency_ns"]["min"].as_f64().unwrap() >= 5e6, "every answer waited 5 ms: {c:#}");
        assert!(c["aborted"].is_null(), "the version asked for: {c:#}");
        seen.push((c["http_version"].as_str().unwrap().to_string(), size));
    }
    seen.sort();
    let want: Vec<(String, u64)> =
        [("1.1", 0), ("1.1", 16384), ("2", 0), ("2", 16384)].map(|(v, s)| (v.to_string(), s)).to_vec();
    assert_eq!(seen, want);
    for label in ["chromium/fetch/h1/0", "chromium/fetch/h2/16k"] {
        assert!(r.out.lines().any(|l| l.starts_with(&format!("{label} "))), "a table row for {label}: {}", r.out);
    }
}

/// A server that thinks longer than `--timeout` gets `timeout` errors in the browser too, with the
/// browser's own words for them, and the run exits 1 (failed requests) with both halves reported.
#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn a_server_slower_than_the_timeout_counts_timeouts_in_the_browser() {
    let r = BrowserRun::new("browser-plan-timeout", "--server-delay 3s --timeout 1 -n 2 --warmup 0 --rounds 1 --mode reuse --clients raw --browser-clients fetch,js-fetch")
    .run();
    assert_eq!(r.code, 1, "{}\n{}", r.err, r.out);
    every_request_timed_out_at_1s(r.browser_cases());
}

/// Each of `cases` (two requests in one round, `--timeout 1`, a server slower than that) failed both as
/// `timeout`, with the browser's words for it, each request ended at its 1 s deadline.
pub(crate) fn every_request_timed_out_at_1s(cases: &[Value]) {
    for c in cases {
        assert_eq!((c["ok"].as_u64(), c["errors"]["timeout"].as_u64()), (Some(0), Some(2)), "{c:#}");
        let reasons = c["error_reasons"].as_array().unwrap();
        assert!(reasons.iter().any(|r| r.as_str().unwrap().starts_with("timeout: ")), "{c:#}");
        let mean = c["rounds"][0]["wall_secs"].as_f64().unwrap() / 2.0;
        assert!((0.9..2.5).contains(&mean), "each request ended at its 1 s deadline: {c:#}");
    }
}

/// What the page cannot run ends the run within seconds, with a message naming the value: the CLI refuses a
/// count beyond the page's limit before any work, and the page refuses a client it was built without and
/// says so to the CLI, which exits 2 with the page's words (after reporting the native cases).
#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn a_plan_the_page_cannot_run_ends_within_seconds_naming_the_value() {
    let start = Instant::now();
    let r = BrowserRun::new("browser-plan-count", "-n 2000000").run();
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("-n/--count 2000000 is out of range: give 1 to 1000000"), "{}", r.err);
    assert!(r.out.is_empty(), "refused before any work");
    // The default page is built without the optional reqwest client (its size budget).
    let r =
        BrowserRun::new("browser-plan-client", "-n 4 --warmup 0 --rounds 1 --clients raw --browser-clients reqwest")
            .run();
    assert_eq!(r.code, 2, "{}\n{}", r.err, r.out);
    assert!(r.err.contains("the page refused the plan: clients: unknown client 'reqwest'"), "{}", r.err);
    assert!(r.out.lines().any(|l| l.starts_with("raw/fresh ")), "the native cases are still reported: {}", r.out);
    assert!(start.elapsed() < Duration::from_secs(30), "took {:?}", start.elapsed());
}
