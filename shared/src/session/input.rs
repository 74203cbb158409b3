//! The one input path of a run: the raw plan as a user typed it ([`RawPlan`]: strings, filled by the CLI's
//! arguments, the page's form and the page's link alike) and the one [`RawPlan::parse`] that turns it into what
//! a session runs (a [`Plan`], a [`Matrix`] per side, the timeout, the targets), applying every rule once: the
//! limits of each environment, TLS for HTTP/2 and HTTP/3, load levels only from a front end's own server, the
//! case cap over every side of the run, and a side with no case to run. Errors name the field as the front end
//! that typed it spells it ([`Spelling`]); the rest of each message is the same on both sides.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use super::field::{Field, Spelling};
use super::plan::{Budget, Plan};
use super::{Matrix, Targets};
use crate::model::{Engine, EnvironmentKind, HttpVersion};
use crate::parse::MAX_CASES;
use crate::protocol::{
    parse_client_list, parse_concurrency, parse_delays, parse_duration, parse_sizes, parse_timeout, HttpChoice,
    LoadError, Modes,
};

/// The plan of a run as typed: every value text, so the CLI, the form and the link say the same things the
/// same way. `V` is `String` for a plan to parse (every value given, a front end's defaults filled in), and
/// `Option<String>` for the values a link sets ([`crate::protocol::PageQuery`]: `None` keeps the default).
/// A new dimension is one field here, its row in [`RawPlan::values`], and its rule in [`RawPlan::parse`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawPlan<V = String> {
    /// The URL every case requests; empty: the front end's own server, if it has one (the CLI's).
    pub target: V,
    /// The target of one HTTP version's cases instead of `target` (from a link only: over TLS a browser takes
    /// the best version a server offers, so each version is requested from a server offering it alone).
    pub targets: Vec<(HttpVersion, String)>,
    /// Measured requests per case; not read when `duration` is given.
    pub count: V,
    /// Measured time per case (`3s`, `500ms`); blank: measure by the count.
    pub duration: V,
    /// Warm-up requests per case.
    pub warmup: V,
    /// Rounds per case.
    pub rounds: V,
    /// `1` to interleave the cases' rounds, `0` to run them case after case.
    pub interleave: V,
    /// Per-request timeout (`10`, `2.5`, `500ms`).
    pub timeout: V,
    /// Comma-separated client names of the front end's environment, or `all`; each front end reads it by the
    /// clients it has ([`Side::listed`], or the CLI's own reader of command clients).
    pub clients: V,
    /// `fresh`, `reuse` or `both`.
    pub mode: V,
    /// HTTP versions (`1.1`, `2`, `both`, `1.1,2,3`); blank: whatever the browser negotiates.
    pub http: V,
    /// Requests in flight per case (`1`, `1,4,16`).
    pub concurrency: V,
    /// Body sizes asked of the embedded server (`0,16k`); blank: the target as given.
    pub body_sizes: V,
    /// Think times asked of the embedded server (`5ms`); blank: none.
    pub server_delays: V,
}

impl<V> RawPlan<V> {
    /// Every text value with its field, in the order a link writes them.
    pub fn values(&self) -> [(Field, &V); 13] {
        [
            (Field::Target, &self.target),
            (Field::Count, &self.count),
            (Field::Duration, &self.duration),
            (Field::Warmup, &self.warmup),
            (Field::Rounds, &self.rounds),
            (Field::Interleave, &self.interleave),
            (Field::Timeout, &self.timeout),
            (Field::Clients, &self.clients),
            (Field::Mode, &self.mode),
            (Field::Http, &self.http),
            (Field::Concurrency, &self.concurrency),
            (Field::BodySizes, &self.body_sizes),
            (Field::ServerDelays, &self.server_delays),
        ]
    }

    /// [`RawPlan::values`], to fill in.
    pub fn values_mut(&mut self) -> [(Field, &mut V); 13] {
        [
            (Field::Target, &mut self.target),
            (Field::Count, &mut self.count),
            (Field::Duration, &mut self.duration),
            (Field::Warmup, &mut self.warmup),
            (Field::Rounds, &mut self.rounds),
            (Field::Interleave, &mut self.interleave),
            (Field::Timeout, &mut self.timeout),
            (Field::Clients, &mut self.clients),
            (Field::Mode, &mut self.mode),
            (Field::Http, &mut self.http),
            (Field::Concurrency, &mut self.concurrency),
            (Field::BodySizes, &mut self.body_sizes),
            (Field::ServerDelays, &mut self.server_delays),
        ]
    }
}

