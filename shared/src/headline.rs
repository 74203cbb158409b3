//! The answer first: each case of a report against a reference case at the same load, as a difference in time
//! per request with its 95% interval and one verdict word. Which reference answers which question is decided
//! here, once, for every front end: the browser's wasm clients against `js-fetch` (the same loop in plain
//! JavaScript: what wasm costs), every case against the best native client when native cases are present
//! (what the browser costs), the fastest case otherwise; or the case the user names (`--reference`).

use crate::change::Verdict;
use crate::inference::{ratio_interval, welch_difference};
use crate::model::{Case, EnvironmentKind};
use crate::protocol::BROWSER_FLOOR;
use crate::view::Row;

/// An interval of the ratio that holds 1× but reaches past ±10% could hide a 10% difference: it cannot say
/// `same`, only `inconclusive`.
pub const SAME_WITHIN: f64 = 0.10;

/// Fewer rounds than this give intervals too wide to mean much (t₀.₉₇₅ of 3 degrees of freedom is 3.18, of 4
/// is 2.78, against 1.96 for many): the headline says so.
pub const FEW_ROUNDS: u32 = 5;

/// Why a case is the reference of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reference {
    /// The user named it (`--reference`, `reference=`).
    Chosen,
    /// The fastest case at this load.
    Fastest,
    /// The fastest native case, for the browser's cases beside native ones.
    BestNative,
    /// The browser's plain-JavaScript fetch loop, for its wasm clients.
    JsFloor,
}

impl Reference {
    /// How the headline says why this reference.
    pub fn describe(self) -> &'static str {
        match self {
            Reference::Chosen => "the reference asked for",
            Reference::Fastest => "the fastest",
            Reference::BestNative => "the fastest native client",
            Reference::JsFloor => "the same loop in plain JavaScript",
        }
    }
}

/// One case against its reference.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Line {
    /// The case's label, less the load its block names.
    pub case: String,
    /// Wall time per ok request of the case (1 / its wall rate), seconds.
    pub time_per_request_secs: f64,
    /// The case's time per request less the reference's, seconds: positive is slower.
    pub difference_secs: f64,
    /// 95% interval of `difference_secs` (Welch's t over both cases' rounds); `None` with fewer than two rounds.
    pub difference_interval_secs: Option<(f64, f64)>,
    /// The case's time per request over the reference's (its rate is the reference's over this).
    pub ratio: f64,
    /// 95% interval of `ratio`, from the rounds' logarithms (never at or below zero); `None` as above.
    pub ratio_interval: Option<(f64, f64)>,
    /// Slower or faster (the interval of the ratio excludes 1×), same (it holds 1× within ±[`SAME_WITHIN`]),
    /// inconclusive (wider, or no interval), failed (no ok request).
    pub verdict: Verdict,
}

/// The cases at one load compared with one reference.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Block {
    /// The load the block's cases share (`reuse`, `fresh/h2/c16`): the parts of their labels that vary.
    pub load: String,
    /// The reference's label, less the load.
    pub reference: String,
    /// Why that case is the reference.
    pub why: Reference,
    /// Wall time per ok request of the reference, seconds.
    pub reference_time_per_request_secs: f64,
    /// The other cases, in report order.
    pub lines: Vec<Line>,
}

/// A case alone at its load: nothing to compare it with, so its rate is the answer.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Solo {
    /// The case's label.
    pub case: String,
    /// Its wall rate, ok requests per second.
    pub rate_wall: f64,
    /// The 95% interval of that rate ([`rate_interval`]).
    pub rate_interval: Option<(f64, f64)>,
}

/// The headline of a report: blocks of cases against their references, and what limits it.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Headline {
    /// Every block, loads in report order.
    pub blocks: Vec<Block>,
    /// The cases alone at their load, which completed requests.
    pub solos: Vec<Solo>,
    /// The fewest rounds of a compared case, when below [`FEW_ROUNDS`].
    pub few_rounds: Option<u32>,
    /// A reference asked for that no load holds, as asked.
    pub reference_missing: Option<String>,
}

