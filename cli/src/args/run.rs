//! The arguments of `httpbench run` (also the arguments of `httpbench` with no command), with the help that
//! the client and engine tables write.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use httpbench_shared::model::{Engine, Pin};
use httpbench_shared::protocol::{clients_of, native_clients, ClientInfo, HttpChoice, Modes, GROUPS};
use httpbench_shared::{EnvironmentKind, Format};
use url::Url;

use super::values;

/// Options of `httpbench run`, under the headings `-h` groups them by. Each option's first line is its `-h`
/// help; the paragraphs after it are added by `--help`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// URL to GET (http or https) [default: the embedded server on 127.0.0.1]
    #[arg(value_parser = values::UrlParser)]
    pub url: Option<Url>,
    /// Measured requests per case [default: 2000]
    #[arg(short = 'n', long, value_name = "N", conflicts_with = "duration", help_heading = PLAN)]
    pub count: Option<u64>,
    /// Measure each case for this long instead (3s, 500ms, 1m 30s)
    ///
    /// Like Perl's negative count: each case runs for at least this long, split between its rounds.
    #[arg(long, value_name = "TIME", value_parser = values::parse_duration, help_heading = PLAN)]
    pub duration: Option<Duration>,
    /// Rounds per case (their spread gives the intervals)
    ///
    /// The count or duration is split between them; their spread gives every 95% interval of the report.
    #[arg(long, default_value_t = 5, value_name = "R", help_heading = PLAN)]
    pub rounds: u32,
    /// Run each case's rounds back to back, not round-robin
    ///
    /// Round-robin (the default) lets drift of the machine hit every case alike.
    #[arg(long, help_heading = PLAN)]
    pub no_interleave: bool,
    /// fresh: a new connection per request; reuse: keep-alive; both
    ///
    /// fresh makes a new client and connection per request, as the Perl script does.
    #[arg(long, value_enum, default_value_t = Modes::Both, hide_possible_values = true, help_heading = PLAN)]
    pub mode: Modes,
    /// Requests before each case, left out of every figure
    ///
    /// Split among a case's requests in flight.
    #[arg(long, default_value_t = 100, value_name = "N", help_heading = PLAN)]
    pub warmup: u64,
    /// Requests in flight per case; a list (1,4,16) scans
    ///
    /// 1 is sequential. A list gives one case per level. Blocking clients use a thread and a client each,
    /// reqwest-async tasks on one client, curl-multi one multi handle.
    #[arg(short = 'c', long, value_name = "N,...", default_value = "1", help_heading = PLAN)]
    pub concurrency: String,
    /// Body sizes to ask the embedded server for (0,1k,64k,1m)
    ///
    /// Bytes; k = 1024, m = 1048576. One case per size, and bytes per second in the report.
    #[arg(long, value_name = "SIZE,...", help_heading = PLAN)]
    pub body_size: Option<String>,
    /// The embedded server's think time per answer (5ms); a list scans
    #[arg(long, value_name = "TIME,...", help_heading = PLAN)]
    pub server_delay: Option<String>,
    /// Per-request timeout in seconds
    #[arg(long, default_value = "10", value_name = "SECS", value_parser = values::parse_timeout, help_heading = PLAN)]
    pub timeout: Duration,
    /// CPU placement of client and server: auto, same, split, none
    ///
    /// Linux. Placement alone can change loopback rates several-fold; it is recorded in the report.
    #[arg(long, value_enum, default_value_t = PinArg::Auto, hide_possible_values = true, help_heading = PLAN)]
    pub pin: PinArg,
    #[arg(long, value_name = "LIST", help = client_short(),
          long_help = client_help(EnvironmentKind::Native), help_heading = CLIENTS)]
    pub clients: Option<String>,
    /// A command client of your own, NAME[@VERSIONS]=COMMAND (repeatable)
    ///
    /// COMMAND runs through `sh -c` and speaks the protocol of docs/command-clients.md; VERSIONS are the
    /// HTTP versions it speaks, as --http takes them (mine@1.1,2=...; HTTP/1.1 when none are given); NAME goes
    /// in --clients (without --clients, it is added to the default selection).
    #[arg(long = "client-cmd", value_name = "NAME[@VERSIONS]=COMMAND", help_heading = CLIENTS)]
    pub client_cmd: Vec<String>,
    /// The embedded server over HTTPS, its generated CA given to the clients
    #[arg(long, help_heading = TARGET)]
    pub tls: bool,
    #[arg(long, default_value_t = HttpChoice::default(), value_name = "VERSIONS",
          help = "HTTP versions, each its own cases: 1.1, 2, 3, a list, both", long_help = http_help(),
          help_heading = TARGET)]
    pub http: HttpChoice,
    /// Also trust the CAs in this PEM file, for https URLs
    ///
    /// E.g. the one `serve --tls` prints. Verification stays on: there is no --insecure.
    #[arg(long, value_name = "FILE", help_heading = TARGET)]
    pub cacert: Option<PathBuf>,
    #[arg(long, value_name = "LINK", help = "An emulated network to the embedded server: rtt=40ms,loss=1%,rate=20mbit, a profile (4g), a scan (rtt=0,20ms,80ms); needs root",
          long_help = link_help(), help_heading = TARGET)]
    pub link: Option<String>,
    #[arg(long, value_name = "ENGINES", num_args = 0..=1, default_missing_value = "chromium",
          value_parser = parse_engines, help = "Also run in real browsers: chromium, firefox, webkit, all",
          long_help = browser_help(), help_heading = BROWSER)]
    pub browser: Option<Engines>,
    #[arg(long, value_name = "LIST", help = "The browser clients for --browser, comma-separated, or all", long_help = client_help(EnvironmentKind::Browser),
          help_heading = BROWSER)]
    pub browser_clients: Option<String>,
    /// Chromium (or Chrome) binary [default: chromium on PATH]
    ///
    /// Also read from HTTPBENCH_CHROMIUM.
    #[arg(long, value_name = "PATH", env = "HTTPBENCH_CHROMIUM", hide_env = true, help_heading = BROWSER)]
    pub chromium: Option<PathBuf>,
    /// Firefox binary [default: firefox-esr or firefox on PATH]
    ///
    /// Also read from HTTPBENCH_FIREFOX.
    #[arg(long, value_name = "PATH", env = "HTTPBENCH_FIREFOX", hide_env = true, help_heading = BROWSER)]
    pub firefox: Option<PathBuf>,
    /// WebKitGTK's MiniBrowser [default: found]
    ///
    /// On PATH, or where libwebkit2gtk-4.1-0 puts it; also read from HTTPBENCH_WEBKIT. Started by
    /// WebKitWebDriver on an Xvfb display of its own.
    #[arg(long, value_name = "PATH", env = "HTTPBENCH_WEBKIT", hide_env = true, help_heading = BROWSER)]
    pub webkit: Option<PathBuf>,
    /// CPU placement of the browser: none, same, split [default: none]
    ///
    /// none = every CPU, as a browser runs for a user (Chromium is several processes passing each request
    /// along; one CPU halves its rate); same = the server's CPU; split = every CPU but the server's.
    #[arg(long, value_enum, value_name = "WHERE", default_value_t = Pin::None, hide_default_value = true,
          hide_possible_values = true, help_heading = BROWSER)]
    pub browser_pin: Pin,
    /// The built page [default: ./dist]
    ///
    /// By default ./dist, or dist/ beside the repository's target/; also read from HTTPBENCH_PAGE_DIR.
    #[arg(long, value_name = "DIR", env = "HTTPBENCH_PAGE_DIR", hide_env = true, help_heading = BROWSER)]
    pub page_dir: Option<PathBuf>,
    /// Output on stdout: text, json, markdown, csv
    #[arg(long, value_enum, default_value_t = Format::Text, hide_possible_values = true, help_heading = OUTPUT)]
    pub format: Format,
    /// The case the headline compares the others with (curl, native/curl)
    ///
    /// At each load: a client (`curl`) or an environment's client (`native/curl`, `chromium/js-fetch`)
    /// [default: `js-fetch` for the browser's wasm clients, the fastest native client for browser cases beside
    /// native ones, else the fastest].
    #[arg(long, value_name = "CASE", help_heading = OUTPUT)]
    pub reference: Option<String>,
    /// The full text report: every column, Perl's lines, notes unwrapped
    ///
    /// By default the text report fits 100 columns.
    #[arg(long, help_heading = OUTPUT)]
    pub wide: bool,
    /// Rate by CPU time and show Perl's timethese and cmpthese
    ///
    /// As Perl's Benchmark does (default: the wall-clock rate, comparable with browsers).
    #[arg(long, help_heading = OUTPUT)]
    pub perl: bool,
    /// Also write the result file (JSON) here
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    pub export_json: Option<PathBuf>,
    /// Also write the Markdown report here
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    pub export_markdown: Option<PathBuf>,
    /// Also write the CSV here
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    pub export_csv: Option<PathBuf>,
    /// Also write the HTML report here
    ///
    /// One self-contained file (charts, latency histograms, the statistics table and the text report; no
    /// script, nothing fetched) to open in any browser or attach to an issue.
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    pub export_html: Option<PathBuf>,
    /// Also add this run to a run history (SQLite, created if missing)
    ///
    /// `httpbench history DB` finds when each case got slower. A file that is not a history is refused before
    /// the run.
    #[arg(long, value_name = "DB", help_heading = OUTPUT)]
    pub history: Option<PathBuf>,
    /// This run's label in --history [default: the current git commit]
    ///
    /// E.g. `$(git rev-parse --short HEAD)`; by default the current folder's git commit, if it is in a
    /// repository.
    #[arg(long, value_name = "LABEL", requires = "history", help_heading = OUTPUT)]
    pub commit: Option<String>,
    /// Never show a progress bar
    #[arg(long, help_heading = OUTPUT)]
    pub no_progress: bool,
}

