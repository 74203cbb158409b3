//! What `run --browser` needs to know of a browser engine, as one trait ([`BrowserEngine`]): the names of its
//! binary and the flag that names one instead, how to install it, how it accepts the run's servers over TLS, by
//! which host it reaches the HTTP/3 target, how it starts and how it is ended. Each engine it can start has a
//! module of its own under [`super::engines`], and every lookup goes through that module's one table
//! ([`super::engines::ENGINES`]): an engine not in it cannot be started by accident. And how a browser
//! is started for one page run ([`Launch`]): on a start page in its profile folder that goes on to the page, by
//! its engine's way, placed on its CPUs and dying with httpbench; the end of its log explains a failure
//! ([`tail`]).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Context;

use httpbench_shared::model::Engine;

use crate::placement;
use crate::process::KillOnDrop;

/// A browser engine `run --browser` can start. Implemented once per engine, in [`super::engines`], and found
/// through its table alone.
pub trait BrowserEngine: Sync {
    /// The engine of the model: its name (the page's id, its cases' prefix), what its user agent reads as.
    fn id(&self) -> Engine;

    /// The names its binary is tried by on PATH, in order.
    fn binary_names(&self) -> &'static [&'static str];

    /// Folders its binary is installed in beyond PATH (WebKitGTK's MiniBrowser is not on PATH), tried after it.
    fn known_dirs(&self) -> &'static [&'static str] {
        &[]
    }

    /// The programs beside its binary that it is started with, found on PATH (WebKit's driver and X display),
    /// checked with the binary, before any work.
    fn helpers(&self) -> &'static [&'static str] {
        &[]
    }

    /// The flag of `run` that names its binary instead (`--chromium`).
    fn path_flag(&self) -> &'static str;

    /// How to install its browser: the set-up script's switch, or the Debian package.
    fn install_hint(&self) -> &'static str;

    /// Make the browser accept the run's servers over TLS (none given: plaintext, nothing to do), from their
    /// keys' SPKI pins, their CA files or their leaf certificates: each engine trusts by one of them, never by
    /// turning verification off. Anything kept in the profile folder `profile` is set up there; what it is
    /// started with is returned (Chromium's arguments; WebKit's certificate files for its session).
    fn trust(&self, servers: &ServerCerts<'_>, profile: &Path) -> anyhow::Result<Vec<String>>;

    /// The host name it is given for the HTTP/3 target, which listens on 127.0.0.1 (its QUIC set-up, in
    /// [`start`](Self::start), covers the origins by this host).
    fn quic_host(&self) -> &'static str;

    /// Start the browser of `launch` on `url` (the start page) with the profile folder `profile`, its output
    /// going to `log`: headless, or on a display of the run's own (WebKit).
    fn start(&self, launch: &Launch<'_>, url: &str, profile: &Path, log: &Path) -> anyhow::Result<Started>;

    /// End a browser it started, its page done or failed: killed and reaped (dropping the guard does the same
    /// on every other way out: an early return, a panic; and the kernel kills what httpbench started itself
    /// should httpbench be killed: the browser, or WebKit's driver and display, whose loss ends MiniBrowser).
    fn end(&self, browser: KillOnDrop) {
        drop(browser);
    }
}

impl fmt::Debug for dyn BrowserEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.id())
    }
}

/// A browser started for a page run.
#[derive(Debug)]
pub struct Started {
    /// Its process (for WebKit, its driver's), ended with the guard.
    pub browser: KillOnDrop,
    /// Its own version as its start-up reported it, where its user agent does not carry it (WebKitGTK's
    /// driver says `2.50.6`); `None` for an engine whose user agent names its version.
    pub version: Option<String>,
}

impl From<KillOnDrop> for Started {
    fn from(browser: KillOnDrop) -> Self {
        Started { browser, version: None }
    }
}

/// One engine's browser binary: found by [`super::engines::find`] alone, so always one of an engine of the
/// table.
#[derive(Debug, Clone)]
pub struct Binary {
    engine: &'static dyn BrowserEngine,
    /// Its path.
    pub path: PathBuf,
}

impl Binary {
    /// `engine`'s binary at `path`: for the table's lookup alone.
    pub(in crate::browser) fn new(engine: &'static dyn BrowserEngine, path: PathBuf) -> Self {
        Binary { engine, path }
    }

