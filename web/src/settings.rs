//! The page's run settings: their defaults, reading them from the page's query string (shared's
//! [`PageQuery`], the one the CLI writes for `run --browser`: a [`RawPlan`] and the page's own keys), and
//! checking them before any request by shared's one parse of a raw plan, the CLI's too: a [`Plan`] within the
//! page's limits, a [`Matrix`] of every dimension for this build's clients, the [`Targets`] and the timeout,
//! every rule (TLS for HTTP/2 and HTTP/3, the case cap, a case to run) in the CLI's words. Pure: it never
//! touches the browser, so it is tested natively.

use std::time::Duration;

use httpbench_shared::model::Engine;
use httpbench_shared::protocol::{browser_clients, check_page_id, PageQuery};
use httpbench_shared::session::{Field, FrontEnd, InputError, Limits, Matrix, Plan, RawPlan, Side, Spelling, Targets};
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

/// The form's raw values (strings, as typed), before checking: the plan, and what only a page has.
#[derive(Debug, Clone, PartialEq)]
pub struct RawSettings {
    /// The plan as typed: the form's fields, the link's targets per HTTP version.
    pub plan: RawPlan,
    /// Start the run as soon as the page has loaded.
    pub autorun: bool,
    /// The page's id in a run of `httpbench run --browser` (from the link only).
    pub page: Option<String>,
}

impl RawSettings {
    /// The defaults, with the target at `origin` + `/` (a page opened from a file has no usable origin).
    pub fn defaults(origin: &str) -> Self {
        let target = if origin.starts_with("http") { format!("{origin}/") } else { "http://127.0.0.1:8080/".into() };
        let plan = RawPlan::page_defaults(target);
        RawSettings { plan, autorun: false, page: None }
    }

    /// The defaults overridden by the parameters `query` sets (its imports are not settings: the page
    /// loads them on its own).
    pub fn from_query(origin: &str, query: &PageQuery) -> Self {
        let plan = query.plan.over(Self::defaults(origin).plan);
        RawSettings { plan, autorun: query.autorun, page: query.page.clone() }
    }

    /// Check every value by shared's parse of a raw plan, for this build's clients; the error names the field
    /// and the bad value. A duration, when given, replaces the count, which is then not read at all (the form
    /// keeps showing it). A plan with no case to run is refused with what was left out. `engine`: the page's
    /// (`browser::engine`), whose HTTP stack leaves out what it cannot speak, as `run --browser` does for it.
    pub fn check(&self, engine: Option<Engine>) -> Result<RunSettings, String> {
        let page = match &self.page {
            Some(id) => Some(check_page_id(id).map(|()| id.clone())?),
            None => None,
        };
        let (targets, plan, matrix, timeout) = parse(&self.plan, page.is_some(), engine).map_err(|e| e.message)?;
        Ok(RunSettings { targets, plan, matrix, timeout, page })
    }

    /// Every field the form must mend, each with its error (shared's [`RawPlan::errors`]): the values of a
    /// form are all checked at once, a wrong one replaced by its default (at `origin`) to check the others.
    pub fn errors(&self, origin: &str, engine: Option<Engine>) -> Vec<InputError> {
        let defaults = RawSettings::defaults(origin).plan;
        self.plan.errors(&defaults, |plan| parse(plan, self.page.is_some(), engine))
    }
}

/// `plan` parsed by shared's rules for this build's browser clients: the targets, the plan, the one matrix,
/// the timeout. `takes_turns`: a page in a run of `httpbench run --browser`.
fn parse(
    plan: &RawPlan,
    takes_turns: bool,
    engine: Option<Engine>,
) -> Result<(Targets, Plan, Matrix, Duration), InputError> {
    let front = FrontEnd { spelling: Spelling::Page, own_server: None, takes_turns };
    let clients = available_clients();
    let mut side = Side::listed(EnvironmentKind::Browser, &plan.clients, &clients, Field::Clients, Spelling::Page)?;
    side.engine = engine;
    let input = plan.parse(&front, &[side])?;
    // A front end without a server of its own is always given its targets, and one side has one matrix.
    let missing = |field: Field, message: &str| InputError { message: message.into(), field: Some(field) };
    let targets = input.targets.ok_or_else(|| missing(Field::Target, "target: give an http:// or https:// URL"))?;
    let matrix =
        input.matrices.into_iter().next().ok_or_else(|| missing(Field::Clients, "clients: give at least one"))?;
    Ok((targets, input.plan, matrix, input.timeout))
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