/// The headings `run -h` groups its options under.
const PLAN: &str = "Plan";
const CLIENTS: &str = "Clients";
const TARGET: &str = "Target and TLS";
const BROWSER: &str = "Browser";
const OUTPUT: &str = "Output";

impl RunArgs {
    /// The browser binary given by `flag`, an engine's path flag (`--chromium`, `--firefox`, `--webkit`; its
    /// [`BrowserEngine::path_flag`](crate::browser::BrowserEngine::path_flag)), if any.
    pub(crate) fn browser_path(&self, flag: &str) -> Option<&std::path::Path> {
        let given = [("--chromium", &self.chromium), ("--firefox", &self.firefox), ("--webkit", &self.webkit)];
        given.into_iter().find(|(f, _)| *f == flag).and_then(|(_, path)| path.as_deref())
    }
}

/// `--browser`'s engines, in the order they run (a type of its own: clap reads a bare `Vec` as many values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Engines(pub Vec<Engine>);

/// `--browser`'s list, by shared's parser; a URL there was meant as the run's target, which goes first.
fn parse_engines(text: &str) -> Result<Engines, String> {
    if text.contains("://") {
        return Err(format!(
            "`{text}` is not a browser: give the URL before --browser (run URL --browser), or name the browsers \
             (--browser chromium)"
        ));
    }
    Engine::parse_list(text).map(Engines)
}

