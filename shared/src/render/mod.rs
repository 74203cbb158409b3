//! Renderers: turn one or more reports into text, JSON, Markdown, CSV, SVG charts or a self-contained HTML
//! page. They return `String`s and do no I/O, so the CLI and the page print byte-for-byte the same report.

pub mod charts;
mod csv;
mod escape;
mod gate;
pub mod headline;
mod history;
mod history_html;
mod html;
pub mod levels;
mod link;
mod markdown;
mod notes;
mod results;
mod scans;
mod table;
mod text;
pub mod warnings;

use std::fmt;
use std::str::FromStr;

use crate::perl::RateBasis;
use crate::view::Source;

pub use escape::escape_controls;
pub use gate::{comparison_markdown, comparison_text, comparisons, PARTIAL};
pub use history::{changes_markdown, changes_text, heading as history_heading, history_text};
pub use history_html::{history_html, history_sections, HISTORY_CSS};
pub use notes::{notes, Note};
pub use table::{compact_header, compact_row, stats_header, stats_row};
pub use text::{wrap, TEXT_COLUMNS};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Format {
    /// Perl-style `timethese`/`cmpthese`, then the statistics table and notes.
    Text,
    /// The result file itself (an array of result files when several are rendered together).
    Json,
    /// The statistics table as GitHub-flavoured Markdown.
    #[cfg_attr(feature = "clap", value(alias = "md"))]
    Markdown,
    /// One line per case with raw figures (seconds, nanoseconds, counts).
    Csv,
}

impl Format {
    /// Every format's name, for help and error messages.
    pub const NAMES: &'static str = "text, json, markdown, csv";
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "text" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            "markdown" | "md" => Ok(Format::Markdown),
            "csv" => Ok(Format::Csv),
            other => Err(format!("unknown format '{other}': expected one of {}", Format::NAMES)),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Csv => "csv",
        })
    }
}

/// Choices that change how a report reads, not what it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    /// Which rate the Perl-style lines and the chart compare; by CPU (`--perl`), the text report shows them.
    pub basis: RateBasis,
    /// How the change between runs is judged (metric and threshold), where several runs are shown.
    pub change: crate::change::Rule,
    /// The case the headline compares every other with (`curl`, `native/curl`), instead of the defaults
    /// ([`crate::headline`]).
    pub reference: Option<String>,
    /// The text report in full: every column of the statistics table, Perl's lines, every note at length.
    /// Off, it fits a terminal of 100 columns (files written by `--export-text` are always wide).
    pub wide: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions { basis: RateBasis::Wall, change: crate::change::Rule::default(), reference: None, wide: false }
    }
}

/// Render `sources` in `format`. A front end that needs only some formats calls their functions ([`text`],
/// [`json`]) instead: this one links in every renderer (the page leaves Markdown and CSV out, for its size).
pub fn render(sources: &[Source<'_>], format: Format, options: &RenderOptions) -> String {
    match format {
        Format::Text => text(sources, options),
        Format::Json => json(sources),
        Format::Markdown => markdown::render(sources, options),
        Format::Csv => csv::render(sources),
    }
}

/// The Perl-style text report, then the statistics table and the notes.
pub fn text(sources: &[Source<'_>], options: &RenderOptions) -> String {
    text::render(sources, options)
}

/// The HTML report of `sources`: one self-contained file (inline CSS and SVG, no script, nothing fetched)
/// holding [`results`] under a title. Each case's latency histogram is the one its source carries for it
/// ([`Source::histograms`]); a case without one (a report read from a file keeps percentiles only) gets a
/// percentile chart.
pub fn html(sources: &[Source<'_>], options: &RenderOptions) -> String {
    html::render(sources, options)
}

/// The results of `sources` as markup, every section in its order: what ran, summary, rate chart, statistics
/// tables, latency histograms (or percentile charts), scan charts, the text report, notes and environment.
/// The HTML report's body and the page's results are this one string, styled by `render/report.css`.
pub fn results(sources: &[Source<'_>], options: &RenderOptions) -> String {
    let (answer, rest) = results::parts(sources, options);
    answer + &rest
}

/// [`results`] in two: what ran with the headline (or the change between two runs), then every other section.
pub fn results_parts(sources: &[Source<'_>], options: &RenderOptions) -> (String, String) {
    results::parts(sources, options)
}

/// The result file(s) as pretty JSON, newline-terminated.
pub fn json(sources: &[Source<'_>]) -> String {
    let result = match sources {
        [one] => serde_json::to_string_pretty(one.report),
        many => serde_json::to_string_pretty(&many.iter().map(|s| s.report).collect::<Vec<_>>()),
    };
    // The model has only string keys and finite numbers, so serialization cannot fail; say so if it ever does.
    let mut s = result.unwrap_or_else(|e| format!("{{\"error\": \"cannot serialize report: {e}\"}}"));
    s.push('\n');
    s
}
