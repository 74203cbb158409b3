//! The target server as a child process of `httpbench run`: started from this same binary, its address read
//! from the first line it prints, then every `saved ID PATH` line it prints when a page posts a result, every
//! `page ID STATUS` line when a page posts its status and every `turn ID PASS` line when a page waits for its
//! turn, handed over a channel as [`ServerEvent`]s (so `run --browser` hears of its pages' progress, refusals,
//! turns and results the moment they land, without polling). A page is let go by a `go ID PASS` line on the
//! server's stdin ([`ChildServer::let_go`]). The server is sealed (`--sealed`): it hears only the pages the
//! parent gave a seal ([`ChildServer::seal`]), so no other user's program and no web page can speak for them. Killed when the run
//! ends, and by the kernel if the parent dies first.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Mutex;

use anyhow::{bail, Context};
use httpbench_shared::protocol::{new_seal, PageStatus, SEAL_BYTES};
use url::Url;

use crate::process::{die_with_parent, KillOnDrop};

/// A running child server; dropping it stops the server.
pub struct ChildServer {
    child: KillOnDrop,
    /// Base URL of the server, ending in `/`: with `--link`, its address on the emulated link.
    pub url: Url,
    /// Where the run's own traffic reaches the server (its page, the page's turns and results, its counters):
    /// with `--link`, its address off the emulated link, else `url`.
    pub control: Url,
    /// Over HTTPS (`--tls`): the file of the CA that signed its certificate.
    pub ca: Option<PathBuf>,
    /// Over HTTPS: the SPKI pin of its key (what Chromium is told to accept).
    pub pin: Option<String>,
    /// Over HTTPS: its own certificate's file, beside the CA's (what a WebKit session is told to accept).
    pub leaf: Option<PathBuf>,
    events: Receiver<ServerEvent>,
    /// Where the turns are handed out (`go ID PASS` lines).
    stdin: Mutex<ChildStdin>,
}

/// What the server tells its parent about the pages it serves, each named by the id it was given (`page=ID`
/// in its query; `None` for a page that gave none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerEvent {
    /// A page posted a result file, saved here.
    Saved {
        /// The page.
        page: Option<String>,
        /// The saved file.
        file: PathBuf,
    },
    /// A page posted its status.
    Page {
        /// The page.
        page: Option<String>,
        /// What it said.
        status: PageStatus,
    },
    /// A page waits for its turn at this pass.
    Turn {
        /// The page.
        page: String,
        /// The pass it waits to begin.
        pass: u32,
    },
    /// A page's seal holds.
    Sealed {
        /// The page.
        page: String,
    },
}

impl ServerEvent {
    /// The event a line of the server's stdout tells, if any.
    fn of_line(line: &str) -> Option<ServerEvent> {
        let named = |rest: &str| {
            let (id, rest) = rest.split_once(' ')?;
            Some(((id != "-").then(|| id.to_string()), rest.to_string()))
        };
        if let Some((page, path)) = line.strip_prefix(super::SAVED_LINE).and_then(named) {
            return Some(ServerEvent::Saved { page, file: PathBuf::from(path) });
        }
        if let Some(page) = line.strip_prefix(super::SEALED_LINE) {
            return Some(ServerEvent::Sealed { page: page.to_string() });
        }
        if let Some((page, pass)) = line.strip_prefix(super::TURN_LINE).and_then(named) {
            return Some(ServerEvent::Turn { page: page?, pass: pass.parse().ok()? });
        }
        let (page, status) = line.strip_prefix(super::STATUS_LINE).and_then(named)?;
        Some(ServerEvent::Page { page, status: PageStatus::parse(&status)? })
    }
}

impl ChildServer {
    /// Start `httpbench serve --port 0 --threads 1 --quiet --sealed EXTRA...` on 127.0.0.1, pinned to `cpu` if
    /// given, and wait for its address.
    pub fn start(cpu: Option<usize>, extra: &[std::ffi::OsString]) -> anyhow::Result<Self> {
        Self::start_in(None, cpu, extra)
    }

