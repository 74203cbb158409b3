//! Checked options of `httpbench run`: its raw arguments turned by shared's one parse of a raw plan (the page's
//! too) into the plan and the matrices of both sides, the clients, the files and the browsers, before any work.

use std::path::{Path, PathBuf};
use std::time::Duration;

use httpbench_shared::model::Pin;
use httpbench_shared::protocol::{browser_clients, timeout_text};
use httpbench_shared::session::{Field, FrontEnd, Matrix, Plan, RawPlan, Side, Spelling};
use httpbench_shared::{EnvironmentKind, Format, RateBasis};
use url::Url;

use crate::args::RunArgs;
use crate::browser::BrowserOptions;
use crate::clients::Client;
use crate::usage::{usage, Usage};

use super::clients::{parse_client_cmds, parse_clients};
use super::serve::page;

/// Checked options of `httpbench run`.
#[derive(Debug, Clone)]
pub(crate) struct RunOptions {
    /// The URL to benchmark; `None` means the embedded server.
    pub url: Option<Url>,
    /// How every case is measured.
    pub plan: Plan,
    /// Clients, in the order given, without duplicates.
    pub clients: Vec<Client>,
    /// The native cases' dimensions (`--mode`, `--http`, `-c`, `--body-size`, `--server-delay`), by shared's
    /// one parse of a raw plan.
    pub matrix: Matrix,
    /// Per-request timeout.
    pub timeout: Duration,
    /// `--tls`: the embedded server over HTTPS.
    pub tls: bool,
    /// `--cacert`, read.
    pub cacert: Option<std::sync::Arc<crate::tls::CaFile>>,
    /// Format printed on stdout.
    pub format: Format,
    /// Files to write, with their formats.
    pub exports: Vec<(Format, PathBuf)>,
    /// `--export-html`: the HTML report's file. Not a [`Format`]: it is a file to open, not a stream for
    /// stdout, and it holds the run's latency histograms, which the report formats do not carry.
    pub export_html: Option<PathBuf>,
    /// `--history`: the run history to add this run to, and the run's label there (`--commit`, else the
    /// current folder's git commit, read when the run is added).
    pub history: Option<(PathBuf, Option<String>)>,
    /// Which rate the Perl-style lines show.
    pub basis: RateBasis,
    /// `--reference`, checked against the run's clients.
    pub reference: Option<String>,
    /// `--wide`: the full text report.
    pub wide: bool,
    /// Whether a progress bar may be shown (it still needs a terminal).
    pub progress: bool,
    /// CPU placement policy; `None` is auto.
    pub pin: Option<Pin>,
    /// The browser half of the run, with `--browser`.
    pub browser: Option<BrowserOptions>,
}

/// `--browser-clients` (every browser client of the table: one the page was built without is reported by the
/// page itself), a side for each engine of `--browser` (its HTTP stack leaves out what it cannot speak); none
/// without `--browser`.
fn browser_sides(a: &RunArgs) -> Result<Vec<Side>, Usage> {
    let Some(engines) = &a.browser else {
        return Ok(Vec::new());
    };
    let known: Vec<&'static str> = browser_clients().map(|c| c.name).collect();
    let defaults: Vec<&'static str> = browser_clients().filter(|c| c.default).map(|c| c.name).collect();
    let list = a.browser_clients.clone().unwrap_or_else(|| defaults.join(","));
    let side = Side::listed(EnvironmentKind::Browser, &list, &known, Field::BrowserClients, Spelling::Cli)
        .map_err(|e| Usage(e.message))?;
    Ok(engines.0.iter().map(|&engine| Side { engine: Some(engine), ..side.clone() }).collect())
}

