//! The browser page end to end, on both origins it is used from (`httpbench serve`, and a plain static host
//! that sends no headers, the page at a sub-path): opened in headless Chromium, a small benchmark started by
//! clicking Run against `httpbench serve`, the report read back by `data-testid`, a CLI result file imported,
//! and screenshots saved under `tests/artifacts/`.
//!
//! Needs `dist/` (scripts/build-page.sh) and Chromium: ignored by a plain `cargo test` with that reason;
//! scripts/test.sh builds both and runs it with `--include-ignored`, where a missing page fails it.

use std::path::PathBuf;
use std::time::Duration;

use httpbench_shared::parse::parse_reports;

use crate::support::chromium::{Chromium, ChromiumPage};
use crate::support::cli::run;
use crate::support::page::PageDriver;
use crate::support::site::{dist, Origin};
use crate::support::{root, wait_until};

/// Whether anything on the page is wider than the window (a phone would have to scroll sideways). Wide
/// blocks that scroll inside themselves (the report, the table) are fine.
fn overflows(page: &ChromiumPage) -> String {
    page.eval("String(document.documentElement.scrollWidth > window.innerWidth)")
}

#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn on_the_serve_origin_the_page_runs_a_benchmark_by_clicking_and_imports_a_cli_result() {
    runs_and_imports(Origin::Serve, "");
}

#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn on_a_plain_static_host_the_page_runs_a_benchmark_by_clicking_and_imports_a_cli_result() {
    runs_and_imports(Origin::PlainStatic, "static-");
}

