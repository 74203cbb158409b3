//! The browser half of `httpbench run --browser`: which page runs it takes (one per HTTP version and load
//! combination, with the modes and levels the browser can run together) and the servers they request. Each
//! run is the page in headless Chromium ([`crate::browser`]); their reports are one. The page counts each
//! case's connections itself, from the embedded server's per-tag count.

use std::sync::atomic::AtomicBool;

use httpbench_shared::model::HttpVersion;
use httpbench_shared::protocol::{cannot_run_fresh, load_url};
use httpbench_shared::{EnvironmentKind, Mode, Report};

use crate::options::{self, Load, RunOptions};
use crate::server::child::ChildServer;
use crate::usage::Usage;
use crate::{browser, placement};

/// For `--browser --tls --http both`: a second embedded server that offers only `http/1.1` by ALPN, the
/// browser's HTTP/1.1 target (the browser takes the best protocol a server offers, and the first server then
/// offers h2 too). With one version the first server offers only that one.
pub fn start_h1_target(options: &RunOptions, cpu: Option<usize>) -> anyhow::Result<Option<ChildServer>> {
    let wanted = options.tls && options.http_versions.len() > 1;
    Ok(match &options.browser {
        Some(_) if wanted => Some(ChildServer::start(cpu, &["--tls".into(), "--http".into(), "1.1".into()])?),
        _ => None,
    })
}

/// The servers and URL the browser half requests.
pub struct BrowserTargets<'a> {
    /// The embedded server: it serves the page, saves its results, and is the target (HTTP/2 over TLS).
    pub server: &'a ChildServer,
    /// Over TLS, the server offering only HTTP/1.1.
    pub h1: Option<&'a ChildServer>,
    /// The run's target URL on `server`.
    pub url: &'a url::Url,
    /// Whether the target is the embedded server (no `--url`).
    pub embedded: bool,
}

impl BrowserTargets<'_> {
    /// The URL the page requests for `http`: over TLS the server that offers that version alone.
    fn target(&self, http: HttpVersion) -> url::Url {
        match (http, self.h1) {
            (HttpVersion::Http11, Some(h1)) => h1.url.join(self.url.path()).unwrap_or_else(|_| h1.url.clone()),
            _ => self.url.clone(),
        }
    }

    /// The SPKI pins of the servers' keys, for Chromium to accept (over TLS).
    fn pins(&self) -> Vec<String> {
        [Some(self.server), self.h1].into_iter().flatten().filter_map(|s| s.pin.clone()).collect()
    }
}

/// Where Chromium runs for `--browser` (Linux), relative to the server: among `allowed`, the CPUs this
/// process could use before it pinned itself.
pub fn place_browser(
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
pub struct BrowserPlacement {
    pin: httpbench_shared::model::Pin,
    cpus: Vec<usize>,
    server_cpus: Option<Vec<usize>>,
}

/// The browser half of `run --browser`: the page in headless Chromium, on our server, same plan; the browser
/// report records where Chromium ran.
///
/// The page runs once per HTTP version (over TLS each against the target that offers that version alone: the
/// browser negotiates by ALPN, so the listener decides the protocol) and per body size and server delay (it
/// requests the target as given), and the runs are one report.
pub fn run_browser(
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
    for spec in page_runs(&versions, &options.modes, &options.load, &mut skipped) {
        let http = spec.http;
        let base = targets.target(http);
        let loaded = load_url(base.as_str(), spec.body_bytes, spec.server_delay_ms);
        // The embedded server's URL with a path and a query added: it parses.
        let target = url::Url::parse(&loaded).unwrap_or(base);
        let page = browser::PageRun {
            server: &targets.server.url,
            target: &target,
            plan: &options.plan,
            clients: &b.clients,
            modes: &spec.modes,
            concurrency: &spec.concurrency,
            server_delay_ms: spec.server_delay_ms.unwrap_or(0),
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
        // The page requested the loaded target as given; the case records what it asked of the server.
        for case in &mut report.cases {
            (case.body_bytes, case.server_delay_ms) = (spec.body_bytes, spec.server_delay_ms);
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
    // The target as the run names it, not as the first page run loaded it (`/bytes/0?delay_ms=5`).
    report.target = httpbench_shared::Target { url: targets.url.to_string(), embedded_server: targets.embedded };
    report.settings.modes = options.modes.clone();
    report.settings.skipped.extend(b.clients.iter().flat_map(|c| skipped.iter().map(move |s| format!("{c}/{s}"))));
    if let Some(p) = placed {
        report.environment.placement = Some(placement::record(p.pin, run_cpus, p.server_cpus));
    }
    Ok(report)
}

/// One run of the page: an HTTP version, the modes and levels it runs together, and the load it asks of the
/// embedded server (the page requests the target as given, so each body size and delay is a run).
struct PageSpec {
    http: HttpVersion,
    modes: Vec<Mode>,
    concurrency: Vec<u32>,
    body_bytes: Option<u64>,
    server_delay_ms: Option<u64>,
}

/// The page runs of a browser half: one per HTTP version (over TLS each against the target that offers that
/// version alone) and body size and server delay, with the modes and levels it can run; fresh mode at levels
/// the browser cannot run it at (over HTTP/2, more than one request in flight) gets a page run of its own at
/// the levels it can, and a line in `skipped` (`fresh over HTTP/2 at concurrency 8 (reason)`) for each level
/// left out.
fn page_runs(versions: &[HttpVersion], modes: &[Mode], load: &Load, skipped: &mut Vec<String>) -> Vec<PageSpec> {
    let levels = &load.concurrency;
    let mut parts: Vec<(HttpVersion, Vec<Mode>, Vec<u32>)> = Vec::new();
    for &http in versions {
        let can = |c: &u32| cannot_run_fresh(EnvironmentKind::Browser, http, *c).is_none();
        if !modes.contains(&Mode::Fresh) || levels.iter().all(can) {
            parts.push((http, modes.to_vec(), levels.to_vec()));
            continue;
        }
        for &c in levels.iter().filter(|c| !can(c)) {
            let reason = cannot_run_fresh(EnvironmentKind::Browser, http, c).unwrap_or_default();
            skipped.push(format!("fresh over {http} at concurrency {c} ({reason})"));
        }
        let others: Vec<Mode> = modes.iter().copied().filter(|m| *m != Mode::Fresh).collect();
        if !others.is_empty() {
            parts.push((http, others, levels.to_vec()));
        }
        let fresh_levels: Vec<u32> = levels.iter().copied().filter(can).collect();
        if !fresh_levels.is_empty() {
            parts.push((http, vec![Mode::Fresh], fresh_levels));
        }
    }
    let mut runs = Vec::new();
    for (http, modes, concurrency) in parts {
        for &body_bytes in &load.body_sizes {
            for &server_delay_ms in &load.server_delays_ms {
                let (modes, concurrency) = (modes.clone(), concurrency.clone());
                runs.push(PageSpec { http, modes, concurrency, body_bytes, server_delay_ms });
            }
        }
    }
    runs
}
