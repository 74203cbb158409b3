//! The browser half of `run --browser` as sides of one run with the native clients: every engine's page is
//! started at once, each runs the whole plan in its own session and waits at each pass for its turn, and
//! [`Pages`] hands the turns out with shared's [`Turns`]: the native clients (side 0, driven by the CLI's
//! runner, which calls [`Pages::native_turn`] at each of its passes) first, then each engine in the order
//! named. So round r of every side runs before round r + 1 of any, one side at a time, and drift of the
//! machine hits native and browser cases alike. Without interleaving each side's plan is one pass: the sides
//! run whole, one after another, as before.
//!
//! With `--link` scanning several links, each engine has a page per link, each a side of its own: the link is
//! set to a side's before it is let go (the native clients set each case's before its round), so every case,
//! native or browser, runs over its own link and the links interleave as the sides do.
//!
//! Every wait is bounded: a busy page (starting, warming up, running its pass) that says nothing for
//! [`page::silence_limit`] fails with what it last said; a waiting page is silent by design. A page that
//! fails, exits or refuses its plan is done: the others go on and keep their turns.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use anyhow::Context;
use httpbench_shared::model::Engine;
use httpbench_shared::protocol::{seal_fragment, Link, PageStatus};
use httpbench_shared::session::{check_answer, Asked, Matrix, Plan, Turns};
use httpbench_shared::Report;

use super::engine::{tail, BrowserEngine, Launch, ServerCerts, Started};
use super::options::BrowserOptions;
use super::page;
use super::placement::BrowserPlacement;
use super::targets::{BrowserTargets, SetLink};
use crate::process::KillOnDrop;
use crate::progress::Progress;
use crate::server::spawned::{ChildServer, ServerEvent};
use crate::usage::Usage;

/// One engine's page run (over one link, with `--link`).
struct PageRun {
    engine: &'static dyn BrowserEngine,
    /// The page's id at the server: its engine's name, and with several links the link's number after it.
    id: String,
    /// The link its requests cross, set before each of its turns.
    link: Option<Link>,
    /// Its browser, until the page is done (then ended by its engine, however the run ends).
    browser: Option<KillOnDrop>,
    /// The browser's own version as its start-up reported it, where its user agent does not carry it.
    version: Option<String>,
    /// Its profile folder (the log inside it), removed with the run; none for a browser that never started.
    _profile: Option<tempfile::TempDir>,
    /// Its log.
    log: PathBuf,
    /// The CPUs the browser could run on, read back after it started (Linux).
    cpus: Option<Vec<usize>>,
    /// When it last spoke, and what it said.
    heard: (Instant, String),
    /// The last pass it was let go for.
    granted: Option<u32>,
    /// Its report, or why it has none, once it is done.
    outcome: Option<anyhow::Result<Report>>,
}

impl PageRun {
    fn id(&self) -> &str {
        &self.id
    }

    fn heard(&mut self, what: String) {
        self.heard = (Instant::now(), what);
    }

    /// Its browser, if still running, ended by its engine.
    fn end_browser(&mut self) {
        if let Some(browser) = self.browser.take() {
            self.engine.end(browser);
        }
    }
}

impl Drop for PageRun {
    fn drop(&mut self) {
        self.end_browser();
    }
}

/// The pages of one run and whose turn it is.
pub struct Pages<'a> {
    server: &'a ChildServer,
    set_link: Option<SetLink<'a>>,
    pages: Vec<PageRun>,
    /// Side 0 is the native clients; side `i + 1` is `pages[i]`.
    turns: Turns,
    placed: Option<BrowserPlacement>,
    limit: Duration,
    /// What every page was asked to run (a matrix per page): its report must answer it (shared's
    /// `check_answer`).
    asked: (Plan, Vec<Matrix>, Duration),
    progress: bool,
    stop: &'a AtomicBool,
}

