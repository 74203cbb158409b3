//! Command clients: a client in another process (any language) that speaks httpbench's line protocol,
//! documented in docs/command-clients.md. httpbench starts it once per case, hands it batches of
//! `n` requests on stdin, and reads one line per request and `end` on stdout: the adapter times each request
//! with its own clock, checked against the time httpbench measures around the batch (witness.rs); the runner
//! times each batch and reads the adapter's CPU time from `/proc`. Every wait on the adapter is bounded, and
//! an adapter that breaks the protocol is stopped with a one-line reason naming it and the bad line; its case
//! keeps what it measured and the other cases go on.

mod batches;
mod lines;
mod pipe;
mod process;
pub mod script;
mod witness;

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use httpbench_shared::model::HttpVersion;
use httpbench_shared::protocol::Adapter as AdapterRow;
use httpbench_shared::{CpuTime, Outcome};

pub use self::batches::{BatchError, Batched, Batches};
use self::lines::Line;
use self::pipe::Next;
use self::process::Adapter;
use self::witness::Witness;
use super::DriverConfig;
use crate::progress::Printer;

/// How long an adapter may take to start (interpreter and modules loaded) and answer the empty first batch.
pub const START_LIMIT: Duration = Duration::from_secs(30);
/// How much longer than `--timeout` an adapter may take for one request line: its own bookkeeping.
pub const LINE_GRACE: Duration = Duration::from_secs(2);

/// A command client: its name, how to start it, and the HTTP versions it speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The name in `--clients` and in reports.
    pub name: String,
    /// What to start.
    pub program: Program,
    /// The HTTP versions it speaks: its row's, or those a user's command declared (HTTP/1.1 when it declared
    /// none).
    pub versions: Vec<HttpVersion>,
}

/// What a command client runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// One of httpbench's own adapters (a command row of the client table).
    Builtin(&'static AdapterRow),
    /// A user's command (`--client-cmd NAME[@VERSIONS]=COMMAND`), run through `sh -c`.
    Shell(String),
}

impl Spec {
    /// The command that starts the adapter for one case.
    fn command(&self, config: &DriverConfig) -> Result<Command, String> {
        let mut cmd = match &self.program {
            Program::Builtin(b) => script::command(b)?,
            Program::Shell(line) => {
                let mut c = Command::new("sh");
                c.args(["-c", line]);
                c
            }
        };
        cmd.env("HTTPBENCH_URL", config.url.as_str())
            .env("HTTPBENCH_MODE", config.mode.as_str())
            // The case's version, spelled as --http takes it: an adapter whose library speaks several asks
            // for this one alone.
            .env("HTTPBENCH_HTTP", config.http.as_str())
            .env("HTTPBENCH_TIMEOUT", config.timeout.as_secs_f64().to_string())
            // The header bound the in-process clients keep, for adapters whose library keeps none (aioquic).
            .env("HTTPBENCH_MAX_FIELD_SECTION", crate::tls::MAX_FIELD_SECTION_BYTES.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(ca) = &config.cacert {
            // Over https, the CA to trust: the adapters hand it to their libraries (verification stays on);
            // Node reads its own variable at start, for fetch and https alike.
            cmd.env("HTTPBENCH_CACERT", &ca.path).env("NODE_EXTRA_CA_CERTS", &ca.path);
        }
        Ok(cmd)
    }

    /// The name of what is missing when the program cannot be started, and how to install it.
    fn missing(&self) -> String {
        match &self.program {
            Program::Builtin(b) => script::unavailable(b),
            Program::Shell(_) => "unavailable: sh is not on PATH".into(),
        }
    }
}

/// A running adapter for one case.
pub struct CommandDriver {
    spec: Spec,
    adapter: Option<Adapter>,
    timeout: Duration,
    version: Option<String>,
    /// Request lines read so far, over all batches: a version line may only come before the first.
    answered: u64,
    /// Why the adapter cannot be used any more, once it cannot.
    broken: Option<String>,
    /// The adapter's CPU time when it was stopped, so its last round is still metered.
    last_cpu: Option<CpuTime>,
}

/// Why a batch ended early, and when its last good line came.
struct Broke {
    reason: String,
    last_line: Instant,
}

impl CommandDriver {
    /// Start the adapter and wait until it has answered an empty batch, so that its start-up is outside every
    /// figure. A failure to start is kept and becomes the case's reason at its first batch.
    pub fn start(spec: &Spec, config: &DriverConfig, stop: &AtomicBool, printer: &Printer) -> Self {
        let label = format!("{}/{}", spec.name, config.mode);
        let mut d = CommandDriver {
            spec: spec.clone(),
            adapter: None,
            timeout: config.timeout,
            version: None,
            answered: 0,
            broken: None,
            last_cpu: None,
        };
        let command = spec.command(config);
        match command.map(|mut c| Adapter::spawn(&mut c, &label, printer)) {
            Err(reason) => d.broken = Some(reason),
            Ok(Ok(adapter)) => {
                d.adapter = Some(adapter);
                if let Err(broke) = d.exchange(0, stop, START_LIMIT, &mut |_, _, _| {}) {
                    d.fail(broke.reason);
                }
            }
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => d.broken = Some(d.spec.missing()),
            Ok(Err(e)) => d.broken = Some(format!("command client {} cannot be started: {e}", spec.name)),
        }
        d
    }

