//! What the end-to-end tests share, one module per kind of help: the binary ([`cli`]), an `httpbench serve`
//! child ([`serve`]), servers written here that hand the test every request they get ([`servers`]), plain
//! HTTP exchanges written with std ([`http`]), and the page in a real browser ([`page`], driven by
//! [`chromium`] or [`firefox`], served from one of the [`site`] origins). Here: the bounded wait, and small
//! things about files and tools.

pub(crate) mod chromium;
pub(crate) mod cli;
pub(crate) mod firefox;
pub(crate) mod http;
pub(crate) mod page;
pub(crate) mod serve;
pub(crate) mod servers;
pub(crate) mod site;
pub(crate) mod table;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

/// Wait until `probe` gives a value, trying every 20 ms for at most `limit`; past it the test fails saying
/// what it waited for and `why()` (the page's status line, say). The bounded wait for conditions of other
/// programs (a page's state, a file a child writes); what a server written here receives comes through its
/// channel instead ([`servers::TestServer::requests`]). A condition to wait for, never a pause that guesses
/// how long something takes.
pub(crate) fn wait_for<T>(
    what: &str,
    limit: Duration,
    mut probe: impl FnMut() -> Option<T>,
    why: impl Fn() -> String,
) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = probe() {
            return v;
        }
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}; {}", why());
        thread::sleep(Duration::from_millis(20));
    }
}

/// [`wait_for`] a condition.
pub(crate) fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool, why: impl Fn() -> String) {
    wait_for(what, limit, || done().then_some(()), why)
}

/// The repository's root (the tests belong to the `cli` package, one level down).
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh directory under the target dir, for files a test writes.
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Make a FIFO (named pipe) at `path`, which blocks whoever opens it for reading until a writer comes.
pub(crate) fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path and creates a file; nothing else.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
}

/// Whether python3 has the requests module (the python-requests command client needs it).
pub(crate) fn python_has_requests() -> bool {
    Command::new("python3").args(["-c", "import requests"]).status().is_ok_and(|s| s.success())
}
