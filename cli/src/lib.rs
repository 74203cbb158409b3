//! httpbench, the native front end: parse and check options, run the clients against a URL or the embedded
//! server, and print the report through the shared renderers. `main.rs` only calls [`main`].
//!
//! Flow: options → client drivers (`clients`) → samples → statistics in `httpbench_shared` → renderers →
//! output. Exit codes: 0 all requests ok, 1 some failed or a file could not be written (the report is still
//! printed), 2 bad command line or input files.

mod args;
// Public for the end-to-end tests (finding Chromium as `run --browser` does, its flags, the process guard)
// and the criterion benches (the client drivers); everything else is private, so dead code shows.
pub mod browser;
pub mod clients;
mod colour;
mod compare;
mod cpu;
mod environment;
mod files;
mod history;
mod netem;
mod options;
mod output;
mod placement;
pub mod process;
mod progress;
mod run;
mod runner;
mod server;
mod tls;
mod usage;

use std::process::ExitCode;

use clap::Parser;
use httpbench_shared::render::escape_controls;

use crate::args::{Cli, Command};
use crate::options::{CompareOptions, RunOptions};
use crate::run::run;
use crate::usage::Usage;

/// Run the program with the process's arguments.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_error(&e),
    };
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) => report_error(&e),
    }
}

/// Help and version as clap prints them; a bad command line as one line naming the bad value, like every
/// other usage error (clap's own adds a blank line and a pointer to --help).
fn clap_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) || !e.use_stderr() {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    // The message, its `[possible values: ...]` and clap's tip (`a similar argument exists: '--rounds'`), up
    // to the usage clap adds: one line.
    let text = e.to_string();
    let before_usage = text.lines().take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"));
    let mut line = String::new();
    for part in before_usage.map(str::trim).filter(|l| !l.is_empty()) {
        // A list of values continues its message; a tip is a clause of its own.
        let joint = if part.starts_with('[') { " " } else { "; " };
        line.push_str(if line.is_empty() { "" } else { joint });
        line.push_str(part);
    }
    eprintln!("httpbench: {}", escape_controls(&line));
    ExitCode::from(2)
}

fn report_error(e: &anyhow::Error) -> ExitCode {
    if let Some(io) = e.downcast_ref::<std::io::Error>() {
        if io.kind() == std::io::ErrorKind::BrokenPipe {
            // The reader went away (`httpbench | head`): not an error.
            return ExitCode::SUCCESS;
        }
    }
    if e.downcast_ref::<Usage>().is_some() {
        eprintln!("httpbench: error: {}", escape_controls(&e.to_string()));
        return ExitCode::from(2);
    }
    // Messages may quote what a file or a peer said: shown with control characters escaped.
    eprintln!("httpbench: error: {}", escape_controls(&format!("{e:#}")));
    ExitCode::from(1)
}

fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        None => run(&RunOptions::from_args(&cli.run)?),
        Some(Command::Run(a)) => run(&RunOptions::from_args(&a)?),
        Some(Command::Serve(a)) => serve(&a),
        Some(Command::Compare(a)) => compare::run(&CompareOptions::from_args(&a)?),
        Some(Command::History(a)) => history::run(&a),
        Some(Command::Share(a)) => {
            output::print(&(compare::share(&a.files, &a.page)? + "\n"))?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Completions(a)) => print_generated(|out| {
            clap_complete::generate(a.shell, &mut <Cli as clap::CommandFactory>::command(), "httpbench", out);
            Ok(())
        }),
        Some(Command::Man) => {
            print_generated(|out| clap_mangen::Man::new(<Cli as clap::CommandFactory>::command()).render(out))
        }
    }
}

/// Print what `generate` writes from the arguments' own definitions (a completion script, the man page).
fn print_generated(generate: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> anyhow::Result<ExitCode> {
    let mut out = Vec::new();
    generate(&mut out)?;
    output::print(&String::from_utf8_lossy(&out))?;
    Ok(ExitCode::SUCCESS)
}

fn serve(a: &args::ServeArgs) -> anyhow::Result<ExitCode> {
    let options = options::serve_options(a)?;
    // A run's own server (sealed) binds where the run puts it: with --link, its namespace's end of the link.
    if !options.bind.is_loopback() && !a.sealed {
        eprintln!(
            "httpbench: warning: --bind {} exposes the server beyond this machine; use 127.0.0.1 unless you mean it",
            options.bind
        );
    }
    server::run_foreground(&options)?;
    Ok(ExitCode::SUCCESS)
}
