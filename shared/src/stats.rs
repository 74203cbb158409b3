//! Per-case statistics: a recorder that takes one outcome per request and turns them into a [`Case`].
//!
//! Memory is constant in the number of requests: latencies go into an HdrHistogram (3 significant digits) for
//! percentiles, and into Welford's running mean/variance for exact mean and σ (Welford 1962, "Note on a method
//! for calculating corrected sums of squares and products", Technometrics 4(3)).

use std::collections::BTreeMap;
use std::time::Duration;

use hdrhistogram::Histogram;

use crate::inference::spread;
use crate::model::{Case, ErrorKind, HttpVersion, Latency, Mode, Phases, Round};

/// Largest latency the histogram tracks exactly (one hour); longer ones are clamped to it.
const MAX_TRACKED_NS: u64 = 3_600_000_000_000;

/// What one request produced, as a client driver reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// HTTP status of a complete response head, if one arrived.
    pub status: Option<u16>,
    /// Body bytes read.
    pub body_bytes: u64,
    /// Transport-level failure, if any (a non-2xx status is not one: it is classified from `status`).
    pub error: Option<ErrorKind>,
    /// The HTTP version the response came over, where the client tells; the session counts a response over
    /// another version than the case asked for as a `protocol` error.
    pub http: Option<HttpVersion>,
}

impl Outcome {
    /// A complete response.
    pub fn response(status: u16, body_bytes: u64) -> Self {
        Outcome { status: Some(status), body_bytes, error: None, http: None }
    }

    /// This outcome, observed to have come over HTTP version `http`.
    pub fn over(self, http: Option<HttpVersion>) -> Self {
        Outcome { http, ..self }
    }

    /// A failed request, with the status if a response head had arrived.
    pub fn failed(kind: ErrorKind, status: Option<u16>) -> Self {
        Outcome { status, body_bytes: 0, error: Some(kind), http: None }
    }

    /// Why this request is not ok, or `None` if it is (2xx and no transport error).
    pub fn failure(&self) -> Option<ErrorKind> {
        match (self.error, self.status) {
            (Some(kind), _) => Some(kind),
            (None, Some(200..=299)) => None,
            (None, _) => Some(ErrorKind::Status),
        }
    }
}

/// How one ok request's time was spent, where the client tells (its timers, or the browser's Resource Timing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PhaseTimes {
    /// Opening the TCP connection (zero on a reused one).
    pub connect: Duration,
    /// The TLS handshake (zero on a reused connection); `None` in plaintext.
    pub tls: Option<Duration>,
    /// From the start of the request to the response's first byte.
    pub ttfb: Duration,
}

/// CPU time spent by the client while measuring.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CpuTime {
    /// User-mode time.
    pub user: Duration,
    /// Kernel-mode time.
    pub sys: Duration,
}

impl std::ops::Add for CpuTime {
    type Output = CpuTime;

    /// The CPU time of two stretches together (rounds of a case, batches of a round).
    fn add(self, other: CpuTime) -> CpuTime {
        CpuTime { user: self.user + other.user, sys: self.sys + other.sys }
    }
}

/// TLS handshakes a server completed with one TLS version and cipher suite, full and resumed (the embedded
/// server counts them; the runner hands a round's difference to the session).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Handshakes {
    /// `TLSv1.3`, as rustls names it.
    pub version: String,
    /// `TLS13_AES_256_GCM_SHA384`, as rustls names it.
    pub cipher_suite: String,
    /// Full handshakes.
    pub full: u64,
    /// Resumed handshakes.
    pub resumed: u64,
}

impl std::ops::Add for Handshakes {
    type Output = Handshakes;

    /// The counts of two stretches of the same version and suite together.
    fn add(self, other: Handshakes) -> Handshakes {
        Handshakes { full: self.full + other.full, resumed: self.resumed + other.resumed, ..self }
    }
}

