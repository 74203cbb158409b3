//! The X display WebKit runs on ([`Display`]): Xvfb started for one page run on the first free display number
//! (its `-displayfd`), opened only with an authorization cookie of the run's own, kept in the profile folder
//! (mode 0600 in a 0700 folder): no other user's program can open the display to draw on the page or send it
//! input (a program of the run's own user could read the cookie, as it could the seal). Placed on the browser's CPUs, dying with httpbench.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{bail, Context};

use crate::browser::engine::{tail, Launch};
use crate::process::KillOnDrop;

/// How long Xvfb may take to say it is ready (it takes well under a second here).
const READY_WITHIN: Duration = Duration::from_secs(20);

/// A running X display.
pub(super) struct Display {
    /// Xvfb: ended by its guard.
    pub(super) server: KillOnDrop,
    /// The display's number (`DISPLAY=:N`).
    number: u32,
    /// The authorization file that opens it.
    auth: PathBuf,
}

impl Display {
    /// Start `xvfb` for `launch`, its cookie and log in `profile`.
    pub(super) fn start(launch: &Launch<'_>, xvfb: &Path, profile: &Path) -> anyhow::Result<Display> {
        let auth = profile.join("xauthority");
        write_private(&auth, &authority(&cookie()?))?;
        let log = profile.join("xvfb.log");
        let mut cmd: Command = launch.command_of(xvfb, &log)?;
        // `-displayfd 1`: the first free display, its number written on stdout once it accepts clients.
        cmd.args(["-displayfd", "1", "-auth"]).arg(&auth);
        cmd.args(["-nolisten", "tcp", "-screen", "0", "1280x2000x24"]).stdout(Stdio::piped());
        let mut server = KillOnDrop::spawn(&mut cmd).with_context(|| format!("cannot start {}", xvfb.display()))?;
        let stdout = server.stdout.take().context("Xvfb has no stdout")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = tx.send(BufReader::new(stdout).read_line(&mut line).map(|_| line));
        });
        let line = match rx.recv_timeout(READY_WITHIN) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => bail!("cannot read Xvfb's display number: {e}"),
            Err(_) => bail!("Xvfb did not start within {} s; its log:\n{}", READY_WITHIN.as_secs(), tail(&log)),
        };
        let Ok(number) = line.trim().parse() else {
            bail!("Xvfb exited before it opened a display; its log:\n{}", tail(&log));
        };
        Ok(Display { server, number, auth })
    }

    /// Make `cmd` draw on this display (and on no Wayland compositor of the user's).
    pub(super) fn apply(&self, cmd: &mut Command) {
        cmd.env("DISPLAY", format!(":{}", self.number)).env("XAUTHORITY", &self.auth).env_remove("WAYLAND_DISPLAY");
    }
}

/// 16 random bytes: an MIT-MAGIC-COOKIE-1.
fn cookie() -> anyhow::Result<[u8; 16]> {
    let mut bytes = [0u8; 16];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
        .map_err(|_| anyhow::anyhow!("no random bytes for the X display's cookie"))?;
    Ok(bytes)
}

/// An Xauthority file of one entry that opens every display of this machine with `cookie`: family
/// FamilyWild (any address), an empty display number (libXau takes it as any: the number is known only once
/// Xvfb has picked it), then MIT-MAGIC-COOKIE-1 and the cookie, each field a big-endian length and its bytes.
/// Xvfb takes the cookie from the same file.
fn authority(cookie: &[u8; 16]) -> Vec<u8> {
    let mut file = 0xFFFFu16.to_be_bytes().to_vec();
    for field in [&b""[..], b"", b"MIT-MAGIC-COOKIE-1", cookie] {
        file.extend_from_slice(&(field.len() as u16).to_be_bytes());
        file.extend_from_slice(field);
    }
    file
}

/// Write `bytes` to a new file at `path`, readable by this user alone.
fn write_private(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.write_all(bytes).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_authority_file_holds_one_wildcard_entry_with_the_cookie() {
        let fixed = [7u8; 16];
        let file = authority(&fixed);
        let mut expected = vec![0xFF, 0xFF, 0, 0, 0, 0, 0, 18];
        expected.extend_from_slice(b"MIT-MAGIC-COOKIE-1");
        expected.extend_from_slice(&[0, 16]);
        expected.extend_from_slice(&fixed);
        assert_eq!(file, expected);
        assert_ne!(cookie().unwrap(), cookie().unwrap(), "a fresh cookie each time");
    }
}
