//! Checked options: raw arguments turned into values that are known to be usable, before any work starts.
//! Every error names the flag and the bad value, and says what would work.

use std::path::{Path, PathBuf};
use std::time::Duration;

use httpbench_shared::model::Pin;
use httpbench_shared::parse::MAX_CASES;
use httpbench_shared::protocol::{browser_clients, parse_client_list};
use httpbench_shared::session::{Budget, Matrix, Plan, Spelling};
use httpbench_shared::{EnvironmentKind, Format, Mode, RateBasis};
use url::Url;

use crate::args::RunArgs;
use crate::browser::BrowserOptions;
use crate::clients::Client;
pub use crate::compare::CompareOptions;
use crate::usage::usage;
pub use crate::usage::Usage;
use clients::{parse_client_cmds, parse_clients};
use serve::page_dir;
pub use serve::serve_options;

mod clients;
mod serve;

/// Checked options of `httpbench run`.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The URL to benchmark; `None` means the embedded server.
    pub url: Option<Url>,
    /// How every case is measured.
    pub plan: Plan,
    /// Clients, in the order given, without duplicates.
    pub clients: Vec<Client>,
    /// Modes, fresh before reuse.
    pub modes: Vec<Mode>,
    /// Per-request timeout.
    pub timeout: Duration,
    /// `--tls`: the embedded server over HTTPS.
    pub tls: bool,
    /// `--http`: the HTTP versions, each a dimension of the cases.
    pub http_versions: Vec<httpbench_shared::model::HttpVersion>,
    /// `--cacert`, read.
    pub cacert: Option<std::sync::Arc<crate::clients::tls::CaFile>>,
    /// Format printed on stdout.
    pub format: Format,
    /// Files to write, with their formats.
    pub exports: Vec<(Format, PathBuf)>,
    /// `--export-html`: the HTML report's file. Not a [`Format`]: it is a file to open, not a stream for
    /// stdout, and it holds the run's latency histograms, which the report formats do not carry.
    pub export_html: Option<PathBuf>,
    /// Which rate the Perl-style lines show.
    pub basis: RateBasis,
    /// Whether a progress bar may be shown (it still needs a terminal).
    pub progress: bool,
    /// CPU placement policy; `None` is auto.
    pub pin: Option<Pin>,
    /// The browser half of the run, with `--browser`.
    pub browser: Option<BrowserOptions>,
    /// `-c`, `--body-size`, `--server-delay`: the load dimensions of the cases.
    pub load: Load,
}

/// The load dimensions: every combination of their values is a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Load {
    /// `-c`: requests in flight per case.
    pub concurrency: Vec<u32>,
    /// `--body-size`: body sizes asked of the embedded server; `[None]` without the flag.
    pub body_sizes: Vec<Option<u64>>,
    /// `--server-delay`: think times asked of the embedded server, in ms; `[None]` without the flag.
    pub server_delays_ms: Vec<Option<u64>>,
}

impl Load {
    /// How many combinations the dimensions make.
    pub fn combinations(&self) -> usize {
        self.concurrency.len() * self.body_sizes.len() * self.server_delays_ms.len()
    }
}

/// `-c`, `--body-size` and `--server-delay`, checked: sizes and delays ask the embedded server, so they
/// cannot go with a URL.
fn load(a: &RunArgs) -> Result<Load, Usage> {
    use httpbench_shared::protocol::{parse_concurrency, parse_delays, parse_sizes};
    let concurrency = parse_concurrency(&a.concurrency).map_err(|e| Usage(format!("-c/--concurrency: {e}")))?;
    let body_sizes = match &a.body_size {
        Some(list) => {
            parse_sizes(list).map_err(|e| Usage(format!("--body-size: {e}")))?.into_iter().map(Some).collect()
        }
        None => vec![None],
    };
    let server_delays_ms = match &a.server_delay {
        Some(list) => {
            parse_delays(list).map_err(|e| Usage(format!("--server-delay: {e}")))?.into_iter().map(Some).collect()
        }
        None => vec![None],
    };
    if let (Some(url), Some(flag)) =
        (&a.url, [("--body-size", &a.body_size), ("--server-delay", &a.server_delay)].iter().find(|(_, v)| v.is_some()))
    {
        return usage(format!(
            "{} asks the embedded server (/bytes/N, delay_ms=N), not {url}: drop the URL, or put the size or delay in the URL yourself",
            flag.0
        ));
    }
    Ok(Load { concurrency, body_sizes, server_delays_ms })
}