/// The browsers of `--browser` and the built page, for the browser cases of `matrices` (one per engine).
fn browser_options(a: &RunArgs, matrices: Vec<Matrix>) -> Result<Option<BrowserOptions>, Usage> {
    let Some(engines) = &a.browser else {
        return Ok(None);
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
    let page = page(a.page_dir.as_deref())?
        .ok_or_else(|| Usage(format!("--browser needs the page: {}", crate::server::page::HOW_TO_BUILD)))?;
    Ok(Some(BrowserOptions { binaries, matrices, page, pin: a.browser_pin }))
}

/// `-n` when neither a count nor a duration is given: a stable figure in a few seconds per case.
pub(super) const DEFAULT_COUNT: u64 = 2000;

/// The run's raw plan as clap read it: typed values written back as the text shared's parse reads (the
/// page's link carries the same text), the defaults clap filled in included.
fn raw_plan(a: &RunArgs) -> RawPlan {
    RawPlan {
        target: a.url.as_ref().map(Url::to_string).unwrap_or_default(),
        targets: Vec::new(),
        count: a.count.unwrap_or(DEFAULT_COUNT).to_string(),
        duration: a.duration.map(timeout_text).unwrap_or_default(),
        warmup: a.warmup.to_string(),
        rounds: a.rounds.to_string(),
        interleave: if a.no_interleave { "0" } else { "1" }.into(),
        timeout: timeout_text(a.timeout),
        clients: a.clients.clone().unwrap_or_default(),
        mode: a.mode.to_string(),
        http: a.http.to_string(),
        concurrency: a.concurrency.clone(),
        body_sizes: a.body_size.clone().unwrap_or_default(),
        server_delays: a.server_delay.clone().unwrap_or_default(),
    }
}

impl RunOptions {
    /// Check `run` arguments: the clients by the CLI's own catalog reader, then the plan and every dimension
    /// of both sides by shared's one parse (the page's too), then the files and the browsers.
    pub(crate) fn from_args(a: &RunArgs) -> Result<Self, Usage> {
        let clients = parse_clients(a.clients.as_deref(), &parse_client_cmds(&a.client_cmd)?)?;
        if a.tls && a.url.is_some() {
            return usage("--tls is for the embedded server; for an https URL give its CA with --cacert FILE");
        }
        let native = Side {
            environment: EnvironmentKind::Native,
            clients: clients.iter().map(|c| c.name().to_string()).collect(),
            declared_versions: clients
                .iter()
                .filter_map(|c| Some((c.name().to_string(), c.declared_versions()?.to_vec())))
                .collect(),
            engine: None,
        };
        let sides: Vec<Side> = std::iter::once(native).chain(browser_sides(a)?).collect();
        let reference = a.reference.as_deref().map(|r| check_reference(r, &sides)).transpose()?;
        let front = FrontEnd { spelling: Spelling::Cli, own_server: Some(a.tls), takes_turns: a.browser.is_some() };
        let input = raw_plan(a).parse(&front, &sides).map_err(|e| Usage(e.message))?;
        let mut matrices = input.matrices.into_iter();
        let mut matrix =
            matrices.next().unwrap_or_else(|| Matrix::new(EnvironmentKind::Native, Vec::new(), Vec::new()));
        if let Some(raw) = &a.link {
            matrix.links = checked_links(a, raw)?.into_iter().map(Some).collect();
        }
        let exports =
            [(Format::Json, &a.export_json), (Format::Markdown, &a.export_markdown), (Format::Csv, &a.export_csv)]
                .into_iter()
                .filter_map(|(f, p)| p.as_ref().map(|p| (f, p.clone())))
                .map(|(f, p)| check_export(&p, &format!("--export-{f}")).map(|()| (f, p)))
                .collect::<Result<Vec<_>, _>>()?;
        let export_html = checked_html_export(a.export_html.as_deref())?;
        Ok(RunOptions {
            url: a.url.clone(),
            plan: input.plan,
            clients,
            matrix,
            timeout: input.timeout,
            tls: a.tls,
            cacert: match &a.cacert {
                Some(path) => Some(std::sync::Arc::new(crate::tls::CaFile::read(path).map_err(Usage)?)),
                None => None,
            },
            format: a.format,
            exports,
            export_html,
            history: a.history.clone().map(|db| (db, a.commit.clone())),
            basis: if a.perl { RateBasis::Cpu } else { RateBasis::Wall },
            reference,
            wide: a.wide,
            progress: !a.no_progress,
            pin: a.pin.pin(),
            browser: browser_options(a, matrices.collect())?,
        })
    }
}

/// Most browsers a run over a scan of links keeps open at once (one per engine and link).
const MAX_BROWSERS: usize = 12;

/// `--link`, by shared's parser, where it can run: to the embedded server, with a bounded number of browsers,
/// with the privileges and programs it needs; refused before any work otherwise.
fn checked_links(a: &RunArgs, raw: &str) -> Result<Vec<httpbench_shared::protocol::Link>, Usage> {
    let links = httpbench_shared::protocol::parse_links(raw).map_err(|e| Usage(format!("--link: {e}")))?;
    if a.url.is_some() {
        return usage(
            "--link emulates the network to the embedded server; a URL's server is beyond it: leave the URL out",
        );
    }
    // Each engine runs a browser per link, all at once (each waits for its turns).
    let browsers = a.browser.as_ref().map_or(0, |b| b.0.len()) * links.len();
    if browsers > MAX_BROWSERS {
        return Err(Usage(format!(
            "--link {raw} with --browser runs a browser of each engine per link, {browsers} at once; at most \
             {MAX_BROWSERS}: scan fewer links or engines per run"
        )));
    }
    match crate::netem::cannot_run() {
        Some(why) => Err(Usage(why)),
        None => Ok(links),
    }
}

/// `--reference`, by shared's one rule: a client of a side, named alone or by its environment.
fn check_reference(value: &str, sides: &[Side]) -> Result<String, Usage> {
    let named: Vec<(&str, Vec<String>)> =
        sides.iter().map(|s| (s.engine.map_or(s.environment.as_str(), |e| e.as_str()), s.clients.clone())).collect();
    httpbench_shared::headline::check_reference("--reference", value, &named).map_err(Usage)
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

    use httpbench_shared::session::Budget;

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

    /// The rules of shared's one parse, in the CLI's spelling: the page says the same words after its own
    /// field names (its tests in `web/src/settings/tests.rs`).
    #[test]
    fn every_rule_of_the_shared_parse_names_the_flag() {
        let refused = |args: &[&str]| RunOptions::from_args(&run_args(args)).unwrap_err().0;
        let e = refused(&["--clients", "all", "-c", "1,2,4,8,16", "--body-size", "0,1,2,3,4,5,6,7,8,9"]);
        let cases = httpbench_shared::protocol::libraries().count() * 2 * 5 * 10;
        assert_eq!(
            e,
            format!(
                "{cases} cases (clients x modes x HTTP versions x load levels, over every environment of the run) are \
                 more than the 500 one report shows: scan fewer clients or values"
            )
        );
        let e = refused(&[
            "--clients",
            "curl,ureq,raw",
            "--mode",
            "reuse",
            "-c",
            "1,2,4,8,16",
            "--body-size",
            "0,1,2,3,4,5,6,7,8,9",
            "--browser",
            "chromium,firefox",
            "--browser-clients",
            "fetch,xhr,gloo-net,js-fetch",
        ]);
        assert!(e.starts_with("550 cases (clients x modes"), "3 x 50 native and 4 x 2 x 50 browser cases: {e}");
        let e = refused(&["--http", "2"]);
        assert!(e.starts_with("--http 2: HTTP/2 and HTTP/3 are measured over TLS only"), "{e}");
        assert!(e.ends_with("give an https URL or add --tls for the embedded server"), "{e}");
        let e =
            refused(&["--tls", "--http", "2", "-c", "8", "--mode", "fresh", "--browser", "--browser-clients", "xhr"]);
        assert!(e.starts_with("no chromium case can run: xhr/fresh over HTTP/2 at concurrency 8 ("), "{e}");
        assert!(e.ends_with("; add --mode reuse or a level of 1 to -c/--concurrency"), "{e}");
        let e = refused(&["http://127.0.0.1:9/", "--body-size", "1k"]);
        assert!(e.starts_with("--body-size asks the embedded server (/bytes/N, delay_ms=N), not http://127.0.0.1:9/"));
        assert!(refused(&["-c", "0"]).starts_with("-c/--concurrency: '0' is not a concurrency level"));
        assert!(refused(&["--browser", "--browser-clients", "curl"]).starts_with("--browser-clients: unknown client"));
        let o = RunOptions::from_args(&run_args(&["--tls", "--http", "both", "-c", "1,4", "--server-delay", "5ms"]))
            .unwrap();
        assert_eq!((o.matrix.tls, o.matrix.http_versions.len(), o.matrix.concurrency.clone()), (true, 2, vec![1, 4]));
        assert_eq!(o.matrix.server_delays_ms, [Some(5)]);
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
