//! The figures of one case in the result file ([`Case`]), with its rounds, its spread over them, its latency
//! percentiles and its phases.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ErrorKind, HttpVersion, Mode};

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
    // The emulated link (`--link`), flat: `Option`s of a type the page reads already, no nested type (each is
    // one more deserializer in the page). [`Case::link`] and [`Case::link_counts`] give them typed.
    /// The round trip the emulated network link between the client and the embedded server added, in
    /// microseconds (`--link rtt=`); absent over loopback, and then so is every `link_` field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_rtt_us: Option<u64>,
    /// The link's jitter on each one-way delay, ± in microseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_jitter_us: Option<u64>,
    /// Packets the link dropped at random in each direction, in parts per million (1% = 10000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_loss_ppm: Option<u64>,
    /// The link's bandwidth from the server to the client, in kbit/s; absent: not limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_down_kbit: Option<u64>,
    /// The link's bandwidth from the client to the server, in kbit/s; absent: not limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_up_kbit: Option<u64>,
    /// Packets from the client towards the server that reached the link's emulator in the measured rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_up_packets: Option<u64>,
    /// Of them, dropped as the link's loss.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_up_dropped: Option<u64>,
    /// Packets from the server towards the client that reached the emulator in the measured rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_down_packets: Option<u64>,
    /// Of them, dropped as the link's loss.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_down_dropped: Option<u64>,
    /// Sum of the one-way delays asked of the packets the emulator let through, in microseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_asked_delay_us: Option<u64>,
    /// Sum of how much later than asked it let each through (its own delay), in microseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_late_us: Option<u64>,
    /// The latest it let any packet through, in microseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_late_max_us: Option<u64>,
    /// Packets a full queue dropped in the measured rounds, both directions: the bandwidth limit's (a sender
    /// overrunning it, as at a router) or the emulator's own (it fell behind). Not the link's loss.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_queue_dropped: Option<u64>,
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
    /// The emulated link this case ran over, from its `link_` fields; `None` over loopback.
    pub fn link(&self) -> Option<crate::protocol::Link> {
        Some(crate::protocol::Link {
            rtt_us: self.link_rtt_us?,
            jitter_us: self.link_jitter_us.unwrap_or(0),
            loss_ppm: u32::try_from(self.link_loss_ppm.unwrap_or(0)).unwrap_or(u32::MAX),
            down_kbit: self.link_down_kbit,
            up_kbit: self.link_up_kbit,
        })
    }

    /// Set the `link_` fields of the link (none: loopback).
    pub fn set_link(&mut self, link: Option<crate::protocol::Link>) {
        self.link_rtt_us = link.map(|l| l.rtt_us);
        self.link_jitter_us = link.map(|l| l.jitter_us);
        self.link_loss_ppm = link.map(|l| u64::from(l.loss_ppm));
        self.link_down_kbit = link.and_then(|l| l.down_kbit);
        self.link_up_kbit = link.and_then(|l| l.up_kbit);
    }

    /// What the link's emulator counted of this case's packets, from its `link_` fields.
    pub fn link_counts(&self) -> Option<super::LinkCounts> {
        Some(super::LinkCounts {
            up_packets: self.link_up_packets?,
            up_dropped: self.link_up_dropped.unwrap_or(0),
            down_packets: self.link_down_packets.unwrap_or(0),
            down_dropped: self.link_down_dropped.unwrap_or(0),
            asked_delay_us: self.link_asked_delay_us.unwrap_or(0),
            late_us: self.link_late_us.unwrap_or(0),
            late_max_us: self.link_late_max_us.unwrap_or(0),
            queue_dropped: self.link_queue_dropped.unwrap_or(0),
        })
    }

    /// Set the `link_` fields of what the emulator counted.
    pub fn set_link_counts(&mut self, counts: Option<super::LinkCounts>) {
        self.link_up_packets = counts.map(|c| c.up_packets);
        self.link_up_dropped = counts.map(|c| c.up_dropped);
        self.link_down_packets = counts.map(|c| c.down_packets);
        self.link_down_dropped = counts.map(|c| c.down_dropped);
        self.link_asked_delay_us = counts.map(|c| c.asked_delay_us);
        self.link_late_us = counts.map(|c| c.late_us);
        self.link_late_max_us = counts.map(|c| c.late_max_us);
        self.link_queue_dropped = counts.map(|c| c.queue_dropped);
    }

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
