//! One page run of `run --browser`: the run's whole plan in the page's query string (shared's [`PageQuery`]:
//! every dimension, interleaving, the timeout, the targets per HTTP version), a headless browser on it, and the
//! wait for the page's word through the embedded server ([`ServerEvent`]): its progress, a refusal of the plan,
//! or its result file. The wait is bounded by the page's silence, not by a guess of how long the run takes: a
//! page that says nothing for [`silence_limit`] is an error naming what it last said.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use httpbench_shared::parse::parse_reports;
use httpbench_shared::protocol::{timeout_text, HttpChoice, Modes, PageQuery, PageStatus};
use httpbench_shared::session::{Budget, Matrix, Plan, Targets};
use httpbench_shared::{EnvironmentKind, Report};
use url::Url;

use super::{tail, Launch};
use crate::server::spawned::ServerEvent;
use crate::usage::Usage;

/// What the page runs: the same plan and dimensions as the native cases, for the browser's clients.
pub struct PagePlan<'a> {
    /// The plan the native cases ran.
    pub plan: &'a Plan,
    /// The browser cases' dimensions (shared's matrix, the one the page builds from the query too).
    pub matrix: &'a Matrix,
    /// The URLs they request.
    pub targets: &'a Targets,
    /// Every request's deadline.
    pub timeout: Duration,
}

impl PagePlan<'_> {
    /// The page's query: the whole plan, and `autorun=1`. Lists are written as the CLI's flags take them, so
    /// the page reads them with the same parsers.
    pub fn query(&self) -> PageQuery {
        let (count, duration) = match self.plan.budget {
            Budget::Count(n) => (Some(n.to_string()), None),
            // Bare seconds: the shared duration parser reads them exactly.
            Budget::Duration(d) => (None, Some(d.as_secs_f64().to_string())),
        };
        let m = self.matrix;
        let list = |values: Vec<String>| (!values.is_empty()).then(|| values.join(","));
        PageQuery {
            target: Some(self.targets.default.clone()),
            targets: self.targets.per_version.clone(),
            count,
            duration,
            warmup: Some(self.plan.warmup.to_string()),
            rounds: Some(self.plan.rounds.to_string()),
            interleave: Some(if self.plan.interleave { "1" } else { "0" }.to_string()),
            timeout: Some(timeout_text(self.timeout)),
            clients: Some(m.clients.join(",")),
            mode: Some(Modes::of(&m.modes).to_string()),
            http: Some(HttpChoice::of(&m.http_versions).to_string()),
            concurrency: list(m.concurrency.iter().map(u32::to_string).collect()),
            body_sizes: list(m.body_sizes.iter().flatten().map(u64::to_string).collect()),
            server_delays: list(m.server_delays_ms.iter().flatten().map(|ms| format!("{ms}ms")).collect()),
            autorun: true,
            imports: Vec::new(),
        }
    }

    /// The page's URL on `server` (`/app/`) with the plan in its query string.
    pub fn url(&self, server: &Url) -> String {
        let page = server.join("app/").map(|u| u.to_string()).unwrap_or_default();
        format!("{page}?{}", self.query().to_query())
    }
}

/// How long the page may say nothing: the browser's start and the page's load, or one request that takes its
/// whole timeout (the page reports progress at least once a second while requests end, and every few seconds
/// to the server), with room for a loaded machine.
pub fn silence_limit(timeout: Duration) -> Duration {
    Duration::from_secs(60) + timeout
}

/// What a page run produced.
pub struct PageResult {
    /// The page's report, read once from the file the server saved.
    pub report: Report,
    /// The CPUs the browser could run on, read back from the OS after it started (Linux).
    pub cpus: Option<Vec<usize>>,
}

