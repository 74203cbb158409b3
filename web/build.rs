//! Records the versions of the client crates the page links (read from the workspace's Cargo.lock), so the
//! result file names exactly what was measured.

use std::fs;

fn main() {
    let lock_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock");
    println!("cargo:rerun-if-changed={lock_path}");
    let lock = fs::read_to_string(lock_path).unwrap_or_default();
    for (krate, var) in [
        ("web-sys", "HTTPBENCH_WEB_SYS_VERSION"),
        ("gloo-net", "HTTPBENCH_GLOO_NET_VERSION"),
        ("reqwest", "HTTPBENCH_REQWEST_VERSION"),
    ] {
        println!("cargo:rustc-env={var}={}", version(&lock, krate));
    }
}

/// The highest locked version of `krate` (the page links the newest when two are locked), or `unknown`.
fn version(lock: &str, krate: &str) -> String {
    let name_line = format!("name = \"{krate}\"");
    let mut lines = lock.lines();
    let mut best: Option<String> = None;
    while let Some(line) = lines.next() {
        if line == name_line {
            if let Some(v) = lines.next().and_then(|l| l.strip_prefix("version = \"")).map(|v| v.trim_end_matches('"'))
            {
                if best.as_deref().is_none_or(|b| b < v) {
                    best = Some(v.to_string());
                }
            }
        }
    }
    best.unwrap_or_else(|| "unknown".into())
}
