//! The adapter's process: started with its pipes, its stderr shown as its messages (and the last lines kept
//! for the reason of a failure), its CPU time read from `/proc`, and ended politely (stdin closed, as the
//! protocol says, then a bounded wait) or, when it does not go, killed with every process it started.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::process::{ChildStdin, Command, ExitStatus};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use httpbench_shared::CpuTime;

use super::pipe::LineReader;
use crate::process::KillOnDrop;
use crate::progress::Printer;

/// Lines of an adapter's stderr kept for the reason of a failure.
const STDERR_KEPT: usize = 5;
/// Longest stderr line shown; longer ones are cut.
const STDERR_LINE: usize = 300;
/// How long an adapter may take to exit once its stdin is closed.
const EXIT_WAIT: Duration = Duration::from_secs(1);

/// The last lines an adapter wrote on stderr, and whether its stderr has closed.
#[derive(Default)]
struct Said {
    lines: VecDeque<String>,
    closed: bool,
}

/// A running adapter.
pub struct Adapter {
    /// Its stdin, where batches are asked for; `None` once closed.
    pub stdin: Option<ChildStdin>,
    /// Its stdout, line by line.
    pub out: LineReader,
    child: KillOnDrop,
    said: Arc<Mutex<Said>>,
}

impl Adapter {
    /// Start `cmd` (its three pipes set up by the caller) in a process group of its own; its stderr lines are
    /// printed as `httpbench: LABEL says: ...`.
    pub fn spawn(cmd: &mut Command, label: &str, printer: &Printer) -> std::io::Result<Adapter> {
        crate::process::die_with_parent(cmd);
        let mut child = KillOnDrop::spawn(cmd)?;
        let missing = || std::io::Error::other("the adapter's pipes were not set up");
        let stdin = child.stdin.take();
        let out = LineReader::new(child.stdout.take().ok_or_else(missing)?)?;
        let said = Arc::new(Mutex::new(Said::default()));
        if let Some(err) = child.stderr.take() {
            forward_stderr(err, format!("httpbench: {label} says: "), said.clone(), printer.clone());
        }
        Ok(Adapter { stdin, out, child, said })
    }

    /// CPU time of the adapter and every process below it, while it runs (a zombie still tells its own).
    pub fn cpu(&self) -> Option<CpuTime> {
        crate::cpu::tree_cpu(self.child.id())
    }

    /// Its exit status once it has exited, waiting `limit` at most.
    pub fn exit_status(&mut self, limit: Duration) -> Option<ExitStatus> {
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
    pub fn last_said(&self, limit: Duration) -> String {
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
    /// group too when it has: a helper it started may live on).
    fn drop(&mut self) {
        self.stdin = None;
        let _ = self.exit_status(EXIT_WAIT);
        self.kill_group();
    }
}

/// Show the adapter's stderr as its messages, and keep the last lines for the reason of a failure. Lines are
/// read as bytes (an adapter may print anything) and cut at [`STDERR_LINE`] characters.
fn forward_stderr(err: std::process::ChildStderr, prefix: String, kept: Arc<Mutex<Said>>, printer: Printer) {
    std::thread::spawn(move || {
        let mut reader = BufReader::new(err);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            // A bounded read per line: an endless line is taken in pieces, never held whole.
            match reader.by_ref().take(4 * STDERR_LINE as u64).read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&buf);
            let line: String = text.trim_end().chars().take(STDERR_LINE).collect();
            printer.line(&format!("{prefix}{line}"));
            if let Ok(mut k) = kept.lock() {
                if k.lines.len() == STDERR_KEPT {
                    k.lines.pop_front();
                }
                k.lines.push_back(line);
            }
        }
        if let Ok(mut k) = kept.lock() {
            k.closed = true;
        }
    });
}
