//! `httpbench run --browser`: the browser half of a browser-vs-native run. The embedded server serves the
//! page and the target; a real headless Chromium (Debian's, or `--chromium PATH`) opens the page with the
//! run's settings in its query string; the page runs the browser clients on the shared schedule and posts its
//! result file back to the server, which saves it in a folder this module watches.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use httpbench_shared::parse::parse_reports;
use httpbench_shared::{EnvironmentKind, Mode, Report};
use url::Url;

use crate::options::Usage;

/// The browser clients a browser run uses unless told otherwise (reqwest is not in the default page build).
pub const DEFAULT_CLIENTS: &str = "fetch,gloo-net,xhr,js-fetch";

/// Names tried on PATH, in order.
const CANDIDATES: [&str; 4] = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/// Chromium as given, or found on PATH; a clear error when there is none.
pub fn find_chromium(explicit: Option<&Path>) -> Result<PathBuf, Usage> {
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(Usage(format!(
                "--chromium {}: no such file; give the path of a Chromium or Chrome binary",
                p.display()
            )))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| CANDIDATES.iter().map(move |name| dir.join(name)))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            Usage(
                "--browser needs Chromium, and none is on PATH: install it (Debian: apt-get install chromium, or \
                 scripts/setup-web.sh) or pass --chromium PATH"
                    .into(),
            )
        })
}

/// What the page needs to run the same settings as the native cases.
pub struct PageRun<'a> {
    /// Base URL of the server that serves the page (`http://127.0.0.1:P/`).
    pub server: &'a Url,
    /// The URL the browser clients GET.
    pub target: &'a Url,
    /// Measured requests per case.
    pub count: u64,
    /// Warm-up requests per case.
    pub warmup: u64,
    /// Rounds per case.
    pub rounds: u32,
    /// Browser client names, comma-separated.
    pub clients: &'a str,
    /// Modes.
    pub modes: &'a [Mode],
}

impl PageRun<'_> {
    /// The page's URL with the run in its query string and `autorun=1`.
    pub fn url(&self) -> String {
        let mode = match self.modes {
            [Mode::Fresh] => "fresh",
            [Mode::Reuse] => "reuse",
            _ => "both",
        };
        let mut page = self.server.join("app/").map(|u| u.to_string()).unwrap_or_default();
        page.push_str(&format!(
            "?target={}&n={}&warmup={}&rounds={}&clients={}&mode={mode}&autorun=1",
            encode(self.target.as_str()),
            self.count,
            self.warmup,
            self.rounds,
            encode(self.clients)
        ));
        page
    }

    /// A generous bound on how long the page may take: requests at 20 ms each, plus two minutes of start-up.
    pub fn timeout(&self) -> Duration {
        let cases = self.clients.split(',').count() as u64 * self.modes.len() as u64;
        let requests = (self.count + self.warmup) * cases;
        Duration::from_secs(120) + Duration::from_millis(20) * u32::try_from(requests).unwrap_or(u32::MAX)
    }
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b',' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Open `page_url` in headless Chromium and wait until a result file lands in `results`; the browser report.
pub fn run(
    chromium: &Path,
    page_url: &str,
    results: &Path,
    timeout: Duration,
    stop: &AtomicBool,
) -> anyhow::Result<Report> {
    let profile = tempfile::tempdir().context("cannot create a Chromium profile folder")?;
    let log_path = profile.path().join("chromium.log");
    let mut browser = Browser(start(chromium, page_url, profile.path(), &log_path)?);
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(file) = first_result(results)? {
            let text = std::fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?;
            let reports =
                parse_reports(&text).with_context(|| format!("the page posted a bad file {}", file.display()))?;
            return reports
                .into_iter()
                .find(|r| r.environment.kind == EnvironmentKind::Browser)
                .context("the page posted a result file without browser cases");
        }
        if stop.load(Ordering::Relaxed) {
            bail!("interrupted before the browser cases finished");
        }
        if let Some(status) = browser.0.try_wait()? {
            bail!("Chromium exited ({status}) before the page finished; its log:\n{}", tail(&log_path));
        }
        if Instant::now() > deadline {
            bail!("the page did not finish within {} s; Chromium's log:\n{}", timeout.as_secs(), tail(&log_path));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Kills the browser however the wait ends.
struct Browser(Child);

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Headless Chromium as httpbench runs it (the page's end-to-end test too). Root needs --no-sandbox; the
/// networking switches stop Chromium from calling home on a closed network. Never --virtual-time-budget: it
/// fakes performance.now().
pub const CHROMIUM_FLAGS: [&str; 9] = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
];

fn start(chromium: &Path, url: &str, profile: &Path, log: &Path) -> anyhow::Result<Child> {
    let log_file = std::fs::File::create(log).context("cannot create Chromium's log file")?;
    Command::new(chromium)
        .args(CHROMIUM_FLAGS)
        .args(["--disable-extensions", "--window-size=1280,2000"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .stdin(Stdio::null())
        .stdout(log_file.try_clone()?)
        .stderr(log_file)
        .spawn()
        .with_context(|| format!("cannot start {}", chromium.display()))
}

/// The first complete result file in `dir` (temporary files start with a dot).
fn first_result(dir: &Path) -> anyhow::Result<Option<PathBuf>> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(None) };
    Ok(entries.filter_map(Result::ok).map(|e| e.path()).find(|p| {
        p.extension().is_some_and(|e| e == "json")
            && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'))
    }))
}

fn tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// web/webdriver.json (the page's wasm tests, through chromedriver) and bench/page-trace.mjs, which reads
    /// that file, start Chromium with these same flags: a copy that drifts would test another browser set-up.
    #[test]
    fn the_webdriver_config_starts_chromium_with_the_same_flags() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/webdriver.json");
        let config: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let args: Vec<&str> =
            config["goog:chromeOptions"]["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        assert_eq!(args, CHROMIUM_FLAGS);
    }

    #[test]
    fn the_page_url_carries_the_settings() {
        let server = Url::parse("http://127.0.0.1:4000/").unwrap();
        let target = Url::parse("http://127.0.0.1:4000/bytes/10?x=1").unwrap();
        let run = PageRun {
            server: &server,
            target: &target,
            count: 200,
            warmup: 5,
            rounds: 3,
            clients: "fetch,xhr",
            modes: &[Mode::Fresh, Mode::Reuse],
        };
        assert_eq!(
            run.url(),
            "http://127.0.0.1:4000/app/?target=http%3A%2F%2F127.0.0.1%3A4000%2Fbytes%2F10%3Fx%3D1&n=200&warmup=5&rounds=3\
             &clients=fetch,xhr&mode=both&autorun=1"
        );
        assert!(run.timeout() > Duration::from_secs(120));
    }

    #[test]
    fn a_missing_chromium_is_a_clear_error() {
        let e = find_chromium(Some(Path::new("/nonexistent/chromium"))).unwrap_err();
        assert!(e.0.contains("/nonexistent/chromium"), "{e}");
    }
}