/// Collects the outcomes of one case; [`Recorder::finish`] turns them into a [`Case`].
#[derive(Debug, Clone)]
pub struct Recorder {
    histogram: Histogram<u64>,
    /// This round's ok latencies only, emptied at each round's end: its percentiles go into the round, so a
    /// gate can judge p50 and p99 by their spread over rounds.
    round_histogram: Histogram<u64>,
    mean_ns: f64,
    m2: f64,
    min_ns: u64,
    max_ns: u64,
    iterations: u64,
    ok: u64,
    bytes: u64,
    /// Failures per kind, indexed by the kind (`ErrorKind::ALL` order).
    errors: [u64; ErrorKind::ALL.len()],
    /// (status, responses) in order of first sight: a case sees a few statuses, and a map type of its own
    /// would cost the page a copy of the B-tree code.
    statuses: Vec<(u16, u64)>,
    rounds: Vec<Round>,
    round_start: (u64, u64),
    /// (samples, connect sum, time-to-first-byte sum) in nanoseconds, from [`Recorder::record_phases`].
    phases: (u64, f64, f64),
    /// (samples, TLS handshake sum) in nanoseconds, from the requests that said.
    tls_phase: (u64, f64),
}

/// One bar of a latency histogram: ok requests with a latency in `[low_ns, high_ns)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bin {
    /// Lower edge, nanoseconds.
    pub low_ns: f64,
    /// Upper edge, nanoseconds.
    pub high_ns: f64,
    /// Requests in the bin.
    pub count: u64,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

impl Recorder {
    /// An empty recorder.
    pub fn new() -> Self {
        // The bounds and precision are constants known to be valid, so construction cannot fail.
        #[allow(clippy::expect_used)]
        let histogram = Histogram::new_with_bounds(1, MAX_TRACKED_NS, 3).expect("valid histogram bounds");
        Recorder {
            round_histogram: histogram.clone(),
            histogram,
            mean_ns: 0.0,
            m2: 0.0,
            min_ns: u64::MAX,
            max_ns: 0,
            iterations: 0,
            ok: 0,
            bytes: 0,
            errors: [0; ErrorKind::ALL.len()],
            statuses: Vec::new(),
            rounds: Vec::new(),
            round_start: (0, 0),
            phases: (0, 0.0, 0.0),
            tls_phase: (0, 0.0),
        }
    }

    /// Close the current round: the requests recorded since the last call took `wall`, and the client used
    /// `cpu` (`None` where unknown).
    pub fn end_round(&mut self, wall: Duration, cpu: Option<CpuTime>) {
        let (iterations, ok) = self.round_start;
        let quantile = |h: &Histogram<u64>, q: f64| (!h.is_empty()).then(|| h.value_at_quantile(q) as f64);
        self.rounds.push(Round {
            iterations: self.iterations - iterations,
            ok: self.ok - ok,
            wall_secs: wall.as_secs_f64(),
            cpu_secs: cpu.map(|c| (c.user + c.sys).as_secs_f64()),
            latency_p50_ns: quantile(&self.round_histogram, 0.5),
            latency_p99_ns: quantile(&self.round_histogram, 0.99),
        });
        self.round_histogram.reset();
        self.round_start = (self.iterations, self.ok);
    }

    /// Latencies that are outliers by the modified z-score, |0.6745·(x − median)/MAD| > 3.5 (Iglewicz and
    /// Hoaglin 1993, "How to Detect and Handle Outliers"), computed on the histogram: constant memory, and
    /// exact up to its 3 significant digits. No outlier is reported when the MAD is 0.
    pub fn latency_outliers(&self) -> u64 {
        self.outlier_buckets().map(|(_, n)| n).sum()
    }

    /// Mean latency of the ok requests that are not [outliers](Recorder::latency_outliers), in nanoseconds, or
    /// `None` if no request was ok. Exact when there is no outlier; otherwise the outliers' sum, taken off the
    /// exact total, comes from the histogram (3 significant digits, so within 0.05% of theirs).
    pub fn latency_mean_without_outliers(&self) -> Option<f64> {
        if self.ok == 0 {
            return None;
        }
        let (mut n, mut sum) = (0u64, 0.0);
        for (value, count) in self.outlier_buckets() {
            n += count;
            sum += self.histogram.median_equivalent(value) as f64 * count as f64;
        }
        // Outliers are fewer than half the requests (at least half lie within one MAD), so `ok − n` > 0.
        Some(if n == 0 { self.mean_ns } else { (self.mean_ns * self.ok as f64 - sum) / (self.ok - n) as f64 })
    }

