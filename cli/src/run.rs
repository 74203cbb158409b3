//! `httpbench run`: the run command. It places the client and the embedded server on their CPUs, starts the
//! servers the run needs (and with `--browser` the browsers' pages), measures the native clients through the
//! shared session (`measure`), joins the browsers' reports, prints and exports, and chooses the exit code.

mod measure;

use std::cell::RefCell;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::Context;
use httpbench_shared::model::Engine;
use httpbench_shared::protocol::Link;
use httpbench_shared::session::{CaseHistogram, Finished, Header};
use httpbench_shared::{render, RenderOptions, Report, Source, Target};

use crate::options::RunOptions;
use crate::server::spawned::ChildServer;
use crate::usage::Usage;
use crate::{browser, environment, output, placement, server};

/// `httpbench run`: place the run, start its servers (and its browsers), measure, print, export.
pub(crate) fn run(options: &RunOptions) -> anyhow::Result<ExitCode> {
    crate::clients::init_tls();
    if cfg!(debug_assertions) {
        eprintln!("httpbench: warning: this is a debug build; its figures are meaningless. Use a --release build.");
    }
    // A history file that is not one is refused before any work.
    let history = match &options.history {
        Some((db, commit)) => Some(crate::history::Pending::open(db, commit.as_deref())?),
        None => None,
    };
    // With --link, the server's namespace and the clients', joined by the emulated link (at the first case's).
    // Started before pinning: the link's threads, which spin before each packet is due, must not take the
    // measuring thread's CPU.
    let network = match options.matrix.links.first() {
        Some(Some(first)) => Some(crate::netem::Network::start(first).context("cannot set up the emulated link")?),
        _ => None,
    };
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
    let servers = Servers::start(options, plan.server_cpu, results.as_ref().map(|r| r.path()), network.as_ref())?;
    if let Some(n) = &network {
        // This thread runs the clients and starts their threads and processes: all of them go over the link.
        n.client().enter().context("cannot enter the clients' side of the emulated link")?;
    }
    let server_cpus = servers.main.as_ref().and_then(|s| placement::process_cpus(s.pid()).ok());
    let browser_placement =
        browser::place_browser(options.browser.as_ref(), allowed.as_deref(), server_cpus.as_deref())?;
    let placement = placement::record(plan.pin, client_cpus, server_cpus);
    let url = match (&options.url, &servers.main) {
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
    let ca = trusted_ca(options, servers.main.as_ref())?;
    // The embedded server's counters, read around each round (outside its timing), when it is the target.
    let probe = match (&servers.main, options.url.is_none()) {
        (Some(s), true) => Some(server::probe::Probe::new(&s.control, ca.as_deref())?),
        _ => None,
    };
    // Every engine's page starts now and takes its turn at each pass with the native clients (side 0).
    // With a scan of links, each engine has a page per link, the link set to its own before each turn.
    let set_link = network.as_ref().map(|n| |link: Option<&Link>| n.switch(link, &stop));
    let links = (options.matrix.links.as_slice(), set_link.as_ref().map(|f| f as browser::SetLink<'_>));
    let targets = servers.browser_targets(&url, links);
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
    let beside = measure::Beside { probe: probe.as_ref(), pages: pages.as_ref(), network: network.as_ref() };
    let native = measure::measure(options, &url, &stop, header, ca, beside);
    let browsers = by_engine(pages.map(|p| p.into_inner().finish()).unwrap_or_default());
    drop(servers);
    // A link that failed stopped the run as a Ctrl-C does, but the run failed: exit 1, not 130.
    let stopped_by = match network.as_ref().is_some_and(|n| n.broke()) {
        true => Stopper::Link,
        false => Stopper::User,
    };
    finish(native, browsers, (&stop, stopped_by), options, history)
}

/// The servers of a run: the embedded server (the target, and for `--browser` the page's), and for the browser
/// the targets of its HTTP/1.1 and HTTP/3 cases over TLS.
struct Servers {
    main: Option<ChildServer>,
    h1: Option<ChildServer>,
    h3: Option<ChildServer>,
}

impl Servers {
    fn start(
        options: &RunOptions,
        cpu: Option<usize>,
        results: Option<&std::path::Path>,
        network: Option<&crate::netem::Network>,
    ) -> anyhow::Result<Self> {
        let main = start_server(options, cpu, results, network)?;
        let versions = &options.matrix.http_versions;
        let (h1, h3) = match &options.browser {
            Some(_) => (
                browser::start_h1_target(options.tls, versions, cpu, network.map(|n| n.server()))?,
                browser::start_h3_target(options.tls, versions, cpu, network.map(|n| n.server()))?,
            ),
            None => (None, None),
        };
        Ok(Servers { main, h1, h3 })
    }

    /// What the browser half requests, when the run has an embedded server, over `links` (each set by the
    /// function beside them).
    fn browser_targets<'a>(
        &'a self,
        url: &'a url::Url,
        links: (&'a [Option<Link>], Option<browser::SetLink<'a>>),
    ) -> Option<browser::BrowserTargets<'a>> {
        let (h1, h3) = (self.h1.as_ref(), self.h3.as_ref());
        let (links, set_link) = links;
        self.main.as_ref().map(|server| {
            let over_link = server.url != server.control;
            browser::BrowserTargets { server, h1, h3, url, over_link, links, set_link }
        })
    }
}

/// The browser pages' reports, one per engine: each page's cases carry the link its requests crossed (this
/// process made it; the page does not know it), and an engine's pages over several links make one report, its
/// cases link after link, with the first page's environment (the same browser, started once per link). A
/// page that failed is kept apart, its link named.
fn by_engine(pages: Vec<(Engine, Option<Link>, anyhow::Result<Report>)>) -> Vec<(Engine, anyhow::Result<Report>)> {
    let mut out: Vec<(Engine, anyhow::Result<Report>)> = Vec::new();
    for (engine, link, page) in pages {
        let page = page.map(|mut report| {
            report.cases.iter_mut().for_each(|c| c.set_link(link));
            report
        });
        match (page, out.iter_mut().find(|(e, r)| *e == engine && r.is_ok())) {
            (Ok(report), Some((_, Ok(first)))) => {
                first.partial |= report.partial;
                first.cases.extend(report.cases);
            }
            (Ok(report), _) => out.push((engine, Ok(report))),
            (Err(e), _) => {
                let e = match link {
                    Some(l) => e.context(format!("over {}", l.label())),
                    None => e,
                };
                out.push((engine, Err(e)));
            }
        }
    }
    out
}

/// Who stops a run when its stop flag is set: the user (Ctrl-C, exit 130) or a failed emulated link (exit 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stopper {
    User,
    Link,
}