impl<'a> Pages<'a> {
    /// Start every engine of `b` on the page with the run's whole plan (`plan`, each request's `timeout`, over
    /// the engine's matrix of `b`), once per link of the targets' (`[None]` without `--link`),
    /// named by its engine (and link) and sealed (every page's seal is given to the server
    /// before any browser starts, so no page's word is heard while another is sealed). An engine that cannot
    /// start is done at once, with the reason. `progress`: whether a progress bar may be shown.
    pub fn start(
        b: &BrowserOptions,
        plan: &Plan,
        timeout: Duration,
        targets: &BrowserTargets<'a>,
        placed: Option<BrowserPlacement>,
        progress: bool,
        stop: &'a AtomicBool,
    ) -> Self {
        let (links, set_link) = (targets.links, targets.set_link);
        let (pins, cas, leaves) = (targets.pins(), targets.cas(), targets.leaves());
        let certs = ServerCerts { spki_pins: &pins, cas: &cas, leaves: &leaves };
        let cpus = placed.as_ref().map(|p| p.cpus.as_slice());
        let mut pages = Vec::new();
        let sides: Vec<_> = (b.binaries.iter().zip(&b.matrices))
            .flat_map(|side| links.iter().enumerate().map(move |link| (side, link)))
            .collect();
        let mut turns = Turns::new(sides.len() + 1);
        let ids: Vec<String> = (sides.iter())
            .map(|((binary, _), (l, _))| match links.len() {
                1 => binary.id().as_str().to_string(),
                _ => format!("{}-{}", binary.id().as_str(), l + 1),
            })
            .collect();
        let seals: Vec<anyhow::Result<String>> = ids.iter().map(|id| targets.server.seal(id)).collect();
        let mut matrices = Vec::new();
        for (i, (((binary, matrix), (_, link)), (id, seal))) in
            sides.into_iter().zip(ids.into_iter().zip(seals)).enumerate()
        {
            let engine = binary.engine();
            let (targets_of_cases, quic_origins) = (targets.targets(engine), targets.quic_origins(engine));
            let page_plan = page::PagePlan { plan, matrix, targets: &targets_of_cases, timeout };
            let launch = Launch { binary, cpus, certs, quic_origins: &quic_origins };
            let url = seal.map(|s| page_plan.url(&targets.server.control, &id) + &seal_fragment(&s));
            let run =
                url.and_then(|url| start_page(&launch, &url, id.clone())).unwrap_or_else(|e| failed(engine, id, e));
            if run.outcome.is_some() {
                turns.done(i + 1);
            }
            let mut run = run;
            run.link = *link;
            pages.push(run);
            matrices.push(matrix.clone());
        }
        let limit = page::silence_limit(timeout);
        let asked = (*plan, matrices, timeout);
        Pages { server: targets.server, set_link, pages, turns, placed, limit, asked, progress, stop }
    }

    /// The native clients wait at pass `pass`: hand out the turns until theirs comes (or the run is stopped).
    /// `progress` hears the pages' progress meanwhile.
    pub fn native_turn(&mut self, pass: u32, progress: &Progress) {
        self.turns.waiting(0, pass);
        self.drive(progress, true);
    }

    /// The native clients are done: run every page to its end; each page's engine, link and report, or why it
    /// has none.
    pub fn finish(mut self) -> Vec<(Engine, Option<Link>, anyhow::Result<Report>)> {
        self.turns.done(0);
        let progress = Progress::stages(self.progress);
        self.drive(&progress, false);
        progress.finish();
        let interrupted = || Err(anyhow::anyhow!("interrupted before the browser cases finished"));
        // Each browser still running is ended as its page run is dropped.
        (self.pages.into_iter())
            .map(|mut p| (p.engine.id(), p.link, p.outcome.take().unwrap_or_else(interrupted)))
            .collect()
    }

