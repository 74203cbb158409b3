//! Headless Firefox as `run --browser firefox` starts it, with no WebDriver: a fresh profile of the run's own
//! whose `user.js` keeps Firefox off the network but for the benchmark, which trusts the run's generated CAs in
//! that profile's NSS database only (`certutil`; never by turning verification off), placed on its CPUs and
//! killed with httpbench; it reaches the HTTP/3 target by a test-only Alt-Svc mapping of the host `localhost`.
//! The page posts its results back to the embedded server, as in Chromium.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};
use httpbench_shared::model::Engine;

use crate::browser::engine::{BrowserEngine, Launch, ServerCerts, Started};

/// Firefox (Gecko): Debian's ESR, or a release.
pub(super) struct Firefox;

/// The profile's preferences: no first-run or welcome pages, no telemetry, updates, add-on or settings
/// downloads, captive-portal or connectivity probes, Safe Browsing, DNS over HTTPS, prefetching or push, so the
/// only traffic is the page's; no slow-script dialog (a headless Firefox has nobody to answer it); and no
/// session restore that would reopen a page of an earlier run.
const PREFS: &[(&str, &str)] = &[
    ("browser.shell.checkDefaultBrowser", "false"),
    ("browser.startup.homepage_override.mstone", "\"ignore\""),
    ("browser.startup.page", "0"),
    ("startup.homepage_welcome_url", "\"\""),
    ("startup.homepage_welcome_url.additional", "\"\""),
    ("browser.aboutwelcome.enabled", "false"),
    ("trailhead.firstrun.didSeeAboutWelcome", "true"),
    ("datareporting.policy.dataSubmissionEnabled", "false"),
    ("datareporting.healthreport.uploadEnabled", "false"),
    ("toolkit.telemetry.enabled", "false"),
    ("toolkit.telemetry.unified", "false"),
    ("toolkit.telemetry.server", "\"\""),
    ("app.normandy.enabled", "false"),
    ("app.shield.optoutstudies.enabled", "false"),
    ("app.update.disabledForTesting", "true"),
    ("app.update.auto", "false"),
    ("extensions.update.enabled", "false"),
    ("extensions.getAddons.cache.enabled", "false"),
    ("services.settings.server", "\"data:,\""),
    ("browser.region.update.enabled", "false"),
    ("browser.search.update", "false"),
    ("network.captive-portal-service.enabled", "false"),
    ("network.connectivity-service.enabled", "false"),
    ("network.trr.mode", "5"),
    ("network.dns.disablePrefetch", "true"),
    ("network.prefetch-next", "false"),
    ("network.predictor.enabled", "false"),
    ("browser.safebrowsing.malware.enabled", "false"),
    ("browser.safebrowsing.phishing.enabled", "false"),
    ("browser.safebrowsing.downloads.enabled", "false"),
    ("browser.safebrowsing.provider.mozilla.updateURL", "\"\""),
    ("dom.push.connection.enabled", "false"),
    ("media.gmp-manager.url", "\"data:,\""),
    ("security.OCSP.enabled", "0"),
    ("dom.max_script_run_time", "0"),
    ("browser.sessionstore.resume_from_crash", "false"),
    ("toolkit.startup.max_resumed_crashes", "-1"),
];

/// The profile's `user.js`, one `user_pref` line per preference (the Firefox e2e tests write it too).
pub fn user_js() -> String {
    PREFS.iter().map(|(name, value)| pref_line(name, value)).collect()
}

/// One preference of a `user.js`; `value` is JavaScript (a string in its quotes).
fn pref_line(name: &str, value: &str) -> String {
    format!("user_pref(\"{name}\", {value});\n")
}

/// The preferences that send Firefox to the HTTP/3 target over QUIC (`localhost:PORT`, the first of
/// `origins`; none: nothing). Firefox uses QUIC for a host it learnt speaks it from an Alt-Svc header; these
/// test preferences make it so from the start for that host, and keep HTTP/3 on although the profile trusts a
/// CA of its own (Firefox turns HTTP/3 off when it finds a third-party root, and no request reached the
/// server). IPv6 is off so that `localhost` is 127.0.0.1, where the target listens, not ::1.
pub(super) fn quic_prefs(origins: &[String]) -> String {
    let Some((host, port)) = origins.first().and_then(|o| o.rsplit_once(':')) else {
        return String::new();
    };
    let prefs = [
        ("network.http.http3.enable", "true".to_string()),
        ("network.http.http3.alt-svc-mapping-for-testing", format!("\"{host};h3=:{port}\"")),
        ("network.http.http3.force-use-alt-svc-mapping-for-testing", "true".to_string()),
        ("network.http.http3.disable_when_third_party_roots_found", "false".to_string()),
        ("network.dns.disableIPv6", "true".to_string()),
        // No TCP fallback: Firefox starts a TCP connection beside a QUIC request that has not gone out after
        // 100 ms, and, if that wins, stops using HTTP/3 for the host. A fresh request waits that long for the
        // previous connection to finish closing, so the first fresh case fell back after a few requests.
        ("network.http.http3.backup_timer_delay", "600000".to_string()),
    ];
    prefs.iter().map(|(name, value)| pref_line(name, value)).collect()
}

