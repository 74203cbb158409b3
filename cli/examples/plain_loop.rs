//! bench-perf figure 6, its second half: the page's own `js-fetch` client against a plain JavaScript fetch loop
//! written outside the page (`bench/plain-loop.html`: no WebAssembly, no Leptos, nothing but the loop), in the
//! same browser, started as `run --browser` starts it (the same flags, the same Firefox profile prefs), on one
//! `httpbench serve` that serves both pages and is their target. The two alternate, A B A B, each in a fresh
//! browser process, so drift of the machine lands on both; the ratio is the median of the pairs' ratios.
//!
//! usage: cargo run --release -p httpbench --example plain_loop -- ENGINE [PAIRS] [REQUESTS]
//!   ENGINE chromium, firefox or webkit; PAIRS of runs (default 3); REQUESTS per mode and run (default 2000, in 10
//!   rounds after 50 warm-up requests, as figure 6). Needs the built page in ./dist (or HTTPBENCH_PAGE_DIST)
//!   and the release binary beside this example (cargo builds both).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use anyhow::{bail, Context};
use httpbench::browser::{find, Launch, ENGINES};
use httpbench::process::KillOnDrop;
use httpbench_shared::model::Mode;
use httpbench_shared::parse::parse_reports;

const PLAIN_LOOP: &str = include_str!("../../bench/plain-loop.html");
const ROUNDS: u64 = 10;
const WARMUP: u64 = 50;
/// How long one run may take before the bench gives up on it.
const RUN_LIMIT: Duration = Duration::from_secs(300);

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let named = |name: &str| ENGINES.iter().map(|e| e.id()).find(|e| e.as_str() == name);
    let Some(engine) = args.first().and_then(|a| named(a)) else {
        let names: Vec<&str> = ENGINES.iter().map(|e| e.id().as_str()).collect();
        bail!("ENGINE {:?} must be one of {}", args.first(), names.join(", "));
    };
    let number = |i: usize, default: u64, name: &str| -> anyhow::Result<u64> {
        args.get(i).map_or(Ok(default), |a| a.parse().with_context(|| format!("{name} '{a}' is not a number")))
    };
    let (pairs, requests) = (number(1, 3, "PAIRS")?, number(2, 2000, "REQUESTS")?);
    if !(1..=20).contains(&pairs) || !(ROUNDS..=100_000).contains(&requests) {
        bail!("PAIRS must be 1 to 20 and REQUESTS {ROUNDS} to 100000");
    }
    let binary = find(engine, None).map_err(anyhow::Error::msg)?;
    let pages = pages_dir()?;
    let (_server, url, lines) = serve(pages.path())?;
    let plan = format!("target={url}&n={requests}&rounds={ROUNDS}&warmup={WARMUP}");
    let page = format!("{url}app/?{plan}&clients=js-fetch&mode=both&interleave=1&autorun=1");
    let plain = format!("{url}app/plain-loop.html?{plan}&mode=fresh,reuse");
    println!("js-fetch (the page) vs a plain JavaScript loop in headless {engine}, {pairs} pairs of {requests} requests per mode:");
    let mut ratios: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for pair in 0..pairs {
        let launch = Launch { binary: &binary, cpus: None, certs: Default::default(), quic_origins: &[] };
        // Alternate which goes first, so neither always follows the other.
        let order = if pair % 2 == 0 { [true, false] } else { [false, true] };
        let mut rates = [[0.0; 2]; 2];
        for in_page in order {
            let url = if in_page { &page } else { &plain };
            rates[usize::from(!in_page)] = one_run(&launch, url, &lines, in_page)?;
        }
        let [page_rates, plain_rates] = rates;
        for (m, mode) in ["fresh", "reuse"].iter().enumerate() {
            let ratio = page_rates[m] / plain_rates[m];
            ratios[m].push(ratio);
            println!(
                "  pair {}: {mode}: js-fetch {:.0} req/s, plain loop {:.0} req/s, ratio {ratio:.2}",
                pair + 1,
                page_rates[m],
                plain_rates[m]
            );
        }
    }
    for (m, mode) in ["fresh", "reuse"].iter().enumerate() {
        println!("  {mode}: median ratio js-fetch / plain loop {:.2} (goal >= 0.95)", median(&mut ratios[m]));
    }
    Ok(())
}