    /// Stop the adapter for `reason`, reading its CPU time one last time first.
    fn fail(&mut self, reason: String) {
        self.last_cpu = self.adapter.as_ref().and_then(Adapter::cpu).or(self.last_cpu);
        self.broken = Some(reason);
        self.adapter = None;
    }

    /// One batch: write `n`, read `n` request lines and `end`, each line within `limit` of the one before.
    fn exchange(
        &mut self,
        n: u64,
        stop: &AtomicBool,
        limit: Duration,
        record: &mut dyn FnMut(&Outcome, Duration, Option<&str>),
    ) -> Result<(), Broke> {
        let name = self.spec.name.clone();
        let asked = Instant::now();
        let mut last_line = asked;
        let mut witness = Witness::new();
        let broke = |reason: String, last_line: Instant| Broke { reason, last_line };
        let Some(adapter) = self.adapter.as_mut() else {
            return Err(broke(format!("command client {name} is not running"), last_line));
        };
        let written = adapter.stdin.as_mut().map(|i| writeln!(i, "{n}").and_then(|()| i.flush()));
        if !matches!(written, Some(Ok(()))) {
            // It closed its stdin: it has exited or is about to; its status and last words say why.
            return Err(broke(self.exited(0, n), last_line));
        }
        let mut got = 0u64;
        loop {
            let next = adapter.out.next(last_line + limit, stop);
            let line = match next.map_err(|e| format!("reading {name}'s output: {e}")) {
                Err(reason) => return Err(broke(reason, last_line)),
                Ok(Next::Line(line)) => line,
                Ok(Next::Stopped) => return Err(broke("stopped (Ctrl-C) in the middle of a batch".into(), last_line)),
                Ok(Next::Eof) => return Err(broke(self.exited(got, n), last_line)),
                Ok(Next::TimedOut) => return Err(broke(self.silent(limit, got, n), last_line)),
                Ok(Next::Garbled(head)) => {
                    return Err(broke(format!("command client {name} printed '{head}'"), last_line))
                }
            };
            last_line = Instant::now();
            let bad = |why: String| {
                let at = format!("line {} of a batch of {n}", got + 1);
                broke(format!("command client {name} printed '{line}' ({at}): {why}"), last_line)
            };
            match lines::parse(line).map_err(bad)? {
                Line::Request { .. } if got == n => return Err(bad(format!("more request lines than the {n} asked"))),
                Line::Request { latency, outcome, reason } => {
                    // Checked before it is recorded: a claim that does not fit the batch's wall is no figure.
                    witness.check(latency, last_line - asked).map_err(bad)?;
                    record(&outcome, latency, reason);
                    got += 1;
                    self.answered += 1;
                }
                Line::End if got < n => return Err(bad(format!("end after {got} of {n} request lines"))),
                Line::End => return Ok(()),
                Line::Version(_) if self.answered > 0 || self.version.is_some() => {
                    return Err(bad("a second version line, or one after a request line".into()));
                }
                Line::Version(v) => self.version = Some(v.to_string()),
            }
        }
    }

    /// The reason for an adapter that went quiet for `limit`.
    fn silent(&self, limit: Duration, got: u64, n: u64) -> String {
        format!(
            "command client {} gave no line for {:.0} s (--timeout {} s + {} s) after {got} of {n} requests; \
             stopped it",
            self.spec.name,
            limit.as_secs_f64(),
            self.timeout.as_secs_f64(),
            LINE_GRACE.as_secs()
        )
    }

    /// Why the adapter's output ended: its exit status and the last thing it said on stderr.
    fn exited(&mut self, got: u64, n: u64) -> String {
        let Some(adapter) = self.adapter.as_mut() else { return format!("command client {} is gone", self.spec.name) };
        // Read its CPU time while it is a zombie, before the wait reaps it.
        self.last_cpu = adapter.cpu().or(self.last_cpu);
        let status = adapter.exit_status(Duration::from_secs(1));
        let last = adapter.last_said(Duration::from_millis(500));
        if let (Program::Builtin(b), Some(missing)) = (&self.spec.program, last.strip_prefix("unavailable: ")) {
            return format!("unavailable: {missing}; install: {}", b.install);
        }
        let status = status.map_or("closed its output".into(), |s| format!("exited ({s})"));
        let when =
            if self.answered == 0 && n == 0 { "at start".to_string() } else { format!("after {got} of {n} requests") };
        let said = if last.is_empty() { String::new() } else { format!(": {last}") };
        format!("command client {} {status} {when}{said}", self.spec.name)
    }
}

impl Batched for CommandDriver {
    fn batch(
        &mut self,
        n: u64,
        stop: &AtomicBool,
        record: &mut dyn FnMut(&Outcome, Duration, Option<&str>),
    ) -> Result<(), BatchError> {
        if let Some(reason) = &self.broken {
            return Err(BatchError { reason: reason.clone(), idle: Duration::ZERO });
        }
        let limit = self.timeout + LINE_GRACE;
        self.exchange(n, stop, limit, record).map_err(|b| {
            self.fail(b.reason.clone());
            BatchError { reason: b.reason, idle: b.last_line.elapsed() }
        })
    }

    fn cpu(&self) -> Option<CpuTime> {
        match &self.adapter {
            Some(a) => a.cpu(),
            None => self.last_cpu,
        }
    }

    fn version(&self) -> Option<String> {
        self.version.clone()
    }
}