impl BrowserEngine for Firefox {
    fn id(&self) -> Engine {
        Engine::Firefox
    }

    fn binary_names(&self) -> &'static [&'static str] {
        &["firefox-esr", "firefox"]
    }

    fn path_flag(&self) -> &'static str {
        "--firefox"
    }

    fn install_hint(&self) -> &'static str {
        "scripts/setup-web.sh --firefox, or Debian's apt-get install firefox-esr"
    }

    /// By the servers' CAs, trusted in the profile's NSS database alone ([`trust`]); no argument.
    fn trust(&self, servers: &ServerCerts<'_>, profile: &Path) -> anyhow::Result<Vec<String>> {
        if !servers.cas.is_empty() {
            trust(profile, servers.cas)?;
        }
        Ok(Vec::new())
    }

    /// Firefox's only way to QUIC from the start, a test-only Alt-Svc mapping ([`quic_prefs`]), names a host and
    /// covers every port of it: by the address, the page's own origin (127.0.0.1, another port) was sent to the
    /// HTTP/3 target too and never loaded. By the name `localhost` (in the generated certificate) the mapping
    /// covers the HTTP/3 target alone.
    fn quic_host(&self) -> &'static str {
        "localhost"
    }

    /// Start Firefox headless on `url` with a new profile in `profile` (over HTTPS trusting the servers' CAs there),
    /// its output going to `log`.
    fn start(&self, launch: &Launch<'_>, url: &str, profile: &Path, log: &Path) -> anyhow::Result<Started> {
        let prefs = user_js() + &quic_prefs(launch.quic_origins);
        std::fs::write(profile.join("user.js"), prefs).context("cannot write Firefox's user.js")?;
        let args = self.trust(&launch.certs, profile)?;
        let mut cmd = launch.command(log)?;
        cmd.args(args)
            .args(["--headless", "--no-remote", "--profile"])
            .arg(profile)
            .arg(url)
            // No crash reporter dialog or upload; the log says what happened.
            .env("MOZ_CRASHREPORTER_DISABLE", "1");
        launch.spawn(&mut cmd).map(Started::from)
    }
}

/// Make `profile`'s NSS database trust each of `cas` (PEM) to identify servers: `certutil` from Debian's
/// libnss3-tools. The leaf each server presents is signed by its CA (mozilla::pkix refuses a CA certificate
/// used as the end entity), so trusting the CA is enough, for this profile alone.
fn trust(profile: &Path, cas: &[PathBuf]) -> anyhow::Result<()> {
    let db = format!("sql:{}", profile.display());
    certutil(&["-N", "-d", &db, "--empty-password"])?;
    for (i, ca) in cas.iter().enumerate() {
        let ca = ca.to_str().context("the CA file's path is not UTF-8")?;
        certutil(&["-A", "-n", &format!("httpbench-ca-{i}"), "-t", "C,,", "-i", ca, "-d", &db])?;
    }
    Ok(())
}

fn certutil(args: &[&str]) -> anyhow::Result<()> {
    let out = match Command::new("certutil").args(args).output() {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "--browser firefox over TLS needs NSS's certutil to trust the run's CA in Firefox's profile, and it \
             is not on PATH: install it (scripts/setup-web.sh --firefox, or apt-get install libnss3-tools)"
        ),
        Err(e) => return Err(e).context("cannot run certutil"),
    };
    if !out.status.success() {
        bail!("certutil {} failed ({}): {}", args.join(" "), out.status, String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http3_maps_the_named_host_alone_and_never_falls_back() {
        assert_eq!(quic_prefs(&[]), "", "no HTTP/3 target: no QUIC preferences");
        let prefs = quic_prefs(&["localhost:4433".to_string()]);
        assert!(
            prefs.contains("user_pref(\"network.http.http3.alt-svc-mapping-for-testing\", \"localhost;h3=:4433\");")
        );
        assert!(prefs.contains("user_pref(\"network.http.http3.backup_timer_delay\", 600000);"), "{prefs}");
    }

    #[test]
    fn the_profile_turns_off_what_would_call_home() {
        let js = user_js();
        for line in [
            "user_pref(\"network.captive-portal-service.enabled\", false);",
            "user_pref(\"toolkit.telemetry.enabled\", false);",
            "user_pref(\"app.update.disabledForTesting\", true);",
            "user_pref(\"browser.startup.homepage_override.mstone\", \"ignore\");",
        ] {
            assert!(js.lines().any(|l| l == line), "{line} missing from:\n{js}");
        }
        assert_eq!(js.lines().count(), PREFS.len());
    }

    #[test]
    fn plaintext_needs_no_trust_and_no_certutil() {
        let pins = ["sha256/AAAA".to_string()];
        let servers = ServerCerts { spki_pins: &pins, ..ServerCerts::default() };
        assert!(Firefox.trust(&servers, Path::new("/nonexistent")).unwrap().is_empty());
    }
}
