//! Headless Chromium as `run --browser` starts it: a profile of its own, placed on its CPUs, trusting the
//! run's certificates by their SPKI pins only, reaching the HTTP/3 target by QUIC forced on for its origin
//! (by 127.0.0.1), and killed with httpbench.

use std::path::Path;

use httpbench_shared::model::Engine;

use crate::browser::engine::{BrowserEngine, Launch, ServerCerts, Started};

/// Chromium or Chrome (and the other browsers built on it).
pub(super) struct Chromium;

/// Headless Chromium as httpbench runs it (the page's end-to-end test too). Root needs --no-sandbox; the
/// networking switches stop Chromium from calling home on a closed network. Never --virtual-time-budget: it
/// fakes performance.now().
pub const CHROMIUM_FLAGS: [&str; 9] = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
];

impl BrowserEngine for Chromium {
    fn id(&self) -> Engine {
        Engine::Chromium
    }

    fn binary_names(&self) -> &'static [&'static str] {
        &["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
    }

    fn path_flag(&self) -> &'static str {
        "--chromium"
    }

    fn install_hint(&self) -> &'static str {
        "scripts/setup-web.sh, or Debian's apt-get install chromium"
    }

    /// By the servers' SPKI pins (`--ignore-certificate-errors-spki-list`, which Chromium honours only with a
    /// `--user-data-dir` of its own, as every run here has); never `--ignore-certificate-errors`: the rest of
    /// verification stays on.
    fn trust(&self, servers: &ServerCerts<'_>, _profile: &Path) -> anyhow::Result<Vec<String>> {
        let spki_pins = servers.spki_pins;
        if spki_pins.is_empty() {
            return Ok(Vec::new());
        }
        // Chromium takes the bare base64 hashes: `sha256/` (the pin's usual spelling) makes it refuse them all.
        let bare: Vec<&str> = spki_pins.iter().map(|p| p.trim_start_matches("sha256/")).collect();
        Ok(vec![format!("--ignore-certificate-errors-spki-list={}", bare.join(","))])
    }

    /// Chromium is told to use QUIC for one origin (`--origin-to-force-quic-on`), so the address serves.
    fn quic_host(&self) -> &'static str {
        "127.0.0.1"
    }

    /// Start Chromium headless on `url` with the profile folder `profile`, its output going to `log`; over
    /// HTTPS accepting the servers by [`trust`](Self::trust).
    fn start(&self, launch: &Launch<'_>, url: &str, profile: &Path, log: &Path) -> anyhow::Result<Started> {
        let mut cmd = launch.command(log)?;
        cmd.args(self.trust(&launch.certs, profile)?);
        if launch.quic_origins.is_empty() {
            cmd.args(CHROMIUM_FLAGS);
        } else {
            // QUIC for the HTTP/3 target's origin only: the SPKI pins alone never make Chromium try QUIC (an
            // Alt-Svc to an unknown root is refused), and forcing it without the pins fails verification.
            cmd.args(CHROMIUM_FLAGS.iter().filter(|f| **f != "--disable-quic"));
            cmd.arg(format!("--origin-to-force-quic-on={}", launch.quic_origins.join(",")));
        }
        cmd.args(["--disable-extensions", "--window-size=1280,2000"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(url);
        launch.spawn(&mut cmd).map(Started::from)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// web/webdriver.json (the page's wasm tests, through chromedriver) and bench/page-trace.mjs, which reads
    /// that file, start Chromium with these same flags: a copy that drifts would test another browser set-up.
    #[test]
    fn the_webdriver_config_starts_chromium_with_the_same_flags() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/webdriver.json");
        let config: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let args: Vec<&str> =
            config["goog:chromeOptions"]["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        assert_eq!(args, CHROMIUM_FLAGS);
    }

    #[test]
    fn the_servers_are_trusted_by_their_bare_pins_alone() {
        let (profile, cas) = (Path::new("/nonexistent"), [PathBuf::from("/nonexistent/ca.pem")]);
        let plain = ServerCerts { cas: &cas, ..ServerCerts::default() };
        assert!(Chromium.trust(&plain, profile).unwrap().is_empty(), "plaintext: nothing to trust");
        let pins = ["sha256/AAAA".to_string(), "BBBB".to_string()];
        let tls = ServerCerts { spki_pins: &pins, ..plain };
        assert_eq!(Chromium.trust(&tls, profile).unwrap(), ["--ignore-certificate-errors-spki-list=AAAA,BBBB"]);
    }
}
