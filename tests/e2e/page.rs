//! The browser page end to end, on both origins it is used from (`httpbench serve`, and a plain static host
//! that sends no headers, the page at a sub-path): opened in headless Chromium, a small benchmark started by
//! clicking Run against `httpbench serve`, the report read back by `data-testid`, a CLI result file imported,
//! and screenshots saved under `tests/artifacts/`. The origins and the helpers are shared by the other page
//! tests (`share`, `hosted`, `browser_run`).
//!
//! Needs `dist/` (scripts/build-page.sh) and Chromium: ignored by a plain `cargo test` with that reason;
//! scripts/test.sh builds both and runs it with `--include-ignored`, where a missing page fails it.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use headless_chrome::protocol::cdp::Emulation::SetDeviceMetricsOverride;
use headless_chrome::protocol::cdp::Page::{CaptureScreenshot, CaptureScreenshotFormatOption, Viewport};
use headless_chrome::{Browser, LaunchOptions, Tab};
use httpbench_shared::parse::parse_reports;

use httpbench::process::KillOnDrop;

use crate::helpers::{run, wait_until, Serve};

/// Where the page is mounted on the plain static host: a sub-path, as on any static host.
const SUB_PATH: &str = "sub/httpbench/";

pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The two origins the page is tested on: `httpbench serve` (which sends COOP/COEP and is also the target),
/// and a plain static host that sends no headers at all (Python's `http.server`, as GitHub Pages serves it:
/// the page's service worker isolates it), the page at a sub-path, the target `httpbench serve` on another
/// port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    Serve,
    PlainStatic,
}

/// A running origin: the page's URL, the benchmark target's, and what keeps them up.
pub(crate) struct Site {
    /// The page, ending in `/`.
    pub page: String,
    /// The target server's base URL.
    pub target: String,
    _serve: Serve,
    _static: Option<(KillOnDrop, tempfile::TempDir)>,
    _results: Option<tempfile::TempDir>,
}

impl Origin {
    /// Start the servers for `dist`.
    pub(crate) fn start(self, dist: &Path) -> Site {
        match self {
            Origin::Serve => {
                // The page posts its result back to serve: into a folder that goes with the test.
                let results = tempfile::tempdir().unwrap();
                let dirs = ["--page-dir", dist.to_str().unwrap(), "--results-dir", results.path().to_str().unwrap()];
                let serve = Serve::start_with(&[&["--quiet"][..], &dirs[..]].concat());
                let page = format!("{}app/", serve.url);
                Site { page, target: serve.url.clone(), _serve: serve, _static: None, _results: Some(results) }
            }
            Origin::PlainStatic => {
                let top = tempfile::tempdir().unwrap();
                std::fs::create_dir_all(top.path().join("sub")).unwrap();
                std::os::unix::fs::symlink(dist, top.path().join(SUB_PATH.trim_end_matches('/'))).unwrap();
                let (child, url) = plain_static_server(top.path());
                let serve = Serve::start();
                Site {
                    page: format!("{url}{SUB_PATH}"),
                    target: serve.url.clone(),
                    _serve: serve,
                    _static: Some((child, top)),
                    _results: None,
                }
            }
        }
    }
}

