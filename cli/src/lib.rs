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
mod compare;
mod cpu;
mod environment;
mod files;
mod options;
mod output;
mod placement;
pub mod process;
mod progress;
mod runner;
mod server;
mod tls;
mod usage;

use std::cell::RefCell;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;
use httpbench_shared::clock::SystemClock;
use httpbench_shared::model::Engine;
use httpbench_shared::render::escape_controls;
use httpbench_shared::session::{CaseHistogram, Finished, Header, Session};
use httpbench_shared::{render, RenderOptions, Report, Source, Target};

use crate::args::{Cli, Command};
use crate::options::{CompareOptions, RunOptions};
use crate::server::spawned::ChildServer;
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
    eprintln!("httpbench: {}", escape_controls(&message.join(" ")));
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
    // Only a browser run saves results: a read-only or full TMPDIR must not fail a run that needs no folder.
    let results = options.browser.as_ref().map(|_| tempfile::tempdir()).transpose();
    let results = results.context("cannot create a folder for the browser's results in TMPDIR")?;
    let server = start_server(options, plan.server_cpu, results.as_ref().map(|r| r.path()))?;
    let (h1_target, h3_target) = match &options.browser {
        Some(_) => (
            browser::start_h1_target(options.tls, &options.matrix.http_versions, plan.server_cpu)?,
            browser::start_h3_target(options.tls, &options.matrix.http_versions, plan.server_cpu)?,
        ),
        None => (None, None),
    };
    let server_cpus = server.as_ref().and_then(|s| placement::process_cpus(s.pid()).ok());
    let browser_placement =
        browser::place_browser(options.browser.as_ref(), allowed.as_deref(), server_cpus.as_deref())?;
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
    // Every engine's page starts now and takes its turn at each pass with the native clients (side 0).
    let targets = server.as_ref().map(|s| {
        let (h1, h3) = (h1_target.as_ref(), h3_target.as_ref());
        browser::BrowserTargets { server: s, h1, h3, url: &url }
    });
    let pages = match (&options.browser, &targets) {
        (Some(b), Some(t)) => Some(RefCell::new(browser::Pages::start(
            b,
            &options.plan,
            options.timeout,
            t,
            browser_placement,
            options.progress,
            &stop,
        ))),
        _ => None,
    };
    let native = measure(options, &url, &stop, header, ca, probe.as_ref(), pages.as_ref());
    let browsers = pages.map(|p| p.into_inner().finish()).unwrap_or_default();
    drop(server);
    drop(h1_target);
    drop(h3_target);
    let interrupted = native.stopped || stop.load(std::sync::atomic::Ordering::Relaxed);
    if interrupted {
        eprintln!("httpbench: interrupted: reporting the {} case(s) measured so far", native.report.cases.len());
    }
    // The native cases' histograms, each named by its case; the browser's report comes without any.
    let histograms = native.histograms;
    let mut reports = vec![native.report];
    let browser_failed = join_browsers(browsers, &mut reports);
    let code = emit(&reports, &histograms, options)?;
    Ok(match (interrupted, browser_failed) {
        (true, _) => ExitCode::from(130),
        (false, Some(code)) => ExitCode::from(code),
        (false, None) => code,
    })
}

/// Add each browser's report to `reports`, where it produced one; a failure is told and gives the exit code: a
/// plan the page refused is a usage error (2), any other failure of a browser 1 (the highest wins). The native
/// cases, and the other browsers', are reported whatever became of one.
fn join_browsers(browsers: Vec<(Engine, anyhow::Result<Report>)>, reports: &mut Vec<Report>) -> Option<u8> {
    let mut code = None;
    for (engine, browser) in browsers {
        match browser {
            Ok(b) => reports.push(b),
            Err(e) => {
                eprintln!("httpbench: error: the {engine} cases failed: {e:#}");
                code = code.max(Some(if e.downcast_ref::<Usage>().is_some() { 2 } else { 1 }));
            }
        }
    }
    code
}

/// The CA the TLS clients trust: with `--tls` the embedded server's, as they would be given any CA; else
/// `--cacert`'s, if given.
fn trusted_ca(options: &RunOptions, server: Option<&ChildServer>) -> anyhow::Result<Option<Arc<crate::tls::CaFile>>> {
    Ok(match server.and_then(|s| s.ca.clone()) {
        Some(path) => Some(Arc::new(crate::tls::CaFile::read(&path).map_err(anyhow::Error::msg)?)),
        None => options.cacert.clone(),
    })
}

