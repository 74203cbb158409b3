//! The native half of a run: one shared session over the run's matrix, a driver (a pool) for each case, the
//! embedded server's counters read per case by its tag, run by the runner to the end or to a Ctrl-C.

use std::cell::RefCell;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use httpbench_shared::clock::SystemClock;
use httpbench_shared::session::{Finished, Header, Session};

use crate::options::RunOptions;
use crate::{browser, clients, cpu, progress, runner, server};

/// What a run's native half works beside: the embedded server's counters, the browsers' pages taking turns
/// with it, the emulated link (`--link`); each `None` where the run has none.
pub(super) struct Beside<'a, 'p> {
    pub probe: Option<&'a server::probe::Probe>,
    pub pages: Option<&'a RefCell<browser::Pages<'p>>>,
    pub network: Option<&'a crate::netem::Network>,
}

/// A session of every (client, mode, HTTP version) case, a driver for each, run to the end (or to a Ctrl-C).
/// Command clients are started first (each waits for its adapter to be ready) and report their versions as
/// they go.
pub(super) fn measure(
    options: &RunOptions,
    url: &url::Url,
    stop: &AtomicBool,
    mut header: Header,
    cacert: Option<Arc<crate::tls::CaFile>>,
    beside: Beside<'_, '_>,
) -> Finished {
    let Beside { probe, pages, network } = beside;
    // The options' matrix: over TLS exactly when `url` is https (an https URL, or the embedded server with --tls).
    let matrix = options.matrix.clone();
    let mut session = Session::new(options.plan, matrix, Some(options.timeout));
    if pages.is_some() {
        session.take_turns();
    }
    let progress = progress::Progress::new(session.measured_requests(), options.progress);
    // The embedded server counts each case's connections by the tag its requests carry, as the page's are;
    // an external server, none.
    let run_id = random_run_id();
    let tags: Vec<String> = session.cases().iter().enumerate().map(|(i, key)| key.tag(i, run_id)).collect();
    let cases = Cases { options, url, cacert, tags: probe.map(|_| tags.as_slice()) };
    let (mut pools, unable) = cases.pools(&session, stop, &progress);
    let clock = SystemClock::new();
    // The clients' CPU: this process's, less what the emulated link's threads in it used.
    let cpu = || cpu::since(network.map(|n| n.cpu()), cpu::process_cpu()).or_else(cpu::process_cpu);
    let read_handshakes = probe.filter(|p| p.is_tls()).map(|p| move || p.handshakes());
    let handshakes = read_handshakes.as_ref().map(|f| f as &dyn Fn() -> _);
    let read_connections = probe.map(|p| move |case: usize| p.connections_of(&tags[case]));
    let connections = read_connections.as_ref().map(|f| f as &dyn Fn(usize) -> _);
    let native_turn = pages.map(|p| move |pass, progress: &_| p.borrow_mut().native_turn(pass, progress));
    let turn = native_turn.as_ref().map(|f| f as runner::TakeTurn<'_>);
    let links: Vec<_> = session.cases().iter().map(|k| k.link).collect();
    let set_link = network.map(|n| move |case: usize| n.switch(links[case].as_ref(), stop));
    let before = set_link.as_ref().map(|f| f as &dyn Fn(usize));
    let take_counts = network.map(|n| {
        move || {
            n.check(stop);
            n.take_counts()
        }
    });
    let link_counts = take_counts.as_ref().map(|f| f as &dyn Fn() -> _);
    let instruments =
        runner::Instruments { clock: &clock, cpu: &cpu, stop, handshakes, connections, turn, before, link_counts };
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

/// 53 random bits, as the page's: the server counts per tag for its whole life, so each run tags its cases
/// anew, and another program cannot guess a tag to add connections to a case's count (the run's start in ms
/// could be).
fn random_run_id() -> u64 {
    let mut bytes = [0u8; 8];
    // The OS's random source failing is no reason to stop a run: its tags are then merely guessable.
    let _ = ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes);
    u64::from_le_bytes(bytes) >> 11
}

/// What each case's pool is made from: the run's options and URL, the CA to trust, and the cases' tags when the
/// embedded server counts them.
struct Cases<'a> {
    options: &'a RunOptions,
    url: &'a url::Url,
    cacert: Option<Arc<crate::tls::CaFile>>,
    tags: Option<&'a [String]>,
}

impl Cases<'_> {
    /// A pool for each case of `session`, and a line for each (client, version) this build's client cannot
    /// speak (its cases get a pool that makes no request, so the session leaves them out). Command clients are
    /// started here, each waiting for its adapter to be ready.
    fn pools(
        &self,
        session: &Session,
        stop: &AtomicBool,
        progress: &progress::Progress,
    ) -> (Vec<Box<dyn clients::Pool>>, Vec<String>) {
        let targets = httpbench_shared::session::Targets::one(self.url.as_str());
        let (mut pools, mut unable): (Vec<Box<dyn clients::Pool>>, Vec<String>) = (Vec::new(), Vec::new());
        for (i, key) in session.cases().into_iter().enumerate() {
            // Every case's client is one of the options' clients: the matrix was made from their names.
            let Some(client) = self.options.clients.iter().find(|c| c.name() == key.client) else {
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
            let target = match self.tags.and_then(|tags| tags.get(i)) {
                Some(tag) => httpbench_shared::protocol::tagged_url(&targets.of_case(key), tag),
                None => targets.of_case(key),
            };
            let config = clients::DriverConfig {
                // The embedded server's own URL with a path and a query added: it parses.
                url: url::Url::parse(&target).unwrap_or_else(|_| self.url.clone()),
                mode: key.mode,
                timeout: self.options.timeout,
                cacert: self.cacert.clone(),
                http: key.http,
            };
            pools.push(client.driver(&config, key.concurrency as usize, stop, &progress.printer()));
        }
        (pools, unable)
    }
}
