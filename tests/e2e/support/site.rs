//! Where the page under test comes from: the built page ([`dist`]), and the two origins it is used from
//! ([`Origin`]): `httpbench serve`, and a plain static host that sends no headers, the page at a sub-path.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use httpbench::process::KillOnDrop;
use httpbench_shared::protocol::PageQuery;
use httpbench_shared::session::RawPlan;

use super::root;
use super::serve::Serve;

/// Why the browser tests are ignored by a plain `cargo test`: scripts/test.sh builds the page, installs
/// Chromium and runs them with `--include-ignored`.
const NEEDS_PAGE: &str = "needs the built page (dist/) and Chromium: scripts/test.sh runs it";

/// Where the page is mounted on the plain static host: a sub-path, as on any static host.
const SUB_PATH: &str = "sub/httpbench/";

/// The built page; a test that needs it fails when it is missing.
pub(crate) fn dist() -> PathBuf {
    let dist = root().join("dist");
    assert!(dist.join("index.html").is_file(), "dist/ is not built: run scripts/build-page.sh ({NEEDS_PAGE})");
    dist
}

/// The two origins the page is tested on: `httpbench serve` (which sends COOP/COEP and is also the target),
/// and a plain static host that sends no headers at all (Python's `http.server`, as GitHub Pages serves it:
/// the page's service worker isolates it), the page at a sub-path, the target `httpbench serve` on another
/// port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    Serve,
    PlainStatic,
}

/// A running origin: the page's URL, the benchmark target's, and what keeps them up.
pub(crate) struct Site {
    /// The page, ending in `/`.
    pub page: String,
    /// The target server's base URL.
    pub target: String,
    _serve: Serve,
    _static: Option<(KillOnDrop, tempfile::TempDir)>,
    _results: Option<tempfile::TempDir>,
}

impl Origin {
    /// Start the servers for `dist`.
    pub(crate) fn start(self, dist: &Path) -> Site {
        match self {
            Origin::Serve => {
                // The page posts its result back to serve: into a folder that goes with the test.
                let results = tempfile::tempdir().unwrap();
                let dirs = ["--page-dir", dist.to_str().unwrap(), "--results-dir", results.path().to_str().unwrap()];
                let serve = Serve::start_with(&[&["--quiet"][..], &dirs[..]].concat());
                let page = format!("{}app/", serve.url);
                Site { page, target: serve.url.clone(), _serve: serve, _static: None, _results: Some(results) }
            }
            Origin::PlainStatic => {
                let top = tempfile::tempdir().unwrap();
                std::fs::create_dir_all(top.path().join("sub")).unwrap();
                std::os::unix::fs::symlink(dist, top.path().join(SUB_PATH.trim_end_matches('/'))).unwrap();
                let (child, url) = plain_static_server(top.path());
                let serve = Serve::start();
                Site {
                    page: format!("{url}{SUB_PATH}"),
                    target: serve.url.clone(),
                    _serve: serve,
                    _static: Some((child, top)),
                    _results: None,
                }
            }
        }
    }
}

/// `python3 -m http.server` on 127.0.0.1 (a free port) serving `dir`; its URL.
pub(crate) fn plain_static_server(dir: &Path) -> (KillOnDrop, String) {
    let mut cmd = Command::new("python3");
    cmd.args(["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory"]).arg(dir);
    let mut child = KillOnDrop::spawn(cmd.stdout(Stdio::piped()).stderr(Stdio::null())).expect("python3 runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    // "Serving HTTP on 127.0.0.1 port 45678 (http://127.0.0.1:45678/) ..."
    let url = line.split(['(', ')']).nth(1).unwrap_or_else(|| panic!("http.server printed {line:?}")).to_string();
    (child, url)
}

/// The hosted page's link for the tests of a plain host: 2 rounds of 20 requests of `fetch,js-fetch`
/// reusing connections, against `target`, run at once (Chromium's test in `hosted` and Firefox's in
/// `firefox_page`).
pub(crate) fn autorun_query(target: &str) -> PageQuery {
    let plan = RawPlan {
        target: Some(target.to_string()),
        count: Some("20".into()),
        warmup: Some("2".into()),
        rounds: Some("2".into()),
        clients: Some("fetch,js-fetch".into()),
        mode: Some("reuse".into()),
        ..RawPlan::default()
    };
    PageQuery { plan, autorun: true, ..PageQuery::default() }
}
