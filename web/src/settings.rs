//! The page's run settings: their defaults, reading them from the page's query string (shared's
//! [`PageQuery`], the one the CLI writes for `run --browser`), and checking them before any request. Client
//! names, modes and durations are read by shared's protocol parsers, so a value means on the page what it
//! means on the command line. Pure: it never touches the browser, so it is tested natively.

use httpbench_shared::protocol::{browser_clients, parse_client_list, parse_duration, Modes, PageQuery};
use httpbench_shared::session::{Budget, Plan};
use httpbench_shared::{EnvironmentKind, Mode};

/// Largest count and warm-up the page accepts: a typo must not start a day-long run.
pub const MAX_COUNT: u64 = 1_000_000;
/// Largest number of rounds.
pub const MAX_ROUNDS: u32 = 100;

/// The browser clients of the catalog that this build has, in catalog (report) order: an optional client
/// (`feature` set) only when the page was built with that cargo feature.
pub fn available_clients() -> Vec<&'static str> {
    browser_clients()
        .filter(|c| match c.feature {
            None => true,
            Some("reqwest") => cfg!(feature = "reqwest"),
            // A feature this crate does not know is one this build cannot have.
            Some(_) => false,
        })
        .map(|c| c.name)
        .collect()
}

/// Checked settings of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSettings {
    /// The URL every client GETs (in fresh mode with `close=1` added).
    pub target: String,
    /// How every case measures: a count or a duration, warm-up, rounds; always interleaved, as the CLI's
    /// default, so drift of the browser hits every case alike.
    pub plan: Plan,
    /// Client names of this build, in the order given (`all`: catalog order).
    pub clients: Vec<String>,
    /// Connection modes, fresh before reuse.
    pub modes: Vec<Mode>,
    /// Requests in flight per case (a promise pool per case), each level a case.
    pub concurrency: Vec<u32>,
}

/// The form's raw values (strings, as typed), before checking.
#[derive(Debug, Clone, PartialEq)]
pub struct RawSettings {
    /// Target URL.
    pub target: String,
    /// Count, as typed.
    pub count: String,
    /// Duration per case, as typed (`3s`, `500ms`); empty to measure by the count.
    pub duration: String,
    /// Warm-up, as typed.
    pub warmup: String,
    /// Rounds, as typed.
    pub rounds: String,
    /// Comma-separated client names, or `all`.
    pub clients: String,
    /// `fresh`, `reuse` or `both`.
    pub mode: String,
    /// Requests in flight, as typed (`1`, `1,4,16`).
    pub concurrency: String,
    /// Start the run as soon as the page has loaded.
    pub autorun: bool,
}

impl RawSettings {
    /// The defaults, with the target at `origin` + `/` (a page opened from a file has no usable origin).
    pub fn defaults(origin: &str) -> Self {
        let target = if origin.starts_with("http") { format!("{origin}/") } else { "http://127.0.0.1:8080/".into() };
        RawSettings {
            target,
            count: "500".into(),
            duration: String::new(),
            warmup: "20".into(),
            rounds: "5".into(),
            clients: "all".into(),
            mode: Modes::default().to_string(),
            concurrency: "1".into(),
            autorun: false,
        }
    }

    /// The defaults overridden by the parameters `query` sets (its imports are not settings: the page
    /// loads them on its own).
    pub fn from_query(origin: &str, query: &PageQuery) -> Self {
        let d = Self::defaults(origin);
        let or = |value: &Option<String>, default: String| value.clone().unwrap_or(default);
        RawSettings {
            target: or(&query.target, d.target),
            count: or(&query.count, d.count),
            duration: or(&query.duration, d.duration),
            warmup: or(&query.warmup, d.warmup),
            rounds: or(&query.rounds, d.rounds),
            clients: or(&query.clients, d.clients),
            mode: or(&query.mode, d.mode),
            concurrency: or(&query.concurrency, d.concurrency),
            autorun: query.autorun,
        }
    }

    /// Check every value; the error names the field and the bad value. A duration, when given, replaces the
    /// count, which is then not read at all (the form keeps showing it).
    pub fn check(&self) -> Result<RunSettings, String> {
        let target = self.target.trim().to_string();
        if !(target.starts_with("http://") || target.starts_with("https://")) || target.len() < 10 {
            return Err(format!("target URL '{target}' is not an http:// or https:// URL"));
        }
        let budget = if self.duration.trim().is_empty() {
            Budget::Count(number("count", &self.count, 1, MAX_COUNT)?)
        } else {
            Budget::Duration(parse_duration(&self.duration).map_err(|e| format!("duration {e}"))?)
        };
        let plan = Plan {
            budget,
            warmup: number("warm-up", &self.warmup, 0, MAX_COUNT)?,
            rounds: number("rounds", &self.rounds, 1, u64::from(MAX_ROUNDS))? as u32,
            interleave: true,
        };
        let clients = parse_client_list(EnvironmentKind::Browser, &self.clients, &available_clients())
            .map_err(|e| e.to_string())?;
        Ok(RunSettings {
            target,
            plan,
            clients: clients.into_iter().map(String::from).collect(),
            modes: self.mode.parse::<Modes>()?.modes(),
            concurrency: httpbench_shared::protocol::parse_concurrency(&self.concurrency)
                .map_err(|e| format!("in flight: {e}"))?,
        })
    }
}

fn number(field: &str, text: &str, min: u64, max: u64) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("{field} '{}' must be a whole number from {min} to {max}", text.trim())),
    }
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
