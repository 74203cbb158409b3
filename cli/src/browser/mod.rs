//! The browser front end of `httpbench run --browser`: the browser half of the run session, run by the page
//! in real headless browsers (Chromium, Firefox: one page run per engine) against the embedded server(s). The
//! CLI's options hold the browser cases' matrix (by shared's one parse of the run's raw plan, the page's too:
//! a plan the page would refuse exits 2 naming the flag) and hand the whole plan to each engine's page run ([`page`]); the
//! page runs one session over that matrix and posts its final report, which the CLI only merges with the
//! native one, noting where the browser ran.

mod binary;
mod chromium;
mod firefox;
mod page;
mod pages;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Context;
use httpbench_shared::model::{Engine, HttpVersion, Pin};
use httpbench_shared::session::Targets;

pub use binary::{find, Binary};
pub use chromium::CHROMIUM_FLAGS;
pub use firefox::user_js as firefox_user_js;
pub use pages::Pages;

use crate::options::RunOptions;
use crate::placement;
use crate::process::KillOnDrop;
use crate::server::spawned::ChildServer;
use crate::usage::Usage;

/// For `--browser --tls --http 1.1,2`: a second embedded server that offers only `http/1.1` by ALPN, the
/// browser's HTTP/1.1 target (the browser takes the best protocol a server offers, and the first server then
/// offers h2 too). Otherwise the first server offers HTTP/1.1 alone, or does not serve it.
pub fn start_h1_target(options: &RunOptions, cpu: Option<usize>) -> anyhow::Result<Option<ChildServer>> {
    let versions = &options.matrix.http_versions;
    let wanted = options.tls && versions.contains(&HttpVersion::Http11) && versions.contains(&HttpVersion::Http2);
    start_target(options, cpu, wanted, "1.1")
}

/// For `--browser --tls` with HTTP/3: a server that speaks HTTP/3 (on UDP), the browser's HTTP/3 target,
/// which Chromium is told to reach over QUIC (`--origin-to-force-quic-on`): a browser uses QUIC only for an
/// origin it was told speaks it, and the page's own origin must stay on TCP (it serves the page).
pub fn start_h3_target(options: &RunOptions, cpu: Option<usize>) -> anyhow::Result<Option<ChildServer>> {
    let wanted = options.tls && options.matrix.http_versions.contains(&HttpVersion::Http3);
    start_target(options, cpu, wanted, "3")
}

fn start_target(
    options: &RunOptions,
    cpu: Option<usize>,
    wanted: bool,
    http: &str,
) -> anyhow::Result<Option<ChildServer>> {
    Ok(match &options.browser {
        Some(_) if wanted => Some(ChildServer::start(cpu, &["--tls".into(), "--http".into(), http.into()])?),
        _ => None,
    })
}

/// The servers and URL the browser half requests.
pub struct BrowserTargets<'a> {
    /// The embedded server: it serves the page, saves its results, and is the target (HTTP/2 over TLS).
    pub server: &'a ChildServer,
    /// Over TLS, the server offering only HTTP/1.1.
    pub h1: Option<&'a ChildServer>,
    /// Over TLS, the server of the HTTP/3 cases.
    pub h3: Option<&'a ChildServer>,
    /// The run's target URL on `server`.
    pub url: &'a url::Url,
}

/// The host name `engine` is given for the HTTP/3 target (which listens on 127.0.0.1). Chromium is told to use
/// QUIC for one origin (`--origin-to-force-quic-on`), so the address serves. Firefox's only way, a test-only
/// Alt-Svc mapping, names a host and covers every port of it: by the address, the page's own origin
/// (127.0.0.1, another port) was sent to the HTTP/3 target too and never loaded. By the name `localhost`
/// (in the generated certificate) the mapping covers the HTTP/3 target alone.
fn quic_host(engine: Engine) -> &'static str {
    match engine {
        Engine::Firefox => "localhost",
        Engine::Chromium | Engine::Webkit => "127.0.0.1",
    }
}

