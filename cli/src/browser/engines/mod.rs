//! The browser engines `run --browser` can start, one module each, and their one table ([`ENGINES`]) that
//! every lookup goes through ([`lookup`]). Which engines can be started has its home in the model,
//! [`Engine::STARTED`] (what `--browser all` runs: the shared crate reads `--browser`'s list and cannot see
//! this crate); the table holds exactly those, in that order, which a unit test keeps true.

mod chromium;
mod firefox;
mod webkit;

use std::path::{Path, PathBuf};

use httpbench_shared::model::Engine;

use super::engine::{Binary, BrowserEngine};

pub use chromium::CHROMIUM_FLAGS;
pub use firefox::user_js as firefox_user_js;

/// Every engine `run --browser` can start, in [`Engine::STARTED`]'s order.
pub const ENGINES: &[&dyn BrowserEngine] = &[&chromium::Chromium, &firefox::Firefox, &webkit::Webkit];

/// The engine of the table that runs `engine`; an engine not in it is an error that says so, never another
/// engine's start-up.
pub fn lookup(engine: Engine) -> Result<&'static dyn BrowserEngine, String> {
    ENGINES.iter().copied().find(|e| e.id() == engine).ok_or_else(|| {
        format!(
            "run --browser cannot start {engine} yet; open the page in it by hand (httpbench serve prints its address)"
        )
    })
}

/// `engine`'s browser as given (`explicit`, by its path flag), or found on PATH (then in its known folders),
/// and the programs it is started with ([`BrowserEngine::helpers`]) on PATH; an error naming the flag, or
/// saying how to install what is missing, or that `run --browser` cannot start this engine.
pub fn find(engine: Engine, explicit: Option<&Path>) -> Result<Binary, String> {
    let engine = lookup(engine)?;
    let (id, names, flag) = (engine.id(), engine.binary_names(), engine.path_flag());
    for name in engine.helpers() {
        helper(engine, name)?;
    }
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(Binary::new(engine, p.to_path_buf()))
        } else {
            Err(format!("{flag} {}: no such file; give the path of a {id} binary", p.display()))
        };
    }
    let known = engine.known_dirs().iter().map(PathBuf::from);
    names
        .iter()
        .find_map(|name| on_path(name))
        .or_else(|| known.flat_map(|dir| names.iter().map(move |name| dir.join(name))).find(|p| p.is_file()))
        .map(|path| Binary::new(engine, path))
        .ok_or_else(|| {
            format!(
                "--browser {id} needs {}, and none is on PATH: install it ({}) or pass {flag} PATH",
                names.first().unwrap_or(&"a browser"),
                engine.install_hint()
            )
        })
}

/// `engine`'s helper program `name` (one of its [`BrowserEngine::helpers`]) on PATH; an error saying how to
/// install it.
pub(super) fn helper(engine: &dyn BrowserEngine, name: &str) -> Result<PathBuf, String> {
    on_path(name).ok_or_else(|| {
        format!("--browser {} needs {name}, and none is on PATH: install it ({})", engine.id(), engine.install_hint())
    })
}

/// The program `name` in a folder of PATH, the first there is.
pub(super) fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| p.is_file())
}

/// Chromium as given, or found on PATH, as `run --browser` finds it (the page's end-to-end test starts it too).
pub fn find_chromium(explicit: Option<&Path>) -> Result<PathBuf, String> {
    find(Engine::Chromium, explicit).map(|b| b.path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_every_started_engine_once_in_order() {
        let ids: Vec<Engine> = ENGINES.iter().map(|e| e.id()).collect();
        assert_eq!(ids, Engine::STARTED, "the table and Engine::STARTED (what --browser all runs) disagree");
        for engine in Engine::STARTED {
            assert_eq!(lookup(engine).map(|e| e.id()), Ok(engine));
        }
    }

    #[test]
    fn each_engine_has_a_flag_and_names_of_its_own() {
        for (i, a) in ENGINES.iter().enumerate() {
            assert!(a.path_flag().starts_with("--") && !a.binary_names().is_empty(), "{}", a.id());
            for b in &ENGINES[i + 1..] {
                assert_ne!(a.path_flag(), b.path_flag());
                assert!(a.binary_names().iter().all(|n| !b.binary_names().contains(n)), "{} {}", a.id(), b.id());
            }
        }
    }

    /// The install hint's set-up switch and Debian package are the ones scripts/setup-web.sh knows.
    #[test]
    fn the_install_hint_names_what_the_setup_script_installs() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/setup-web.sh");
        let script = std::fs::read_to_string(path).unwrap();
        for engine in ENGINES {
            let hint = engine.install_hint();
            let (setup, package) = hint.split_once(", or Debian's apt-get install ").expect(hint);
            let switch = setup.strip_prefix("scripts/setup-web.sh").expect(hint).trim();
            if !switch.is_empty() {
                assert!(script.contains(&format!("    {switch}) ")), "setup-web.sh has no {switch}: {hint}");
            }
            let installed = script.lines().filter_map(|l| l.trim().strip_prefix("add_missing_packages "));
            assert!(
                installed.into_iter().any(|l| l.split_whitespace().any(|w| w.trim_end_matches(';') == package)),
                "setup-web.sh installs no {package}: {hint}"
            );
        }
    }

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
        let e = find(Engine::Webkit, Some(Path::new("/nonexistent/MiniBrowser"))).unwrap_err();
        assert!(e.contains("--webkit /nonexistent/MiniBrowser"), "{e}");
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
