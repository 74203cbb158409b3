//! How a browser is started for one page run ([`Launch`]): on a start page in its profile folder that goes on
//! to the page, by its engine's way ([`BrowserEngine::start`]), placed on its CPUs and dying with httpbench;
//! and the end of its log, to explain a failure ([`tail`]).
//!
//! [`BrowserEngine::start`]: super::BrowserEngine::start

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Context;

use super::engine::Binary;
use crate::placement;
use crate::process::KillOnDrop;

/// How a browser is started for one page run.
pub struct Launch<'a> {
    /// The browser.
    pub binary: &'a Binary,
    /// The CPUs it may run on (Linux), if placed.
    pub cpus: Option<&'a [usize]>,
    /// Over HTTPS: the SPKI pins of the servers' keys (how Chromium is told to accept them).
    pub spki_pins: &'a [String],
    /// Over HTTPS: the servers' CA files (what Firefox's profile trusts).
    pub cas: &'a [PathBuf],
    /// The origins to reach over QUIC (`HOST:PORT`, by the engine's
    /// [`quic_host`](super::BrowserEngine::quic_host)), the HTTP/3 target's; none: no QUIC at all.
    pub quic_origins: &'a [String],
}

impl Launch<'_> {
    /// The engine's name, for messages.
    pub fn name(&self) -> &'static str {
        self.binary.id().as_str()
    }

    /// Start the browser headless on `url` with the profile folder `profile`, its output going to `log`. The
    /// browser is given a start page in `profile` that goes on to `url`, never `url` itself: `url` carries the
    /// page's seal, and a command line is world-readable (`/proc/PID/cmdline`) while the profile folder is the
    /// run's own (mode 0700).
    pub fn start(&self, url: &str, profile: &Path, log: &Path) -> anyhow::Result<KillOnDrop> {
        let start = start_page(profile, url)?;
        let start = url::Url::from_file_path(&start)
            .map_err(|()| anyhow::anyhow!("the start page {} has no file URL", start.display()))?;
        self.binary.engine().start(self, start.as_str(), profile, log)
    }

    /// The browser's command: killed with httpbench even when httpbench itself is killed (a test's timeout
    /// once left one running), placed on its CPUs, its output going to `log`.
    pub(in crate::browser) fn command(&self, log: &Path) -> anyhow::Result<Command> {
        let name = self.name();
        let log_file = std::fs::File::create(log).with_context(|| format!("cannot create {name}'s log file"))?;
        let mut cmd = Command::new(&self.binary.path);
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
