//! Headless Chromium as `run --browser` starts it: a profile of its own, placed on its CPUs, trusting the
//! run's certificates by their SPKI pins only, and killed with httpbench.

use std::path::Path;

use super::Launch;
use crate::process::KillOnDrop;

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

/// Start Chromium headless on `url` with the profile folder `profile`, its output going to `log`. Over HTTPS
/// it accepts the servers' keys by their SPKI pins (`--ignore-certificate-errors-spki-list`, which Chromium
/// honours only with a `--user-data-dir` of its own, as every run here has); never
/// `--ignore-certificate-errors`: the rest of verification stays on.
pub fn start(launch: &Launch<'_>, url: &str, profile: &Path, log: &Path) -> anyhow::Result<KillOnDrop> {
    let mut cmd = launch.command(log)?;
    if !launch.spki_pins.is_empty() {
        // Chromium takes the bare base64 hashes: `sha256/` (the pin's usual spelling) makes it refuse them all.
        let bare: Vec<&str> = launch.spki_pins.iter().map(|p| p.trim_start_matches("sha256/")).collect();
        cmd.arg(format!("--ignore-certificate-errors-spki-list={}", bare.join(",")));
    }
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
    launch.spawn(&mut cmd)
}

#[cfg(test)]
mod tests {
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
}