/// The end of a run: say it was interrupted, join the browsers' reports to the native one, print and export
/// them, and choose the exit code (130 interrupted, 1 stopped by a failed link; a browser's failure; else the report's).
fn finish(
    native: Finished,
    browsers: Vec<(Engine, anyhow::Result<Report>)>,
    (stop, stopper): (&AtomicBool, Stopper),
    options: &RunOptions,
    history: Option<crate::history::Pending>,
) -> anyhow::Result<ExitCode> {
    // A target that failed every warm-up request: one line, not tables of failures (nothing was measured).
    if let (Some(why), true) = (&native.unreachable, browsers.is_empty()) {
        eprintln!("httpbench: error: {}", why.message(&native.report.target.url));
        return Ok(ExitCode::from(1));
    }
    let interrupted = native.stopped || stop.load(std::sync::atomic::Ordering::Relaxed);
    let measured = native.report.cases.len();
    match (interrupted, stopper) {
        (true, Stopper::User) => eprintln!("httpbench: interrupted: reporting the {measured} case(s) measured so far"),
        (true, Stopper::Link) => {
            eprintln!("httpbench: the link failed: reporting the {measured} case(s) measured so far")
        }
        (false, _) => {}
    }
    // The native cases' histograms, each named by its case; the browser's report comes without any.
    let histograms = native.histograms;
    let mut reports = vec![native.report];
    let browser_failed = join_browsers(browsers, &mut reports);
    let code = emit(&reports, &histograms, options)?;
    // The result file as `--export-json` writes it, whole: the history keeps runs as their files.
    let added = history.map(|h| {
        h.add(&render(
            &reports.iter().map(Source::new).collect::<Vec<_>>(),
            httpbench_shared::Format::Json,
            &RenderOptions::default(),
        ))
    });
    let code = if added == Some(false) { ExitCode::from(1) } else { code };
    Ok(match (interrupted, browser_failed) {
        (true, _) if stopper == Stopper::Link => ExitCode::from(1),
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
/// and its results folder, `results`, are served by it). With `--link`, in the server's namespace, at its
/// address on the link.
fn start_server(
    options: &RunOptions,
    cpu: Option<usize>,
    results: Option<&std::path::Path>,
    network: Option<&crate::netem::Network>,
) -> anyhow::Result<Option<ChildServer>> {
    let mut extra: Vec<std::ffi::OsString> = Vec::new();
    if options.tls {
        // ALPN offers the versions the run asks for (clients offer only their case's version anyway); HTTP/3
        // adds QUIC on UDP of the same port.
        let http = httpbench_shared::protocol::HttpChoice::of(&options.matrix.http_versions).to_string();
        extra.extend(["--tls".into(), "--http".into(), http.into()]);
    }
    if let (Some(b), Some(results)) = (&options.browser, results) {
        // The server finds the embedded page by itself; a folder is named (the run may have been given one).
        if let crate::server::page::Page::Dir(dir) = &b.page {
            extra.extend(["--page-dir".into(), dir.clone().into_os_string()]);
        }
        extra.extend(["--results-dir".into(), results.as_os_str().to_owned()]);
    }
    Ok(match (&options.url, &options.browser) {
        (Some(_), None) => None,
        _ => Some(ChildServer::start_in(network.map(|n| n.server()), cpu, &extra)?),
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

/// Print the report (native, then browser if any), write the exports (the HTML report with `histograms`, the
/// native report's, each found by its case), and choose the exit code.
fn emit(reports: &[Report], histograms: &[CaseHistogram], options: &RunOptions) -> anyhow::Result<ExitCode> {
    let mut sources: Vec<Source<'_>> = reports.iter().map(Source::new).collect();
    if let Some(native) = sources.first_mut() {
        *native = native.with_histograms(histograms);
    }
    let render_options = RenderOptions {
        basis: options.basis,
        reference: options.reference.clone(),
        wide: options.wide,
        ..Default::default()
    };
    let text = render(&sources, options.format, &render_options);
    match options.format {
        httpbench_shared::Format::Text => output::print_report(&text)?,
        _ => output::print(&text)?,
    }
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
