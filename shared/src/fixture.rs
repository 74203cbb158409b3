//! One builder of `Report` literals for the tests of every crate (shared, cli, web, end to end): a report of
//! either environment with plausible, fixed fields and no cases, which a test then adjusts with struct update
//! or field assignment. Fixed values (no clock, no machine) keep snapshots exact; the version is a constant so
//! a release does not change them.

use std::collections::BTreeMap;

use crate::model::{Environment, EnvironmentKind, Mode, Report, Settings, Target, Tool, SCHEMA_VERSION};
use crate::session::Header;

/// The version every fixture report claims.
pub const VERSION: &str = "0.1.0";

/// A release-build report of `kind` (`httpbench` natively, `httpbench-web` in the browser), 200 requests per
/// case in 5 interleaved rounds after 10 warm-up, both modes, no clients and no cases yet.
pub fn report(kind: EnvironmentKind) -> Report {
    let header = header(kind);
    Report {
        schema_version: SCHEMA_VERSION,
        tool: header.tool,
        environment: header.environment,
        target: header.target,
        settings: Settings {
            count: Some(200),
            duration_secs: None,
            rounds: 5,
            interleave: true,
            warmup: 10,
            modes: vec![Mode::Fresh, Mode::Reuse],
            clients: Vec::new(),
            timeout_ms: Some(10_000),
            tls: false,
            http_versions: vec![crate::model::HttpVersion::Http11],
            skipped: Vec::new(),
        },
        partial: false,
        cases: Vec::new(),
    }
}

/// What a session needs besides its cases, for a fixture report of `kind`.
pub fn header(kind: EnvironmentKind) -> Header {
    let native = kind == EnvironmentKind::Native;
    let name = if native { "httpbench" } else { "httpbench-web" };
    Header {
        tool: Tool { name: name.into(), version: VERSION.into(), build_profile: "release".into() },
        environment: Environment {
            kind,
            os: if native { "linux" } else { "Linux" }.into(),
            arch: if native { "x86_64" } else { "wasm32" }.into(),
            cpu: native.then(|| "Test CPU".into()),
            cpus_online: Some(2),
            user_agent: (!native).then(|| "HeadlessChrome/156".into()),
            cross_origin_isolated: (!native).then_some(true),
            timer_resolution_ns: Some(if native { 20.0 } else { 5_000.0 }),
            client_versions: BTreeMap::new(),
            placement: None,
            started_unix_ms: None,
            browser_version: None,
            kernel: None,
        },
        target: Target { url: "http://127.0.0.1:8080/".into(), embedded_server: native },
    }
}