/// The embedded server, when the run needs one: without a URL, and for `--browser` even with one (the page
/// and its results folder, `results`, are served by it).
fn start_server(
    options: &RunOptions,
    cpu: Option<usize>,
    results: Option<&std::path::Path>,
) -> anyhow::Result<Option<ChildServer>> {
    let mut extra: Vec<std::ffi::OsString> = Vec::new();
    if options.tls {
        // ALPN offers the versions the run asks for (clients offer only their case's version anyway); HTTP/3
        // adds QUIC on UDP of the same port.
        let http = httpbench_shared::protocol::HttpChoice::of(&options.matrix.http_versions).to_string();
        extra.extend(["--tls".into(), "--http".into(), http.into()]);
    }
    if let (Some(b), Some(results)) = (&options.browser, results) {
        extra.extend(["--page-dir".into(), b.page_dir.clone().into_os_string()]);
        extra.extend(["--results-dir".into(), results.as_os_str().to_owned()]);
    }
    Ok(match (&options.url, &options.browser) {
        (Some(_), None) => None,
        _ => Some(ChildServer::start(cpu, &extra)?),
    })
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
    cacert: Option<Arc<crate::tls::CaFile>>,
    probe: Option<&server::probe::Probe>,
    pages: Option<&RefCell<browser::Pages<'_>>>,
) -> Finished {
    // The options' matrix: over TLS exactly when `url` is https (an https URL, or the embedded server with --tls).
    let matrix = options.matrix.clone();
    let mut session = Session::new(options.plan, matrix, Some(options.timeout));
    if pages.is_some() {
        session.take_turns();
    }
    let progress = progress::Progress::new(session.measured_requests(), options.progress);
    let mut pools: Vec<Box<dyn clients::Pool>> = Vec::new();
    let targets = httpbench_shared::session::Targets::one(url.as_str());
    // The embedded server counts each case's connections by the tag its requests carry, as the page's are
    // (the run's start in ms keeps this run's tags apart from an earlier run's); an external server, none.
    let run_id = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    let mut tags: Vec<String> = Vec::new();
    let mut unable: Vec<String> = Vec::new();
    for (i, key) in session.cases().into_iter().enumerate() {
        tags.push(key.tag(i, run_id));
        // Every case's client is one of the options' clients: the matrix was made from their names.
        let Some(client) = options.clients.iter().find(|c| c.name() == key.client) else {
            pools.push(Box::new(clients::Sequential(clients::Broken)));
            continue;
        };
        if let Some(reason) = client.cannot_speak(key.http) {
            let note = format!("{} over {} ({reason})", key.client, key.http);
            if !unable.contains(&note) {
                unable.push(note);
            }
            pools.push(Box::new(clients::Unable));
            continue;
        }
        let target = match probe {
            Some(_) => httpbench_shared::protocol::tagged_url(&targets.of_case(key), &tags[i]),
            None => targets.of_case(key),
        };
        let config = clients::DriverConfig {
            // The embedded server's own URL with a path and a query added: it parses.
            url: url::Url::parse(&target).unwrap_or_else(|_| url.clone()),
            mode: key.mode,
            timeout: options.timeout,
            cacert: cacert.clone(),
            http: key.http,
        };
        pools.push(client.driver(&config, key.concurrency as usize, stop, &progress.printer()));
    }
    let clock = SystemClock::new();
    let cpu = cpu::process_cpu;
    let read_handshakes = probe.filter(|p| p.is_tls()).map(|p| move || p.handshakes());
    let handshakes = read_handshakes.as_ref().map(|f| f as &dyn Fn() -> _);
    let read_connections = probe.map(|p| move |case: usize| p.connections_of(&tags[case]));
    let connections = read_connections.as_ref().map(|f| f as &dyn Fn(usize) -> _);
    let native_turn = pages.map(|p| move |pass, progress: &_| p.borrow_mut().native_turn(pass, progress));
    let turn = native_turn.as_ref().map(|f| f as runner::TakeTurn<'_>);
    let instruments = runner::Instruments { clock: &clock, cpu: &cpu, stop, handshakes, connections, turn };
    runner::run(&mut session, &mut pools, &instruments, &progress);
    progress.finish();
    for (key, pool) in session.cases().into_iter().zip(&pools) {
        if let Some(v) = pool.version() {
            header.environment.client_versions.entry(key.client.clone()).or_insert(v);
        }
    }
    let mut finished = session.finish(header);
    finished.report.settings.skipped.extend(unable);
    finished
}

/// Print the report (native, then browser if any), write the exports (the HTML report with `histograms`, the
/// native report's, each found by its case), and choose the exit code.
fn emit(reports: &[Report], histograms: &[CaseHistogram], options: &RunOptions) -> anyhow::Result<ExitCode> {
    let mut sources: Vec<Source<'_>> = reports.iter().map(Source::new).collect();
    if let Some(native) = sources.first_mut() {
        *native = native.with_histograms(histograms);
    }
    let render_options = RenderOptions { basis: options.basis, ..Default::default() };
    output::print(&render(&sources, options.format, &render_options))?;
    let ok = reports.iter().flat_map(|r| &r.cases).all(|c| c.failed() == 0 && c.aborted.is_none());
    let mut files: Vec<(&std::path::Path, String)> = options
        .exports
        .iter()
        .map(|(format, path)| (path.as_path(), render(&sources, *format, &render_options)))
        .collect();
    if let Some(path) = &options.export_html {
        files.push((path, render::html(&sources, &render_options)));
    }
    let written = output::write_all(&files);
    Ok(if ok && written { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
