//! Raw command-line arguments as clap parses them. Nothing here is checked beyond syntax: `options` turns
//! them into checked options before any work starts.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Measure how fast HTTP clients really are: libcurl, ureq, reqwest and a raw socket, natively, reported
/// like Perl's Benchmark (timethese + cmpthese) plus a latency table.
///
/// With no command, `httpbench` runs `httpbench run` against its own embedded server on 127.0.0.1.
#[derive(Debug, Parser)]
#[command(name = "httpbench", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
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
pub enum Command {
    /// Benchmark clients against a URL, or against the embedded server when no URL is given.
    Run(RunArgs),
    /// Run the embedded target server in the foreground until Ctrl-C.
    Serve(ServeArgs),
    /// Render one or more result files (JSON) as one report.
    Compare(CompareArgs),
}

/// Options of `httpbench run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// URL to GET (http or https). Default: the embedded server on 127.0.0.1 with a free port.
    pub url: Option<String>,
    /// Measured requests per case [default: 2000].
    #[arg(short = 'n', long, value_name = "N", conflicts_with = "duration")]
    pub count: Option<u64>,
    /// Measure each case for this long instead of a count (e.g. 3, 3s, 500ms), like Perl's negative count.
    #[arg(long, value_name = "TIME")]
    pub duration: Option<String>,
    /// Rounds per case; the count or duration is split between them and their spread gives the confidence
    /// interval.
    #[arg(long, default_value_t = 5, value_name = "R")]
    pub rounds: u32,
    /// Run each case's rounds back to back instead of round-robin across cases.
    #[arg(long)]
    pub no_interleave: bool,
    /// Comma-separated clients: curl, ureq, reqwest, reqwest-async, raw (or `all`).
    #[arg(long, default_value = "curl,ureq,reqwest", value_name = "LIST")]
    pub clients: String,
    /// fresh: new client and connection per request (as the Perl script); reuse: keep-alive; both.
    #[arg(long, default_value = "both", value_name = "fresh|reuse|both")]
    pub mode: String,
    /// Requests before measuring each case, excluded from every figure.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub warmup: u64,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = 10.0, value_name = "SECS")]
    pub timeout: f64,
    /// Output format on stdout: text, json, markdown, csv.
    #[arg(long, default_value = "text", value_name = "FORMAT")]
    pub format: String,
    /// Also write the result file (JSON) here.
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Also write the Markdown table here.
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Also write the CSV here.
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Rate by CPU time, as Perl's Benchmark does (default: wall-clock rate, comparable with browsers).
    #[arg(long)]
    pub perl: bool,
    /// CPU placement (Linux): same = client and embedded server on one CPU, split = on two different CPUs,
    /// none = left to the OS, auto = split when two CPUs are free, else same. Placement alone can change
    /// loopback rates several-fold; it is recorded in the report.
    #[arg(long, default_value = "auto", value_name = "auto|same|split|none")]
    pub pin: String,
    /// Never show a progress bar.
    #[arg(long)]
    pub no_progress: bool,
    /// Then run the browser clients in a real headless Chromium through the page, against the same server with
    /// the same settings, and report native and browser cases together.
    #[arg(long)]
    pub browser: bool,
    /// Chromium (or Chrome) binary for --browser [default: chromium on PATH].
    #[arg(long, value_name = "PATH", env = "HTTPBENCH_CHROMIUM")]
    pub chromium: Option<PathBuf>,
    /// Browser clients for --browser: fetch, gloo-net, xhr, js-fetch (reqwest when the page is built with it).
    #[arg(long, value_name = "LIST", default_value = crate::browser::DEFAULT_CLIENTS)]
    pub browser_clients: String,
    /// The built page for --browser [default: ./dist, or dist/ beside the repository's target/].
    #[arg(long, value_name = "DIR", env = "HTTPBENCH_PAGE_DIR")]
    pub page_dir: Option<PathBuf>,
}

/// Options of `httpbench serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on; 0 picks a free one.
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to bind. Anything but loopback exposes the server to the network.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    pub bind: String,
    /// Worker threads (default: the number of CPUs).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Pin the server (all its threads) to this CPU (Linux).
    #[arg(long, value_name = "CPU")]
    pub cpu: Option<usize>,
    /// The built page to serve under /app/ [default: ./dist, or dist/ beside the repository's target/].
    #[arg(long, value_name = "DIR", env = "HTTPBENCH_PAGE_DIR")]
    pub page_dir: Option<PathBuf>,
    /// Folder where result files posted by the page are saved.
    #[arg(long, value_name = "DIR", default_value = "httpbench-results")]
    pub results_dir: PathBuf,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Print only the `listening on URL` line (for programs that start the server).
    #[arg(long)]
    pub quiet: bool,
}

/// Options of `httpbench compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Result files written by `--export-json` or by the page.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output format: text, json, markdown, csv.
    #[arg(long, default_value = "text", value_name = "FORMAT")]
    pub format: String,
    /// Rate by CPU time, as Perl's Benchmark does.
    #[arg(long)]
    pub perl: bool,
}