/// The headline of `rows`, against `chosen` where it names a case (`curl`, `native/curl`, `chromium/js-fetch`:
/// the label less its load), else the default references.
pub fn headline(rows: &[Row<'_>], chosen: Option<&str>) -> Headline {
    let loads = Loads::of(rows);
    let mut out = Headline::default();
    let mut found = false;
    for (load, members) in loads.groups(rows) {
        let name = |i: usize| loads.strip(&rows[i].label, &load);
        if let [only] = members[..] {
            let c = rows[only].case;
            if c.rate_wall > 0.0 {
                out.solos.push(Solo {
                    case: rows[only].label.clone(),
                    rate_wall: c.rate_wall,
                    rate_interval: rate_interval(c),
                });
            }
            continue;
        }
        let named = chosen.and_then(|c| {
            let by_label = members.iter().copied().find(|&i| name(i) == c);
            by_label.or_else(|| members.iter().copied().find(|&i| rows[i].case.client == c))
        });
        found |= named.is_some();
        let plans = match named {
            Some(r) => vec![(r, Reference::Chosen, members.clone())],
            None => defaults(rows, &members),
        };
        for (reference, why, cases) in plans {
            let lines: Vec<Line> = cases
                .iter()
                .filter(|&&i| i != reference)
                .map(|&i| line(name(i), rows[i].case, rows[reference].case))
                .collect();
            if lines.is_empty() {
                continue;
            }
            let rounds = cases.iter().filter(|&&i| rows[i].case.ok > 0).map(|&i| rounds_of(rows[i].case));
            if let Some(fewest) = rounds.min().filter(|&n| n < FEW_ROUNDS) {
                out.few_rounds = Some(out.few_rounds.map_or(fewest, |f: u32| f.min(fewest)));
            }
            out.blocks.push(Block {
                load: load.clone(),
                reference: name(reference),
                why,
                reference_time_per_request_secs: 1.0 / rows[reference].case.rate_wall,
                lines,
            });
        }
    }
    if !found {
        out.reference_missing = chosen.map(str::to_string);
    }
    out
}

/// Check a reference as a user gives it (`--reference`, `reference=`): `CLIENT`, or `ENVIRONMENT/CLIENT` where
/// ENVIRONMENT is `native` or a browser engine (`chromium/js-fetch`), naming a client of `sides` (each an
/// environment's name and its clients). The error names `flag`, the value and every case it could be.
pub fn check_reference(flag: &str, value: &str, sides: &[(&str, Vec<String>)]) -> Result<String, String> {
    let value = value.trim();
    let found = match value.split_once('/') {
        Some((environment, client)) => {
            sides.iter().any(|(name, clients)| *name == environment && clients.iter().any(|c| c == client))
        }
        None => sides.iter().any(|(_, clients)| clients.iter().any(|c| c == value)),
    };
    if found {
        return Ok(value.to_string());
    }
    let mut known: Vec<String> = Vec::new();
    for (name, clients) in sides {
        known.extend(clients.iter().map(|c| if sides.len() > 1 { format!("{name}/{c}") } else { c.clone() }));
    }
    Err(format!("{flag} '{value}': no case of this run is that client; give one of {}", known.join(", ")))
}

/// The default blocks of one load's `members`: each a reference, why, and the cases it is compared with.
fn defaults(rows: &[Row<'_>], members: &[usize]) -> Vec<(usize, Reference, Vec<usize>)> {
    let fastest = |of: &[usize]| -> Option<usize> {
        let rated = of.iter().copied().filter(|&i| rows[i].case.rate_wall > 0.0);
        rated.max_by(|&a, &b| rows[a].case.rate_wall.total_cmp(&rows[b].case.rate_wall))
    };
    let is_native = |i: usize| rows[i].report.environment.kind == EnvironmentKind::Native;
    let (native, browser): (Vec<usize>, Vec<usize>) = members.iter().partition(|&&i| is_native(i));
    let floors = floors(rows, &browser);
    let same_report = |a: usize, b: usize| std::ptr::eq(rows[a].report, rows[b].report);
    let mut plans = Vec::new();
    if let (Some(best), false) = (fastest(&native), browser.is_empty()) {
        plans.push((best, Reference::BestNative, members.to_vec()));
    } else if let Some(best) = fastest(members) {
        // One browser with its floor: the floor says more than which of its clients was fastest.
        let one_browser_with_floor =
            native.is_empty() && floors.len() == 1 && browser.iter().all(|&i| same_report(i, floors[0]));
        if !one_browser_with_floor {
            plans.push((best, Reference::Fastest, members.to_vec()));
        }
    }
    for &floor in &floors {
        plans.push((floor, Reference::JsFloor, browser.iter().copied().filter(|&i| same_report(i, floor)).collect()));
    }
    plans
}

/// The browser cases among `of` that are their report's plain-JavaScript floor and completed requests.
fn floors(rows: &[Row<'_>], of: &[usize]) -> Vec<usize> {
    of.iter().copied().filter(|&i| rows[i].case.client == BROWSER_FLOOR && rows[i].case.rate_wall > 0.0).collect()
}

/// The 95% interval of a case's wall rate ([`Metric::interval`](crate::change::Metric::interval): from its
/// rounds on a log scale, so it never reaches zero or below).
pub fn rate_interval(c: &Case) -> Option<(f64, f64)> {
    crate::change::Metric::Rate.interval(c)
}

/// Rounds with ok requests, the ones an interval comes from.
fn rounds_of(case: &Case) -> u32 {
    costs(case).len() as u32
}

/// Wall seconds per ok request of each round with ok requests.
fn costs(case: &Case) -> Vec<f64> {
    case.rounds.iter().filter(|r| r.ok > 0 && r.wall_secs > 0.0).map(|r| r.wall_secs / r.ok as f64).collect()
}

/// `case` against `reference` (which completed requests).
fn line(label: String, case: &Case, reference: &Case) -> Line {
    let reference_secs = 1.0 / reference.rate_wall;
    if case.ok == 0 || case.rate_wall <= 0.0 {
        return Line {
            case: label,
            time_per_request_secs: f64::INFINITY,
            difference_secs: f64::INFINITY,
            difference_interval_secs: None,
            ratio: f64::INFINITY,
            ratio_interval: None,
            verdict: Verdict::Failed,
        };
    }
    let secs = 1.0 / case.rate_wall;
    let (xr, xc) = (costs(reference), costs(case));
    let intervals = (xr.len() >= 2 && xc.len() >= 2).then(|| {
        let (dl, _, dh) = welch_difference(&xr, &xc);
        let (rl, _, rh) = ratio_interval(&xr, &xc);
        ((dl, dh), (rl, rh))
    });
    let verdict = match intervals {
        None => Verdict::Inconclusive,
        Some((_, (lo, _))) if lo > 1.0 => Verdict::Slower,
        Some((_, (_, hi))) if hi < 1.0 => Verdict::Faster,
        Some((_, (lo, hi))) if lo >= 1.0 - SAME_WITHIN && hi <= 1.0 + SAME_WITHIN => Verdict::Unchanged,
        Some(_) => Verdict::Inconclusive,
    };
    Line {
        case: label,
        time_per_request_secs: secs,
        difference_secs: secs - reference_secs,
        difference_interval_secs: intervals.map(|(d, _)| d),
        ratio: secs / reference_secs,
        ratio_interval: intervals.map(|(_, r)| r),
        verdict,
    }
}

/// The load dimensions that vary among the rows, which name each load.
struct Loads {
    mode: bool,
    version: bool,
    body: bool,
    delay: bool,
    level: bool,
    link: bool,
}

impl Loads {
    fn of(rows: &[Row<'_>]) -> Self {
        let varies = |f: &dyn Fn(&Case) -> String| rows.iter().any(|r| f(r.case) != f(rows[0].case));
        Loads {
            mode: varies(&|c| c.mode.as_str().to_string()),
            version: varies(&|c| c.http_version.short().to_string()),
            body: varies(&|c| format!("{:?}", c.body_bytes)),
            delay: varies(&|c| format!("{:?}", c.server_delay_ms)),
            level: varies(&|c| c.in_flight().to_string()),
            // Compared, not formatted: a Debug of the link would be one more formatter in the page.
            link: rows.iter().any(|r| r.case.link() != rows[0].case.link()),
        }
    }

    /// A case's load, as its label ends (`reuse/h2/c16`), empty when nothing varies.
    fn name(&self, c: &Case) -> String {
        let mut parts = Vec::new();
        if self.mode {
            parts.push(c.mode.as_str().to_string());
        }
        if self.version {
            parts.push(c.http_version.short().to_string());
        }
        let mut rest = String::new();
        crate::view::LoadParts {
            body_bytes: self.body.then_some(c.body_bytes),
            server_delay_ms: self.delay.then_some(c.server_delay_ms),
            concurrency: self.level.then(|| c.in_flight()),
            link: self.link.then(|| c.link()),
        }
        .push_to(&mut rest);
        parts.extend(rest.split('/').filter(|p| !p.is_empty()).map(str::to_string));
        parts.join("/")
    }

    /// The loads of `rows` in order of first appearance, with the rows at each.
    fn groups(&self, rows: &[Row<'_>]) -> Vec<(String, Vec<usize>)> {
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            let name = self.name(row.case);
            match groups.iter_mut().find(|(n, _)| *n == name) {
                Some((_, members)) => members.push(i),
                None => groups.push((name, vec![i])),
            }
        }
        groups
    }

    /// `label` less its load's part (`chromium/fetch/reuse` → `chromium/fetch`).
    fn strip(&self, label: &str, load: &str) -> String {
        match load.is_empty() {
            true => label.to_string(),
            false => label.strip_suffix(&format!("/{load}")).unwrap_or(label).to_string(),
        }
    }
}

#[cfg(test)]
mod tests;
