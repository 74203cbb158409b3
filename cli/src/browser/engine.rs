//! What `run --browser` needs to know of a browser engine, as one trait ([`BrowserEngine`]): the names of its
//! binary and the flag that names one instead, how to install it, how it accepts the run's servers over TLS, by
//! which host it reaches the HTTP/3 target, how it starts and how it is ended. Each engine it can start has a
//! module of its own under [`super::engines`], and every lookup goes through that module's one table
//! ([`super::engines::ENGINES`]): an engine not in it (WebKit) cannot be started by accident.
//!
//! Which browser binary runs an engine: the one given (`--chromium PATH`, `--firefox PATH`), or the first of the
//! engine's usual names on PATH; else an error that says how to get one.

use std::fmt;
use std::path::{Path, PathBuf};

use httpbench_shared::model::Engine;

use super::engines;
use super::launch::Launch;
use crate::process::KillOnDrop;

/// A browser engine `run --browser` can start. Implemented once per engine, in [`super::engines`], and found
/// through its table alone.
pub trait BrowserEngine: Sync {
    /// The engine of the model: its name (the page's id, its cases' prefix), what its user agent reads as.
    fn id(&self) -> Engine;

    /// The names its binary is tried by on PATH, in order.
    fn binary_names(&self) -> &'static [&'static str];

    /// The flag of `run` that names its binary instead (`--chromium`).
    fn path_flag(&self) -> &'static str;

    /// How to install its browser: the set-up script's switch, or the Debian package.
    fn install_hint(&self) -> &'static str;

    /// Make the browser accept the run's servers over TLS (none given: plaintext, nothing to do), from their
    /// keys' SPKI pins and their CA files: each engine trusts by one of them, never by turning verification
    /// off. Anything kept in the profile folder `profile` is set up there; the arguments to start it with are
    /// returned.
    fn trust(&self, spki_pins: &[String], cas: &[PathBuf], profile: &Path) -> anyhow::Result<Vec<String>>;

    /// The host name it is given for the HTTP/3 target, which listens on 127.0.0.1 (its QUIC set-up, in
    /// [`start`](Self::start), covers the origins by this host).
    fn quic_host(&self) -> &'static str;

    /// Start the browser of `launch` headless on `url` (the start page) with the profile folder `profile`, its
    /// output going to `log`.
    fn start(&self, launch: &Launch<'_>, url: &str, profile: &Path, log: &Path) -> anyhow::Result<KillOnDrop>;

    /// End a browser it started, its page done or failed: killed and reaped (dropping the guard does the same
    /// on every other way out: an early return, a panic; and the kernel kills it should httpbench be killed).
    fn end(&self, browser: KillOnDrop) {
        drop(browser);
    }
}

impl fmt::Debug for dyn BrowserEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.id())
    }
}

/// One engine's browser binary: found by [`find`] alone, so always one of an engine of the table.
#[derive(Debug, Clone)]
pub struct Binary {
    engine: &'static dyn BrowserEngine,
    /// Its path.
    pub path: PathBuf,
}

impl Binary {
    /// The engine it runs.
    pub fn engine(&self) -> &'static dyn BrowserEngine {
        self.engine
    }

    /// The engine of the model it runs (its name, the page's id).
    pub fn id(&self) -> Engine {
        self.engine.id()
    }
}

/// `engine`'s browser as given (`explicit`, by its path flag), or found on PATH; an error naming the flag, or
/// saying how to install one, or that `run --browser` cannot start this engine at all.
pub fn find(engine: Engine, explicit: Option<&Path>) -> Result<Binary, String> {
    let engine = engines::lookup(engine)?;
    let (id, names, flag) = (engine.id(), engine.binary_names(), engine.path_flag());
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(Binary { engine, path: p.to_path_buf() })
        } else {
            Err(format!("{flag} {}: no such file; give the path of a {id} binary", p.display()))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|p| p.is_file())
        .map(|path| Binary { engine, path })
        .ok_or_else(|| {
            format!(
                "--browser {id} needs {}, and none is on PATH: install it ({}) or pass {flag} PATH",
                names.first().unwrap_or(&"a browser"),
                engine.install_hint()
            )
        })
}

/// Chromium as given, or found on PATH, as `run --browser` finds it (the page's end-to-end test starts it too).
pub fn find_chromium(explicit: Option<&Path>) -> Result<PathBuf, String> {
    find(Engine::Chromium, explicit).map(|b| b.path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::engines::ENGINES;

    #[test]
    fn a_missing_browser_names_its_engines_flag() {
        for engine in ENGINES {
            let e = find(engine.id(), Some(Path::new("/nonexistent/browser"))).unwrap_err();
            assert!(e.starts_with(&format!("{} /nonexistent/browser: no such file", engine.path_flag())), "{e}");
        }
        let e = find(Engine::Chromium, Some(Path::new("/nonexistent/chromium"))).unwrap_err();
        assert!(e.contains("--chromium /nonexistent/chromium"), "{e}");
        let e = find(Engine::Firefox, Some(Path::new("/nonexistent/ff"))).unwrap_err();
        assert!(e.contains("--firefox /nonexistent/ff"), "{e}");
    }

    #[test]
    fn an_engine_found_is_the_one_asked_for() {
        // Any file will do for an explicit path: the browser is not started.
        let file = std::env::current_exe().unwrap();
        for engine in ENGINES {
            let binary = find(engine.id(), Some(&file)).unwrap();
            assert_eq!((binary.id(), binary.path.as_path()), (engine.id(), file.as_path()));
        }
    }
}
