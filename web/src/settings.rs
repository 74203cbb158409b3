//! The page's run settings: their defaults, reading them from the page's query string (shared's
//! [`PageQuery`], the one the CLI writes for `run --browser`), and checking them before any request into the
//! session's own types: a [`Plan`] checked by shared against the page's limits, a [`Matrix`] of every
//! dimension, the [`Targets`] and the timeout. Client names, modes, versions, load levels and durations are
//! read by shared's parsers, so a value means on the page what it means on the command line. Pure: it never
//! touches the browser, so it is tested natively.

use std::time::Duration;

use httpbench_shared::model::HttpVersion;
use httpbench_shared::protocol::{
    browser_clients, check_page_id, parse_client_list, parse_concurrency, parse_delays, parse_duration, parse_sizes,
    parse_timeout, HttpChoice, Modes, PageQuery,
};
use httpbench_shared::session::{Budget, Limits, Matrix, Plan, Spelling, Targets};
use httpbench_shared::EnvironmentKind;

/// Largest count and warm-up the page accepts: a typo must not start a day-long run.
pub const MAX_COUNT: u64 = Limits::of(EnvironmentKind::Browser).max_count;

/// The per-request timeout when the link names none, as the CLI's `--timeout` default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The browser clients of the catalog that this build has, in catalog (report) order: an optional client
/// (`feature` set) only when the page was built with that cargo feature.
pub fn available_clients() -> Vec<&'static str> {
    browser_clients()
        .filter(|c| match c.feature() {
            None => true,
            Some("reqwest") => cfg!(feature = "reqwest"),
            // A feature this crate does not know is one this build cannot have.
            Some(_) => false,
        })
        .map(|c| c.name)
        .collect()
}

/// Checked settings of one run: what the session is made of, and where its requests go.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSettings {
    /// The URLs the cases request (in fresh mode with `close=1` added).
    pub targets: Targets,
    /// How every case measures: a count or a duration, warm-up, rounds, interleaving.
    pub plan: Plan,
    /// The dimensions of the run: clients of this build, modes, HTTP versions, load levels.
    pub matrix: Matrix,
    /// Every request's deadline.
    pub timeout: Duration,
    /// The page's id in a run of `httpbench run --browser`: it takes its turn at each pass with the run's other
    /// sides, and names itself in its posts.
    pub page: Option<String>,
}

/// The form's raw values (strings, as typed), before checking.
#[derive(Debug, Clone, PartialEq)]
pub struct RawSettings {
    /// Target URL.
    pub target: String,
    /// The target of one HTTP version's cases instead (from the link only).
    pub targets: Vec<(HttpVersion, String)>,
    /// Count, as typed.
    pub count: String,
    /// Duration per case, as typed (`3s`, `500ms`); empty to measure by the count.
    pub duration: String,
    /// Warm-up, as typed.
    pub warmup: String,
    /// Rounds, as typed.
    pub rounds: String,
    /// `1` to interleave the cases' rounds (the default), `0` to run them case after case.
    pub interleave: String,
    /// Per-request timeout, as typed (`10`, `2.5`, `500ms`).
    pub timeout: String,
    /// Comma-separated client names, or `all`.
    pub clients: String,
    /// `fresh`, `reuse` or `both`.
    pub mode: String,
    /// HTTP versions (`1.1`, `2`, `both`); empty: whatever the browser negotiates.
    pub http: String,
    /// Requests in flight, as typed (`1`, `1,4,16`).
    pub concurrency: String,
    /// Body sizes asked of the embedded server (`0,16k`); empty: the target as given.
    pub body_sizes: String,
    /// Server think times (`5ms`); empty: none.
    pub server_delays: String,
    /// Start the run as soon as the page has loaded.
    pub autorun: bool,
    /// The page's id in a run of `httpbench run --browser` (from the link only).
    pub page: Option<String>,
}

impl RawSettings {
    /// The defaults, with the target at `origin` + `/` (a page opened from a file has no usable origin).
    pub fn defaults(origin: &str) -> Self {
        let target = if origin.starts_with("http") { format!("{origin}/") } else { "http://127.0.0.1:8080/".into() };
        RawSettings {
            target,
            targets: Vec::new(),
            count: "500".into(),
            duration: String::new(),
            warmup: "20".into(),
            rounds: "5".into(),
            interleave: "1".into(),
            timeout: "10".into(),
            clients: "all".into(),
            mode: Modes::default().to_string(),
            http: String::new(),
            concurrency: "1".into(),
            body_sizes: String::new(),
            server_delays: String::new(),
            autorun: false,
            page: None,
        }
    }

    /// The defaults overridden by the parameters `query` sets (its imports are not settings: the page
    /// loads them on its own).
    pub fn from_query(origin: &str, query: &PageQuery) -> Self {
        let d = Self::defaults(origin);
        let or = |value: &Option<String>, default: String| value.clone().unwrap_or(default);
        RawSettings {
            target: or(&query.target, d.target),
            targets: query.targets.clone(),
            count: or(&query.count, d.count),
            duration: or(&query.duration, d.duration),
            warmup: or(&query.warmup, d.warmup),
            rounds: or(&query.rounds, d.rounds),
            interleave: or(&query.interleave, d.interleave),
            timeout: or(&query.timeout, d.timeout),
            clients: or(&query.clients, d.clients),
            mode: or(&query.mode, d.mode),
            http: or(&query.http, d.http),
            concurrency: or(&query.concurrency, d.concurrency),
            body_sizes: or(&query.body_sizes, d.body_sizes),
            server_delays: or(&query.server_delays, d.server_delays),
            autorun: query.autorun,
            page: query.page.clone(),
        }
    }

