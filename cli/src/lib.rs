//! httpbench, the native front end: parse and check options, run the clients against a URL or the embedded
//! server, and print the report through the shared renderers. `main.rs` only calls [`main`].
//!
//! Flow: options → client drivers (`clients`) → samples → statistics in `httpbench_shared` → renderers →
//! output. Exit codes: 0 all requests ok, 1 some failed or a file could not be written (the report is still
//! printed), 2 bad command line or input files.

pub mod args;
pub mod browser;
pub mod child;
pub mod clients;
pub mod compare;
pub mod cpu;
pub mod environment;
pub mod link;
pub mod options;
pub mod output;
pub mod placement;
pub mod progress;
pub mod runner;
pub mod server;
pub mod usage;

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;
use httpbench_shared::clock::SystemClock;
use httpbench_shared::model::HttpVersion;
use httpbench_shared::session::{Finished, Header, Matrix, Session};
use httpbench_shared::stats::Bin;
use httpbench_shared::{render, EnvironmentKind, RenderOptions, Report, Source, Target};

use crate::args::{Cli, Command};
use crate::options::{CompareOptions, RunOptions};
use crate::server::child::ChildServer;
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
    // The message and its `[possible values: ...]`, up to clap's blank line.
    let text = e.to_string();
    let message: Vec<&str> = text.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
    eprintln!("httpbench: {}", message.join(" "));
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
        eprintln!("httpbench: error: {e}");
        return ExitCode::from(2);
    }
    eprintln!("httpbench: error: {e:#}");
    ExitCode::from(1)
}

fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        None => run(&RunOptions::from_args(&cli.run)?),
        Some(Command::Run(a)) => run(&RunOptions::from_args(&a)?),
        Some(Command::Serve(a)) => serve(&a),
        Some(Command::Compare(a)) => compare::run(&CompareOptions::from_args(&a)?),
        Some(Command::Share(a)) => {
            output::print(&(compare::share(&a.files, &a.page)? + "\n"))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn serve(a: &args::ServeArgs) -> anyhow::Result<ExitCode> {
    let options = options::serve_options(a)?;
    if !options.bind.is_loopback() {
        eprintln!(
            "httpbench: warning: --bind {} exposes the server beyond this machine; use 127.0.0.1 unless you mean it",
            options.bind
        );
    }
    server::run_foreground(&options)?;
    Ok(ExitCode::SUCCESS)
}

/// `httpbench run`: measure, print, export.
pub fn run(options: &RunOptions) -> anyhow::Result<ExitCode> {
    clients::init_tls();
    if cfg!(debug_assertions) {
        eprintln!("httpbench: warning: this is a debug build; its figures are meaningless. Use a --release build.");
    }
    // Read before pinning: a browser placed with `--browser-pin none` gets every CPU this process could use.
    let allowed = placement::current_thread_cpus().ok();
    let plan = placement::plan(options.pin).map_err(|e| Usage(e.0))?;
    let client_cpus = match plan.client_cpu {
        // Pin before starting anything: the server process and client threads inherit, then the server re-pins.
        Some(cpu) => Some(placement::pin_current_thread(cpu).map_err(|e| Usage(format!("--pin {}: {e}", plan.pin)))?),
        None => allowed.clone(),
    };
    let results = tempfile::tempdir().context("cannot create a folder for the browser's results")?;
    let server = start_server(options, plan.server_cpu, results.path())?;
    let h1_target = start_h1_target(options, plan.server_cpu)?;
    let server_cpus = server.as_ref().and_then(|s| placement::process_cpus(s.pid()).ok());
    let browser_placement = place_browser(options, allowed.as_deref(), server_cpus.as_deref())?;
    let placement = placement::record(plan.pin, client_cpus, server_cpus.clone());
    let url = match (&options.url, &server) {
        (Some(u), _) => u.clone(),
        (None, Some(s)) => s.url.clone(),
        (None, None) => anyhow::bail!("no URL and no embedded server"),
    };
    let stop = stop_flag();
    let header = Header {
        tool: environment::tool(),
        environment: environment::detect(&options.clients, Some(placement)),
        target: Target { url: url.to_string(), embedded_server: options.url.is_none() },
    };
    let ca = trusted_ca(options, server.as_ref())?;
    // The embedded server's counters, read around each round (outside its timing), when it is the target.
    let probe = match (&server, options.url.is_none()) {
        (Some(s), true) => Some(server::probe::Probe::new(&s.url, ca.as_deref())?),
        _ => None,
    };
    let native = measure(options, &url, &stop, header, ca, probe.as_ref());
    let browser = match (&options.browser, &server) {
        (Some(b), Some(s)) if !native.stopped => {
            let embedded = options.url.is_none();
            let targets = BrowserTargets { server: s, h1: h1_target.as_ref(), url: &url, embedded };
            Some(run_browser(options, b, &targets, browser_placement, &stop))
        }
        _ => None,
    };
    drop(server);
    drop(h1_target);
    let interrupted = native.stopped || stop.load(std::sync::atomic::Ordering::Relaxed);
    if interrupted {
        eprintln!("httpbench: interrupted: reporting the {} case(s) measured so far", native.report.cases.len());
    }
    // One histogram per native case, in case order, as the session hands them over; browser cases have none.
    let histograms: Vec<Option<Vec<Bin>>> = native.histograms.into_iter().map(|h| Some(h.bins)).collect();
    let mut reports = vec![native.report];
    let mut browser_failed = false;
    match browser {
        Some(Ok(b)) => reports.push(b),
        Some(Err(e)) => {
            eprintln!("httpbench: error: the browser cases failed: {e:#}");
            browser_failed = true;
        }
        None => {}
    }
    let code = emit(&reports, &histograms, options)?;
    Ok(if interrupted {
        ExitCode::from(130)
    } else if browser_failed {
        ExitCode::from(1)
    } else {
        code
    })
}

/// The CA the TLS clients trust: with `--tls` the embedded server's, as they would be given any CA; else
/// `--cacert`'s, if given.
fn trusted_ca(options: &RunOptions, server: Option<&ChildServer>) -> anyhow::Result<Option<Arc<clients::tls::CaFile>>> {
    Ok(match server.and_then(|s| s.ca.clone()) {
        Some(path) => Some(Arc::new(clients::tls::CaFile::read(&path).map_err(anyhow::Error::msg)?)),
        None => options.cacert.clone(),
    })
}

/// The embedded server, when the run needs one: without a URL, and for `--browser` even with one (the page
/// and its results folder, `results`, are served by it).
fn start_server(
    options: &RunOptions,
    cpu: Option<usize>,
    results: &std::path::Path,
) -> anyhow::Result<Option<ChildServer>> {
    let mut extra: Vec<std::ffi::OsString> = Vec::new();
    if options.tls {
        // ALPN offers the versions the run asks for (clients offer only their case's version anyway).
        let http = match options.http_versions.as_slice() {
            [HttpVersion::Http11] => "1.1",
            [HttpVersion::Http2] => "2",
            _ => "both",
        };
        extra.extend(["--tls".into(), "--http".into(), http.into()]);
    }
    if let Some(b) = &options.browser {
        extra.extend(["--page-dir".into(), b.page_dir.clone().into_os_string()]);
        extra.extend(["--results-dir".into(), results.as_os_str().to_owned()]);
    }
    Ok(match (&options.url, &options.browser) {
        (Some(_), None) => None,
        _ => Some(ChildServer::start(cpu, &extra)?),
    })
}

/// For `--browser --tls --http both`: a second embedded server that offers only `http/1.1` by ALPN, the
/// browser's HTTP/1.1 target (the browser takes the best protocol a server offers, and the first server then
/// offers h2 too). With one version the first server offers only that one.
fn start_h1_target(options: &RunOptions, cpu: Option<usize>) -> anyhow::Result<Option<ChildServer>> {
    let wanted = options.tls && options.http_versions.len() > 1;
    Ok(match &options.browser {
        Some(_) if wanted => Some(ChildServer::start(cpu, &["--tls".into(), "--http".into(), "1.1".into()])?),
        _ => None,
    })
}

/// The servers and URL the browser half requests.
struct BrowserTargets<'a> {
    /// The embedded server: it serves the page, saves its results, and is the target (HTTP/2 over TLS).
    server: &'a ChildServer,
    /// Over TLS, the server offering only HTTP/1.1.
    h1: Option<&'a ChildServer>,
    /// The run's target URL on `server`.
    url: &'a url::Url,
    /// Whether the target is the embedded server (no `--url`), which counts each case's connections.
    embedded: bool,
}

