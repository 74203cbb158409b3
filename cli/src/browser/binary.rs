//! Which browser binary `run --browser` starts for each engine: the one given (`--chromium PATH`,
//! `--firefox PATH`), or the first of the engine's usual names on PATH; an error that says how to get one.

use std::path::{Path, PathBuf};

use httpbench_shared::model::Engine;

/// One engine's browser binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binary {
    /// The engine it runs.
    pub engine: Engine,
    /// Its path.
    pub path: PathBuf,
}

/// The names tried on PATH for `engine`, in order, and the flag that names one instead.
fn candidates(engine: Engine) -> (&'static [&'static str], &'static str) {
    match engine {
        Engine::Chromium => (&["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"], "--chromium"),
        Engine::Firefox => (&["firefox-esr", "firefox"], "--firefox"),
        Engine::Webkit => (&[], "--browser"),
    }
}

/// The Debian package and the set-up script's switch that install `engine`'s browser.
fn how_to_install(engine: Engine) -> &'static str {
    match engine {
        Engine::Chromium => "scripts/setup-web.sh, or Debian's apt-get install chromium",
        Engine::Firefox => "scripts/setup-web.sh --firefox, or Debian's apt-get install firefox-esr",
        Engine::Webkit => "run --browser cannot start Safari; open the page in it by hand",
    }
}

/// `engine`'s browser as given, or found on PATH.
pub fn find(engine: Engine, explicit: Option<&Path>) -> Result<Binary, String> {
    let (names, flag) = candidates(engine);
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(Binary { engine, path: p.to_path_buf() })
        } else {
            Err(format!("{flag} {}: no such file; give the path of a {engine} binary", p.display()))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|p| p.is_file())
        .map(|path| Binary { engine, path })
        .ok_or_else(|| {
            format!(
                "--browser {engine} needs {}, and none is on PATH: install it ({}) or pass {flag} PATH",
                names.first().unwrap_or(&"a browser"),
                how_to_install(engine)
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_browser_is_a_clear_error() {
        let e = find(Engine::Chromium, Some(Path::new("/nonexistent/chromium"))).unwrap_err();
        assert!(e.contains("--chromium /nonexistent/chromium"), "{e}");
        let e = find(Engine::Firefox, Some(Path::new("/nonexistent/ff"))).unwrap_err();
        assert!(e.contains("--firefox /nonexistent/ff"), "{e}");
    }
}
