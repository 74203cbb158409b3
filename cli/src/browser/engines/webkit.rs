//! WebKit as `run --browser webkit` starts it: WebKitGTK's MiniBrowser, whose network stack is libsoup's (this
//! is not Safari, whose stack is Apple's), on an X display of its own because MiniBrowser has no headless mode
//! ([`display`]: Xvfb, which only this run's cookie opens), placed on its CPUs and ended with httpbench.
//! WebKitWebDriver starts it, because a WebDriver session is WebKitGTK's one way to accept a certificate for
//! one browser alone (each server's own certificate for 127.0.0.1; never verification turned off, never the
//! machine's store). The driver starts the session and opens the start page, and nothing more: the page
//! measures and posts its results as in the other engines, with no driver traffic during the run. It has no
//! HTTP/3 (shared's `Engine::cannot_speak` leaves those cases out).

mod display;
mod driver;

use std::path::Path;

use anyhow::Context;
use httpbench_shared::model::Engine;

use super::helper;
use crate::browser::engine::{BrowserEngine, Launch, ServerCerts, Started};
use crate::process::KillOnDrop;

/// WebKitGTK's MiniBrowser.
pub(super) struct Webkit;

/// The WebDriver of WebKitGTK (Debian's webkit2gtk-driver), found on PATH.
const DRIVER: &str = "WebKitWebDriver";

/// The X server it draws on (Debian's xvfb), found on PATH.
const XVFB: &str = "Xvfb";

impl BrowserEngine for Webkit {
    fn id(&self) -> Engine {
        Engine::Webkit
    }

    fn binary_names(&self) -> &'static [&'static str] {
        &["MiniBrowser"]
    }

    /// Where WebKitGTK 4.1 installs MiniBrowser (Debian's libwebkit2gtk-4.1-0, per architecture), off PATH.
    fn known_dirs(&self) -> &'static [&'static str] {
        &[
            "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1",
            "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1",
            "/usr/libexec/webkit2gtk-4.1",
        ]
    }

    /// Its driver (the one way to trust a certificate for one session) and its display (no headless mode).
    fn helpers(&self) -> &'static [&'static str] {
        &[DRIVER, XVFB]
    }

    fn path_flag(&self) -> &'static str {
        "--webkit"
    }

    fn install_hint(&self) -> &'static str {
        "scripts/setup-web.sh --webkit, or Debian's apt-get install webkit2gtk-driver"
    }

    /// By each server's own certificate, given to the WebDriver session for 127.0.0.1 (a CA there is not
    /// enough: WebKitGTK compares the certificate the server presents): the files, checked to exist.
    fn trust(&self, servers: &ServerCerts<'_>, _profile: &Path) -> anyhow::Result<Vec<String>> {
        servers
            .leaves
            .iter()
            .map(|leaf| {
                anyhow::ensure!(leaf.is_file(), "the server's certificate {} is missing", leaf.display());
                leaf.to_str().map(String::from).context("the server's certificate path is not UTF-8")
            })
            .collect()
    }

    /// The HTTP/3 target's host, should one be named to it; no case of WebKit's reaches it (no HTTP/3).
    fn quic_host(&self) -> &'static str {
        "127.0.0.1"
    }

    /// Start an X display, then WebKitWebDriver on it, and through it MiniBrowser on `url` trusting the
    /// servers' certificates; the guard ends the driver's process group (MiniBrowser and its web and network
    /// processes with it) and then the display. WebKitGTK's version is the session's word (its user agent
    /// carries a Safari version that is not its own).
    fn start(&self, launch: &Launch<'_>, url: &str, profile: &Path, log: &Path) -> anyhow::Result<Started> {
        let driver_path = helper(self, DRIVER).map_err(anyhow::Error::msg)?;
        let xvfb = helper(self, XVFB).map_err(anyhow::Error::msg)?;
        let certificates = self.trust(&launch.certs, profile)?;
        let display = display::Display::start(launch, &xvfb, profile)?;
        let port = driver::free_port()?;
        let mut cmd = launch.command_of(&driver_path, log)?;
        cmd.arg(format!("--port={port}"));
        display.apply(&mut cmd);
        let driver = KillOnDrop::spawn_group(&mut cmd)
            .with_context(|| format!("cannot start {}", driver_path.display()))?
            .with(display.server);
        driver::open(driver, port, &launch.binary.path, &certificates, url, log)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_are_trusted_by_their_own_certificates_alone() {
        let profile = Path::new("/nonexistent");
        let pins = ["sha256/AAAA".to_string()];
        let plain = ServerCerts { spki_pins: &pins, ..ServerCerts::default() };
        assert!(Webkit.trust(&plain, profile).unwrap().is_empty(), "plaintext: nothing to trust");
        let dir = tempfile::tempdir().unwrap();
        let leaf = dir.path().join("httpbench-cert.pem");
        std::fs::write(&leaf, "PEM").unwrap();
        let leaves = [leaf.clone()];
        let tls = ServerCerts { leaves: &leaves, ..plain };
        assert_eq!(Webkit.trust(&tls, profile).unwrap(), [leaf.to_str().unwrap()]);
        let missing = [dir.path().join("gone.pem")];
        let e = Webkit.trust(&ServerCerts { leaves: &missing, ..plain }, profile).unwrap_err().to_string();
        assert!(e.contains("gone.pem is missing"), "{e}");
    }
}
