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

/// Measure how fast HTTP clients really are: libcurl, ureq, reqwest and a raw socket, natively, reported
/// like Perl's Benchmark (timethese + cmpthese) plus a latency table.
///
/// With no command, `httpbench` runs `httpbench run` against its own embedded server on 127.0.0.1.
#[derive(Debug, Parser)]
#[command(name = "httpbench", version, args_conflicts_with_subcommands = true)]
pub(crate) struct Cli {
    /// What to do (default: run).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options of `run`, when no command is given.
    #[command(flatten)]
    pub run: RunArgs,
}

/// The subcommands.
// Parsed once per process: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Benchmark clients against a URL, or against the embedded server when no URL is given.
    Run(RunArgs),
    /// Run the embedded target server in the foreground until Ctrl-C.
    Serve(ServeArgs),
    /// Render one or more result files (JSON), or links with a shared result, as one report.
    Compare(CompareArgs),
    /// Read a run history (`run --history DB` adds to it): each case's series, its change points found by
    /// E-divisive means, an HTML dashboard; import and export result files.
    History(HistoryArgs),
    /// Print a link to the page that shows these result files (the result in the link itself, deflated).
    Share(ShareArgs),
    /// Print a completion script for a shell (bash, zsh, fish, elvish, powershell), generated from these
    /// arguments: `httpbench completions bash > /etc/bash_completion.d/httpbench`.
    Completions(CompletionsArgs),
    /// Print the man page (roff), generated from these arguments: `httpbench man | man -l -`.
    Man,
}
