//! The result file: one serde type tree shared by the CLI and the page, every field documented, units in names.
//!
//! A result file is a [`Report`] serialized as JSON. Its shape is versioned by [`SCHEMA_VERSION`]; the committed
//! JSON Schema (`schema/result-v5.schema.json`, the frozen v1 to v4 beside it) is generated from these types
//! and checked against real output.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// Version of the result file layout. Bump it on any change a reader of the last version could misread.
/// Version 2 added the protocol of each case (HTTP version, TLS, handshakes) and error reasons; version 3 the
/// load of each case (concurrency, body size, server delay) and the connections it used; version 4 each round's
/// CPU time and latency percentiles (so a gate can judge those with an interval) and when the run started;
/// version 5 HTTP/3 (`"3"` as an HTTP version, which a version-4 reader would refuse).
pub const SCHEMA_VERSION: u32 = 5;

/// The oldest layout still read: a version-1 file reads as HTTP/1.1 in plaintext (the fields version 2 added
/// take their defaults).
pub const OLDEST_SCHEMA_VERSION: u32 = 1;

mod case;
mod engine;
mod http;
mod link;
mod named;
mod placement;
pub use case::{Case, Latency, Phases, Round, Spread};
pub use engine::Engine;
pub use http::HttpVersion;
pub use link::LinkCounts;
pub use placement::{Pin, Placement};

/// One benchmark run: where it ran, what it measured, and one [`Case`] per cell of its matrix (client, mode,
/// HTTP version, body size, server delay, requests in flight).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// Layout version of this file; readers refuse versions they do not know. 3 for this layout (1 and 2 are
    /// still read: 1 as HTTP/1.1 in plaintext, both as sequential requests of the target as given).
    pub schema_version: u32,
    /// The program that wrote the file.
    pub tool: Tool,
    /// The machine or browser the cases ran in.
    pub environment: Environment,
    /// What was requested.
    pub target: Target,
    /// The run settings shared by every case.
    pub settings: Settings,
    /// True when the run was stopped before its plan was done (Ctrl-C, SIGTERM, the page's Stop): its cases hold
    /// what was measured until then, and the cases it had not reached are missing. Absent for a run that ran to
    /// its end, and in files written before it existed (an older reader refuses a partial file rather than
    /// misread it as whole).
    #[serde(default, skip_serializing_if = "is_false")]
    pub partial: bool,
    /// The measured cases, in the order they were run.
    pub cases: Vec<Case>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The program that produced a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// Program name, `httpbench` for the CLI and `httpbench-web` for the page.
    pub name: String,
    /// Program version (semver).
    pub version: String,
    /// `release` or `debug`: figures from a debug build are meaningless and the report says so.
    pub build_profile: String,
}

impl Tool {
    /// The program `name` of this build: the workspace's version, and the profile the workspace was built
    /// with (every crate of it shares one profile), so the CLI and the page name themselves alike.
    pub fn this_build(name: &str) -> Tool {
        Tool {
            name: name.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            build_profile: if cfg!(debug_assertions) { "debug" } else { "release" }.into(),
        }
    }
}

/// Where the cases ran: the two kinds share this one shape; fields that do not apply are null.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Environment {
    /// `native` for the CLI, `browser` for the page.
    pub kind: EnvironmentKind,
    /// Operating system (Rust's `std::env::consts::OS`, or the browser's platform string).
    pub os: String,
    /// CPU architecture (`x86_64`, `aarch64`, `wasm32`).
    pub arch: String,
    /// CPU model name where known (Linux: `/proc/cpuinfo`), else null.
    pub cpu: Option<String>,
    /// Logical CPUs online when the run started, where known.
    pub cpus_online: Option<u64>,
    /// The browser's `navigator.userAgent`; null for native runs.
    pub user_agent: Option<String>,
    /// The browser's `crossOriginIsolated` flag (fine-grained timer when true); null for native runs.
    pub cross_origin_isolated: Option<bool>,
    /// Smallest step of the clock used for timing, in nanoseconds, measured at start; null if not measured.
    pub timer_resolution_ns: Option<f64>,
    /// Version of each client library used, by client name (e.g. `curl` → `libcurl/7.88.1 ...`).
    pub client_versions: BTreeMap<String, String>,
    /// Where the client (or, for `run --browser`, the browser) and the server ran; null where not recorded (a page
    /// opened by hand).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<Placement>,
    /// When the run started, in milliseconds since the Unix epoch (UTC), as the front end's clock read it; orders
    /// the runs of a trend. Absent in files before version 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_unix_ms: Option<u64>,
    /// The browser's own version where its user agent does not carry it, as `run --browser` learnt it when it
    /// started the browser (WebKitGTK's WebDriver session says `2.50.6`; its user agent's `Version/` is not
    /// WebKitGTK's). Absent otherwise: for native runs, for engines whose user agent names their version,
    /// for a page opened by hand, and in files before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_version: Option<String>,
    /// The operating system kernel's release (Linux: `6.1.0-28-amd64`), where the front end can read it: a
    /// kernel update moves loopback figures, so a run history keeps runs of two kernels in two series. Absent
    /// for browsers and in files before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
}

