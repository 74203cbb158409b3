//! The clients' TLS configuration: one for every reqwest client in the process, built once, trusting the CA file
//! of `--cacert` ([`crate::tls::CaFile`]) instead of the built-in roots (verification stays on), offering the
//! case's version by ALPN.
//!
//! `reqwest::ClientBuilder::build()` with default settings loads the operating system's root store through
//! rustls-platform-verifier on every call: about 6.5 ms on this project's machines (measured: 150 fresh
//! clients per second instead of several thousand). libcurl, ureq and Perl's LWP set up TLS only when a TLS
//! connection is made. So that `fresh` measures a new client and a new connection for every client alike,
//! reqwest clients are handed this configuration (Mozilla's roots from webpki-roots, as ureq uses) instead
//! of loading the system's each time — which is also what a careful reqwest user does.

use std::sync::{Arc, OnceLock};

use httpbench_shared::model::HttpVersion;

use crate::tls::CaFile;

/// The shared rustls client configuration (cloning it shares the root store): Mozilla's roots, or only the
/// CAs of `ca` when given, offering `http` by ALPN. Session resumption is off: a fresh client must make a full
/// handshake, as a new libcurl handle or ureq agent does, and cloning this configuration would share its
/// session cache.
pub fn client_config(ca: Option<&CaFile>, http: HttpVersion) -> Result<rustls::ClientConfig, rustls::Error> {
    let mut config = base_config(ca)?;
    config.alpn_protocols = vec![match http {
        HttpVersion::Http11 => b"http/1.1".to_vec(),
        HttpVersion::Http2 => b"h2".to_vec(),
        HttpVersion::Http3 => b"h3".to_vec(),
    }];
    Ok(config)
}

fn base_config(ca: Option<&CaFile>) -> Result<rustls::ClientConfig, rustls::Error> {
    // One run has one `--cacert`: the first call decides.
    static CONFIG: OnceLock<Result<rustls::ClientConfig, rustls::Error>> = OnceLock::new();
    CONFIG.get_or_init(|| new_config(ca)).clone()
}

/// A configuration that trusts `ca` alone, made anew rather than the run's: for a probe of a server with a
/// CA of its own. No ALPN protocols are set.
pub fn config_trusting(ca: &CaFile) -> Result<rustls::ClientConfig, rustls::Error> {
    new_config(Some(ca))
}

fn new_config(ca: Option<&CaFile>) -> Result<rustls::ClientConfig, rustls::Error> {
    let mut roots = rustls::RootCertStore::empty();
    match ca {
        Some(ca) => {
            roots.add_parsable_certificates(ca.certs.iter().cloned());
        }
        None => roots.roots = webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.resumption = rustls::client::Resumption::disabled();
    Ok(config)
}

/// The settings both reqwest drivers give their client builder: the blocking and async builders are different
/// types with the same methods, hence a macro. `$builder` is a `ClientBuilder`, `$config` a `DriverConfig`,
/// `$tls` a rustls `ClientConfig`; the result is the configured builder. For HTTP/3 the client speaks QUIC
/// only (no Alt-Svc discovery over TCP first, as the raw floor and Chromium's forced origin) and keeps an idle
/// connection for [`crate::tls::IDLE_LIMIT`]; each request must still ask for HTTP/3 ([`reqwest_version`]). A response's
/// header section is bounded by [`crate::tls::MAX_FIELD_SECTION_BYTES`] over HTTP/2 and HTTP/3 alike.
macro_rules! configure_reqwest {
    ($builder:expr, $config:expr, $tls:expr) => {{
        let builder = $builder
            .timeout($config.timeout)
            .tcp_nodelay(true)
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .tls_backend_preconfigured($tls)
            .http2_max_header_list_size($crate::tls::MAX_FIELD_SECTION_BYTES as u32);
        match $config.http {
            httpbench_shared::model::HttpVersion::Http3 => builder
                .http3_prior_knowledge()
                .http3_max_idle_timeout($crate::tls::IDLE_LIMIT)
                .http3_max_field_section_size($crate::tls::MAX_FIELD_SECTION_BYTES),
            _ => builder,
        }
    }};
}
pub(crate) use configure_reqwest;

/// The version a reqwest request asks for: reqwest sends a request over HTTP/3 only when the request itself
/// says HTTP/3 (even with `http3_prior_knowledge`); over TCP, ALPN decides between 1.1 and 2.
pub fn reqwest_version(http: HttpVersion) -> reqwest::Version {
    match http {
        HttpVersion::Http3 => reqwest::Version::HTTP_3,
        HttpVersion::Http11 | HttpVersion::Http2 => reqwest::Version::HTTP_11,
    }
}
