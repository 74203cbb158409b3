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

mod engine;
mod http;
mod named;
mod placement;
pub use engine::Engine;
pub use http::HttpVersion;
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

/// The figures of one case: a client in one mode, over one HTTP version, at one load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Client name (`curl`, `ureq`, `reqwest`, `reqwest-async`, `raw`; in the browser `fetch`, `xhr`, ...).
    pub client: String,
    /// Connection mode of this case.
    pub mode: Mode,
    /// The HTTP version asked for; every ok response came over it (one over another counts as a `protocol`
    /// error). `1.1` in files written before version 2.
    #[serde(default)]
    pub http_version: HttpVersion,
    /// TLS version and cipher suite the embedded server negotiated with this case's client in most handshakes
    /// of its measured rounds (`TLSv1.3 TLS13_AES_256_GCM_SHA384`); absent in plaintext, for external servers,
    /// and when the rounds made no handshake (a reused connection made it in the warm-up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<String>,
    /// Full TLS handshakes the embedded server counted during this case's measured rounds: one per new
    /// connection unless a session was resumed. Absent where not counted (plaintext, external servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_full_handshakes: Option<u64>,
    /// Resumed TLS handshakes (a ticket or session id, skipping the key exchange) during the measured rounds,
    /// counted as `tls_full_handshakes` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_resumed_handshakes: Option<u64>,
    /// Requests in flight at all times during this case's rounds (each from its own thread, task, handle or
    /// promise chain); absent for 1, sequential requests, and in files written before version 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u64>,
    /// Response body size in bytes this case asked the embedded server for (`/bytes/N`, `--body-size`); absent
    /// when the target was requested as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_bytes: Option<u64>,
    /// Think time in milliseconds this case asked the embedded server to wait before each answer
    /// (`delay_ms=N`, `--server-delay`); absent when none was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_delay_ms: Option<u64>,
    /// Distinct connections that served this case's requests, its warm-up included, as the embedded server
    /// counted them: one per request in fresh mode; in reuse mode as many as the client used, e.g. a browser's
    /// six per host over HTTP/1.1 and one over HTTP/2 (a browser case counts the connections its requests were
    /// tagged on, which it may share with the cases before it); absent where not counted (external servers, a
    /// page opened by hand).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<u64>,
    /// Measured requests attempted (warm-up excluded); ok plus failed.
    pub iterations: u64,
    /// Requests that completed with a 2xx status and a complete body.
    pub ok: u64,
    /// Failed requests by kind; kinds with no failures are left out.
    pub errors: BTreeMap<ErrorKind, u64>,
    /// Why requests failed: `KIND: message` for the first failure of each kind that failed, where the client
    /// gave a message, in the order of [`ErrorKind::ALL`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub error_reasons: Vec<String>,
    /// Complete responses by HTTP status code (as a decimal string), whether ok or not.
    pub statuses: BTreeMap<String, u64>,
    /// Wall-clock time of the measured requests, in seconds.
    pub wall_secs: f64,
    /// CPU time in user mode spent by the client while measuring, in seconds; null where unknown (browser).
    pub cpu_user_secs: Option<f64>,
    /// CPU time in the kernel spent by the client while measuring, in seconds; null where unknown (browser).
    pub cpu_sys_secs: Option<f64>,
    /// Ok requests per wall-clock second: the primary, cross-environment rate.
    pub rate_wall: f64,
    /// Iterations per CPU second (user + sys), Perl `Benchmark`'s definition; null where CPU time is unknown or 0.
    pub rate_cpu: Option<f64>,
    /// Response body bytes received by ok requests, in total (over `wall_secs`: the body throughput).
    pub bytes: u64,
    /// Latency of ok requests in nanoseconds; null when no request was ok.
    pub latency_ns: Option<Latency>,
    /// Ok requests whose latency is an outlier: modified z-score above 3.5, from the median absolute deviation
    /// (Iglewicz and Hoaglin 1993), computed on the latency histogram.
    #[serde(default)]
    pub latency_outliers: u64,
    /// Mean latency of the ok requests that are not outliers, in nanoseconds: next to `latency_ns.mean`, how
    /// far the outliers move the mean (`render::warnings` says when that matters). Exact when there are no
    /// outliers; otherwise the outliers' part of the sum comes from the latency histogram (3 significant
    /// digits). Absent when no request was ok, and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_mean_without_outliers_ns: Option<f64>,
    /// The measured rounds of this case, in the order run (with interleaving, other cases ran in between).
    #[serde(default)]
    pub rounds: Vec<Round>,
    /// How much the wall rate varied between rounds; null with fewer than two rounds with ok requests.
    #[serde(default)]
    pub rate_wall_spread: Option<Spread>,
    /// Mean connection phases of the ok requests, where the client exposes them (libcurl's timers, the raw
    /// client's own clock, the browser's Resource Timing); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases_ns: Option<Phases>,
    /// Why this case stopped before its plan was done, in one line (a command client that is not installed,
    /// crashed, printed a line outside the protocol or hung); its figures are what it measured until then.
    /// Absent when the case ran to its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aborted: Option<String>,
}

