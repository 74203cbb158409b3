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

#[cfg(test)]
mod tests;
