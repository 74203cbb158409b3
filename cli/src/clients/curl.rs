//! libcurl through the `curl` crate: an `Easy2` handle per request in fresh mode (as WWW::Curl did in the
//! Perl script), one handle with its connection cache in reuse mode.

use curl::easy::{Easy2, Handler, WriteError};
use httpbench_shared::model::HttpVersion;
use httpbench_shared::{ErrorKind, Mode, Outcome, PhaseTimes};

use super::{Driver, DriverConfig, Pool};
use httpbench_shared::protocol::ClientInfo;

use super::library::{blocking, Library};

/// libcurl's easy interface, one handle per driver: the `curl` row of the client table.
pub struct Lib;

impl Library for Lib {
    fn name(&self) -> &'static str {
        "curl"
    }

    fn driver(&self, config: &DriverConfig, in_flight: usize) -> anyhow::Result<Box<dyn Pool>> {
        blocking(in_flight, || Ok(CurlDriver::new(config)))
    }

    fn version(&self, _: &ClientInfo) -> String {
        version()
    }

    fn cannot_speak(&self, http: HttpVersion) -> Option<String> {
        cannot_speak(http)
    }
}

/// Counts body bytes without keeping them, and notes the HTTP version of the response's status line.
#[derive(Default)]
pub struct Counter {
    bytes: u64,
    http: Option<HttpVersion>,
}

impl Counter {
    /// Ready for the next transfer.
    pub fn reset(&mut self) {
        *self = Counter::default();
    }
}

impl Handler for Counter {
    fn write(&mut self, data: &[u8]) -> Result<usize, WriteError> {
        self.bytes += data.len() as u64;
        Ok(data.len())
    }

    fn header(&mut self, data: &[u8]) -> bool {
        // The status line: `HTTP/1.1 200 OK` or `HTTP/2 200`.
        if data.starts_with(b"HTTP/1.1 ") {
            self.http = Some(HttpVersion::Http11);
        } else if data.starts_with(b"HTTP/2 ") {
            self.http = Some(HttpVersion::Http2);
        }
        true
    }
}

/// The curl client.
pub struct CurlDriver {
    config: DriverConfig,
    handle: Option<Easy2<Counter>>,
    last_error: Option<String>,
}

/// libcurl's version, its TLS and HTTP/2 libraries and the features a benchmark depends on, as the report
/// records them: `libcurl 7.88.1 (OpenSSL/3.0.19, nghttp2/1.52.0; features: HTTP2 SSL libz)`. What was
/// linked is asked of libcurl itself at run time, not assumed: a build can get another libcurl (see
/// [`cannot_speak`]).
pub fn version() -> String {
    let v = curl::Version::get();
    let mut libs: Vec<String> = v.ssl_version().into_iter().map(str::to_string).collect();
    libs.extend(v.nghttp2_version().map(|n| format!("nghttp2/{n}")));
    let features = [("HTTP2", v.feature_http2()), ("HTTP3", v.feature_http3()), ("SSL", v.feature_ssl())];
    let on: Vec<&str> = features.iter().chain(&[("libz", v.feature_libz())]).filter(|f| f.1).map(|f| f.0).collect();
    format!("libcurl {} ({}; features: {})", v.version(), libs.join(", "), on.join(" "))
}

/// Why the linked libcurl cannot make requests over `http`, if it cannot: one built without HTTP/2 (curl-sys
/// once built its bundled copy without nghttp2 when the system's development files were missing, and every
/// h2 request failed "[1] Unsupported protocol"). Such cases are left out with this reason.
pub fn cannot_speak(http: HttpVersion) -> Option<String> {
    lacks(http, curl::Version::get().feature_http2(), curl::Version::get().version())
}

fn lacks(http: HttpVersion, has_http2: bool, version: &str) -> Option<String> {
    (http == HttpVersion::Http2 && !has_http2).then(|| format!("libcurl {version} was built without HTTP/2"))
}

impl CurlDriver {
    /// A driver; handles are made lazily so set-up errors are counted like any other failure.
    pub fn new(config: &DriverConfig) -> Self {
        CurlDriver { config: config.clone(), handle: None, last_error: None }
    }

    fn perform(&mut self) -> Result<Outcome, curl::Error> {
        // Fresh: a new handle for every request; reuse: the one kept.
        let h = match self.handle.as_mut() {
            Some(h) if self.config.mode == Mode::Reuse => h,
            _ => self.handle.insert(new_handle(&self.config)?),
        };
        *h.get_mut() = Counter::default();
        h.perform()?;
        outcome_of(h)
    }
}

impl Driver for CurlDriver {
    fn request(&mut self) -> Outcome {
        match self.perform() {
            Ok(outcome) => outcome,
            Err(e) => {
                // A failed handle may hold a broken connection; start clean next time.
                self.handle = None;
                self.last_error = Some(e.to_string());
                Outcome::failed(kind(&e), None)
            }
        }
    }

