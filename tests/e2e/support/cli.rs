//! The `httpbench` binary under test: run with a time limit and its output read back ([`run`], [`run_json`],
//! [`export_run`]), or watched for its peak memory ([`run_bounded`]).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The `httpbench` binary built for these tests.
pub(crate) fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_httpbench"))
}

/// Run `httpbench ARGS` with a time limit, returning (exit code, stdout, stderr).
pub(crate) fn run(args: &[&str]) -> (i32, String, String) {
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_httpbench"))
        .args(args)
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(120))
        .output()
        .expect("httpbench runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run and parse stdout as the JSON result file.
pub(crate) fn run_json(args: &[&str]) -> (i32, Value, String) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let (code, out, err) = run(&all);
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{out}\nstderr:\n{err}"));
    (code, v, err)
}

/// A small, quick run: 5 requests of the raw client in reuse mode, no warm-up.
pub(crate) const SMALL_RAW: [&str; 8] = ["-n", "5", "--warmup", "0", "--clients", "raw", "--mode", "reuse"];

/// Run `httpbench` with `args`, exporting the result file to `path` (stdout in CSV), check that it succeeded,
/// and return the file's text.
pub(crate) fn export_run(path: &Path, args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.extend(["--format", "csv", "--export-json", path.to_str().unwrap()]);
    let (code, _, err) = run(&all);
    assert_eq!(code, 0, "{err}");
    std::fs::read_to_string(path).unwrap()
}

/// The cases of a result file.
pub(crate) fn cases(v: &Value) -> &Vec<Value> {
    v["cases"].as_array().expect("cases is an array")
}

/// What [`run_bounded`] saw: exit code, stdout, stderr, the peak memory of the process in MiB, and its time.
pub(crate) struct Bounded {
    pub code: i32,
    pub out: String,
    pub err: String,
    pub peak_mib: i64,
    pub took: Duration,
}

/// Run `httpbench ARGS` for at most `secs` seconds (killed then, code -9), with its peak memory: for inputs
/// that once grew without end (`/dev/zero`, a matrix of 55,000 cases). The peak is the largest `VmHWM` seen
/// in `/proc` while it ran, not wait4's `ru_maxrss`: a spawned child's `ru_maxrss` starts from the test
/// process's own high-water mark (the kernel keeps it across exec), which other tests here push up.
pub(crate) fn run_bounded(args: &[&str], secs: u64) -> Bounded {
    let start = Instant::now();
    // Reaped below with waitpid, sampling its peak memory while it runs; Child::wait would block.
    #[allow(clippy::zombie_processes)]
    let mut child = bin()
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("httpbench runs");
    let drain = |mut r: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut text = Vec::new();
            let _ = r.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let pid = child.id() as i32;
    let (mut status, mut killed, mut peak_kib) = (0, false, 0);
    loop {
        peak_kib = peak_kib.max(high_water_kib(pid));
        // SAFETY: our own child's pid; WNOHANG returns at once.
        let got = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if got == pid {
            break;
        }
        if !killed && start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            killed = true;
        }
        thread::sleep(Duration::from_millis(10));
    }
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -libc::WTERMSIG(status) };
    Bounded {
        code,
        out: out.join().unwrap(),
        err: err.join().unwrap(),
        peak_mib: peak_kib / 1024,
        took: start.elapsed(),
    }
}

/// `VmHWM` of a running process in KiB (0 once it has ended).
fn high_water_kib(pid: i32) -> i64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap_or("0 kB");
    line.trim().trim_end_matches("kB").trim().parse().unwrap_or(0)
}
