//! Records the versions of the client crates from Cargo.lock, so reports can say which ureq or reqwest ran.

use std::path::Path;

fn main() {
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = std::fs::read_to_string(&lock).unwrap_or_default();
    for name in ["ureq", "reqwest", "hyper", "curl", "rustls", "quinn", "h3"] {
        let version = locked_version(&text, name).unwrap_or_else(|| "unknown".to_string());
        println!("cargo:rustc-env=HTTPBENCH_VERSION_{}={version}", name.to_uppercase());
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.split_whitespace().nth(1).map(str::to_string))
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=HTTPBENCH_RUSTC_VERSION={version}");
}

/// The version of the first `[[package]]` named `name` in a Cargo.lock.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{name}\"") {
            let next = lines.next()?;
            return next.trim().strip_prefix("version = \"")?.strip_suffix('"').map(str::to_string);
        }
    }
    None
}
