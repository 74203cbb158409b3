//! The browser page end to end: the trunk-built `dist/` served from a sub-path by a static server written
//! here (with the COOP/COEP headers that make the page cross-origin isolated), opened in headless Chromium,
//! a small benchmark started by clicking Run against `httpbench serve`, the report read back by
//! `data-testid`, a CLI result file imported, and screenshots saved under `tests/artifacts/`.
//!
//! Needs `dist/` (scripts/build-page.sh) and Chromium: ignored by a plain `cargo test` with that reason;
//! scripts/test.sh builds both and runs it with `--include-ignored`, where a missing page fails it.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use headless_chrome::protocol::cdp::Emulation::SetDeviceMetricsOverride;
use headless_chrome::protocol::cdp::Page::{CaptureScreenshot, CaptureScreenshotFormatOption, Viewport};
use headless_chrome::{Browser, LaunchOptions, Tab};
use httpbench_shared::parse::parse_reports;

use crate::helpers::{run, Acceptor, Serve};

/// Where the page is mounted on the static server: a sub-path, as on any static host.
const SUB_PATH: &str = "/sub/httpbench/";

pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `dist/` served at [`SUB_PATH`] on 127.0.0.1, one request per connection; stopped on drop.
struct StaticServer {
    url: String,
    _acceptor: Acceptor,
}

impl StaticServer {
    fn start(dir: PathBuf) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}{SUB_PATH}", listener.local_addr().unwrap());
        StaticServer { url, _acceptor: Acceptor::spawn(listener, move |s, _| serve_file(s, &dir)) }
    }
}

fn serve_file(mut s: TcpStream, dir: &Path) {
    let _ = s.set_nonblocking(false);
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let mut line = String::new();
    let mut reader = BufReader::new(s.try_clone().unwrap());
    if reader.read_line(&mut line).is_err() {
        return;
    }
    // Drain the head; the request line is all that matters here.
    let mut header = String::new();
    while reader.read_line(&mut header).map(|n| n > 2).unwrap_or(false) {
        header.clear();
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").split('?').next().unwrap_or("/");
    let file = path.strip_prefix(SUB_PATH).filter(|p| !p.contains("..")).map(|p| {
        let p = if p.is_empty() { "index.html" } else { p };
        dir.join(p)
    });
    let (status, body, kind) = match file.and_then(|f| std::fs::read(&f).ok().map(|b| (b, f))) {
        Some((body, f)) => ("200 OK", body, content_type(f.extension())),
        None => ("404 Not Found", b"not found\n".to_vec(), "text/plain"),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\
         Cross-Origin-Opener-Policy: same-origin\r\nCross-Origin-Embedder-Policy: require-corp\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    let _ = s.write_all(head.as_bytes()).and_then(|_| s.write_all(&body));
}

fn content_type(ext: Option<&OsStr>) -> &'static str {
    match ext.and_then(OsStr::to_str) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css",
        _ => "application/octet-stream",
    }
}

/// Chromium with a fresh profile; the profile directory lives (and is removed) with the returned guard.
pub(crate) fn launch() -> (Browser, tempfile::TempDir) {
    let profile = tempfile::tempdir().unwrap();
    let options = LaunchOptions::default_builder()
        .path(Some(PathBuf::from("/usr/bin/chromium")))
        .headless(false) // --headless=new is in the args; the library's own flag is the old mode
        .sandbox(false)
        .window_size(Some((1280, 1800)))
        .user_data_dir(Some(profile.path().to_path_buf()))
        .idle_browser_timeout(Duration::from_secs(180))
        .args(httpbench::browser::CHROMIUM_FLAGS.iter().map(OsStr::new).collect())
        .build()
        .unwrap();
    let browser =
        Browser::new(options).expect("headless Chromium starts (/usr/bin/chromium; scripts/setup-web.sh installs it)");
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
    thread::sleep(Duration::from_millis(300)); // let the layout settle at the new width
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
fn overflows(tab: &Tab) -> String {
    eval(tab, "String(document.documentElement.scrollWidth > window.innerWidth)")
}

#[test]
#[ignore = "needs the built page (dist/) and Chromium: scripts/test.sh runs it"]
fn the_page_runs_a_benchmark_by_clicking_and_imports_a_cli_result() {
    // HTTPBENCH_PAGE_DIST points at another build, e.g. one with `--features reqwest` (for measurements).
    let dist = std::env::var_os("HTTPBENCH_PAGE_DIST").map_or_else(crate::browser_run::dist, PathBuf::from);
    let target = Serve::start();
    let site = StaticServer::start(dist);
    let (browser, _profile) = launch();
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(60));
    let query = format!("?target={}&n=200&warmup=20&rounds=4&clients=all&mode=both", target.url);
    tab.navigate_to(&format!("{}{query}", site.url)).unwrap().wait_until_navigated().unwrap();
    tab.wait_for_element("[data-testid='run']").unwrap().click().unwrap();
    let start = Instant::now();
    while state(&tab) != "done" {
        assert!(
            start.elapsed() < Duration::from_secs(240),
            "no result after 4 min; status: {}",
            testid(&tab, "status")
        );
        assert_ne!(state(&tab), "invalid", "{}", testid(&tab, "status"));
        thread::sleep(Duration::from_millis(200));
    }
    let report = testid(&tab, "report");
    let artifacts = root().join("tests/artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    std::fs::write(artifacts.join("page-report.txt"), &report).unwrap();
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
    let shot = screenshot(&tab, 1280, "page-after-run.png");
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000, "a real screenshot");
    screenshot(&tab, 375, "page-after-run-375px.png");
    assert_eq!(overflows(&tab), "false", "readable at 375 px without scrolling sideways");

    // Import a fresh CLI result by pasting it: one table, labelled by environment.
    let (code, cli_json, err) =
        run(&["run", &target.url, "-n", "300", "--clients", "curl,raw", "--mode", "reuse", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let set = format!(
        "const t = document.querySelector(\"[data-testid='import-paste']\"); t.value = {}; \
         t.dispatchEvent(new Event('input')); document.querySelector(\"[data-testid='import-paste-button']\").click(); ''",
        serde_json::to_string(&cli_json).unwrap()
    );
    eval(&tab, &set);
    let start = Instant::now();
    while !row_labels(&tab).iter().any(|l| l.starts_with("native/")) {
        assert!(start.elapsed() < Duration::from_secs(30), "no import; error: {}", testid(&tab, "import-error"));
        thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(testid(&tab, "import-error"), "");
    let labels = row_labels(&tab);
    assert!(labels.contains(&"browser/fetch/reuse".to_string()), "{labels:?}");
    assert!(labels.contains(&"native/curl/reuse".to_string()), "{labels:?}");
    let combined = testid(&tab, "report");
    std::fs::write(artifacts.join("page-combined-report.txt"), &combined).unwrap();
    assert!(combined.contains("native/raw/reuse") && combined.contains("browser/js-fetch/fresh"), "{combined}");
    screenshot(&tab, 1280, "page-combined.png");
}