/// `--browser`'s options, the browser cases' matrix built from `run`'s (checked by [`RunOptions::with_browser`]).
fn browser_options(a: &RunArgs, run: &RunOptions) -> Result<Option<BrowserOptions>, Usage> {
    let Some(engines) = &a.browser else {
        return Ok(None);
    };
    // Every browser client of the catalog: one the page was built without is reported by the page itself.
    let known: Vec<&'static str> = browser_clients().map(|c| c.name).collect();
    let defaults: Vec<&'static str> = browser_clients().filter(|c| c.default).map(|c| c.name).collect();
    let clients = match &a.browser_clients {
        Some(list) => parse_client_list(EnvironmentKind::Browser, list, &known)
            .map_err(|e| Usage(format!("--browser-clients: {e}")))?,
        None => defaults,
    };
    // The browsers before the page: a missing browser cannot be fixed by building the page. Each engine's
    // binary as given by its own path flag, else found on PATH.
    let binaries = engines
        .0
        .iter()
        .map(|&engine| {
            let flag = crate::browser::engines::lookup(engine)?.path_flag();
            crate::browser::find(engine, a.browser_path(flag))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(Usage)?;
    let page_dir = page_dir(a.page_dir.as_deref())?
        .ok_or_else(|| Usage(format!("--browser needs the built page: {}", crate::server::page::HOW_TO_BUILD)))?;
    let matrix = run.browser_matrix(clients);
    Ok(Some(BrowserOptions { binaries, matrix, page_dir, pin: a.browser_pin }))
}

/// `-n` when neither a count nor a duration is given: a stable figure in a few seconds per case.
pub const DEFAULT_COUNT: u64 = 2000;

/// The plan of `-n`/`--duration`, `--rounds`, `--warmup` and `--no-interleave` for `cases` cases, checked by
/// shared against the native limits and, with `--browser`, the page's too (it runs the same plan).
fn plan(a: &RunArgs, cases: usize) -> Result<Plan, Usage> {
    let budget = match (a.count, a.duration) {
        (_, Some(d)) => Budget::Duration(d),
        (n, None) => Budget::Count(n.unwrap_or(DEFAULT_COUNT)),
    };
    let environments: &[EnvironmentKind] = match a.browser.is_some() {
        true => &[EnvironmentKind::Native, EnvironmentKind::Browser],
        false => &[EnvironmentKind::Native],
    };
    let interleave = !a.no_interleave && (cases > 1 || a.browser.is_some());
    Plan::check(budget, a.warmup, u64::from(a.rounds), interleave, environments)
        .map_err(|e| Usage(e.message(Spelling::Cli)))
}

impl RunOptions {
    /// Check `run` arguments.
    pub fn from_args(a: &RunArgs) -> Result<Self, Usage> {
        let clients = parse_clients(a.clients.as_deref(), &parse_client_cmds(&a.client_cmd)?)?;
        if a.tls && a.url.is_some() {
            return usage("--tls is for the embedded server; for an https URL give its CA with --cacert FILE");
        }
        let scheme = match (&a.url, a.tls) {
            (Some(url), _) => Some(url.scheme()),
            (None, true) => Some("https"),
            (None, false) => None,
        };
        if a.http.needs_tls() && scheme != Some("https") {
            return usage(format!(
                "--http {}: HTTP/2 and HTTP/3 are measured over TLS only (HTTP/2 negotiated by ALPN, HTTP/3 has \
                 TLS inside QUIC); add --tls for the embedded server or give an https URL",
                a.http
            ));
        }
        let modes = a.mode.modes();
        let http_versions = a.http.versions();
        let load = load(a)?;
        let plan = plan(a, clients.len() * modes.len() * http_versions.len() * load.combinations())?;
        let exports =
            [(Format::Json, &a.export_json), (Format::Markdown, &a.export_markdown), (Format::Csv, &a.export_csv)]
                .into_iter()
                .filter_map(|(f, p)| p.as_ref().map(|p| (f, p.clone())))
                .map(|(f, p)| check_export(&p, &format!("--export-{f}")).map(|()| (f, p)))
                .collect::<Result<Vec<_>, _>>()?;
        let export_html = checked_html_export(a.export_html.as_deref())?;
        RunOptions {
            url: a.url.clone(),
            plan,
            clients,
            modes,
            timeout: a.timeout,
            tls: a.tls,
            http_versions,
            cacert: match &a.cacert {
                Some(path) => Some(std::sync::Arc::new(crate::clients::tls::CaFile::read(path).map_err(Usage)?)),
                None => None,
            },
            format: a.format,
            exports,
            export_html,
            basis: if a.perl { RateBasis::Cpu } else { RateBasis::Wall },
            progress: !a.no_progress,
            pin: a.pin.pin(),
            browser: None,
            load,
        }
        .with_browser(a)
    }
}

impl RunOptions {
    /// With `--browser`, the browser half's options, its matrix checked to have a case to run.
    fn with_browser(mut self, a: &RunArgs) -> Result<Self, Usage> {
        self.browser = browser_options(a, &self)?;
        let per_client = self.modes.len() * self.http_versions.len() * self.load.combinations();
        let browser_cases = self.browser.as_ref().map_or(0, |b| b.matrix.clients.len() * b.binaries.len());
        let cases = (self.clients.len() + browser_cases) * per_client;
        if cases > MAX_CASES {
            return usage(format!(
                "{cases} cases (clients x modes x HTTP versions x load levels) are more than the {MAX_CASES} one \
                 report shows: scan fewer clients or values"
            ));
        }
        if let Some(b) = &self.browser {
            check_browser_matrix(&b.matrix)?;
        }
        Ok(self)
    }

    /// The browser cases' dimensions: the run's, for the browser `clients` (the page builds the same matrix
    /// from its query). Over plaintext the browser speaks HTTP/1.1.
    fn browser_matrix(&self, clients: Vec<&'static str>) -> Matrix {
        let clients = clients.into_iter().map(String::from).collect();
        let mut m = Matrix::new(EnvironmentKind::Browser, clients, self.modes.clone());
        m.tls = self.tls || self.url.as_ref().is_some_and(|u| u.scheme() == "https");
        if m.tls {
            m.http_versions = self.http_versions.clone();
        }
        m.body_sizes = self.load.body_sizes.clone();
        m.server_delays_ms = self.load.server_delays_ms.clone();
        m.concurrency = self.load.concurrency.clone();
        m
    }
}

/// Refuse a browser half with no case to run (every one left out by the matrix's rules), before any work.
fn check_browser_matrix(matrix: &Matrix) -> Result<(), Usage> {
    match matrix.cases() {
        (cases, _) if !cases.is_empty() => Ok(()),
        (_, skipped) => Err(Usage(format!(
            "--browser: no browser case can run: {}; add --mode reuse or a level of 1 to -c",
            skipped.join("; ")
        ))),
    }
}

/// `--export-html`, checked as every export is.
pub(crate) fn checked_html_export(path: Option<&Path>) -> Result<Option<PathBuf>, Usage> {
    path.map(|p| check_export(p, "--export-html").map(|()| p.to_path_buf())).transpose()
}

/// Refuse an export path whose directory does not exist before spending minutes on a run; errors name
/// `flag`.
fn check_export(path: &Path, flag: &str) -> Result<(), Usage> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if path.is_dir() {
        return usage(format!("{flag} {}: is a directory; give a file name", path.display()));
    }
    if !dir.is_dir() {
        return usage(format!(
            "{flag} {}: directory {} does not exist; create it first",
            path.display(),
            dir.display()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::args::Cli;

    fn run_args(args: &[&str]) -> RunArgs {
        let mut all = vec!["httpbench"];
        all.extend(args);
        Cli::try_parse_from(all).unwrap().run
    }

    #[test]
    fn count_or_duration_is_one_budget() {
        let o = RunOptions::from_args(&run_args(&["-n", "30", "--rounds", "3"])).unwrap();
        assert_eq!(o.plan, Plan { budget: Budget::Count(30), warmup: 100, rounds: 3, interleave: true });
        let o = RunOptions::from_args(&run_args(&["--duration", "2s", "--clients", "raw", "--mode", "reuse"])).unwrap();
        assert_eq!(o.plan.budget, Budget::Duration(Duration::from_secs(2)));
        assert!(!o.plan.interleave, "one case has nothing to interleave with");
        let e = RunOptions::from_args(&run_args(&["-n", "2", "--rounds", "3"])).unwrap_err();
        assert!(e.0.contains("-n/--count 2") && e.0.contains("--rounds 3"), "{e}");
    }

    #[test]
    fn a_browser_run_is_refused_up_front_what_the_page_would_refuse() {
        assert!(RunOptions::from_args(&run_args(&["-n", "2000000"])).is_ok(), "natively a million is fine");
        let e = RunOptions::from_args(&run_args(&["--browser", "-n", "2000000"])).unwrap_err().0;
        assert!(e.starts_with("-n/--count 2000000 is out of range: give 1 to 1000000"), "{e}");
        let e = RunOptions::from_args(&run_args(&["--browser", "--rounds", "200"])).unwrap_err().0;
        assert!(e.starts_with("--rounds 200 is out of range: give 1 to 100"), "{e}");
    }

    #[test]
    fn typed_values_are_refused_by_clap_with_the_value_named() {
        for (args, bad) in [
            (vec!["httpbench", "ht!tp://x", "-n", "0"], "ht!tp://x"),
            (vec!["httpbench", "--mode", "sometimes"], "sometimes"),
            (vec!["httpbench", "--duration", "soon"], "soon"),
            (vec!["httpbench", "--format", "yaml"], "yaml"),
            (vec!["httpbench", "--timeout", "-1"], "-1"),
        ] {
            let e = Cli::try_parse_from(args).unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
    }
}
