//! Command-line arguments as clap parses them: single values are typed here, by the value parsers beside the
//! arguments (`values`: URL, durations; and clap's enums: modes, formats, placement), so `--help` lists the
//! accepted values and a bad one is named before any work; `options` checks what needs more than one value
//! (lists, ranges, combinations) and turns them into checked options. One file per command's arguments.

mod history;
mod others;
mod run;
mod values;

use clap::{Parser, Subcommand};

pub(crate) use history::{HistoryAction, HistoryArgs, HistoryFormat};
pub(crate) use others::{CompareArgs, CompletionsArgs, ServeArgs, ShareArgs};
pub(crate) use run::RunArgs;

/// Measure how fast HTTP clients really are, natively and in real browsers, in one report.
///
/// With no command, `httpbench` runs `httpbench run` against its own embedded server on 127.0.0.1.
#[derive(Debug, Parser)]
#[command(
    name = "httpbench",
    version,
    args_conflicts_with_subcommands = true,
    // The commands and examples, not every option of `run` again: `httpbench run --help` has those.
    help_template = "{about-with-newline}\n{usage-heading} {usage}\n\nCommands:\n{subcommands}\n\nOptions:\n  \
                     -h, --help     Print help\n  -V, --version  Print version\n{after-help}",
    after_help = EXAMPLES,
    override_usage = "httpbench [run options]\n       httpbench <COMMAND> [options]"
)]
pub(crate) struct Cli {
    /// What to do (default: run).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options of `run`, when no command is given.
    #[command(flatten)]
    pub run: RunArgs,
}

/// The top-level help's examples.
const EXAMPLES: &str = "Examples:
  httpbench                                   every default client against the embedded server
  httpbench run --clients curl,raw -n 5000    two clients, 5000 requests per case
  httpbench run --browser all --tls --http 2  native and every browser over HTTP/2
  httpbench run https://example.org/ --cacert ca.pem
  httpbench compare base.json --against new.json --fail-if-slower 5%
  httpbench serve                             the target server and the page, for a browser

Options of run: httpbench run --help";

/// The subcommands.
// Parsed once per process: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Benchmark clients against a URL, or against the embedded server when no URL is given.
    Run(RunArgs),
    /// Run the embedded target server in the foreground until Ctrl-C.
    Serve(ServeArgs),
    /// Render result files (JSON) or shared links as one report, and gate on their change
    Compare(CompareArgs),
    /// Read a run history: each case's series and change points, a dashboard
    ///
    /// `run --history DB` adds to it. Change points are found by E-divisive means; import and export move
    /// result files in and out.
    History(HistoryArgs),
    /// Print a link to the page that shows these result files
    ///
    /// The result travels in the link itself, deflated.
    Share(ShareArgs),
    /// Print a completion script for bash, zsh, fish, elvish or powershell
    ///
    /// Generated from these arguments: `httpbench completions bash > /etc/bash_completion.d/httpbench`.
    Completions(CompletionsArgs),
    /// Print the man page (roff): `httpbench man | man -l -`
    Man,
}