    /// [`ChildServer::start`] inside network namespace `ns` (`--link`: the server's side of the link), where it
    /// listens on every address of the namespace: the link's, and the one off it.
    pub(crate) fn start_in(
        ns: Option<&crate::netem::Namespace>,
        cpu: Option<usize>,
        extra: &[std::ffi::OsString],
    ) -> anyhow::Result<Self> {
        let exe = std::env::current_exe().context("cannot find the httpbench executable to start the server")?;
        let mut cmd = match ns {
            Some(ns) => ns.command(exe),
            None => Command::new(exe),
        };
        let args = ["serve", "--port", "0", "--threads", "1", "--quiet", "--sealed"];
        cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped());
        if let Some(cpu) = cpu {
            cmd.args(["--cpu", &cpu.to_string()]);
        }
        if ns.is_some() {
            // Only the run's other namespaces (the clients' and the router's) can reach this one's addresses.
            cmd.args(["--bind", "0.0.0.0"]);
        }
        cmd.args(extra);
        die_with_parent(&mut cmd);
        let mut child = KillOnDrop::spawn(&mut cmd).context("cannot start the embedded server process")?;
        let stdout = child.stdout.take().context("the server process has no stdout")?;
        let stdin = Mutex::new(child.stdin.take().context("the server process has no stdin")?);
        let mut lines = BufReader::new(stdout);
        let mut url = read_url(&mut lines)?;
        let mut control = url.clone();
        if ns.is_some() {
            // IP hosts of an http(s) URL: setting them cannot fail.
            let _ = url.set_host(Some(crate::netem::SERVER_ADDR));
            let _ = control.set_host(Some(crate::netem::CONTROL_ADDR));
        }
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
        let leaf = ca.as_deref().map(super::tls::leaf_beside);
        Ok(ChildServer { child, url, control, ca, pin, leaf, events, stdin })
    }

    /// The child's process id (for CPU placement and diagnostics).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server heard from its pages, in order: their statuses, turns and the result files it saved.
    pub fn events(&self) -> &Receiver<ServerEvent> {
        &self.events
    }

    /// Let page `page` begin pass `pass` (it waits for its turn at the server).
    pub fn let_go(&self, page: &str, pass: u32) -> anyhow::Result<()> {
        self.tell(&format!("{}{page} {pass}", super::turn::GO_LINE))
            .context("cannot reach the embedded server to let a page go")
    }

    /// Make page `page` a fresh random seal, give it to the server (on its stdin: no other process can read
    /// it there) and wait, at most [`SEAL_WAIT`], until the server says it holds; the seal, for the page's
    /// address. Call it before any page starts: other events heard meanwhile are dropped.
    pub fn seal(&self, page: &str) -> anyhow::Result<String> {
        let mut bytes = [0u8; SEAL_BYTES];
        ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
            .map_err(|_| anyhow::anyhow!("the system's random source failed: cannot seal the {page} page"))?;
        let seal = new_seal(&bytes);
        self.tell(&format!("{}{page} {seal}", super::turn::SEAL_LINE))
            .context("cannot reach the embedded server to seal a page")?;
        let deadline = std::time::Instant::now() + SEAL_WAIT;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.events.recv_timeout(left) {
                Ok(ServerEvent::Sealed { page: p }) if p == page => return Ok(seal),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    bail!("the embedded server did not take the {page} page's seal within {} s", SEAL_WAIT.as_secs())
                }
                Err(RecvTimeoutError::Disconnected) => {
                    bail!("the embedded server exited before it took the {page} page's seal")
                }
            }
        }
    }

    /// Write one line on the server's stdin.
    fn tell(&self, line: &str) -> std::io::Result<()> {
        let mut stdin = self.stdin.lock().map_err(|_| std::io::Error::other("the server's stdin is poisoned"))?;
        writeln!(stdin, "{line}").and_then(|()| stdin.flush())
    }
}

/// How long the server may take to confirm a seal (it does so at once; a loaded machine gets room).
const SEAL_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_line_a_child_server_prints_names_its_page() {
        let line = |l: &str| ServerEvent::of_line(l);
        let chromium = Some("chromium".to_string());
        assert_eq!(
            line("saved chromium /tmp/a b.json"),
            Some(ServerEvent::Saved { page: chromium.clone(), file: "/tmp/a b.json".into() })
        );
        assert_eq!(line("saved - /tmp/x.json"), Some(ServerEvent::Saved { page: None, file: "/tmp/x.json".into() }));
        assert_eq!(
            line("page chromium progress round 1/3"),
            Some(ServerEvent::Page { page: chromium, status: PageStatus::Progress("round 1/3".into()) })
        );
        assert_eq!(line("turn firefox 2"), Some(ServerEvent::Turn { page: "firefox".into(), pass: 2 }));
        assert_eq!(line("sealed firefox"), Some(ServerEvent::Sealed { page: "firefox".into() }));
        for bad in ["turn - 2", "turn firefox x", "page chromium hello", "saved", "listening on x"] {
            assert_eq!(line(bad), None, "{bad}");
        }
    }
}