    /// Check every value; the error names the field and the bad value. A duration, when given, replaces the
    /// count, which is then not read at all (the form keeps showing it). A plan with no case to run is
    /// refused with what was left out.
    pub fn check(&self) -> Result<RunSettings, String> {
        let target = url("target", &self.target)?;
        let mut per_version = Vec::new();
        for (http, raw) in &self.targets {
            per_version.push((*http, url(&format!("target_{}", http.short()), raw)?));
        }
        let settings = RunSettings {
            matrix: self.matrix(target.starts_with("https:"))?,
            targets: Targets { default: target, per_version },
            plan: self.plan()?,
            timeout: parse_timeout(&self.timeout).map_err(|e| format!("timeout {e}"))?,
            page: match &self.page {
                Some(id) => Some(check_page_id(id).map(|()| id.clone())?),
                None => None,
            },
        };
        match settings.matrix.cases() {
            (cases, _) if !cases.is_empty() => Ok(settings),
            (_, skipped) => Err(format!("no case can run: {}", skipped.join("; "))),
        }
    }

    /// The plan, checked by shared against the page's limits.
    fn plan(&self) -> Result<Plan, String> {
        let budget = if self.duration.trim().is_empty() {
            Budget::Count(number("count", &self.count)?)
        } else {
            Budget::Duration(parse_duration(&self.duration).map_err(|e| format!("duration {e}"))?)
        };
        let interleave = match self.interleave.trim() {
            "1" | "true" => true,
            "0" | "false" => false,
            other => return Err(format!("interleave '{other}' must be 1 (round-robin) or 0 (case after case)")),
        };
        let (warmup, rounds) = (number("warm-up", &self.warmup)?, number("rounds", &self.rounds)?);
        Plan::check(budget, warmup, rounds, interleave, &[EnvironmentKind::Browser])
            .map_err(|e| e.message(Spelling::Page))
    }

    /// The dimensions: clients of this build, modes, HTTP versions (none asked: the browser negotiates, and
    /// the cases expect what it would pick, HTTP/2 over TLS), load levels.
    fn matrix(&self, tls: bool) -> Result<Matrix, String> {
        let clients = parse_client_list(EnvironmentKind::Browser, &self.clients, &available_clients())
            .map_err(|e| e.to_string())?;
        let mut matrix = Matrix::new(
            EnvironmentKind::Browser,
            clients.into_iter().map(String::from).collect(),
            self.mode.parse::<Modes>()?.modes(),
        );
        matrix.tls = tls;
        match self.http.trim() {
            "" => {
                matrix.negotiated = true;
                matrix.http_versions = vec![if tls { HttpVersion::Http2 } else { HttpVersion::Http11 }];
            }
            choice => matrix.http_versions = choice.parse::<HttpChoice>().map_err(|e| format!("http: {e}"))?.versions(),
        }
        if !tls && matrix.http_versions.iter().any(|v| v.needs_tls()) {
            return Err("http: HTTP/2 and HTTP/3 are measured over TLS only: give an https:// target".into());
        }
        matrix.concurrency = parse_concurrency(&self.concurrency).map_err(|e| format!("in flight: {e}"))?;
        if !self.body_sizes.trim().is_empty() {
            let sizes = parse_sizes(&self.body_sizes).map_err(|e| format!("body sizes: {e}"))?;
            matrix.body_sizes = sizes.into_iter().map(Some).collect();
        }
        if !self.server_delays.trim().is_empty() {
            let delays = parse_delays(&self.server_delays).map_err(|e| format!("server delays: {e}"))?;
            matrix.server_delays_ms = delays.into_iter().map(Some).collect();
        }
        Ok(matrix)
    }
}

/// An http:// or https:// URL, trimmed.
fn url(field: &str, raw: &str) -> Result<String, String> {
    let url = raw.trim();
    match url.strip_prefix("http://").or_else(|| url.strip_prefix("https://")) {
        Some(rest) if !rest.is_empty() => Ok(url.to_string()),
        _ => Err(format!("{field} URL '{url}' is not an http:// or https:// URL")),
    }
}

/// A whole number, as typed; its range is the plan's to check.
fn number(field: &str, text: &str) -> Result<u64, String> {
    text.trim().parse::<u64>().map_err(|_| format!("{field} '{}' must be a whole number", text.trim()))
}

/// What to tell a user whose every request failed before a response (`unreached`) from a page on
/// `page_protocol` (`https:`, ...): from an https page the browser blocks an http:// target (mixed content)
/// and may need permission to reach a local address; elsewhere nothing is said.
pub fn unreachable_hint(page_protocol: &str, target: &str, unreached: bool) -> Option<String> {
    (unreached && page_protocol == "https:").then(|| {
        let mixed = if target.starts_with("http://") {
            " From an https page an http:// target is mixed content: open the page over http, or give the \
             target TLS."
        } else {
            ""
        };
        format!(
            " No request reached {target}.{mixed} A local target also needs the browser's permission to reach \
             the local network."
        )
    })
}

#[cfg(test)]
mod tests;
