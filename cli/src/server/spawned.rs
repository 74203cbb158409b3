//! The target server as a child process of `httpbench run`: started from this same binary, its address read
//! from the first line it prints, then every `saved PATH` line it prints when the page posts a result and
//! every `page STATUS` line when the page posts its status, handed over a channel as [`ServerEvent`]s (so
//! `run --browser` hears of the page's progress, refusal or result the moment it lands, without polling).
//! Killed when the run ends, and by the kernel if the parent dies first.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{ChildStdout, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};

use anyhow::{bail, Context};
use httpbench_shared::protocol::PageStatus;
use url::Url;

use crate::process::{die_with_parent, KillOnDrop};

/// A running child server; dropping it stops the server.
pub struct ChildServer {
    child: KillOnDrop,
    /// Base URL of the server, ending in `/`.
    pub url: Url,
    /// Over HTTPS (`--tls`): the file of the CA that signed its certificate.
    pub ca: Option<PathBuf>,
    /// Over HTTPS: the SPKI pin of its key (what Chromium is told to accept).
    pub pin: Option<String>,
    events: Receiver<ServerEvent>,
}

/// What the server tells its parent about the page it serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerEvent {
    /// The page posted a result file, saved here.
    Saved(PathBuf),
    /// The page posted its status.
    Page(PageStatus),
}

impl ServerEvent {
    /// The event a line of the server's stdout tells, if any.
    fn of_line(line: &str) -> Option<ServerEvent> {
        if let Some(path) = line.strip_prefix(super::SAVED_LINE) {
            return Some(ServerEvent::Saved(PathBuf::from(path)));
        }
        line.strip_prefix(super::STATUS_LINE).and_then(PageStatus::parse).map(ServerEvent::Page)
    }
}

impl ChildServer {
    /// Start `httpbench serve --port 0 --threads 1 --quiet EXTRA...` on 127.0.0.1, pinned to `cpu` if given,
    /// and wait for its address.
    pub fn start(cpu: Option<usize>, extra: &[std::ffi::OsString]) -> anyhow::Result<Self> {
        let exe = std::env::current_exe().context("cannot find the httpbench executable to start the server")?;
        let mut cmd = Command::new(exe);
        cmd.args(["serve", "--port", "0", "--threads", "1", "--quiet"]).stdin(Stdio::null()).stdout(Stdio::piped());
        if let Some(cpu) = cpu {
            cmd.args(["--cpu", &cpu.to_string()]);
        }
        cmd.args(extra);
        die_with_parent(&mut cmd);
        let mut child = KillOnDrop::spawn(&mut cmd).context("cannot start the embedded server process")?;
        let stdout = child.stdout.take().context("the server process has no stdout")?;
        let mut lines = BufReader::new(stdout);
        let url = read_url(&mut lines)?;
        let (ca, pin) = match url.scheme() {
            "https" => (
                Some(PathBuf::from(read_after(&mut lines, super::CA_LINE)?)),
                Some(read_after(&mut lines, super::PIN_LINE)?),
            ),
            _ => (None, None),
        };
        let (tx, events) = channel();
        // Ends when the server's stdout closes (the server exited) or the receiver is gone.
        std::thread::spawn(move || {
            for event in lines.lines().map_while(Result::ok).filter_map(|l| ServerEvent::of_line(&l)) {
                if tx.send(event).is_err() {
                    break;
                }
            }
        });
        Ok(ChildServer { child, url, ca, pin, events })
    }

    /// The child's process id (for CPU placement and diagnostics).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server heard from the page, in order: its statuses and the result files it saved.
    pub fn events(&self) -> &Receiver<ServerEvent> {
        &self.events
    }
}

fn read_url(lines: &mut BufReader<ChildStdout>) -> anyhow::Result<Url> {
    let mut line = String::new();
    lines.read_line(&mut line).context("cannot read the server's address")?;
    let Some(addr) = line.trim().strip_prefix("listening on ") else {
        bail!("the embedded server did not start (it printed {:?})", line.trim());
    };
    Url::parse(addr).with_context(|| format!("the embedded server printed a bad address {addr:?}"))
}

/// The next line an HTTPS server prints after its address, which starts with `prefix` (its CA file, then its
/// key's pin), without the prefix.
fn read_after(lines: &mut BufReader<ChildStdout>, prefix: &str) -> anyhow::Result<String> {
    let mut line = String::new();
    lines.read_line(&mut line).with_context(|| format!("cannot read the server's {prefix:?} line"))?;
    match line.trim().strip_prefix(prefix) {
        Some(value) => Ok(value.to_string()),
        None => bail!("the embedded server printed {:?} where {prefix:?} was expected", line.trim()),
    }
}