impl BrowserTargets<'_> {
    /// The URLs of `engine`'s cases: the run's, over TLS HTTP/1.1's on the server that offers it alone, and
    /// HTTP/3's on its server (by [`quic_host`]).
    fn targets(&self, engine: Engine) -> Targets {
        let mut targets = Targets::one(self.url.as_str());
        for (version, server) in [(HttpVersion::Http11, self.h1), (HttpVersion::Http3, self.h3)] {
            if let Some(s) = server {
                let mut url = s.url.join(self.url.path()).unwrap_or_else(|_| s.url.clone());
                if version == HttpVersion::Http3 {
                    // A valid host name for an https URL: setting it cannot fail.
                    let _ = url.set_host(Some(quic_host(engine)));
                }
                targets.per_version.push((version, url.to_string()));
            }
        }
        targets
    }

    /// Every server the page requests.
    fn servers(&self) -> impl Iterator<Item = &ChildServer> {
        [Some(self.server), self.h1, self.h3].into_iter().flatten()
    }

    /// The SPKI pins of the servers' keys, for Chromium to accept (over TLS).
    fn pins(&self) -> Vec<String> {
        self.servers().filter_map(|s| s.pin.clone()).collect()
    }

    /// The servers' CA files, for Firefox to trust in its profile (over TLS).
    fn cas(&self) -> Vec<PathBuf> {
        self.servers().filter_map(|s| s.ca.clone()).collect()
    }

    /// The origins `engine` must reach over QUIC (`HOST:PORT`, by [`quic_host`]): the HTTP/3 target's.
    fn quic_origins(&self, engine: Engine) -> Vec<String> {
        self.h3.iter().filter_map(|s| Some(format!("{}:{}", quic_host(engine), s.url.port()?))).collect()
    }
}

/// Chromium as given, or found on PATH (the page's end-to-end test starts it too).
pub fn find_chromium(explicit: Option<&Path>) -> Result<PathBuf, String> {
    binary::find(Engine::Chromium, explicit).map(|b| b.path)
}

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
    /// The origins to reach over QUIC (`HOST:PORT`), the HTTP/3 target's; none: no QUIC at all.
    pub quic_origins: &'a [String],
}

impl Launch<'_> {
    /// The engine's name, for messages.
    pub fn name(&self) -> &'static str {
        self.binary.engine.as_str()
    }

    /// Start the browser headless on `url` with the profile folder `profile`, its output going to `log`. The
    /// browser is given a start page in `profile` that goes on to `url`, never `url` itself: `url` carries the
    /// page's seal, and a command line is world-readable (`/proc/PID/cmdline`) while the profile folder is the
    /// run's own (mode 0700).
    pub fn start(&self, url: &str, profile: &Path, log: &Path) -> anyhow::Result<KillOnDrop> {
        let start = start_page(profile, url)?;
        let start = url::Url::from_file_path(&start)
            .map_err(|()| anyhow::anyhow!("the start page {} has no file URL", start.display()))?;
        match self.binary.engine {
            Engine::Firefox => firefox::start(self, start.as_str(), profile, log),
            Engine::Chromium | Engine::Webkit => chromium::start(self, start.as_str(), profile, log),
        }
    }

    /// The browser's command: killed with httpbench even when httpbench itself is killed (a test's timeout
    /// once left one running), placed on its CPUs, its output going to `log`.
    fn command(&self, log: &Path) -> anyhow::Result<Command> {
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

    fn spawn(&self, cmd: &mut Command) -> anyhow::Result<KillOnDrop> {
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

/// Where the browsers run for `--browser` (Linux), relative to the server: among `allowed`, the CPUs this
/// process could use before it pinned itself.
pub fn place_browser(
    options: &RunOptions,
    allowed: Option<&[usize]>,
    server_cpus: Option<&[usize]>,
) -> Result<Option<BrowserPlacement>, Usage> {
    match &options.browser {
        Some(b) if cfg!(target_os = "linux") => Ok(Some(BrowserPlacement {
            pin: b.pin,
            cpus: placement::browser_cpus(b.pin, allowed.unwrap_or_default(), server_cpus).map_err(|e| Usage(e.0))?,
            server_cpus: server_cpus.map(<[usize]>::to_vec),
        })),
        _ => Ok(None),
    }
}

/// Where the browser is to run (Linux): the policy, its CPUs, and the server's, for the browser report.
#[derive(Clone)]
pub struct BrowserPlacement {
    pin: Pin,
    cpus: Vec<usize>,
    server_cpus: Option<Vec<usize>>,
}