/// `--pin`: a placement, or `auto` to choose one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PinArg {
    /// split when two CPUs are free, else same.
    Auto,
    /// Client and embedded server on one CPU.
    Same,
    /// Client and embedded server on two different CPUs.
    Split,
    /// Left to the OS.
    None,
}

impl PinArg {
    /// The placement asked for; `None` is auto.
    pub(crate) fn pin(self) -> Option<Pin> {
        match self {
            PinArg::Auto => None,
            PinArg::Same => Some(Pin::Same),
            PinArg::Split => Some(Pin::Split),
            PinArg::None => Some(Pin::None),
        }
    }
}

/// The help of a client-list flag, from the client table: every name, and the default selection; natively
/// the command clients apart (`all` leaves them out).
fn client_help(environment: EnvironmentKind) -> String {
    let clients: Vec<&ClientInfo> = clients_of(environment).collect();
    let names: Vec<String> = clients
        .iter()
        .filter(|c| c.in_all())
        .map(|c| match c.feature() {
            Some(f) => format!("{} (page built with --features {f})", c.name),
            None => c.name.to_string(),
        })
        .collect();
    let defaults: Vec<&str> = clients.iter().filter(|c| c.default).map(|c| c.name).collect();
    let commands: Vec<&str> = clients.iter().filter(|c| c.is_command()).map(|c| c.name).collect();
    let commands = match commands.is_empty() {
        true => String::new(),
        false => format!(" Command clients (not in all): {}, and your own (--client-cmd).", commands.join(", ")),
    };
    let groups = match environment {
        EnvironmentKind::Native => GROUPS.iter().map(|g| format!("{} ({})", g.name, g.about)).collect(),
        EnvironmentKind::Browser => vec!["all".to_string()],
    };
    format!(
        "Comma-separated clients: {}, or {} [default: {}].{commands}",
        names.join(", "),
        groups.join(", or "),
        defaults.join(",")
    )
}

