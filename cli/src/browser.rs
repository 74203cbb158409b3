//! `httpbench run --browser`: the browser half of a browser-vs-native run. The embedded server serves the
//! page and the target; a real headless Chromium (Debian's, or `--chromium PATH`) opens the page with the
//! run's plan in its query string (the shared [`PageQuery`]); the page runs the browser clients through the
//! shared session and posts its result file back to the server, which saves it and says so on its stdout.
//! This module knows no CLI type: it takes a plan, names and paths, and answers with a `Report`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use httpbench_shared::parse::parse_reports;
use httpbench_shared::protocol::{Modes, PageQuery};
use httpbench_shared::session::{Budget, Plan};
use httpbench_shared::{EnvironmentKind, Mode, Report};
use url::Url;

use crate::child::KillOnDrop;

/// Names tried on PATH, in order.
const CANDIDATES: [&str; 4] = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/// Chromium as given, or found on PATH; an error that says what to do when there is none.
pub fn find_chromium(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(format!("--chromium {}: no such file; give the path of a Chromium or Chrome binary", p.display()))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| CANDIDATES.iter().map(move |name| dir.join(name)))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "--browser needs Chromium, and none is on PATH: install it (scripts/setup-web.sh, or Debian's \
             apt-get install chromium) or pass --chromium PATH"
                .into()
        })
}

/// What the page needs to run the same settings as the native cases.
pub struct PageRun<'a> {
    /// Base URL of the server that serves the page (`http://127.0.0.1:P/`).
    pub server: &'a Url,
    /// The URL the browser clients GET.
    pub target: &'a Url,
    /// The plan the native cases ran (the page always interleaves).
    pub plan: &'a Plan,
    /// Browser client names.
    pub clients: &'a [&'a str],
    /// Modes.
    pub modes: &'a [Mode],
    /// Requests in flight per case, each level a case (`-c`).
    pub concurrency: &'a [u32],
    /// The think time each request asks of the server, in ms (it bounds how long the run may take).
    pub server_delay_ms: u64,
}

impl PageRun<'_> {
    /// The page's URL with the run in its query string and `autorun=1`.
    pub fn url(&self) -> String {
        let (count, duration) = match self.plan.budget {
            Budget::Count(n) => (Some(n.to_string()), None),
            // Bare seconds: the shared duration parser reads them exactly.
            Budget::Duration(d) => (None, Some(d.as_secs_f64().to_string())),
        };
        let query = PageQuery {
            target: Some(self.target.to_string()),
            count,
            duration,
            warmup: Some(self.plan.warmup.to_string()),
            rounds: Some(self.plan.rounds.to_string()),
            clients: Some(self.clients.join(",")),
            mode: Some(Modes::of(self.modes).to_string()),
            concurrency: Some(self.concurrency.iter().map(u32::to_string).collect::<Vec<_>>().join(",")),
            autorun: true,
            imports: Vec::new(),
        };
        let page = self.server.join("app/").map(|u| u.to_string()).unwrap_or_default();
        format!("{page}?{}", query.to_query())
    }

    /// A generous bound on how long the page may take: two minutes of start-up, then 20 ms per request by
    /// count, or the duration with 20 ms per round on top.
    pub fn timeout(&self) -> Duration {
        let cases = (self.clients.len() * self.modes.len() * self.concurrency.len()) as u32;
        let per_request = Duration::from_millis(20 + self.server_delay_ms);
        let warmup = per_request * u32::try_from(self.plan.warmup).unwrap_or(u32::MAX);
        let measured = match self.plan.budget {
            Budget::Count(n) => per_request * u32::try_from(n).unwrap_or(u32::MAX),
            Budget::Duration(d) => d + per_request * self.plan.rounds,
        };
        Duration::from_secs(120) + (warmup + measured) * cases
    }
}

/// What the browser half produced.
pub struct BrowserRun {
    /// The page's report, read once from the file the server saved.
    pub report: Report,
    /// The CPUs Chromium could run on, read back from the OS after it started (Linux).
    pub cpus: Option<Vec<usize>>,
}

/// How Chromium is started.
pub struct Chromium<'a> {
    /// The binary.
    pub path: &'a Path,
    /// The CPUs it may run on (Linux), if placed.
    pub cpus: Option<&'a [usize]>,
    /// Over HTTPS: the SPKI pins of the servers' keys, accepted through
    /// `--ignore-certificate-errors-spki-list` (which Chromium honours only with a `--user-data-dir` of its own,
    /// as every run here has). Never `--ignore-certificate-errors`: the rest of verification stays on.
    pub spki_pins: &'a [String],
}