impl BrowserTargets<'_> {
    /// The URL the page requests for `http`: over TLS the server that offers that version alone.
    fn target(&self, http: HttpVersion) -> url::Url {
        match (http, self.h1) {
            (HttpVersion::Http11, Some(h1)) => h1.url.join(self.url.path()).unwrap_or_else(|_| h1.url.clone()),
            _ => self.url.clone(),
        }
    }

    /// A probe of the server that served `http`, when it is the target; `None` if it cannot be made.
    fn probe(&self, http: HttpVersion) -> Option<server::probe::Probe> {
        let server = match (http, self.h1) {
            (HttpVersion::Http11, Some(h1)) => h1,
            _ => self.server,
        };
        let ca = match &server.ca {
            Some(path) => Some(clients::tls::CaFile::read(path).ok()?),
            None => None,
        };
        self.embedded.then(|| server::probe::Probe::new(&server.url, ca.as_ref()).ok()).flatten()
    }

    /// The SPKI pins of the servers' keys, for Chromium to accept (over TLS).
    fn pins(&self) -> Vec<String> {
        [Some(self.server), self.h1].into_iter().flatten().filter_map(|s| s.pin.clone()).collect()
    }
}

/// Where Chromium runs for `--browser` (Linux), relative to the server: among `allowed`, the CPUs this
/// process could use before it pinned itself.
fn place_browser(
    options: &RunOptions,
    allowed: Option<&[usize]>,
    server_cpus: Option<&[usize]>,
) -> Result<Option<BrowserPlacement>, Usage> {
    match &options.browser {
        Some(b) if cfg!(target_os = "linux") => Ok(Some(BrowserPlacement {
            pin: b.pin,
            cpus: placement::browser_cpus(b.pin, allowed.unwrap_or_default(), server_cpus).map_err(|e| Usage(e.0))?,
            server_cpus: server_cpus.map(<[usize]>::to_vec),
        })),
        _ => Ok(None),
    }
}

/// Where Chromium is to run (Linux): the policy, its CPUs, and the server's, for the browser report.
struct BrowserPlacement {
    pin: httpbench_shared::model::Pin,
    cpus: Vec<usize>,
    server_cpus: Option<Vec<usize>>,
}