/// Mean phases of a case's requests, in nanoseconds, from the requests that reported them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Phases {
    /// Requests the means come from (a browser reports phases only for some requests).
    pub samples: u64,
    /// Mean time to open the TCP connection, TLS handshake excluded (0 for a reused connection): libcurl's
    /// connect time less its name lookup; in a browser `connectStart` to `secureConnectionStart` (over TLS) or
    /// to `connectEnd`. Over HTTP/3, QUIC has one handshake, connect and TLS in one: `connect_mean + tls_mean`
    /// (the raw floor counts it all in `tls_mean`; Chromium's Resource Timing puts its first ~0.15 ms here).
    pub connect_mean: f64,
    /// Mean time from the start of the request to the first byte of the response: libcurl's start-transfer
    /// time; in a browser `responseStart − startTime`.
    pub ttfb_mean: f64,
    /// Mean TLS handshake time (0 for a reused connection): libcurl's app-connect less connect time; in a
    /// browser `connectEnd − secureConnectionStart`. Over HTTP/3 the QUIC handshake, all or most of it (see
    /// `connect_mean`). Absent in plaintext and in files written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_mean: Option<f64>,
}

/// One round of a case.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Round {
    /// Requests attempted in this round.
    pub iterations: u64,
    /// Ok requests in this round.
    pub ok: u64,
    /// Wall-clock seconds of this round.
    pub wall_secs: f64,
    /// CPU seconds (user + kernel) the client used in this round; absent where the front end cannot tell (the
    /// browser) and in files before version 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_secs: Option<f64>,
    /// Median latency of this round's ok requests, nanoseconds; absent when none was ok, and before version 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p50_ns: Option<f64>,
    /// 99th-percentile latency of this round's ok requests, nanoseconds; absent as `latency_p50_ns` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p99_ns: Option<f64>,
}

/// The spread of a case's per-round wall rates (ok requests per second), and the 95% confidence interval of
/// their mean by Student's t with rounds − 1 degrees of freedom (Student 1908, "The probable error of a mean").
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Spread {
    /// Rounds the figures come from.
    pub rounds: u32,
    /// Mean of the per-round rates, requests per second.
    pub mean: f64,
    /// Sample standard deviation of the per-round rates, requests per second.
    pub stddev: f64,
    /// Standard error of the mean rate (stddev / √rounds), requests per second.
    pub stderr: f64,
    /// Lower end of the 95% confidence interval of the mean rate, requests per second.
    pub ci95_low: f64,
    /// Upper end of the 95% confidence interval of the mean rate, requests per second.
    pub ci95_high: f64,
    /// Coefficient of variation of the per-round rates (stddev / mean), as a fraction.
    pub cv: f64,
}

/// Latency distribution of the ok requests of a case, in nanoseconds.
///
/// `min`, `max`, `mean` and `stddev` are exact; percentiles come from a histogram with 3 significant digits
/// (within 0.1% of the exact value), so memory does not grow with the number of requests.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Latency {
    /// Fastest request.
    pub min: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1 denominator); 0 for a single request.
    pub stddev: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Slowest request.
    pub max: f64,
}

impl Case {
    /// Failed requests of every kind.
    pub fn failed(&self) -> u64 {
        self.errors.values().sum()
    }

    /// CPU seconds (user + sys), where known.
    pub fn cpu_secs(&self) -> Option<f64> {
        Some(self.cpu_user_secs? + self.cpu_sys_secs?)
    }

    /// Requests in flight (1 when the file does not say).
    pub fn in_flight(&self) -> u64 {
        self.concurrency.unwrap_or(1)
    }

    /// Body bytes of ok requests per wall-clock second, where the case took any time.
    pub fn bytes_per_sec(&self) -> Option<f64> {
        (self.wall_secs > 0.0).then(|| self.bytes as f64 / self.wall_secs)
    }

    /// Mean body bytes per ok request, where any request was ok.
    pub fn bytes_per_ok(&self) -> Option<f64> {
        (self.ok > 0).then(|| self.bytes as f64 / self.ok as f64)
    }
}
