//! The adapter's process: started with its pipes, its stderr shown as its messages (the first
//! [`STDERR_SHOWN`] lines, then how much more was cut; the last lines kept for the reason of a failure), its
//! CPU time read from `/proc`, and ended politely (stdin closed, as the protocol says, then a bounded wait) or,
//! when it does not go, killed with every process it started: its process group, every descendant seen
//! while it ran (helpers that left the group for a session of their own), and every process that carries its
//! token in its environment ([`TOKEN_VAR`]): a helper that forked twice is no descendant any more.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::process::{ChildStdin, Command, ExitStatus};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use httpbench_shared::render::escape_controls;
use httpbench_shared::CpuTime;

use super::pipe::LineReader;
use crate::process::KillOnDrop;
use crate::progress::Printer;

/// Lines of an adapter's stderr kept for the reason of a failure.
const STDERR_KEPT: usize = 5;
/// Longest stderr line shown; longer ones are cut.
const STDERR_LINE: usize = 300;
/// Lines of an adapter's stderr shown; the rest are counted, and the count shown when its stderr closes (an
/// adapter printing in a loop once flooded the terminal without end).
pub(super) const STDERR_SHOWN: usize = 20;
/// How long an adapter may take to exit once its stdin is closed.
const EXIT_WAIT: Duration = Duration::from_secs(1);

/// The environment variable that marks an adapter's processes: `<httpbench's pid>-<adapter number>`, unique
/// on the machine while httpbench runs. Every process the adapter starts inherits it, so what it left behind
/// is found wherever the kernel re-parented it (a double fork, `setsid`), and ended with it.
pub(super) const TOKEN_VAR: &str = "HTTPBENCH_ADAPTER";
/// Adapters started so far by this process: the second half of each token.
static STARTED: AtomicU64 = AtomicU64::new(0);
/// How many times the processes carrying a token are looked for: a helper that forks as it is killed leaves
/// a child to find in the next pass.
const SWEEPS: usize = 3;

/// The last lines an adapter wrote on stderr, and whether its stderr has closed.
#[derive(Default)]
struct Said {
    lines: VecDeque<String>,
    closed: bool,
}

/// A running adapter.
pub(super) struct Adapter {
    /// Its stdin, where batches are asked for; `None` once closed.
    pub stdin: Option<ChildStdin>,
    /// Its stdout, line by line.
    pub out: LineReader,
    child: KillOnDrop,
    said: Arc<Mutex<Said>>,
    /// Every process seen below the adapter (pid, start time), noted at each CPU reading: ended with it.
    seen: Mutex<Vec<(u32, u64)>>,
    /// `TOKEN_VAR=token`, as it reads in the environment of each of its processes.
    token: String,
}

impl Adapter {
    /// Start `cmd` (its three pipes set up by the caller) in a process group of its own; its stderr lines are
    /// printed as `httpbench: LABEL says: ...`.
    pub(super) fn spawn(cmd: &mut Command, label: &str, printer: &Printer) -> std::io::Result<Adapter> {
        crate::process::die_with_parent(cmd);
        let token = format!("{}-{}", std::process::id(), STARTED.fetch_add(1, Ordering::Relaxed));
        cmd.env(TOKEN_VAR, &token);
        let mut child = KillOnDrop::spawn(cmd)?;
        let missing = || std::io::Error::other("the adapter's pipes were not set up");
        let stdin = child.stdin.take();
        let out = LineReader::new(child.stdout.take().ok_or_else(missing)?)?;
        let said = Arc::new(Mutex::new(Said::default()));
        if let Some(err) = child.stderr.take() {
            forward_stderr(err, format!("httpbench: {label} says: "), said.clone(), printer.clone());
        }
        let token = format!("{TOKEN_VAR}={token}");
        Ok(Adapter { stdin, out, child, said, seen: Mutex::new(Vec::new()), token })
    }

    /// CPU time of the adapter and every process below it, while it runs (a zombie still tells its own);
    /// the processes below it are noted, to be ended with it.
    pub(super) fn cpu(&self) -> Option<CpuTime> {
        let (cpu, below) = crate::cpu::tree_usage(self.child.id())?;
        self.note(below);
        Some(cpu)
    }