/// Screenshots and report texts are saved as `tests/artifacts/{prefix}page-...`.
fn runs_and_imports(origin: Origin, prefix: &str) {
    // HTTPBENCH_PAGE_DIST points at another build, e.g. one with `--features reqwest` (for measurements).
    let dist = std::env::var_os("HTTPBENCH_PAGE_DIST").map_or_else(dist, PathBuf::from);
    let site = origin.start(&dist);
    let chromium = Chromium::launch();
    let tab = chromium.page();
    let query = format!("?target={}&n=200&warmup=20&rounds=4&clients=all&mode=both", site.target);
    tab.open(&format!("{}{query}", site.page));
    assert_eq!(tab.eval("String(document.getElementById('loading'))"), "null", "the loading note leaves on mount");
    assert_eq!(tab.accessibility_violations(), Vec::<String>::new(), "axe-core, before a run");
    tab.screenshot(1280, &format!("{prefix}page-before-run.png"));
    tab.screenshot(390, &format!("{prefix}page-before-run-390px.png"));
    // At a phone's width, Run is on the first screen.
    let run_top = "String(document.querySelector(\"[data-testid='run']\").getBoundingClientRect().bottom)";
    let bottom: f64 = tab.eval(run_top).parse().unwrap();
    assert!(bottom < 900.0, "Run at {bottom} px");
    // Before Run: what the plan is and about how long it takes (8 clients' cases of 220 requests, at 1 ms).
    let estimate = tab.testid("estimate");
    assert!(estimate.contains(" cases × 220 requests: about ") && estimate.contains("an assumed 1 ms"), "{estimate}");
    tab.click("run");
    // During the run: the form is locked (its fieldset disabled), the status says where it is and the time
    // left, and each case's rate in its last round is shown.
    if tab.state() == "running" {
        tab.screenshot(1280, &format!("{prefix}page-during-run.png"));
        let locked = "String(document.querySelector('form fieldset.plain').disabled)";
        assert_eq!(tab.eval(locked), "true", "the form is locked while the run goes on");
    }
    let (mut time_left, mut live) = (String::new(), String::new());
    let done = || {
        assert_ne!(tab.state(), "invalid", "{}", tab.testid("status"));
        let (status, rates) = (tab.testid("status"), tab.testid("live-rates"));
        if status.contains(" left") {
            time_left = status;
        }
        if rates.contains(" req/s") {
            live = rates;
        }
        tab.state() == "done"
    };
    wait_until("the run done", Duration::from_secs(240), done, || tab.testid("status"));
    assert!(time_left.contains(" requests · about ") && time_left.ends_with(" left"), "{time_left}");
    assert!(live.starts_with("Last round: ") && live.contains("/reuse "), "{live}");
    assert_eq!(tab.testid("live-rates"), "", "the live rates leave with the run");
    // At the end the results have the focus, so a keyboard or a screen reader goes on from the answer.
    let focused = || tab.eval("String(document.activeElement && document.activeElement.id)") == "results";
    wait_until("the results focused", Duration::from_secs(5), focused, || tab.eval("document.activeElement.id"));
    let report = tab.testid("report");
    let artifacts = root().join("tests/artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    std::fs::write(artifacts.join(format!("{prefix}page-report.txt")), &report).unwrap();
    let head = format!("httpbench-web {} (release)", env!("CARGO_PKG_VERSION"));
    assert!(report.starts_with(&head), "{report}");
    assert_eq!(tab.eval("String(self.crossOriginIsolated)"), "true", "COOP/COEP make the page isolated");
    // The clients this build offers (the default page has no reqwest: over the size budget), each in two modes.
    let clients =
        tab.eval("[...document.querySelectorAll(\"[data-testid^='client-']\")].map(c => c.id.slice(7)).join(' ')");
    let clients: Vec<&str> = clients.split_whitespace().collect();
    assert!(clients.len() >= 4 && clients.contains(&"js-fetch"), "{clients:?}");
    let labels = tab.row_labels();
    assert_eq!(labels.len(), 2 * clients.len(), "{labels:?}");
    for client in &clients {
        assert!(labels.contains(&format!("{client}/reuse")) && report.contains(client), "{client}: {labels:?}");
    }
    let json = tab.testid("result-json");
    crate::schema::validate(&serde_json::from_str(&json).unwrap());
    let result = parse_reports(&json).expect("the exported result file is valid");
    assert!(result[0].cases.iter().all(|c| c.phases_ns.is_some()), "Resource Timing phases for every case");
    assert!(result[0].cases.iter().all(|c| c.ok == 200 && c.bytes == 200 * 612), "{report}");
    // The target is `httpbench serve`: the page read each case's connections from its per-tag count (fresh:
    // one per request, warm-up included; reuse: at least one).
    for c in &result[0].cases {
        let used = c.connections.unwrap_or_else(|| panic!("{}/{}: no connections counted", c.client, c.mode));
        match c.mode {
            httpbench_shared::Mode::Fresh => assert_eq!(used, 220, "{}: {report}", c.client),
            httpbench_shared::Mode::Reuse => assert!((1..=6).contains(&used), "{}: {used}", c.client),
        }
    }
    // The answer first: the headline (the wasm clients against js-fetch) before the charts.
    let headline = tab.testid("headline");
    assert!(headline.contains("against js-fetch (the same loop in plain JavaScript"), "{headline}");
    let above = "document.querySelector(\"[data-testid='headline']\").getBoundingClientRect().top < \
                 document.querySelector(\"[data-testid='rate-chart']\").getBoundingClientRect().top";
    assert_eq!(tab.eval(&format!("String({above})")), "true");
    assert_eq!(tab.accessibility_violations(), Vec::<String>::new(), "axe-core, after a run");
    let shot = tab.screenshot(1280, &format!("{prefix}page-after-run.png"));
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000, "a real screenshot");
    tab.screenshot(375, &format!("{prefix}page-after-run-375px.png"));
    assert_eq!(overflows(&tab), "false", "readable at 375 px without scrolling sideways");
    // Dark as the reader's system is, and as accessible.
    tab.dark(true);
    assert_eq!(tab.eval("getComputedStyle(document.body).backgroundColor"), "rgb(13, 17, 23)");
    assert_eq!(tab.accessibility_violations(), Vec::<String>::new(), "axe-core, dark");
    tab.screenshot(1280, &format!("{prefix}page-after-run-dark.png"));
    tab.screenshot(390, &format!("{prefix}page-after-run-dark-390px.png"));
    tab.dark(false);

    // "Compare with native" right after the headline until a file is imported.
    let hidden = "String(document.querySelector(\"[data-testid='compare-native']\").hidden)";
    assert_eq!(tab.eval(hidden), "false");
    let after = "document.querySelector(\"[data-testid='headline']\").getBoundingClientRect().bottom <= \
                 document.querySelector(\"[data-testid='compare-native']\").getBoundingClientRect().top";
    assert_eq!(tab.eval(&format!("String({after})")), "true");
    // Import a fresh CLI result by pasting it: one table, labelled by environment.
    let (code, cli_json, err) =
        run(&["run", &site.target, "-n", "300", "--clients", "curl,raw", "--mode", "reuse", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    tab.paste_import(&cli_json);
    let imported = || tab.row_labels().iter().any(|l| l.starts_with("native/"));
    wait_until("the import", Duration::from_secs(30), imported, || tab.testid("import-error"));
    assert_eq!(tab.testid("import-error"), "");
    let labels = tab.row_labels();
    assert!(labels.contains(&"chromium/fetch/reuse".to_string()), "{labels:?}");
    assert!(labels.contains(&"native/curl/reuse".to_string()), "{labels:?}");
    assert_eq!(tab.eval(hidden), "true", "compared: the drop zone has done its work");
    let combined = tab.testid("report");
    std::fs::write(artifacts.join(format!("{prefix}page-combined-report.txt")), &combined).unwrap();
    assert!(combined.contains("native/raw/reuse") && combined.contains("chromium/js-fetch/fresh"), "{combined}");
    tab.screenshot(1280, &format!("{prefix}page-combined.png"));
}

/// The page draws the scan charts the HTML report draws: a CLI scan (`-c 1,4 --body-size 0,4k`) imported by
/// pasting shows the rate against requests in flight, and the rate and MB/s against body size, and still fits
/// a phone's width.
#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn an_imported_scan_draws_its_scan_charts() {
    let site = Origin::Serve.start(&dist());
    let chromium = Chromium::launch();
    let tab = chromium.page();
    tab.open(&site.page);
    let (code, json, err) = run(&[
        "run",
        "-c",
        "1,4",
        "--body-size",
        "0,4k",
        "-n",
        "40",
        "--rounds",
        "1",
        "--warmup",
        "4",
        "--clients",
        "raw,curl",
        "--mode",
        "reuse",
        "--format",
        "json",
        "--no-progress",
    ]);
    assert_eq!(code, 0, "{err}");
    tab.paste_import(&json);
    let count = || tab.eval("String(document.querySelectorAll(\"[data-testid='scan-chart']\").length)");
    wait_until("a scan chart", Duration::from_secs(30), || count() != "0", || tab.testid("import-error"));
    // Requests in flight (rate, p50, p99), body size (rate, MB/s, p50, p99).
    assert_eq!(count(), "7");
    let titles = tab
        .eval("[...document.querySelectorAll(\"[data-testid='scan-chart'] svg\")].map(s => s.textContent).join('|')");
    assert!(titles.contains("by requests in flight") && titles.contains("Body throughput (MB/s)"), "{titles}");
    assert!(titles.contains("raw/0") || titles.contains("raw/c1"), "one line per client and other level: {titles}");
    tab.screenshot(1280, "page-scan-charts.png");
    tab.screenshot(375, "page-scan-charts-375px.png");
    assert_eq!(overflows(&tab), "false", "readable at 375 px without scrolling sideways");
}

/// Every wrong value of the form is marked on its field at once (`aria-invalid`, its message under it and named
/// by `aria-describedby`), the first focused, a folded one unfolded; nothing runs; mended, the marks go.
#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn wrong_values_are_marked_on_their_fields_all_at_once_and_the_first_focused() {
    let site = Origin::Serve.start(&dist());
    let chromium = Chromium::launch();
    let tab = chromium.page();
    tab.open(&format!("{}?target={}&n=many&rounds=0&timeout=soon", site.page, site.target));
    tab.click("run");
    wait_until("refused", Duration::from_secs(10), || tab.state() == "invalid", || tab.testid("status"));
    for (id, said) in [("count", "count: 'many'"), ("rounds", "rounds 0 is out of range"), ("timeout", "timeout: ")] {
        let error = tab.testid(&format!("{id}-error"));
        assert!(error.starts_with(said), "{id}: {error}");
        let js = format!("document.getElementById('{id}').getAttribute('aria-describedby')");
        assert_eq!(tab.eval(&js), format!("{id}-error"));
        assert_eq!(tab.eval(&format!("document.getElementById('{id}').getAttribute('aria-invalid')")), "true");
    }
    assert_eq!(tab.eval("document.activeElement.id"), "count", "the first wrong field has the focus");
    assert_eq!(tab.eval("String(document.querySelector('details.more').open)"), "true", "rounds unfolded");
    assert!(tab.testid("status").starts_with("Not started: count: 'many'"), "{}", tab.testid("status"));
    assert_eq!(tab.accessibility_violations(), Vec::<String>::new(), "axe-core, with the errors shown");
    tab.screenshot(390, "page-field-errors-390px.png");
    // The quick preset mends count and rounds; the timeout is mended by hand; then the marks go and it runs.
    tab.click("preset-quick");
    tab.eval(
        "(() => { const t = document.getElementById('timeout'); t.value = '10'; \
              t.dispatchEvent(new Event('input', { bubbles: true })); return ''; })()",
    );
    assert_eq!(tab.eval("document.getElementById('count').value"), "100");
    tab.click("run");
    wait_until("the run starts", Duration::from_secs(10), || tab.state() != "invalid", || tab.testid("status"));
    assert_eq!(tab.eval("String(document.querySelectorAll('.field-error, [aria-invalid]').length)"), "0");
    tab.click("cancel");
}