impl RawPlan {
    /// The page's plan before a user or a link changes it, against `target`: 500 measured requests in 5
    /// rounds after 20 of warm-up, interleaved, every client in both modes over the version the browser
    /// negotiates, one request in flight, a 10 s timeout (as the CLI's `--timeout`).
    pub fn page_defaults(target: String) -> RawPlan {
        RawPlan {
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
        }
    }
}

impl RawPlan<Option<String>> {
    /// `defaults`, with every value this one sets instead (a link over the page's defaults).
    pub fn over(&self, mut defaults: RawPlan) -> RawPlan {
        for ((_, set), (_, value)) in self.values().into_iter().zip(defaults.values_mut()) {
            if let Some(set) = set {
                value.clone_from(set);
            }
        }
        if !self.targets.is_empty() {
            defaults.targets.clone_from(&self.targets);
        }
        defaults
    }
}

/// One environment of a run and the clients it runs there (the CLI with `--browser`: native, then browser).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// Where the clients run.
    pub environment: EnvironmentKind,
    /// The client names, in the order given, as the front end read them by the clients it has.
    pub clients: Vec<String>,
    /// The HTTP versions of clients beyond the catalog (command clients), as [`Matrix::declared_versions`].
    pub declared_versions: BTreeMap<String, Vec<HttpVersion>>,
    /// The browser engine its cases run in (`run --browser` has a side per engine; the page, its own), whose
    /// HTTP stack may leave cases out ([`Engine::cannot_speak`]); `None`: native, or an engine not known.
    pub engine: Option<Engine>,
}

impl Side {
    /// The clients of `list` among `available` (the names this front end can run, by shared's catalog reader),
    /// run once; an error names `field`.
    pub fn listed(
        environment: EnvironmentKind,
        list: &str,
        available: &[&str],
        field: Field,
        spelling: Spelling,
    ) -> Result<Side, InputError> {
        let clients =
            parse_client_list(environment, list, available).map_err(|e| InputError::of(field, spelling, e))?;
        let clients = clients.into_iter().map(String::from).collect();
        Ok(Side { environment, clients, declared_versions: BTreeMap::new(), engine: None })
    }
}

/// Who parses, and what it has beyond the raw plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrontEnd {
    /// How its users name the fields.
    pub spelling: Spelling,
    /// Its own target server, used when the target is blank (the CLI's embedded server): whether it serves
    /// TLS. `None`: a target must be given (the page).
    pub own_server: Option<bool>,
    /// Whether it takes turns with other sides (`run --browser`, a page of such a run): its rounds interleave
    /// even with one case, since a pass is one round of every side.
    pub takes_turns: bool,
}

/// A raw plan, checked: what the session runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// How every case measures, within the limits of every side's environment.
    pub plan: Plan,
    /// One per side, in the order given.
    pub matrices: Vec<Matrix>,
    /// Every request's deadline.
    pub timeout: Duration,
    /// The URLs the cases request; `None`: the front end's own server, whose address is not known yet.
    pub targets: Option<Targets>,
}

/// A raw plan that cannot run: one line naming the field as the front end spells it, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The line: the field as the front end spells it, the bad value, what to do.
    pub message: String,
    /// The value to mend, where one is (a form marks it); `None` for a plan wrong as a whole (too many cases).
    pub field: Option<Field>,
}

impl InputError {
    /// `field: problem`.
    fn of(field: Field, spelling: Spelling, problem: impl fmt::Display) -> Self {
        InputError::at(field, format!("{}: {problem}", field.name(spelling)))
    }

    /// `message`, about `field`.
    fn at(field: Field, message: String) -> Self {
        InputError { message, field: Some(field) }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl RawPlan {
    /// Every error of this plan that `check` finds, one per field, so that a form can mark them all at once:
    /// each field found wrong is set to its value in `defaults` and the plan checked again, until it passes or
    /// an error names no field (or a field already named: a rule between fields). At most one per field.
    pub fn errors<T>(&self, defaults: &RawPlan, check: impl Fn(&RawPlan) -> Result<T, InputError>) -> Vec<InputError> {
        let mut plan = self.clone();
        let mut found: Vec<InputError> = Vec::new();
        while let Err(e) = check(&plan) {
            let field = e.field.filter(|f| !found.iter().any(|seen| seen.field == Some(*f)));
            found.push(e);
            let Some(field) = field else { break };
            let default = defaults.values().into_iter().find(|(f, _)| *f == field).map(|(_, v)| v.clone());
            let slot = plan.values_mut().into_iter().find(|(f, _)| *f == field).map(|(_, v)| v);
            match (default, slot) {
                (Some(d), Some(slot)) if *slot != d => *slot = d,
                // The default itself is refused (or the field has no slot): nothing more to learn.
                _ => break,
            }
        }
        found
    }
}

impl std::error::Error for InputError {}

mod rules;

#[cfg(test)]
mod tests;