/// Open `page_url` in headless Chromium and wait until the server says it saved a result (a path on
/// `saved`); the browser report from that file, read once. Bounded by `timeout`, Chromium's exit and `stop`.
pub fn run(
    chromium: &Chromium<'_>,
    page_url: &str,
    saved: &Receiver<PathBuf>,
    timeout: Duration,
    stop: &AtomicBool,
) -> anyhow::Result<BrowserRun> {
    let profile = tempfile::tempdir().context("cannot create a Chromium profile folder")?;
    let log_path = profile.path().join("chromium.log");
    let mut browser = start(chromium, page_url, profile.path(), &log_path)?;
    let placed = crate::placement::process_cpus(browser.id()).ok();
    let deadline = Instant::now() + timeout;
    loop {
        // The wake-up only bounds how soon a Ctrl-C or Chromium's exit is noticed; the result itself arrives
        // as a message.
        match saved.recv_timeout(Duration::from_millis(250)) {
            Ok(file) => return Ok(BrowserRun { report: browser_report(&file)?, cpus: placed }),
            Err(RecvTimeoutError::Disconnected) => bail!("the embedded server exited before the page finished"),
            Err(RecvTimeoutError::Timeout) => {}
        }
        if stop.load(Ordering::Relaxed) {
            bail!("interrupted before the browser cases finished");
        }
        if let Some(status) = browser.try_wait()? {
            bail!("Chromium exited ({status}) before the page finished; its log:\n{}", tail(&log_path));
        }
        if Instant::now() > deadline {
            bail!("the page did not finish within {} s; Chromium's log:\n{}", timeout.as_secs(), tail(&log_path));
        }
    }
}

fn browser_report(file: &Path) -> anyhow::Result<Report> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let reports = parse_reports(&text).with_context(|| format!("the page posted a bad file {}", file.display()))?;
    reports
        .into_iter()
        .find(|r| r.environment.kind == EnvironmentKind::Browser)
        .context("the page posted a result file without browser cases")
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

fn start(chromium: &Chromium<'_>, url: &str, profile: &Path, log: &Path) -> anyhow::Result<KillOnDrop> {
    let log_file = std::fs::File::create(log).context("cannot create Chromium's log file")?;
    let mut cmd = Command::new(chromium.path);
    // Killed with httpbench even when httpbench itself is killed (a test's timeout once left one running).
    crate::child::die_with_parent(&mut cmd);
    if let Some(cpus) = chromium.cpus {
        crate::placement::pin_command(&mut cmd, cpus).context("cannot place Chromium on its CPUs")?;
    }
    if !chromium.spki_pins.is_empty() {
        // Chromium takes the bare base64 hashes: `sha256/` (the pin's usual spelling) makes it refuse them all.
        let bare: Vec<&str> = chromium.spki_pins.iter().map(|p| p.trim_start_matches("sha256/")).collect();
        cmd.arg(format!("--ignore-certificate-errors-spki-list={}", bare.join(",")));
    }
    cmd.args(CHROMIUM_FLAGS)
        .args(["--disable-extensions", "--window-size=1280,2000"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .stdin(Stdio::null())
        .stdout(log_file.try_clone()?)
        .stderr(log_file);
    KillOnDrop::spawn(&mut cmd).with_context(|| format!("cannot start {}", chromium.path.display()))
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
    fn the_page_url_carries_the_plan_in_the_shared_query() {
        let server = Url::parse("http://127.0.0.1:4000/").unwrap();
        let target = Url::parse("http://127.0.0.1:4000/bytes/10?x=1").unwrap();
        let plan = Plan { budget: Budget::Count(200), warmup: 5, rounds: 3, interleave: true };
        let clients = ["fetch", "xhr"];
        let run = PageRun {
            server: &server,
            target: &target,
            plan: &plan,
            clients: &clients,
            modes: &[Mode::Fresh, Mode::Reuse],
            concurrency: &[1, 8],
            server_delay_ms: 0,
        };
        let url = run.url();
        let (page, query) = url.split_once('?').unwrap();
        assert_eq!(page, "http://127.0.0.1:4000/app/");
        let q = PageQuery::parse(query);
        assert_eq!(q.target.as_deref(), Some(target.as_str()));
        assert_eq!((q.count.as_deref(), q.duration, q.warmup.as_deref()), (Some("200"), None, Some("5")));
        assert_eq!(
            (q.rounds.as_deref(), q.clients.as_deref(), q.mode.as_deref()),
            (Some("3"), Some("fetch,xhr"), Some("both"))
        );
        assert!(q.autorun);
        assert_eq!(q.concurrency.as_deref(), Some("1,8"));
        assert!(run.timeout() > Duration::from_secs(120));
        let plan = Plan { budget: Budget::Duration(Duration::from_millis(2500)), ..plan };
        let run = PageRun { plan: &plan, modes: &[Mode::Reuse], ..run };
        let q = PageQuery::parse(run.url().split_once('?').unwrap().1);
        assert_eq!((q.count, q.duration.as_deref(), q.mode.as_deref()), (None, Some("2.5"), Some("reuse")));
        assert!(run.timeout() >= Duration::from_secs(120) + Duration::from_millis(2500) * 2);
        // A slow server's think time counts per request.
        let counted = Plan { budget: Budget::Count(200), ..plan };
        let slow = PageRun { server_delay_ms: 1000, plan: &counted, ..run };
        assert!(slow.timeout() >= Duration::from_secs(200 * 2));
    }

    #[test]
    fn a_missing_chromium_is_a_clear_error() {
        let e = find_chromium(Some(Path::new("/nonexistent/chromium"))).unwrap_err();
        assert!(e.contains("/nonexistent/chromium"), "{e}");
    }
}