/// A copy of the built page with the plain loop beside it, so one server serves both from one origin.
fn pages_dir() -> anyhow::Result<tempfile::TempDir> {
    let dist = std::env::var_os("HTTPBENCH_PAGE_DIST").map_or_else(|| PathBuf::from("dist"), PathBuf::from);
    if !dist.join("index.html").is_file() {
        bail!("no built page in {}: run scripts/build-page.sh", dist.display());
    }
    let dir = tempfile::tempdir()?;
    copy_tree(&dist, dir.path())?;
    std::fs::write(dir.path().join("plain-loop.html"), PLAIN_LOOP)?;
    Ok(dir)
}

/// Copy the files and folders of `from` into `to` (the page's JavaScript snippets are in a folder).
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let (entry, kind) = entry.and_then(|e| e.file_type().map(|k| (e, k)))?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            std::fs::create_dir_all(&target)?;
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// `httpbench serve --quiet` on `pages` (the release binary beside this example), its URL, and its stdout's
/// lines after the address.
fn serve(pages: &Path) -> anyhow::Result<(KillOnDrop, String, Receiver<String>)> {
    let exe = std::env::current_exe()?;
    let bin = exe.parent().and_then(Path::parent).map(|d| d.join("httpbench")).context("no target folder")?;
    let results = pages.join("results");
    let mut cmd = Command::new(&bin);
    cmd.args(["serve", "--port", "0", "--quiet", "--page-dir"]).arg(pages).arg("--results-dir").arg(&results);
    cmd.stdin(Stdio::null()).stdout(Stdio::piped());
    let mut server = KillOnDrop::spawn(&mut cmd).with_context(|| format!("cannot start {}", bin.display()))?;
    let mut stdout = BufReader::new(server.stdout.take().context("no stdout")?);
    let mut first = String::new();
    stdout.read_line(&mut first)?;
    let url = first.trim().strip_prefix("listening on ").context("the server did not start")?.to_string();
    let (tx, lines) = channel();
    std::thread::spawn(move || stdout.lines().map_while(Result::ok).try_for_each(|l| tx.send(l)));
    Ok((server, url, lines))
}

/// One run in a fresh browser process: the page's (`in_page`: its result file) or the plain loop's (its
/// status line); the wall rates of fresh and reuse.
fn one_run(launch: &Launch<'_>, url: &str, lines: &Receiver<String>, in_page: bool) -> anyhow::Result<[f64; 2]> {
    let profile = tempfile::tempdir()?;
    let _browser = launch.start(url, profile.path(), &profile.path().join("browser.log"))?.browser;
    loop {
        let line = lines.recv_timeout(RUN_LIMIT).context("no result within the limit")?;
        if in_page {
            if let Some(path) = line.strip_prefix("saved - ") {
                return page_rates(Path::new(path));
            }
        } else if let Some(said) = line.strip_prefix("page - progress plain-loop ") {
            return plain_rates(said);
        }
    }
}

/// The page's js-fetch rates from the result file it posted.
fn page_rates(file: &Path) -> anyhow::Result<[f64; 2]> {
    let reports = parse_reports(&std::fs::read_to_string(file)?)?;
    let rate = |mode: Mode| {
        let case = reports.iter().flat_map(|r| &r.cases).find(|c| c.client == "js-fetch" && c.mode == mode);
        case.map(|c| c.rate_wall).context("no js-fetch case in the page's result")
    };
    Ok([rate(Mode::Fresh)?, rate(Mode::Reuse)?])
}

/// The plain loop's rates from its line (`fresh=RATE reuse=RATE`).
fn plain_rates(said: &str) -> anyhow::Result<[f64; 2]> {
    let rate = |mode: &str| {
        let value = said.split(' ').find_map(|kv| kv.strip_prefix(&format!("{mode}=")));
        value.and_then(|v| v.parse().ok()).with_context(|| format!("the plain loop said: {said}"))
    };
    Ok([rate("fresh")?, rate("reuse")?])
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}