/// Open `page_url` in the headless browser `launch` starts and wait for the page's result (a [`ServerEvent::Saved`] on `events`);
/// `on_progress` hears each progress the page reports. A refusal of the plan is a [`Usage`] error with the
/// page's message. Bounded by the page's silence ([`silence_limit`] of `timeout`), the browser's exit and `stop`.
pub fn run(
    launch: &Launch<'_>,
    page_url: &str,
    events: &Receiver<ServerEvent>,
    timeout: Duration,
    stop: &AtomicBool,
    on_progress: &dyn Fn(&str),
) -> anyhow::Result<PageResult> {
    let name = launch.name();
    // Removed with the run (the log inside it too, once read).
    let profile = tempfile::tempdir().with_context(|| format!("cannot create a {name} profile folder"))?;
    let log_path = profile.path().join(format!("{name}.log"));
    let mut browser = launch.start(page_url, profile.path(), &log_path)?;
    let cpus = crate::placement::process_cpus(browser.id()).ok();
    let limit = silence_limit(timeout);
    let (mut last_word, mut last_said) = (Instant::now(), "nothing yet".to_string());
    loop {
        // The wake-up only bounds how soon a Ctrl-C, the browser's exit or the page's silence is noticed.
        match events.recv_timeout(Duration::from_millis(250)) {
            Ok(ServerEvent::Saved(file)) => return Ok(PageResult { report: browser_report(&file)?, cpus }),
            Ok(ServerEvent::Page(PageStatus::Refused(reason))) => {
                return Err(Usage(format!("the page refused the plan: {reason}")).into());
            }
            Ok(ServerEvent::Page(PageStatus::Progress(stage))) => {
                on_progress(&stage);
                (last_word, last_said) = (Instant::now(), stage);
            }
            Err(RecvTimeoutError::Disconnected) => bail!("the embedded server exited before the page finished"),
            Err(RecvTimeoutError::Timeout) => {}
        }
        if stop.load(Ordering::Relaxed) {
            bail!("interrupted before the browser cases finished");
        }
        if let Some(status) = browser.try_wait()? {
            bail!("{name} exited ({status}) before the page finished; its log:\n{}", tail(&log_path));
        }
        if last_word.elapsed() > limit {
            bail!(
                "the page said nothing for {} s (last: {last_said}); {name}'s log:\n{}",
                limit.as_secs(),
                tail(&log_path)
            );
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

#[cfg(test)]
mod tests {
    use httpbench_shared::model::{HttpVersion, Mode};

    use super::*;

    #[test]
    fn the_page_url_carries_the_whole_plan_in_the_shared_query() {
        let server = Url::parse("https://127.0.0.1:4000/").unwrap();
        let plan = Plan { budget: Budget::Count(200), warmup: 5, rounds: 3, interleave: false };
        let mut matrix = Matrix::new(EnvironmentKind::Browser, vec!["fetch".into(), "xhr".into()], vec![Mode::Reuse]);
        matrix.http_versions = vec![HttpVersion::Http11, HttpVersion::Http2];
        (matrix.concurrency, matrix.body_sizes, matrix.server_delays_ms) =
            (vec![1, 8], vec![Some(0), Some(16384)], vec![Some(5)]);
        let targets = Targets {
            default: "https://127.0.0.1:4000/".into(),
            per_version: vec![(HttpVersion::Http11, "https://127.0.0.1:4001/".into())],
        };
        let page = PagePlan { plan: &plan, matrix: &matrix, targets: &targets, timeout: Duration::from_millis(2500) };
        let url = page.url(&server);
        let (at, query) = url.split_once('?').unwrap();
        assert_eq!(at, "https://127.0.0.1:4000/app/");
        let q = PageQuery::parse(query);
        assert_eq!(q.target.as_deref(), Some("https://127.0.0.1:4000/"));
        assert_eq!(q.targets, targets.per_version);
        assert_eq!((q.count.as_deref(), q.duration, q.warmup.as_deref()), (Some("200"), None, Some("5")));
        assert_eq!(
            (q.rounds.as_deref(), q.interleave.as_deref(), q.timeout.as_deref()),
            (Some("3"), Some("0"), Some("2500ms"))
        );
        assert_eq!(
            (q.clients.as_deref(), q.mode.as_deref(), q.http.as_deref()),
            (Some("fetch,xhr"), Some("reuse"), Some("both"))
        );
        assert_eq!((q.concurrency.as_deref(), q.body_sizes.as_deref()), (Some("1,8"), Some("0,16384")));
        assert_eq!(q.server_delays.as_deref(), Some("5ms"));
        assert!(q.autorun);
        let timed = Plan { budget: Budget::Duration(Duration::from_millis(2500)), ..plan };
        let q = PagePlan { plan: &timed, ..page }.query();
        assert_eq!((q.count, q.duration.as_deref()), (None, Some("2.5")));
        let plain = Matrix::new(EnvironmentKind::Browser, vec!["fetch".into()], vec![Mode::Fresh]);
        let q = PagePlan { matrix: &plain, ..page }.query();
        assert_eq!((q.body_sizes, q.server_delays, q.http.as_deref()), (None, None, Some("1.1")));
    }
}
