//! Checked options of `httpbench compare`: the files, the output, and the gate (threshold, metric, strictness).

use std::path::PathBuf;

use httpbench_shared::change::{Rule, NOISE_THRESHOLD};
use httpbench_shared::{Format, RateBasis};

use super::run::checked_html_export;
use crate::args::CompareArgs;
use crate::usage::Usage;

/// Checked options of `httpbench compare`.
#[derive(Debug, Clone)]
pub(crate) struct CompareOptions {
    /// The result files, in the order given (with `--against`, the base's).
    pub files: Vec<PathBuf>,
    /// `--against`: the change's result files, pooled into one run as `files` are.
    pub against: Vec<PathBuf>,
    /// Output format.
    pub format: Format,
    /// `--export-html`: the HTML report's file.
    pub export_html: Option<PathBuf>,
    /// Which rate the Perl-style lines show.
    pub basis: RateBasis,
    /// `--reference`, checked against the files' clients once they are read.
    pub reference: Option<String>,
    /// `--wide`: the full text report.
    pub wide: bool,
    /// How changes are judged: `--metric` and `--fail-if-slower`'s threshold (2%, criterion's noise threshold,
    /// for the change lines when no gate is asked for).
    pub rule: Rule,
    /// The gate, when `--fail-if-slower` asks for one.
    pub gate: Option<Gate>,
    /// `--strict`: environments that differ are an error, not a warning.
    pub strict: bool,
}

/// What makes `compare` exit 3.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Gate {
    /// `--fail-if-inconclusive`: an inconclusive change fails too.
    pub fail_if_inconclusive: bool,
}

impl CompareOptions {
    /// Check `compare` arguments.
    pub(crate) fn from_args(a: &CompareArgs) -> Result<Self, Usage> {
        let gate = a.fail_if_slower.map(|_| Gate { fail_if_inconclusive: a.fail_if_inconclusive });
        if gate.is_some() && a.files.len() + a.against.len() < 2 {
            return Err(Usage(format!(
                "--fail-if-slower needs two result files or more (a base and a change); {} given",
                a.files.len()
            )));
        }
        Ok(CompareOptions {
            files: a.files.clone(),
            against: a.against.clone(),
            format: a.format,
            export_html: checked_html_export(a.export_html.as_deref())?,
            basis: if a.perl { RateBasis::Cpu } else { RateBasis::Wall },
            reference: a.reference.clone(),
            wide: a.wide,
            rule: Rule { metric: a.metric, threshold: a.fail_if_slower.unwrap_or(NOISE_THRESHOLD) },
            gate,
            strict: a.strict,
        })
    }
}
