//! A run history: the runs of a project over time, cut into series that can be compared (one case, on one
//! machine, under one plan), each series' change points found by E-divisive means ([`edivisive`]), and each
//! change point's figure before and after with its interval. Pure: the CLI's store hands the runs over, and
//! the renderers (`render::history`) print what this finds.

pub mod edivisive;
mod estimate;
mod fingerprint;
mod series;

pub use edivisive::{change_points, Detect, Found};
pub use estimate::{estimate, Estimate, RunFigure};
pub use fingerprint::{case_name, client_version, machine, plan, Fingerprint};
pub use series::{analyse, changes, Analysis, ChangePoint, Point, Series, StoredRun, MAX_POINTS};

use crate::change::{Metric, NOISE_THRESHOLD};

/// What a history is read for: the figure, how change points are tested, and the smallest change reported.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Query {
    /// The figure of each run a series is made of.
    pub metric: Metric,
    /// The permutation test.
    pub detect: Detect,
    /// Change points that move the figure by less than this fraction are dropped as too small to act on,
    /// however significant (a real 0.5% shift on a machine that drifts by 2% helps nobody).
    pub min_change: f64,
}

impl Default for Query {
    fn default() -> Self {
        Query { metric: Metric::Rate, detect: Detect::default(), min_change: NOISE_THRESHOLD }
    }
}

/// A number JSON wrote as null (serde_json writes infinity so) read back as +∞.
fn infinite_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(<Option<f64> as serde::Deserialize>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

/// The layout of a history's JSON (`history --format json`), for readers to check: bump it on any change they
/// could misread.
pub const JSON_VERSION: u32 = 1;

/// A history as JSON: `{"httpbench_history": 1, "analysis": {...}}`.
#[derive(serde::Serialize, serde::Deserialize)]
struct JsonFile {
    httpbench_history: u32,
    analysis: Analysis,
}

/// `analysis` as `history --format json` writes it, pretty and newline-terminated.
pub fn to_json(analysis: &Analysis) -> String {
    let file = JsonFile { httpbench_history: JSON_VERSION, analysis: analysis.clone() };
    serde_json::to_string_pretty(&file).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}")) + "\n"
}

/// Whether `text` is a history's JSON rather than a result file (what an importer tries first): a JSON object
/// with a top-level `httpbench_history` key (a result file never has one; a label that says it does not count).
pub fn is_json(text: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Tag {
        httpbench_history: Option<serde::de::IgnoredAny>,
    }
    text.trim_start().starts_with('{') && serde_json::from_str::<Tag>(text).is_ok_and(|t| t.httpbench_history.is_some())
}

/// Read a history's JSON; the error says what is wrong and what to do.
pub fn from_json(text: &str) -> Result<Analysis, String> {
    let file: JsonFile = serde_json::from_str(text).map_err(|e| format!("not a history's JSON ({e})"))?;
    if file.httpbench_history != JSON_VERSION {
        return Err(format!(
            "a history's JSON of version {}, this reads version {JSON_VERSION}; export it again with this httpbench",
            file.httpbench_history
        ));
    }
    Ok(file.analysis)
}

#[cfg(test)]
mod tests;