    /// Hand out turns and hear the pages until the native clients' turn comes (`for_native`) or every page is
    /// done. Bounded by each busy page's silence, each browser's exit and the stop flag.
    fn drive(&mut self, progress: &Progress, for_native: bool) {
        loop {
            // Stopped (Ctrl-C): nobody is let go any more; the caller reports what was measured.
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            while let Some((side, pass)) = self.turns.grant() {
                if side == 0 {
                    return;
                }
                let page = &mut self.pages[side - 1];
                if let Some(set) = self.set_link {
                    set(page.link.as_ref());
                    // A link that could not be set, or failed, stopped the run: no pass over another link.
                    if self.stop.load(Ordering::Relaxed) {
                        return;
                    }
                }
                match self.server.let_go(page.id(), pass) {
                    Ok(()) => {
                        page.granted = Some(pass);
                        page.heard(format!("its turn at pass {}", pass + 1));
                    }
                    Err(e) => self.fail(side, e),
                }
            }
            if !for_native && self.turns.all_done() {
                return;
            }
            // The wake-up only bounds how soon a Ctrl-C, a browser's exit or a page's silence is noticed.
            match self.server.events().recv_timeout(Duration::from_millis(250)) {
                Ok(event) => self.hear(event, progress),
                Err(RecvTimeoutError::Disconnected) => {
                    for side in 1..=self.pages.len() {
                        self.fail(side, anyhow::anyhow!("the embedded server exited before the page finished"));
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            self.check_browsers();
        }
    }

    /// Take one word of the server's about a page.
    fn hear(&mut self, event: ServerEvent, progress: &Progress) {
        let side = |pages: &[PageRun], id: &str| pages.iter().position(|p| p.id() == id).map(|i| i + 1);
        match event {
            ServerEvent::Turn { page, pass } => {
                let Some(s) = side(&self.pages, &page) else { return };
                // A request that asked again for a pass already let go is no new wait.
                if self.pages[s - 1].granted.is_none_or(|g| pass > g) {
                    self.turns.waiting(s, pass);
                    self.pages[s - 1].heard(format!("waiting for its turn at pass {}", pass + 1));
                }
            }
            ServerEvent::Page { page: Some(page), status } => {
                let Some(s) = side(&self.pages, &page) else { return };
                match status {
                    PageStatus::Progress(stage) => {
                        progress.stage(&format!("{page}: {stage}"));
                        self.pages[s - 1].heard(stage);
                    }
                    PageStatus::Refused(reason) => {
                        self.fail(s, Usage(format!("the page refused the plan: {reason}")).into());
                    }
                }
            }
            ServerEvent::Saved { page: Some(page), file } => {
                let Some(s) = side(&self.pages, &page) else { return };
                let report =
                    page::browser_report(&file).and_then(|report| self.answers(s, report)).map(|mut report| {
                        // What the run knows of the browser beside the page's word: its version, where it is.
                        report.environment.browser_version.clone_from(&self.pages[s - 1].version);
                        if let Some(p) = &self.placed {
                            let cpus = self.pages[s - 1].cpus.clone();
                            report.environment.placement =
                                Some(crate::placement::record(p.pin, cpus, p.server_cpus.clone()));
                        }
                        report
                    });
                self.end(s, report);
            }
            // A page that names itself by no id was not started by this run; seals were confirmed at the start.
            ServerEvent::Page { page: None, .. }
            | ServerEvent::Saved { page: None, .. }
            | ServerEvent::Sealed { .. } => {}
        }
    }

    /// Page `side`'s report, if it answers the plan the page was given; else why not (nothing of it is
    /// reported: its figures would stand as the run's).
    fn answers(&self, side: usize, report: Report) -> anyhow::Result<Report> {
        let (plan, matrices, timeout) = &self.asked;
        let matrix = &matrices[side - 1];
        let engine = self.pages[side - 1].engine.id();
        let asked = Asked { plan, matrix, timeout: Some(*timeout), engine: Some(engine) };
        match check_answer(&report, &asked) {
            Ok(()) => Ok(report),
            Err(why) => anyhow::bail!("the {engine} page posted a result that does not answer the run's plan: {why}"),
        }
    }

    /// Fail each page whose browser exited, or that is busy and said nothing for too long.
    fn check_browsers(&mut self) {
        for side in 1..=self.pages.len() {
            let page = &mut self.pages[side - 1];
            let name = page.id().to_string();
            let Some(browser) = page.browser.as_mut() else { continue };
            let error = match browser.try_wait() {
                Ok(Some(status)) => Some(format!("{name} exited ({status}) before the page finished")),
                Err(e) => Some(format!("cannot watch {name}: {e}")),
                Ok(None) if self.turns.is_busy(side) && page.heard.0.elapsed() > self.limit => {
                    Some(format!("the page said nothing for {} s (last: {})", self.limit.as_secs(), page.heard.1))
                }
                Ok(None) => None,
            };
            if let Some(error) = error {
                let log = tail(&page.log);
                self.fail(side, anyhow::anyhow!("{error}; {name}'s log:\n{log}"));
            }
        }
    }

    /// Page `side` failed with `error` (the first failure is kept).
    fn fail(&mut self, side: usize, error: anyhow::Error) {
        self.end(side, Err(error));
    }

    /// Page `side` is done with `outcome` (the first outcome is kept): its browser is stopped, and it takes no
    /// more turns.
    fn end(&mut self, side: usize, outcome: anyhow::Result<Report>) {
        let page = &mut self.pages[side - 1];
        if page.outcome.is_none() {
            page.outcome = Some(outcome);
        }
        page.end_browser();
        self.turns.done(side);
    }
}

/// Start `launch`'s browser on `url`, in a fresh profile of its own, as page `id`.
fn start_page(launch: &Launch<'_>, url: &str, id: String) -> anyhow::Result<PageRun> {
    let engine = launch.binary.engine();
    let name = engine.id();
    // This user's alone (0700): the start page in it carries the page's seal.
    let profile = tempfile::Builder::new()
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .tempdir()
        .with_context(|| format!("cannot create a {name} profile folder"))?;
    let log = profile.path().join(format!("{name}.log"));
    let Started { browser, version } = launch.start(url, profile.path(), &log)?;
    let cpus = crate::placement::process_cpus(browser.id()).ok();
    let heard = (Instant::now(), "nothing yet".to_string());
    let _profile = Some(profile);
    let browser = Some(browser);
    Ok(PageRun { engine, id, link: None, browser, version, _profile, log, cpus, heard, granted: None, outcome: None })
}

/// Page `id` of `engine`, which never started, for `error`.
fn failed(engine: &'static dyn BrowserEngine, id: String, error: anyhow::Error) -> PageRun {
    let heard = (Instant::now(), String::new());
    let outcome = Some(Err(error));
    let (log, link, granted) = (PathBuf::new(), None, None);
    let (browser, version, _profile, cpus) = (None, None, None, None);
    PageRun { engine, id, link, browser, version, _profile, log, cpus, heard, granted, outcome }
}
