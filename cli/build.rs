//! Records the version of every crate Cargo.lock pins and of rustc, so reports can say which ureq or reqwest
//! ran: a client's row names its crates (`Made::Library`), and no list of crate names is kept here. Also names
//! the built page to embed (`dist/` beside the crate, or `HTTPBENCH_EMBED_PAGE`), where there is one, so that
//! an installed binary serves it with no checkout (`server::page`).

use std::path::{Path, PathBuf};

fn main() {
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = std::fs::read_to_string(&lock).unwrap_or_default();
    let rows: Vec<String> = locked_versions(&text).iter().map(|(n, v)| format!("    ({n:?}, {v:?}),\n")).collect();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("locked.rs");
    let code = format!(
        "/// Every crate Cargo.lock pins and its version (the first entry of a name), sorted by name.\n\
         pub const LOCKED: &[(&str, &str)] = &[\n{}];\n",
        rows.concat()
    );
    std::fs::write(out, code).expect("OUT_DIR is writable");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.split_whitespace().nth(1).map(str::to_string))
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=HTTPBENCH_RUSTC_VERSION={version}");
    embed_page();
}

/// `HTTPBENCH_EMBEDDED_PAGE` for the page's embedding (rust-embed's folder): the page built in `dist/` beside
/// this crate, or the folder `HTTPBENCH_EMBED_PAGE` names, when it holds an `index.html`; unset otherwise, and
/// the binary embeds nothing (and says so when asked for the page). Only a folder that exists is watched: cargo
/// re-runs a build script on every build while a path it watches is missing.
fn embed_page() {
    println!("cargo:rerun-if-env-changed=HTTPBENCH_EMBED_PAGE");
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../dist");
    let page = std::env::var_os("HTTPBENCH_EMBED_PAGE").map_or(beside, PathBuf::from);
    if page.is_dir() {
        println!("cargo:rerun-if-changed={}", page.display());
    }
    if let Some(page) = page.canonicalize().ok().filter(|p| p.join("index.html").is_file()) {
        println!("cargo:rustc-env=HTTPBENCH_EMBEDDED_PAGE={}", page.display());
    }
}

/// The `(name, version)` of each `[[package]]` of a Cargo.lock, the first of each name, sorted by name.
fn locked_versions(lock: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line.trim().strip_prefix("name = \"").and_then(|s| s.strip_suffix('"')) else {
            continue;
        };
        let version = lines.next().and_then(|l| l.trim().strip_prefix("version = \"")?.strip_suffix('"'));
        if let Some(version) = version.filter(|_| !out.iter().any(|(n, _)| n == name)) {
            out.push((name.to_string(), version.to_string()));
        }
    }
    out.sort();
    out
}