/// The browser half of `run --browser`: the page in headless Chromium, on our server, same plan; the browser
/// report records where Chromium ran.
///
/// Over TLS, the page runs once per HTTP version, each against the target that offers that version alone,
/// and the runs are one report: the browser negotiates by ALPN, so the listener decides the protocol.
fn run_browser(
    options: &RunOptions,
    b: &options::BrowserOptions,
    targets: &BrowserTargets<'_>,
    placed: Option<BrowserPlacement>,
    stop: &AtomicBool,
) -> anyhow::Result<Report> {
    if options.progress && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        eprintln!("httpbench: running the browser cases in headless Chromium ({})", b.chromium.display());
    }
    let cpus = placed.as_ref().map(|p| p.cpus.as_slice());
    let versions = if options.tls { options.http_versions.clone() } else { vec![HttpVersion::Http11] };
    let mut merged: Option<(Report, Option<Vec<usize>>)> = None;
    let mut skipped = Vec::new();
    for (http, modes, concurrency) in page_runs(&versions, &options.modes, &options.load.concurrency, &mut skipped) {
        let target = targets.target(http);
        let page = browser::PageRun {
            server: &targets.server.url,
            target: &target,
            plan: &options.plan,
            clients: &b.clients,
            modes: &modes,
            concurrency: &concurrency,
        };
        let chromium = browser::Chromium { path: &b.chromium, cpus, spki_pins: &targets.pins() };
        let run = browser::run(&chromium, &page.url(), targets.server.saved_results(), page.timeout(), stop)?;
        let mut report = run.report;
        for case in &mut report.cases {
            // The page reports the version Resource Timing saw (HTTP/1.1 when it saw no entry): the target
            // offers only `http`, so another one is a fault, kept in the report.
            let seen = case.phases_ns.is_some_and(|p| p.samples > 0);
            if seen && case.http_version != http {
                let reason = format!("the browser spoke {} to a target that offers only {http}", case.http_version);
                case.aborted.get_or_insert(reason);
            }
            case.http_version = http;
        }
        if let Some(probe) = targets.probe(http) {
            count_connections(&mut report, &probe);
        }
        match &mut merged {
            None => merged = Some((report, run.cpus)),
            Some((all, _)) => all.cases.extend(report.cases),
        }
    }
    let Some((mut report, run_cpus)) = merged else {
        match skipped.first() {
            Some(line) => anyhow::bail!("no browser case can run: {line}; add --mode reuse or a level of 1 to -c"),
            None => anyhow::bail!("no HTTP version to run the page with"),
        }
    };
    report.settings.http_versions = versions;
    report.settings.modes = options.modes.clone();
    report.settings.skipped.extend(b.clients.iter().flat_map(|c| skipped.iter().map(move |s| format!("{c}/{s}"))));
    if let Some(p) = placed {
        report.environment.placement = Some(placement::record(p.pin, run_cpus, p.server_cpus));
    }
    Ok(report)
}

/// The page runs of a browser half: one per HTTP version (over TLS each against the target that offers that
/// version alone), with the modes and levels it can run; fresh mode at levels the browser cannot run it at
/// (over HTTP/2, more than one request in flight) gets a page run of its own at the levels it can, and a line
/// in `skipped` (`fresh over HTTP/2 at concurrency 8 (reason)`) for each level left out.
fn page_runs(
    versions: &[HttpVersion],
    modes: &[httpbench_shared::Mode],
    levels: &[u32],
    skipped: &mut Vec<String>,
) -> Vec<(HttpVersion, Vec<httpbench_shared::Mode>, Vec<u32>)> {
    use httpbench_shared::Mode;
    let mut runs = Vec::new();
    for &http in versions {
        let can = |c: &u32| httpbench_shared::protocol::cannot_run_fresh(EnvironmentKind::Browser, http, *c).is_none();
        if !modes.contains(&Mode::Fresh) || levels.iter().all(can) {
            runs.push((http, modes.to_vec(), levels.to_vec()));
            continue;
        }
        for &c in levels.iter().filter(|c| !can(c)) {
            let reason = httpbench_shared::protocol::cannot_run_fresh(EnvironmentKind::Browser, http, c);
            skipped.push(format!("fresh over {http} at concurrency {c} ({})", reason.unwrap_or_default()));
        }
        let others: Vec<Mode> = modes.iter().copied().filter(|m| *m != Mode::Fresh).collect();
        if !others.is_empty() {
            runs.push((http, others, levels.to_vec()));
        }
        let fresh_levels: Vec<u32> = levels.iter().copied().filter(can).collect();
        if !fresh_levels.is_empty() {
            runs.push((http, vec![Mode::Fresh], fresh_levels));
        }
    }
    runs
}

/// Each browser case's connections, as the embedded server counted the ones its requests were tagged on (the
/// page's cases share the browser's pool, so only the server can tell them apart). A case none of whose
/// requests carried its tag (a page built before tags) keeps none: zero would claim it used no connection.
fn count_connections(report: &mut Report, probe: &server::probe::Probe) {
    for case in report.cases.iter_mut().filter(|c| c.connections.is_none()) {
        let tag = httpbench_shared::protocol::case_tag(
            &case.client,
            case.mode,
            case.in_flight(),
            case.body_bytes,
            case.server_delay_ms,
        );
        case.connections = probe.tagged_connections(&tag).filter(|n| *n > 0);
    }
}