/// The two environments httpbench measures in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum EnvironmentKind {
    /// The native CLI.
    Native,
    /// The WebAssembly page in a browser.
    Browser,
}

impl EnvironmentKind {
    /// The lowercase name used in reports and labels.
    pub fn as_str(self) -> &'static str {
        <EnvironmentKind as named::Named>::NAMES[self as usize]
    }
}

/// What every case requested.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// The URL requested (with `close=1` added in fresh mode where a front end needs the server to close).
    pub url: String,
    /// True when the target was httpbench's own embedded server.
    pub embedded_server: bool,
}

/// Run settings shared by every case of a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Measured requests per case (the Perl `timethese` count); null when cases ran for a duration instead.
    pub count: Option<u64>,
    /// Measured wall-clock seconds per case (`--duration`); null when a count was given.
    #[serde(default)]
    pub duration_secs: Option<f64>,
    /// Rounds each case was measured in; the count or duration is split evenly between them.
    #[serde(default = "one")]
    pub rounds: u32,
    /// Whether the rounds of all cases ran round-robin, so drift of the machine hits every case alike.
    #[serde(default)]
    pub interleave: bool,
    /// Requests made before measuring each case; excluded from every figure.
    pub warmup: u64,
    /// The connection modes that were run.
    pub modes: Vec<Mode>,
    /// The clients that were run, in the order given.
    pub clients: Vec<String>,
    /// Per-request timeout in milliseconds; null where the front end cannot set one.
    pub timeout_ms: Option<u64>,
    /// Whether the target was requested over TLS (`https`).
    #[serde(default)]
    pub tls: bool,
    /// The HTTP versions asked for, each a case dimension; `["1.1"]` in files written before version 2.
    #[serde(default = "http11_only")]
    pub http_versions: Vec<HttpVersion>,
    /// Cases of the (client, mode, HTTP version) matrix left out because their client cannot run them, one
    /// line each: `ureq over HTTP/2 (HTTP/1.1 only)`. (Lines, not objects, here and in [`Case::error_reasons`]:
    /// every nested type of the result file costs the page its own deserializer, and the page has a budget.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

fn http11_only() -> Vec<HttpVersion> {
    vec![HttpVersion::Http11]
}

fn one() -> u32 {
    1
}

/// How a client treats connections between requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A new client (handle, agent) and a new TCP connection for every request, as the Perl script did.
    Fresh,
    /// One client for all requests, connection kept alive.
    Reuse,
}

impl Mode {
    /// The lowercase name used on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        <Mode as named::Named>::NAMES[self as usize]
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a request did not count as ok.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    /// The TCP connection could not be made (refused, unreachable).
    Connect,
    /// The host name did not resolve.
    Dns,
    /// No complete answer within the per-request timeout.
    Timeout,
    /// The peer reset or closed the connection before the response ended.
    Reset,
    /// The body was shorter than its `Content-Length`.
    Truncated,
    /// The peer did not speak HTTP (or spoke it wrongly).
    Protocol,
    /// A complete response with a status outside 200–299.
    Status,
    /// Too many redirects, or a redirect loop.
    Redirect,
    /// TLS handshake or certificate failure.
    Tls,
    /// Anything the client could not classify more precisely.
    Other,
}

impl ErrorKind {
    /// Every kind, in report order.
    pub const ALL: [ErrorKind; 10] = [
        ErrorKind::Connect,
        ErrorKind::Dns,
        ErrorKind::Timeout,
        ErrorKind::Reset,
        ErrorKind::Truncated,
        ErrorKind::Protocol,
        ErrorKind::Status,
        ErrorKind::Redirect,
        ErrorKind::Tls,
        ErrorKind::Other,
    ];

    /// The kind named `name` (as [`ErrorKind::as_str`] spells it).
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The lowercase name used in reports.
    pub fn as_str(self) -> &'static str {
        <ErrorKind as named::Named>::NAMES[self as usize]
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl named::Named for EnvironmentKind {
    const ALL: &'static [Self] = &[EnvironmentKind::Native, EnvironmentKind::Browser];
    const NAMES: &'static [&'static str] = &["native", "browser"];
}

impl named::Named for Mode {
    const ALL: &'static [Self] = &[Mode::Fresh, Mode::Reuse];
    const NAMES: &'static [&'static str] = &["fresh", "reuse"];
}

impl named::Named for ErrorKind {
    const ALL: &'static [Self] = &ErrorKind::ALL;
    const NAMES: &'static [&'static str] =
        &["connect", "dns", "timeout", "reset", "truncated", "protocol", "status", "redirect", "tls", "other"];
}

named::deserialize_by_name!(EnvironmentKind, Mode, ErrorKind);