    /// The engine it runs.
    pub fn engine(&self) -> &'static dyn BrowserEngine {
        self.engine
    }

    /// The engine of the model it runs (its name, the page's id).
    pub fn id(&self) -> Engine {
        self.engine.id()
    }
}

/// What identifies the run's servers over TLS (each slice empty over plaintext), for [`BrowserEngine::trust`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerCerts<'a> {
    /// The SPKI pins of the servers' keys (how Chromium is told to accept them).
    pub spki_pins: &'a [String],
    /// The servers' CA files (what Firefox's profile trusts).
    pub cas: &'a [PathBuf],
    /// The servers' own (leaf) certificates (what a WebKit session is told to accept for 127.0.0.1).
    pub leaves: &'a [PathBuf],
}

/// How a browser is started for one page run.
pub struct Launch<'a> {
    /// The browser.
    pub binary: &'a Binary,
    /// The CPUs it may run on (Linux), if placed.
    pub cpus: Option<&'a [usize]>,
    /// Over HTTPS: what identifies the servers.
    pub certs: ServerCerts<'a>,
    /// The origins to reach over QUIC (`HOST:PORT`, by the engine's
    /// [`quic_host`](super::BrowserEngine::quic_host)), the HTTP/3 target's; none: no QUIC at all.
    pub quic_origins: &'a [String],
}

impl Launch<'_> {
    /// The engine's name, for messages.
    pub fn name(&self) -> &'static str {
        self.binary.id().as_str()
    }

    /// Start the browser on `url` with the profile folder `profile`, its output going to `log`. The
    /// browser is given a start page in `profile` that goes on to `url`, never `url` itself: `url` carries the
    /// page's seal, and a command line is world-readable (`/proc/PID/cmdline`) while the profile folder is the
    /// run's own (mode 0700).
    pub fn start(&self, url: &str, profile: &Path, log: &Path) -> anyhow::Result<Started> {
        let start = start_page(profile, url)?;
        let start = url::Url::from_file_path(&start)
            .map_err(|()| anyhow::anyhow!("the start page {} has no file URL", start.display()))?;
        self.binary.engine().start(self, start.as_str(), profile, log)
    }

    /// The browser's command: killed with httpbench even when httpbench itself is killed (a test's timeout
    /// once left one running), placed on its CPUs, its output going to `log`.
    pub(in crate::browser) fn command(&self, log: &Path) -> anyhow::Result<Command> {
        self.command_of(&self.binary.path, log)
    }

    /// [`command`](Self::command) of another program the engine starts its browser with (WebKit's X display
    /// and WebDriver), placed and ended the same way.
    pub(in crate::browser) fn command_of(&self, program: &Path, log: &Path) -> anyhow::Result<Command> {
        let name = self.name();
        let log_file = std::fs::File::create(log).with_context(|| format!("cannot create {name}'s log file"))?;
        let mut cmd = Command::new(program);
        crate::process::die_with_parent(&mut cmd);
        if let Some(cpus) = self.cpus {
            placement::pin_command(&mut cmd, cpus).with_context(|| format!("cannot place {name} on its CPUs"))?;
        }
        cmd.stdin(Stdio::null()).stdout(log_file.try_clone()?).stderr(log_file);
        Ok(cmd)
    }

    /// Start `cmd`, the browser's, under the guard that ends it.
    pub(in crate::browser) fn spawn(&self, cmd: &mut Command) -> anyhow::Result<KillOnDrop> {
        KillOnDrop::spawn(cmd).with_context(|| format!("cannot start {}", self.binary.path.display()))
    }
}

/// Write `profile/start.html`, readable by this user alone, which sends the browser on to `url` (replacing
/// itself in the history); its path.
fn start_page(profile: &Path, url: &str) -> anyhow::Result<PathBuf> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    // A JSON string is a JavaScript string; `<` escaped so that no `</script>` can end the script early.
    let target = serde_json::to_string(url)?.replace('<', "\\u003c");
    let html = format!(
        "<!doctype html><meta charset=\"utf-8\"><title>httpbench</title><script>location.replace({target})</script>\n"
    );
    let path = profile.join("start.html");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .with_context(|| format!("cannot write the browser's start page {}", path.display()))?;
    file.write_all(html.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// The last lines of a browser's log, to explain a failure.
pub fn tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}