    /// The histogram's (value, count) buckets of outliers by the modified z-score; none with fewer than 3 ok
    /// requests or a MAD of 0.
    fn outlier_buckets(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let fence = if self.ok < 3 { None } else { self.median_and_mad() };
        self.histogram.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).filter(move |(value, _)| {
            fence.is_some_and(|(median, mad)| 0.6745 * (*value as f64 - median).abs() / mad > 3.5)
        })
    }

    /// The median latency and the median absolute deviation from it, on the histogram; `None` when the MAD is 0.
    fn median_and_mad(&self) -> Option<(f64, f64)> {
        let median = self.histogram.value_at_quantile(0.5) as f64;
        let deviations: Vec<(f64, u64)> = self
            .histogram
            .iter_recorded()
            .map(|v| ((v.value_iterated_to() as f64 - median).abs(), v.count_at_value()))
            .collect();
        let deviations = crate::order::sorted_by(&deviations, &|a, b| a.0.total_cmp(&b.0));
        let half = self.histogram.len().div_ceil(2);
        let mut seen = 0;
        let mad = deviations
            .iter()
            .find(|(_, n)| {
                seen += n;
                seen >= half
            })
            .map_or(0.0, |(d, _)| *d);
        (mad > 0.0).then_some((median, mad))
    }

    /// The failures of each kind that had any.
    fn error_counts(&self) -> BTreeMap<ErrorKind, u64> {
        let mut counts = BTreeMap::new();
        counts.extend(ErrorKind::ALL.into_iter().zip(self.errors).filter(|(_, n)| *n > 0));
        counts
    }

    /// The statuses keyed by their decimal text, as the result file has them (`extend`, not `collect`: that
    /// would sort, one more copy of the sort in the page).
    fn status_names(&self) -> BTreeMap<String, u64> {
        let mut named = BTreeMap::new();
        named.extend(self.statuses.iter().map(|(code, n)| (code.to_string(), *n)));
        named
    }

    /// Requests recorded so far.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// Ok requests recorded so far.
    pub fn ok(&self) -> u64 {
        self.ok
    }

    /// Record one request and how long it took. Only ok requests enter the latency figures: a refused
    /// connection is fast and would flatter a failing client.
    pub fn record(&mut self, outcome: &Outcome, latency: Duration) {
        self.iterations += 1;
        if let Some(status) = outcome.status {
            match self.statuses.iter_mut().find(|(s, _)| *s == status) {
                Some((_, n)) => *n += 1,
                None => self.statuses.push((status, 1)),
            }
        }
        if let Some(kind) = outcome.failure() {
            self.errors[kind as usize] += 1;
            return;
        }
        self.ok += 1;
        self.bytes += outcome.body_bytes;
        let ns = u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX).max(1);
        self.histogram.saturating_record(ns.min(MAX_TRACKED_NS));
        self.round_histogram.saturating_record(ns.min(MAX_TRACKED_NS));
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
        let delta = ns as f64 - self.mean_ns;
        self.mean_ns += delta / self.ok as f64;
        self.m2 += delta * (ns as f64 - self.mean_ns);
    }

    /// Record the connection phases of one ok request, where the client reports them.
    pub fn record_phases(&mut self, p: &PhaseTimes) {
        self.phases.0 += 1;
        self.phases.1 += p.connect.as_nanos() as f64;
        self.phases.2 += p.ttfb.as_nanos() as f64;
        if let Some(tls) = p.tls {
            self.tls_phase.0 += 1;
            self.tls_phase.1 += tls.as_nanos() as f64;
        }
    }

    /// Mean phases so far, or `None` if no request reported them.
    pub fn phases(&self) -> Option<Phases> {
        let (n, connect, ttfb) = self.phases;
        let (tls_n, tls) = self.tls_phase;
        (n > 0).then(|| Phases {
            samples: n,
            connect_mean: connect / n as f64,
            ttfb_mean: ttfb / n as f64,
            tls_mean: (tls_n > 0).then(|| tls / tls_n as f64),
        })
    }

    /// The ok latencies in `bins` equal-width bins from the fastest request to the 99th percentile (for a
    /// histogram chart; one stalled request would otherwise squeeze every other into the first bar): the
    /// slowest 1% are counted in the last bin. Empty when no request was ok. Counts come from the
    /// HdrHistogram, so they are exact up to its 3 significant digits.
    pub fn histogram(&self, bins: usize) -> Vec<Bin> {
        if self.ok == 0 || bins == 0 {
            return Vec::new();
        }
        let lo = self.min_ns as f64;
        let hi = (self.histogram.value_at_quantile(0.99) as f64).clamp(lo, self.max_ns as f64);
        let width = ((hi - lo) / bins as f64).max(1.0);
        let mut out: Vec<Bin> = (0..bins)
            .map(|i| Bin { low_ns: lo + width * i as f64, high_ns: lo + width * (i + 1) as f64, count: 0 })
            .collect();
        for v in self.histogram.iter_recorded() {
            let value = (v.value_iterated_to() as f64).clamp(lo, hi);
            let i = (((value - lo) / width) as usize).min(bins - 1);
            out[i].count += v.count_at_value();
        }
        out
    }

    /// Latency summary of the ok requests so far, or `None` if there were none.
    pub fn latency(&self) -> Option<Latency> {
        if self.ok == 0 {
            return None;
        }
        let stddev = if self.ok > 1 { (self.m2 / (self.ok - 1) as f64).sqrt() } else { 0.0 };
        // The histogram answers with the highest value equivalent to the bucket; keep it inside [min, max].
        let q = |quantile: f64| {
            let v = self.histogram.value_at_quantile(quantile);
            v.clamp(self.min_ns, self.max_ns) as f64
        };
        Some(Latency {
            min: self.min_ns as f64,
            mean: self.mean_ns,
            stddev,
            p50: q(0.50),
            p90: q(0.90),
            p99: q(0.99),
            p999: q(0.999),
            max: self.max_ns as f64,
        })
    }

    /// The finished case, given the client's CPU time if known. Wall time is the sum of the rounds; requests
    /// recorded after the last [`Recorder::end_round`] are in the counts but not in the wall time, so callers
    /// end every round.
    pub fn finish(&self, client: &str, mode: Mode, cpu: Option<CpuTime>) -> Case {
        // The session fills in the case's protocol, error reasons and whether it was aborted.
        let wall_secs: f64 = self.rounds.iter().map(|r| r.wall_secs).sum();
        let cpu_secs = cpu.map(|c| (c.user + c.sys).as_secs_f64());
        Case {
            client: client.to_string(),
            mode,
            http_version: HttpVersion::Http11,
            tls: None,
            tls_full_handshakes: None,
            tls_resumed_handshakes: None,
            concurrency: None,
            body_bytes: None,
            server_delay_ms: None,
            link_rtt_us: None,
            link_jitter_us: None,
            link_loss_ppm: None,
            link_down_kbit: None,
            link_up_kbit: None,
            link_up_packets: None,
            link_up_dropped: None,
            link_down_packets: None,
            link_down_dropped: None,
            link_asked_delay_us: None,
            link_late_us: None,
            link_late_max_us: None,
            link_queue_dropped: None,
            connections: None,
            iterations: self.iterations,
            ok: self.ok,
            errors: self.error_counts(),
            error_reasons: Vec::new(),
            statuses: self.status_names(),
            wall_secs,
            cpu_user_secs: cpu.map(|c| c.user.as_secs_f64()),
            cpu_sys_secs: cpu.map(|c| c.sys.as_secs_f64()),
            rate_wall: if wall_secs > 0.0 { self.ok as f64 / wall_secs } else { 0.0 },
            rate_cpu: cpu_secs.filter(|s| *s > 0.0).map(|s| self.iterations as f64 / s),
            bytes: self.bytes,
            latency_ns: self.latency(),
            latency_outliers: self.latency_outliers(),
            latency_mean_without_outliers_ns: self.latency_mean_without_outliers(),
            rounds: self.rounds.clone(),
            rate_wall_spread: spread(&self.rounds),
            phases_ns: self.phases(),
            aborted: None,
        }
    }
}

#[cfg(test)]
mod tests;
