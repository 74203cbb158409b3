//! The arguments of `httpbench history`: the history file, what to show of it, and its subcommands (import,
//! export).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use httpbench_shared::change::Metric;

/// Options of `httpbench history`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = false, subcommand_negates_reqs = false)]
pub(crate) struct HistoryArgs {
    /// The history: an SQLite file that `run --history` and `history DB import` create and add to.
    #[arg(value_name = "DB")]
    pub db: PathBuf,
    /// Import or export result files.
    #[command(subcommand)]
    pub action: Option<HistoryAction>,
    /// List each change point not yet accepted: case, run, the figure before → after with intervals, p-value.
    #[arg(long)]
    pub changes: bool,
    /// Also write the history as one self-contained HTML dashboard here (a chart per series, change points
    /// marked, a filter by case), to open offline or publish as a static page.
    #[arg(long, value_name = "FILE")]
    pub export_html: Option<PathBuf>,
    /// Accept the change points at this run (its number, #16, or its label, a commit) as expected: they are kept
    /// but no longer reported. Repeatable.
    #[arg(long, value_name = "RUN")]
    pub ack: Vec<String>,
    /// Output format: text, json (the series and change points, for the page or other tools) or markdown (the
    /// change points as a table, for a pull-request comment).
    #[arg(long, value_enum, default_value_t = HistoryFormat::Text)]
    pub format: HistoryFormat,
    /// The figure each series is made of: wall rate, CPU per request, median or p99 latency.
    #[arg(long, value_enum, default_value_t = Metric::Rate)]
    pub metric: Metric,
    /// Change points that move the figure by less than this are not reported (2%: criterion's noise threshold).
    #[arg(long, value_name = "PCT", value_parser = httpbench_shared::change::parse_threshold)]
    pub min_change: Option<f64>,
    /// Significance level of the change points' permutation test: the false-alarm rate per series of pure noise.
    #[arg(long, value_name = "P", default_value_t = 0.01, value_parser = alpha)]
    pub alpha: f64,
    /// With --format markdown: only the newest N change points.
    #[arg(long, value_name = "N")]
    pub nearest: Option<usize>,
}

/// What `history DB` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum HistoryFormat {
    /// The series table, or with --changes the change points.
    Text,
    /// The series and their change points, as JSON.
    Json,
    /// The change points as a Markdown table.
    #[value(alias = "md")]
    Markdown,
}

/// `history DB import FILES` and `history DB export DIR`.
#[derive(Debug, Subcommand)]
pub(crate) enum HistoryAction {
    /// Add result files (of any schema version) to the history, each as one run labelled by its file name;
    /// a file already in it is skipped.
    Import {
        /// Result files written by `--export-json` or by the page.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Write each run back as the result file it was added as, into DIR: `LABEL.json` (which `import` reads
    /// back with its label), or `LABEL-run-N.json` when runs share a label, `run-N.json` without one.
    Export {
        /// The folder to write into (created if missing); files already there are not overwritten.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

/// A significance level: above 0, below 1.
fn alpha(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(p) if p > 0.0 && p < 1.0 => Ok(p),
        _ => Err(format!("'{text}' is not a significance level: give a number between 0 and 1, such as 0.01")),
    }
}