    fn failure_reason(&mut self) -> Option<String> {
        self.last_error.take()
    }

    fn phases(&mut self) -> Option<PhaseTimes> {
        phases_of(self.handle.as_mut()?, &self.config)
    }
}

/// The phases of the last transfer of `h`, from libcurl's timers.
pub fn phases_of(h: &mut Easy2<Counter>, config: &DriverConfig) -> Option<PhaseTimes> {
    // libcurl's times all run from the start of the transfer; on a reused connection the connect and
    // app-connect times are zero.
    let (dns, tcp, app, first) =
        (h.namelookup_time().ok()?, h.connect_time().ok()?, h.appconnect_time().ok()?, h.starttransfer_time().ok()?);
    let tls = (config.url.scheme() == "https").then(|| app.saturating_sub(tcp));
    Some(PhaseTimes { connect: tcp.saturating_sub(dns), tls, ttfb: first })
}

/// What a finished transfer of `h` produced.
pub fn outcome_of(h: &mut Easy2<Counter>) -> Result<Outcome, curl::Error> {
    let status = u16::try_from(h.response_code()?).unwrap_or(0);
    Ok(Outcome::response(status, h.get_ref().bytes).over(h.get_ref().http))
}

/// A handle set up as every request of this driver uses it (public for the client set-up benchmark).
pub fn new_handle(config: &DriverConfig) -> Result<Easy2<Counter>, curl::Error> {
    let mut h = Easy2::new(Counter::default());
    h.url(config.url.as_str())?;
    h.get(true)?;
    h.tcp_nodelay(true)?;
    h.timeout(config.timeout)?;
    h.follow_location(false)?;
    h.noproxy("*")?;
    h.signal(false)?;
    // libcurl 7.88 asks for h2 over TLS by default; each case asks for its own version (h2 falls back to 1.1
    // when the server does not offer it, which the session then counts as a protocol error).
    h.http_version(match config.http {
        HttpVersion::Http11 => curl::easy::HttpVersion::V11,
        HttpVersion::Http2 => curl::easy::HttpVersion::V2TLS,
        // The catalog leaves curl out of HTTP/3 cases (Debian's libcurl has no HTTP/3); asked anyway, libcurl
        // says so in its error.
        HttpVersion::Http3 => curl::easy::HttpVersion::V3,
    })?;
    if let Some(ca) = &config.cacert {
        h.cainfo(&ca.path)?;
    }
    Ok(h)
}

/// A response head over libcurl's limit: CURLE_TOO_LARGE (100) from curl 8.6 on; before that (Debian's 7.88)
/// CURLE_OUT_OF_MEMORY (27), with no further description. libcurl's own allocations on a machine with memory
/// to spare do not fail, so 27 during a transfer is taken as that head (a 2 MiB header line gives it; tested).
fn head_too_large(e: &curl::Error) -> bool {
    e.code() == 100 || e.is_out_of_memory()
}

/// The kind of a libcurl failure.
pub fn kind(e: &curl::Error) -> ErrorKind {
    if e.is_couldnt_connect() {
        ErrorKind::Connect
    } else if e.is_couldnt_resolve_host() {
        ErrorKind::Dns
    } else if e.is_operation_timedout() {
        ErrorKind::Timeout
    } else if e.is_partial_file() {
        ErrorKind::Truncated
    } else if e.is_recv_error() || e.is_send_error() || e.is_got_nothing() {
        ErrorKind::Reset
    } else if e.code() == 8 /* CURLE_WEIRD_SERVER_REPLY */
        || e.is_unsupported_protocol()
        || e.is_http2_error()
        || head_too_large(e)
    {
        ErrorKind::Protocol
    } else if e.is_too_many_redirects() {
        ErrorKind::Redirect
    } else if e.is_ssl_connect_error() || e.is_peer_failed_verification() || e.is_ssl_certproblem() {
        ErrorKind::Tls
    } else {
        ErrorKind::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_linked_libcurl_says_what_it_is_and_what_it_lacks() {
        let v = version();
        assert!(v.starts_with("libcurl ") && v.contains("; features: "), "{v}");
        // This build asks for HTTP/2 (the curl crate's `http2` feature): whichever libcurl it got has it.
        assert!(v.contains("HTTP2") && v.contains("nghttp2/"), "{v}");
        assert_eq!(cannot_speak(HttpVersion::Http2), None);
        assert_eq!(lacks(HttpVersion::Http11, false, "8.22.0"), None);
        assert_eq!(lacks(HttpVersion::Http2, false, "8.22.0").unwrap(), "libcurl 8.22.0 was built without HTTP/2");
    }
}
