//! One page of `run --browser`: the run's whole plan in the page's query string (shared's [`PageQuery`]: every
//! dimension, interleaving, the timeout, the targets per HTTP version, and the page's id in the run), how long
//! a busy page may say nothing, and the report read from the file it posted. [`super::pages`] starts the pages
//! and waits for them, bounded by each page's silence, not by a guess of how long the run takes.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use httpbench_shared::parse::parse_reports;
use httpbench_shared::protocol::{timeout_text, HttpChoice, Modes, PageQuery};
use httpbench_shared::session::{Budget, Matrix, Plan, RawPlan, Targets};
use httpbench_shared::{EnvironmentKind, Report};
use url::Url;

/// What the page runs: the same plan and dimensions as the native cases, for the browser's clients.
pub(super) struct PagePlan<'a> {
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
    /// The query of page `id`: the whole plan, the id it takes its turns and posts by, and `autorun=1`. Lists
    /// are written as the CLI's flags take them, so the page reads them with the same parsers.
    pub(super) fn query(&self, id: &str) -> PageQuery {
        let (count, duration) = match self.plan.budget {
            Budget::Count(n) => (Some(n.to_string()), None),
            // Bare seconds: the shared duration parser reads them exactly.
            Budget::Duration(d) => (None, Some(d.as_secs_f64().to_string())),
        };
        let m = self.matrix;
        let list = |values: Vec<String>| (!values.is_empty()).then(|| values.join(","));
        let plan = RawPlan {
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
        };
        PageQuery { plan, autorun: true, imports: Vec::new(), page: Some(id.to_string()), reference: None }
    }

    /// Page `id`'s URL on `server` (`/app/`) with the plan in its query string.
    pub(super) fn url(&self, server: &Url, id: &str) -> String {
        let page = server.join("app/").map(|u| u.to_string()).unwrap_or_default();
        format!("{page}?{}", self.query(id).to_query())
    }
}

/// How long the page may say nothing: the browser's start and the page's load, or one request that takes its
/// whole timeout (the page reports progress at least once a second while requests end, and every few seconds
/// to the server), with room for a loaded machine.
pub(super) fn silence_limit(timeout: Duration) -> Duration {
    Duration::from_secs(60) + timeout
}

/// The browser cases' report in the result file a page posted.
pub(super) fn browser_report(file: &Path) -> anyhow::Result<Report> {
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
        let url = page.url(&server, "chromium");
        let (at, query) = url.split_once('?').unwrap();
        assert_eq!(at, "https://127.0.0.1:4000/app/");
        let q = PageQuery::parse(query);
        let (p, page_id) = (&q.plan, q.page.as_deref());
        assert_eq!(p.target.as_deref(), Some("https://127.0.0.1:4000/"));
        assert_eq!(p.targets, targets.per_version);
        assert_eq!((p.count.as_deref(), p.duration.as_deref(), p.warmup.as_deref()), (Some("200"), None, Some("5")));
        assert_eq!(
            (p.rounds.as_deref(), p.interleave.as_deref(), p.timeout.as_deref()),
            (Some("3"), Some("0"), Some("2500ms"))
        );
        assert_eq!(
            (p.clients.as_deref(), p.mode.as_deref(), p.http.as_deref()),
            (Some("fetch,xhr"), Some("reuse"), Some("both"))
        );
        assert_eq!((p.concurrency.as_deref(), p.body_sizes.as_deref()), (Some("1,8"), Some("0,16384")));
        assert_eq!(p.server_delays.as_deref(), Some("5ms"));
        assert!(q.autorun);
        assert_eq!(page_id, Some("chromium"));
        let timed = Plan { budget: Budget::Duration(Duration::from_millis(2500)), ..plan };
        let q = PagePlan { plan: &timed, ..page }.query("chromium");
        assert_eq!((q.plan.count, q.plan.duration.as_deref()), (None, Some("2.5")));
        let plain = Matrix::new(EnvironmentKind::Browser, vec!["fetch".into()], vec![Mode::Fresh]);
        let q = PagePlan { matrix: &plain, ..page }.query("chromium");
        assert_eq!((q.plan.body_sizes, q.plan.server_delays, q.plan.http.as_deref()), (None, None, Some("1.1")));
    }
}
