//! Headless Chromium as `run --browser` starts it: found on PATH (or `--chromium PATH`), with a profile of
//! its own, placed on its CPUs, trusting the run's certificates by their SPKI pins only, its output in a log
//! whose tail explains a failure, and killed with httpbench.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Context;

use crate::process::KillOnDrop;

/// Names tried on PATH, in order.
const CANDIDATES: [&str; 4] = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/// Chromium as given, or found on PATH; an error that says what to do when there is none.
pub fn find_chromium(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(format!("--chromium {}: no such file; give the path of a Chromium or Chrome binary", p.display()))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| CANDIDATES.iter().map(move |name| dir.join(name)))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "--browser needs Chromium, and none is on PATH: install it (scripts/setup-web.sh, or Debian's \
             apt-get install chromium) or pass --chromium PATH"
                .into()
        })
}

/// How Chromium is started.
pub struct Chromium<'a> {
    /// The binary.
    pub path: &'a Path,
    /// The CPUs it may run on (Linux), if placed.
    pub cpus: Option<&'a [usize]>,
    /// Over HTTPS: the SPKI pins of the servers' keys, accepted through
    /// `--ignore-certificate-errors-spki-list` (which Chromium honours only with a `--user-data-dir` of its own,
    /// as every run here has). Never `--ignore-certificate-errors`: the rest of verification stays on.
    pub spki_pins: &'a [String],
}

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

/// Start `chromium` headless on `url` with the profile folder `profile`, its output going to `log`.
pub fn start(chromium: &Chromium<'_>, url: &str, profile: &Path, log: &Path) -> anyhow::Result<KillOnDrop> {
    let log_file = std::fs::File::create(log).context("cannot create Chromium's log file")?;
    let mut cmd = Command::new(chromium.path);
    // Killed with httpbench even when httpbench itself is killed (a test's timeout once left one running).
    crate::process::die_with_parent(&mut cmd);
    if let Some(cpus) = chromium.cpus {
        crate::placement::pin_command(&mut cmd, cpus).context("cannot place Chromium on its CPUs")?;
    }
    if !chromium.spki_pins.is_empty() {
        // Chromium takes the bare base64 hashes: `sha256/` (the pin's usual spelling) makes it refuse them all.
        let bare: Vec<&str> = chromium.spki_pins.iter().map(|p| p.trim_start_matches("sha256/")).collect();
        cmd.arg(format!("--ignore-certificate-errors-spki-list={}", bare.join(",")));
    }
    cmd.args(CHROMIUM_FLAGS)
        .args(["--disable-extensions", "--window-size=1280,2000"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .stdin(Stdio::null())
        .stdout(log_file.try_clone()?)
        .stderr(log_file);
    KillOnDrop::spawn(&mut cmd).with_context(|| format!("cannot start {}", chromium.path.display()))
}

/// The last lines of Chromium's log, to explain a failure.
pub fn tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
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

    #[test]
    fn a_missing_chromium_is_a_clear_error() {
        let e = find_chromium(Some(Path::new("/nonexistent/chromium"))).unwrap_err();
        assert!(e.contains("/nonexistent/chromium"), "{e}");
    }
}