    fn note(&self, below: Vec<(u32, u64)>) {
        if let Ok(mut seen) = self.seen.lock() {
            for p in below {
                if !seen.contains(&p) {
                    seen.push(p);
                }
            }
        }
    }

    /// Its exit status once it has exited, waiting `limit` at most.
    pub(super) fn exit_status(&mut self, limit: Duration) -> Option<ExitStatus> {
        let until = Instant::now() + limit;
        loop {
            match self.child.try_wait() {
                Ok(Some(s)) => return Some(s),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
                _ => return None,
            }
        }
    }

    /// The last line it wrote on stderr, waiting `limit` at most for its last words to come through.
    pub(super) fn last_said(&self, limit: Duration) -> String {
        let until = Instant::now() + limit;
        while !self.said.lock().map_or(true, |s| s.closed) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        self.said.lock().ok().and_then(|s| s.lines.back().cloned()).unwrap_or_default()
    }

    /// Kill the adapter's whole process group: a `sh -c` command's children, and anything they started.
    fn kill_group(&mut self) {
        #[cfg(target_os = "linux")]
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: kill with a negative pid signals the group that `die_with_parent` made the child lead.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
        let _ = self.child.kill();
    }
}

impl Drop for Adapter {
    /// Close stdin, which tells the adapter to exit; kill its group if it has not within [`EXIT_WAIT`] (the
    /// group too when it has: a helper it started may live on), every process seen below it, and every
    /// process that carries its token.
    fn drop(&mut self) {
        // Before the wait: once the adapter is reaped, what it started is re-parented and out of its tree.
        self.note(crate::cpu::tree_usage(self.child.id()).map(|(_, below)| below).unwrap_or_default());
        self.stdin = None;
        let _ = self.exit_status(EXIT_WAIT);
        self.kill_group();
        crate::cpu::end_all(&self.seen.lock().map(|s| s.clone()).unwrap_or_default());
        for _ in 0..SWEEPS {
            let left = crate::cpu::carrying(&self.token);
            if left.is_empty() {
                break;
            }
            crate::cpu::end_all(&left);
        }
        // Its stderr has closed with it (or soon): let the last of it, and what was cut, be shown.
        let _ = self.last_said(EXIT_WAIT);
    }
}

/// Show the adapter's stderr as its messages (the first [`STDERR_SHOWN`] lines, then one line saying how
/// many more were cut), and keep the last lines for the reason of a failure. Lines are read as bytes (an
/// adapter may print anything), cut at [`STDERR_LINE`] characters and shown with control characters escaped.
fn forward_stderr(err: std::process::ChildStderr, prefix: String, kept: Arc<Mutex<Said>>, printer: Printer) {
    std::thread::spawn(move || {
        let mut reader = BufReader::new(err);
        let mut buf = Vec::new();
        let (mut shown, mut cut_lines, mut cut_bytes) = (0, 0u64, 0u64);
        loop {
            buf.clear();
            // A bounded read per line: an endless line is taken in pieces, never held whole.
            match reader.by_ref().take(4 * STDERR_LINE as u64).read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&buf);
            let line: String = text.trim_end().chars().take(STDERR_LINE).collect();
            if shown < STDERR_SHOWN {
                printer.line(&format!("{prefix}{}", escape_controls(&line)));
                shown += 1;
            } else {
                (cut_lines, cut_bytes) = (cut_lines + 1, cut_bytes + buf.len() as u64);
            }
            if let Ok(mut k) = kept.lock() {
                if k.lines.len() == STDERR_KEPT {
                    k.lines.pop_front();
                }
                k.lines.push_back(line);
            }
        }
        if cut_lines > 0 {
            printer.line(&format!("{prefix}... and {cut_lines} more lines ({cut_bytes} bytes) not shown"));
        }
        if let Ok(mut k) = kept.lock() {
            k.closed = true;
        }
    });
}