/// The `-h` help of `--clients`: a list, or a group of the table.
fn client_short() -> String {
    let groups: Vec<&str> = GROUPS.iter().map(|g| g.name).collect();
    format!("Comma-separated clients, or a group: {}", groups.join(", "))
}

/// The help of `--browser`, with the engines it can start (the model's list, which the engine table holds).
fn browser_help() -> String {
    let names: Vec<&str> = Engine::STARTED.iter().map(|e| e.as_str()).collect();
    format!(
        "Then run the browser clients through the page in real browsers (headless, or WebKit on a display of its own), against the same server with the \
         same settings, and report native and browser cases together: {} (alone, the default), or a list of {} \
         (all: every one), one after another.",
        Engine::Chromium.as_str(),
        names.join(", ")
    )
}

/// The help of `--http`, with the versions of each native client from the client table.
fn http_help() -> String {
    let spoken: Vec<String> = native_clients()
        .map(|c| format!("{} {}", c.name, c.versions.iter().map(|v| v.short()).collect::<Vec<_>>().join("+")))
        .collect();
    format!(
        "HTTP version(s) to measure, each as separate cases: 1.1, 2 (by ALPN, over TLS: --tls or an https URL), 3 \
         (QUIC, over UDP on the same port), a list (1.1,2,3), or both (= 1.1,2). Clients that do not speak a version \
         are left out of its cases, and the report says so. Spoken: {}; your own command clients what they declare \
         (--client-cmd NAME@VERSIONS=COMMAND), else h1.",
        spoken.join(", ")
    )
}

/// `--link`'s long help: its settings and the named profiles, from shared's one table.
fn link_help() -> String {
    let profiles: Vec<String> =
        httpbench_shared::protocol::PROFILES.iter().map(|p| format!("  {:<11} {}", p.name, p.about)).collect();
    format!(
        "An emulated network between the clients and the embedded server: every packet, both directions, TCP \
         and UDP alike, is delayed by half the round trip, may be lost, and is held to the bandwidth.\n\n\
         Settings, comma-separated: rtt=TIME (added round trip), jitter=TIME (± on each one-way delay), \
         loss=PERCENT (each direction), rate=BANDWIDTH (both ways: 500kbit, 20mbit), up=BANDWIDTH (clients to \
         server). A list after a setting scans it (rtt=0,20ms,80ms: three links, each a case of every client).\n\n\
         Profiles (settings after one change it):\n{}\n\n\
         The clients (browsers too: their requests cross the link, their page does not) and the server run in \
         network namespaces of their own joined through a third, the link (root: CAP_NET_ADMIN); nothing of \
         this machine's network is touched, and all of it goes when the run ends. docs/network.md tells more.",
        profiles.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::args::Cli;
    use crate::browser::ENGINES;

    /// Each engine's path flag is a flag of `run`, and what it gives is that engine's binary.
    #[test]
    fn each_engines_path_flag_gives_its_binary() {
        for engine in ENGINES {
            let flag = engine.path_flag();
            let a =
                Cli::try_parse_from(["httpbench", flag, "/opt/browser"]).unwrap_or_else(|e| panic!("{flag}: {e}")).run;
            assert_eq!(a.browser_path(flag), Some(std::path::Path::new("/opt/browser")), "{flag}");
            for other in ENGINES.iter().filter(|e| e.path_flag() != flag) {
                // Not None: HTTPBENCH_CHROMIUM or HTTPBENCH_FIREFOX may be set where the tests run.
                assert_ne!(a.browser_path(other.path_flag()), Some(std::path::Path::new("/opt/browser")), "{flag}");
            }
        }
    }
}
