//! Runs the cases: for each (client, mode), warm up, then time every request and hand the outcomes to the
//! shared recorder. The runner does only clock reads around each request, so it adds nothing but those.

use std::time::Instant;

use httpbench_shared::{Case, ErrorKind, Mode, Outcome, Recorder};
use url::Url;

use crate::clients::{ClientKind, DriverConfig};
use crate::cpu;
use crate::options::RunOptions;
use crate::progress::Progress;

/// How often the progress bar is updated, in requests (a power of two minus one, used as a mask).
const PROGRESS_MASK: u64 = 63;

/// Run every (client, mode) case against `url`, clients in the order given, fresh before reuse.
pub fn run_all(options: &RunOptions, url: &Url) -> Vec<Case> {
    let mut cases = Vec::new();
    for &client in &options.clients {
        for &mode in &options.modes {
            cases.push(run_case(options, url, client, mode));
        }
    }
    cases
}

/// One case. A client that cannot even be set up yields a case whose requests all failed (kind `other`),
/// so the other cases still run and the report shows what happened.
pub fn run_case(options: &RunOptions, url: &Url, client: ClientKind, mode: Mode) -> Case {
    let config = DriverConfig { url: url.clone(), mode, timeout: options.timeout };
    let label = format!("{client}/{mode}");
    let mut recorder = Recorder::new();
    let mut driver = match client.driver(&config) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("httpbench: {label}: cannot set up the client: {e:#}");
            for _ in 0..options.count {
                recorder.record(&Outcome::failed(ErrorKind::Other, None), Default::default());
            }
            return recorder.finish(client.name(), mode, Default::default(), None);
        }
    };
    let progress = Progress::new(&label, options.warmup + options.count, options.progress);
    for i in 0..options.warmup {
        driver.request();
        if i & PROGRESS_MASK == 0 {
            progress.set(i);
        }
    }
    let cpu_start = cpu::process_cpu();
    let start = Instant::now();
    for i in 0..options.count {
        let t0 = Instant::now();
        let outcome = driver.request();
        recorder.record(&outcome, t0.elapsed());
        if i & PROGRESS_MASK == 0 {
            progress.set(options.warmup + i);
        }
    }
    let wall = start.elapsed();
    let cpu = cpu::since(cpu_start, cpu::process_cpu());
    progress.finish();
    recorder.finish(client.name(), mode, wall, cpu)
}