/// Set by the first Ctrl-C (the run stops after the current request and reports what it has); a second
/// Ctrl-C ends the process at once.
fn stop_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register_conditional_shutdown(signal, 130, flag.clone());
        let _ = signal_hook::flag::register(signal, flag.clone());
    }
    flag
}

/// A session of every (client, mode, HTTP version) case, a driver for each, run to the end (or to a Ctrl-C).
/// Command clients are started first (each waits for its adapter to be ready) and report their versions as
/// they go.
fn measure(
    options: &RunOptions,
    url: &url::Url,
    stop: &AtomicBool,
    mut header: Header,
    cacert: Option<Arc<clients::tls::CaFile>>,
    probe: Option<&server::probe::Probe>,
) -> Finished {
    let matrix = Matrix {
        environment: EnvironmentKind::Native,
        clients: options.clients.iter().map(|c| c.name().to_string()).collect(),
        modes: options.modes.clone(),
        http_versions: options.http_versions.clone(),
        tls: url.scheme() == "https",
        body_sizes: options.load.body_sizes.clone(),
        server_delays_ms: options.load.server_delays_ms.clone(),
        concurrency: options.load.concurrency.clone(),
    };
    let mut session = Session::new(options.plan, matrix, Some(options.timeout));
    let progress = progress::Progress::new(session.measured_requests(), options.progress);
    let mut drivers: Vec<Box<dyn clients::Driver>> = Vec::new();
    for key in session.cases() {
        // Every case's client is one of the options' clients: the matrix was made from their names.
        let Some(client) = options.clients.iter().find(|c| c.name() == key.client) else {
            drivers.push(Box::new(clients::Broken));
            continue;
        };
        let target = httpbench_shared::protocol::load_url(url.as_str(), key.body_bytes, key.server_delay_ms);
        let config = clients::DriverConfig {
            // The embedded server's own URL with a path and a query added: it parses.
            url: url::Url::parse(&target).unwrap_or_else(|_| url.clone()),
            mode: key.mode,
            timeout: options.timeout,
            cacert: cacert.clone(),
            http: key.http,
        };
        drivers.push(client.driver(&config, key.concurrency as usize, stop, &progress.printer()));
    }
    let clock = SystemClock::new();
    let cpu = cpu::process_cpu;
    let read_handshakes = probe.filter(|p| p.is_tls()).map(|p| move || p.handshakes());
    let handshakes = read_handshakes.as_ref().map(|f| f as &dyn Fn() -> _);
    let read_connections = probe.map(|p| move || p.connections());
    let connections = read_connections.as_ref().map(|f| f as &dyn Fn() -> _);
    let instruments = runner::Instruments { clock: &clock, cpu: &cpu, stop, handshakes, connections };
    runner::run(&mut session, &mut drivers, &instruments, &progress);
    progress.finish();
    for (key, driver) in session.cases().into_iter().zip(&mut drivers) {
        if let Some(v) = driver.batched().and_then(|b| b.version()) {
            header.environment.client_versions.entry(key.client.clone()).or_insert(v);
        }
    }
    session.finish(header)
}

/// Print the report (native, then browser if any), write the exports (the HTML report with `histograms`, one
/// per case of the reports in order, where known), and choose the exit code.
fn emit(reports: &[Report], histograms: &[Option<Vec<Bin>>], options: &RunOptions) -> anyhow::Result<ExitCode> {
    let sources: Vec<Source<'_>> = reports.iter().map(Source::new).collect();
    let render_options = RenderOptions { basis: options.basis };
    output::print(&render(&sources, options.format, &render_options))?;
    let ok = reports.iter().flat_map(|r| &r.cases).all(|c| c.failed() == 0 && c.aborted.is_none());
    let mut files: Vec<(&std::path::Path, String)> = options
        .exports
        .iter()
        .map(|(format, path)| (path.as_path(), render(&sources, *format, &render_options)))
        .collect();
    if let Some(path) = &options.export_html {
        files.push((path, render::html(&sources, histograms, &render_options)));
    }
    let written = output::write_all(&files);
    Ok(if ok && written { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
