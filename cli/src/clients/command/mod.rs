//! Command clients: a client in another process (any language) that speaks httpbench's line protocol,
//! documented in the README under "Command clients". httpbench starts it once per case, hands it batches of
//! `n` requests on stdin, and reads one line per request and `end` on stdout: the adapter times each request
//! with its own clock; the runner times each batch and reads the adapter's CPU time from `/proc`. Every wait
//! on the adapter is bounded, and an adapter that breaks the protocol is stopped with a one-line reason
//! naming it and the bad line; its case keeps what it measured and the other cases go on.

pub mod builtin;
mod lines;
mod pipe;

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use httpbench_shared::{CpuTime, ErrorKind, Outcome};

use self::builtin::Builtin;
use self::lines::Line;
use self::pipe::{LineReader, Next};
use super::{Batched, Driver, DriverConfig};
use crate::child::KillOnDrop;

/// How long an adapter may take to start (interpreter and modules loaded) and answer the empty first batch.
pub const START_LIMIT: Duration = Duration::from_secs(30);
/// How much longer than `--timeout` an adapter may take for one request line: its own bookkeeping.
pub const LINE_GRACE: Duration = Duration::from_secs(2);
/// Lines of an adapter's stderr kept for the reason of a failure.
const STDERR_KEPT: usize = 5;

/// The last lines an adapter wrote on stderr, and whether its stderr has closed.
#[derive(Default)]
struct Said {
    lines: VecDeque<String>,
    closed: bool,
}

/// A command client: its name, and how to start it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The name in `--clients` and in reports.
    pub name: String,
    /// What to start.
    pub program: Program,
}

/// What a command client runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// One of httpbench's own adapters.
    Builtin(&'static Builtin),
    /// A user's command (`--client-cmd NAME=COMMAND`), run through `sh -c`.
    Shell(String),
}

