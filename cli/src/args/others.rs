//! The arguments of `httpbench serve`, `compare`, `share` and `completions`.

use std::path::PathBuf;

use clap::Args;
use httpbench_shared::change::Metric;
use httpbench_shared::protocol::HttpChoice;
use httpbench_shared::Format;
use url::Url;

use super::values;

/// Options of `httpbench serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
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
    /// Take turns, status and results only from pages sealed by a `seal ID SECRET` line on stdin: how
    /// `run --browser` starts its servers, so that no other program can speak for its pages.
    #[arg(long, hide = true, requires = "quiet")]
    pub sealed: bool,
    /// Serve HTTPS with a certificate for 127.0.0.1/localhost generated at start; prints the CA file to give
    /// clients (`run --cacert FILE`) and the key's SPKI pin.
    #[arg(long)]
    pub tls: bool,
    /// With --tls, the HTTP versions served: 1.1 and 2 offered by ALPN (a browser takes what is offered, so
    /// this is how its HTTP/1.1 is measured), 3 also on UDP of the same port; a list (1.1,2,3) or both.
    #[arg(long, default_value_t = HttpChoice::both(), value_name = "VERSIONS", requires = "tls")]
    pub http: HttpChoice,
    /// With --tls, serve this certificate chain (PEM, leaf first) instead of a generated one.
    #[arg(long, value_name = "FILE", requires_all = ["tls", "key"])]
    pub cert: Option<PathBuf>,
    /// The private key (PEM) of --cert.
    #[arg(long, value_name = "FILE", requires = "cert")]
    pub key: Option<PathBuf>,
    /// Think time before each answer to a request that does not ask for its own (`delay_ms=N`), e.g. 5ms: a
    /// slower server for any client, at a URL that stays the same (a run history sees it as a slowdown).
    #[arg(long, value_name = "TIME")]
    pub server_delay: Option<String>,
    /// Also accept results and status posted by a page on this origin (repeatable), e.g. your hosted copy of
    /// the page: https://you.github.io. The page served here is always accepted; other web pages are not.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
}

/// Options of `httpbench compare`.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// Result files written by `--export-json` or by the page, or page links with a shared result (`...#r=...`,
    /// from the page's Share button or `httpbench share`).
    #[arg(required = true, value_name = "FILE|LINK")]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also write the HTML report of the files here (percentile charts where a histogram would be: a result
    /// file keeps percentiles only).
    #[arg(long, value_name = "FILE")]
    pub export_html: Option<PathBuf>,
    /// Rate by CPU time, as Perl's Benchmark does, and show its timethese lines and cmpthese chart.
    #[arg(long)]
    pub perl: bool,
    /// The case the headline compares every other case with: a client (`curl`) or an environment's client
    /// (`native/curl`, `chromium/js-fetch`), as `run --reference`.
    #[arg(long, value_name = "CASE")]
    pub reference: Option<String>,
    /// The full text report: every column, Perl's lines, notes unwrapped (default: fits 100 columns).
    #[arg(long)]
    pub wide: bool,
    /// The change's result files: with it, FILE... are the base's, and each side's files are one run whose
    /// rounds are pooled (run base and change alternately, A B A B, so drift between runs shows in the spread).
    #[arg(long, value_name = "FILE|LINK", num_args = 1..)]
    pub against: Vec<PathBuf>,
    /// Gate: exit 3 when a case of the newest run is slower than in the run before by more than this (5%, 2.5),
    /// the slowdown's whole 95% interval beyond it.
    #[arg(long, value_name = "PCT", value_parser = httpbench_shared::change::parse_threshold)]
    pub fail_if_slower: Option<f64>,
    /// The figure the change is judged on: wall rate, CPU per request, median or p99 latency.
    #[arg(long, value_enum, default_value_t = Metric::Rate)]
    pub metric: Metric,
    /// With --fail-if-slower: exit 3 also when a case's change is inconclusive (its interval straddles the
    /// threshold).
    #[arg(long, requires = "fail_if_slower")]
    pub fail_if_inconclusive: bool,
    /// Refuse (exit 2) runs whose environments differ in what moves figures (CPU, placement, build, versions,
    /// server) instead of warning.
    #[arg(long)]
    pub strict: bool,
}

/// Options of `httpbench share`.
#[derive(Debug, Args)]
pub(crate) struct ShareArgs {
    /// Result files to put in the link (one report, or several as one list).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The page the link opens: your hosted copy (e.g. https://you.github.io/httpbench/), or `httpbench serve`'s.
    #[arg(long, value_name = "URL", env = "HTTPBENCH_PAGE_URL", default_value = "http://127.0.0.1:8080/app/",
          value_parser = values::UrlParser)]
    pub page: Url,
}

/// Options of `httpbench completions`.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