/// `python3 -m http.server` on 127.0.0.1 (a free port) serving `dir`; its URL.
pub(crate) fn plain_static_server(dir: &Path) -> (KillOnDrop, String) {
    let mut cmd = Command::new("python3");
    cmd.args(["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory"]).arg(dir);
    let mut child = KillOnDrop::spawn(cmd.stdout(Stdio::piped()).stderr(Stdio::null())).expect("python3 runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    // "Serving HTTP on 127.0.0.1 port 45678 (http://127.0.0.1:45678/) ..."
    let url = line.split(['(', ')']).nth(1).unwrap_or_else(|| panic!("http.server printed {line:?}")).to_string();
    (child, url)
}

/// `js`'s string value, or "" while the page is between documents (the worker's reload).
pub(crate) fn try_eval(tab: &Tab, js: &str) -> String {
    tab.evaluate(js, false).ok().and_then(|v| v.value).and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// Open `url` in `tab` and wait until the page is ready to use: isolated (on a plain host, after the
/// worker's one reload) with its form drawn.
pub(crate) fn open(tab: &Tab, url: &str) {
    tab.navigate_to(url).unwrap();
    let ready = "String(self.crossOriginIsolated && !!document.querySelector(\"[data-testid='run']\"))";
    let why = || format!("the page at {url} never became ready and isolated");
    wait_until("the page ready", Duration::from_secs(60), || try_eval(tab, ready) == "true", why);
}

/// Chromium with a fresh profile; the profile directory lives (and is removed) with the returned guard.
pub(crate) fn launch() -> (Browser, tempfile::TempDir) {
    let profile = tempfile::tempdir().unwrap();
    // Found as `run --browser` finds it: HTTPBENCH_CHROMIUM, else the names it tries on PATH.
    let explicit = std::env::var_os("HTTPBENCH_CHROMIUM").map(PathBuf::from);
    let chromium = httpbench::browser::find_chromium(explicit.as_deref()).unwrap_or_else(|e| panic!("{e}"));
    let options = LaunchOptions::default_builder()
        .path(Some(chromium))
        .headless(false) // --headless=new is in the args; the library's own flag is the old mode
        .sandbox(false)
        .window_size(Some((1280, 1800)))
        .user_data_dir(Some(profile.path().to_path_buf()))
        .idle_browser_timeout(Duration::from_secs(180))
        .args(httpbench::browser::CHROMIUM_FLAGS.iter().map(OsStr::new).collect())
        .build()
        .unwrap();
    let browser = Browser::new(options).expect("headless Chromium starts (scripts/setup-web.sh installs it)");
    (browser, profile)
}

/// Evaluate `js` in the page and return its string value.
pub(crate) fn eval(tab: &Tab, js: &str) -> String {
    let v = tab.evaluate(js, false).unwrap_or_else(|e| panic!("evaluating {js}: {e}")).value;
    v.and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

pub(crate) fn testid(tab: &Tab, id: &str) -> String {
    eval(tab, &format!("document.querySelector(\"[data-testid='{id}']\")?.textContent ?? ''"))
}

pub(crate) fn state(tab: &Tab) -> String {
    eval(tab, "document.querySelector(\"[data-testid='status']\")?.dataset.state ?? ''")
}

pub(crate) fn row_labels(tab: &Tab) -> Vec<String> {
    let js = "[...document.querySelectorAll(\"[data-testid='stats-row']\")].map(r => r.dataset.case).join('\\n')";
    eval(tab, js).lines().map(str::to_string).collect()
}

/// A PNG of the whole page (not just the window) at `width` CSS pixels, saved as `tests/artifacts/NAME`.
pub(crate) fn screenshot(tab: &Tab, width: u32, name: &str) -> PathBuf {
    tab.call_method(SetDeviceMetricsOverride {
        width,
        height: 900,
        device_scale_factor: 1.0,
        mobile: width < 600,
        scale: None,
        screen_width: None,
        screen_height: None,
        position_x: None,
        position_y: None,
        dont_set_visible_size: None,
        screen_orientation: None,
        viewport: None,
        display_feature: None,
        device_posture: None,
    })
    .unwrap();
    // The layout at the new width is drawn once the viewport has it and two frames have been painted.
    let settled = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(String(innerWidth)))))";
    let drawn = || tab.evaluate(settled, true).ok().and_then(|v| v.value).and_then(|v| v.as_str().map(str::to_string));
    wait_until("the new width drawn", Duration::from_secs(10), || drawn() == Some(width.to_string()), String::new);
    let height: f64 = eval(tab, "String(document.documentElement.scrollHeight)").parse().unwrap();
    let shot = tab
        .call_method(CaptureScreenshot {
            format: Some(CaptureScreenshotFormatOption::Png),
            quality: None,
            clip: Some(Viewport { x: 0.0, y: 0.0, width: f64::from(width), height, scale: 1.0 }),
            from_surface: Some(true),
            capture_beyond_viewport: Some(true),
            optimize_for_speed: None,
        })
        .unwrap();
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD.decode(shot.data).unwrap();
    let dir = root().join("tests/artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, png).unwrap();
    path
}

/// Whether anything on the page is wider than the window (a phone would have to scroll sideways). Wide
/// blocks that scroll inside themselves (the report, the table) are fine.
/// Paste `json` into the import box and press its button, as a user would.
fn paste_import(tab: &Tab, json: &str) {
    let set = format!(
        "const t = document.querySelector(\"[data-testid='import-paste']\"); t.value = {}; \
         t.dispatchEvent(new Event('input')); document.querySelector(\"[data-testid='import-paste-button']\").click(); ''",
        serde_json::to_string(json).unwrap()
    );
    eval(tab, &set);
}

fn overflows(tab: &Tab) -> String {
    eval(tab, "String(document.documentElement.scrollWidth > window.innerWidth)")
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
    let dist = std::env::var_os("HTTPBENCH_PAGE_DIST").map_or_else(crate::browser_run::dist, PathBuf::from);
    let site = origin.start(&dist);
    let (browser, _profile) = launch();
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(60));
    let query = format!("?target={}&n=200&warmup=20&rounds=4&clients=all&mode=both", site.target);
    open(&tab, &format!("{}{query}", site.page));
    tab.wait_for_element("[data-testid='run']").unwrap().click().unwrap();
    let done = || {
        assert_ne!(state(&tab), "invalid", "{}", testid(&tab, "status"));
        state(&tab) == "done"
    };
    wait_until("the run done", Duration::from_secs(240), done, || testid(&tab, "status"));
    let report = testid(&tab, "report");
    let artifacts = root().join("tests/artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    std::fs::write(artifacts.join(format!("{prefix}page-report.txt")), &report).unwrap();
    let head = format!("httpbench-web {} (release)", env!("CARGO_PKG_VERSION"));
    assert!(report.starts_with(&head), "{report}");
    assert_eq!(eval(&tab, "String(self.crossOriginIsolated)"), "true", "COOP/COEP make the page isolated");
    // The clients this build offers (the default page has no reqwest: over the size budget), each in two modes.
    let clients =
        eval(&tab, "[...document.querySelectorAll(\"[data-testid^='client-']\")].map(c => c.id.slice(7)).join(' ')");
    let clients: Vec<&str> = clients.split_whitespace().collect();
    assert!(clients.len() >= 4 && clients.contains(&"js-fetch"), "{clients:?}");
    let labels = row_labels(&tab);
    assert_eq!(labels.len(), 2 * clients.len(), "{labels:?}");
    for client in &clients {
        assert!(labels.contains(&format!("{client}/reuse")) && report.contains(client), "{client}: {labels:?}");
    }
    let json = testid(&tab, "result-json");
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
    let shot = screenshot(&tab, 1280, &format!("{prefix}page-after-run.png"));
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000, "a real screenshot");
    screenshot(&tab, 375, &format!("{prefix}page-after-run-375px.png"));
    assert_eq!(overflows(&tab), "false", "readable at 375 px without scrolling sideways");

    // Import a fresh CLI result by pasting it: one table, labelled by environment.
    let (code, cli_json, err) =
        run(&["run", &site.target, "-n", "300", "--clients", "curl,raw", "--mode", "reuse", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    paste_import(&tab, &cli_json);
    let imported = || row_labels(&tab).iter().any(|l| l.starts_with("native/"));
    wait_until("the import", Duration::from_secs(30), imported, || testid(&tab, "import-error"));
    assert_eq!(testid(&tab, "import-error"), "");
    let labels = row_labels(&tab);
    assert!(labels.contains(&"chromium/fetch/reuse".to_string()), "{labels:?}");
    assert!(labels.contains(&"native/curl/reuse".to_string()), "{labels:?}");
    let combined = testid(&tab, "report");
    std::fs::write(artifacts.join(format!("{prefix}page-combined-report.txt")), &combined).unwrap();
    assert!(combined.contains("native/raw/reuse") && combined.contains("chromium/js-fetch/fresh"), "{combined}");
    screenshot(&tab, 1280, &format!("{prefix}page-combined.png"));
}

/// The page draws the scan charts the HTML report draws: a CLI scan (`-c 1,4 --body-size 0,4k`) imported by
/// pasting shows the rate against requests in flight, and the rate and MB/s against body size, and still fits
/// a phone's width.
#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn an_imported_scan_draws_its_scan_charts() {
    let site = Origin::Serve.start(&crate::browser_run::dist());
    let (browser, _profile) = launch();
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(60));
    open(&tab, &site.page);
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
    paste_import(&tab, &json);
    let count = || eval(&tab, "String(document.querySelectorAll(\"[data-testid='scan-chart']\").length)");
    wait_until("a scan chart", Duration::from_secs(30), || count() != "0", || testid(&tab, "import-error"));
    // Requests in flight (rate), body size (rate and MB/s).
    assert_eq!(count(), "3");
    let titles = eval(
        &tab,
        "[...document.querySelectorAll(\"[data-testid='scan-chart'] svg\")].map(s => s.textContent).join('|')",
    );
    assert!(titles.contains("by requests in flight") && titles.contains("Body throughput (MB/s)"), "{titles}");
    assert!(titles.contains("raw/0") || titles.contains("raw/c1"), "one line per client and other level: {titles}");
    screenshot(&tab, 1280, "page-scan-charts.png");
    screenshot(&tab, 375, "page-scan-charts-375px.png");
    assert_eq!(overflows(&tab), "false", "readable at 375 px without scrolling sideways");
}