impl Spec {
    /// The command that starts the adapter for one case.
    fn command(&self, config: &DriverConfig) -> Command {
        let mut cmd = match &self.program {
            Program::Builtin(b) => {
                let argv = b.argv();
                let mut c = Command::new(argv[0]);
                c.args(&argv[1..]);
                c
            }
            Program::Shell(line) => {
                let mut c = Command::new("sh");
                c.args(["-c", line]);
                c
            }
        };
        cmd.env("HTTPBENCH_URL", config.url.as_str())
            .env("HTTPBENCH_MODE", config.mode.as_str())
            .env("HTTPBENCH_TIMEOUT", config.timeout.as_secs_f64().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        crate::child::die_with_parent(&mut cmd);
        cmd
    }

    /// The name of what is missing when the program cannot be started, and how to install it.
    fn missing(&self) -> String {
        match &self.program {
            Program::Builtin(b) => format!("{} is not on PATH; install: {}", b.interpreter, b.install),
            Program::Shell(_) => "sh is not on PATH".into(),
        }
    }
}

/// A running adapter for one case.
pub struct CommandDriver {
    /// `name/mode`, for messages.
    label: String,
    spec: Spec,
    child: Option<KillOnDrop>,
    stdin: Option<ChildStdin>,
    out: Option<LineReader>,
    stderr: Arc<Mutex<Said>>,
    timeout: Duration,
    version: Option<String>,
    /// Request lines read so far, over all batches: a version line may only come before the first.
    answered: u64,
    /// Why the adapter cannot be used any more, once it cannot.
    broken: Option<String>,
}

impl CommandDriver {
    /// Start the adapter and wait until it has answered an empty batch, so that its start-up is outside every
    /// figure. A failure to start is kept and becomes the case's reason at its first batch.
    pub fn start(spec: &Spec, config: &DriverConfig, stop: &AtomicBool) -> Self {
        let label = format!("{}/{}", spec.name, config.mode);
        let mut d = CommandDriver {
            label,
            spec: spec.clone(),
            child: None,
            stdin: None,
            out: None,
            stderr: Arc::new(Mutex::new(Said::default())),
            timeout: config.timeout,
            version: None,
            answered: 0,
            broken: None,
        };
        match KillOnDrop::spawn(&mut spec.command(config)) {
            Ok(mut child) => {
                d.stdin = child.stdin.take();
                d.out = child.stdout.take().and_then(|o| LineReader::new(o).ok());
                if let Some(err) = child.stderr.take() {
                    forward_stderr(err, d.label.clone(), d.stderr.clone());
                }
                d.child = Some(child);
                if let Err(reason) = d.exchange(0, stop, START_LIMIT, &mut |_, _| {}) {
                    d.fail(reason);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                d.broken = Some(format!("unavailable: {}", d.spec.missing()))
            }
            Err(e) => d.broken = Some(format!("command client {} cannot be started: {e}", spec.name)),
        }
        d
    }

    /// Stop the adapter for `reason`.
    fn fail(&mut self, reason: String) {
        self.broken = Some(reason);
        self.stdin = None;
        self.child = None;
    }

    /// One batch: write `n`, read `n` request lines and `end`, each line within `limit`.
    fn exchange(
        &mut self,
        n: u64,
        stop: &AtomicBool,
        limit: Duration,
        record: &mut dyn FnMut(&Outcome, Duration),
    ) -> Result<(), String> {
        let name = self.spec.name.clone();
        let (Some(stdin), Some(out)) = (self.stdin.as_mut(), self.out.as_mut()) else {
            return Err(format!("command client {name} has no pipes"));
        };
        let write = writeln!(stdin, "{n}").and_then(|()| stdin.flush());
        let mut got = 0u64;
        loop {
            let next = out.next(Instant::now() + limit, stop).map_err(|e| format!("reading {name}'s output: {e}"))?;
            let line = match next {
                Next::Line(line) => line,
                Next::Stopped => return Ok(()),
                Next::Eof => return Err(self.exited(got, n)),
                Next::TimedOut => {
                    return Err(format!(
                        "command client {name} gave no line for {:.0} s (--timeout {} s + {} s) after {got} of {n} \
                         requests; stopped it",
                        limit.as_secs_f64(),
                        self.timeout.as_secs_f64(),
                        LINE_GRACE.as_secs()
                    ))
                }
                Next::Garbled(head) => return Err(format!("command client {name} printed '{head}'")),
            };
            let bad = |why: String| {
                format!("command client {name} printed '{line}' (line {} of a batch of {n}): {why}", got + 1)
            };
            match lines::parse(line).map_err(bad)? {
                Line::Request { .. } if got == n => {
                    return Err(bad(format!("more request lines than the {n} asked")));
                }
                Line::Request { latency, outcome } => {
                    record(&outcome, latency);
                    got += 1;
                    self.answered += 1;
                }
                Line::End if got < n => return Err(bad(format!("end after {got} of {n} request lines"))),
                Line::End => break,
                Line::Version(_) if self.answered > 0 || self.version.is_some() => {
                    return Err(bad("a version line only goes before the first request line".into()));
                }
                Line::Version(v) => self.version = Some(v.to_string()),
            }
        }
        write.map_err(|e| format!("writing to command client {name}: {e}"))
    }

    /// Why the adapter's output ended: its exit status and the last thing it said on stderr.
    fn exited(&mut self, got: u64, n: u64) -> String {
        let status = self.child.as_mut().and_then(|c| wait_bounded(c, Duration::from_secs(1)));
        // Its last words may still be on their way through the stderr thread.
        let until = Instant::now() + Duration::from_millis(500);
        while !self.stderr.lock().map_or(true, |s| s.closed) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        let last = self.stderr.lock().ok().and_then(|s| s.lines.back().cloned()).unwrap_or_default();
        if let (Program::Builtin(b), Some(missing)) = (&self.spec.program, last.strip_prefix("unavailable: ")) {
            return format!("unavailable: {missing}; install: {}", b.install);
        }
        let status = status.map_or("its output closed".into(), |s| format!("exited ({s})"));
        let when =
            if self.answered == 0 && n == 0 { "at start".to_string() } else { format!("after {got} of {n} requests") };
        let said = if last.is_empty() { String::new() } else { format!(": {last}") };
        format!("command client {} {status} {when}{said}", self.spec.name)
    }
}

/// The child's exit status once it has exited, waiting `limit` at most.
fn wait_bounded(child: &mut KillOnDrop, limit: Duration) -> Option<std::process::ExitStatus> {
    let until = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
            _ => return None,
        }
    }
}

/// Show the adapter's stderr as its messages, and keep the last lines for the reason of a failure.
fn forward_stderr(err: std::process::ChildStderr, label: String, kept: Arc<Mutex<Said>>) {
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let line: String = line.chars().take(300).collect();
            eprintln!("httpbench: {label} says: {line}");
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

impl Driver for CommandDriver {
    /// One request as a batch of one (the runner hands command clients whole batches instead).
    fn request(&mut self) -> Outcome {
        let mut outcome = Outcome::failed(ErrorKind::Other, None);
        let _ = self.batch(1, &AtomicBool::new(false), &mut |o, _| outcome = *o);
        outcome
    }

    fn batched(&mut self) -> Option<&mut dyn Batched> {
        Some(self)
    }
}

impl Batched for CommandDriver {
    fn batch(&mut self, n: u64, stop: &AtomicBool, record: &mut dyn FnMut(&Outcome, Duration)) -> Result<(), String> {
        if let Some(reason) = &self.broken {
            return Err(reason.clone());
        }
        let limit = self.timeout + LINE_GRACE;
        self.exchange(n, stop, limit, record).inspect_err(|reason| self.fail(reason.clone()))
    }

    fn cpu(&self) -> Option<CpuTime> {
        crate::cpu::tree_cpu(self.child.as_ref()?.id())
    }

    fn version(&self) -> Option<String> {
        self.version.clone()
    }
}
