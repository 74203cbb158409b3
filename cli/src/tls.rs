//! TLS material the clients and the embedded server share: the CA file a run trusts (`--cacert`, or the one the
//! embedded server generated), the bound on a PEM file read, and the limits both sides keep over TLS and QUIC
//! (idle time, the size of a header section).

use std::path::PathBuf;
use std::sync::Arc;

use rustls::pki_types::CertificateDer;

/// Largest PEM file read (`--cacert`, `serve --cert`/`--key`): the system's whole CA bundle is about 220 KB.
pub(crate) const MAX_PEM_BYTES: u64 = 4 * 1024 * 1024;

/// `--cacert`: the file, and the certificates read from it.
#[derive(Debug, Clone, PartialEq)]
pub struct CaFile {
    /// The PEM file (libcurl reads it itself).
    pub path: PathBuf,
    /// Its certificates.
    pub certs: Vec<CertificateDer<'static>>,
}

impl CaFile {
    /// The certificates of the PEM file at `path`; the error names the file as `--cacert` does.
    pub fn read(path: &std::path::Path) -> Result<CaFile, String> {
        use rustls::pki_types::pem::PemObject;
        let shown = path.display();
        let pem = crate::files::read_capped(path, MAX_PEM_BYTES).map_err(|e| format!("--cacert {shown}: {e}"))?;
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<_, _>>()
            .map_err(|e| format!("--cacert {shown}: not a PEM certificate file ({e})"))?;
        if certs.is_empty() {
            return Err(format!("--cacert {shown}: holds no certificate (expected PEM, -----BEGIN CERTIFICATE-----)"));
        }
        Ok(CaFile { path: path.to_path_buf(), certs })
    }
}

/// How long a connection may be idle before the embedded server (over TCP and QUIC) or the raw floor (over
/// QUIC) drops it: an hour. A reuse case's connection idles while the run's other cases, or other sides (the
/// browsers), have their turn, which can take minutes. QUIC's default (30 s) ended the floor's connection
/// then (its runtime runs only during its own rounds, so it can send no keep-alive), and so did the TCP
/// server's 30 s header read timeout, which runs while a kept-alive connection waits for its next request
/// (checked: a connection idle for 35 s was closed); the case's next request then paid a new connection.
pub(crate) const IDLE_LIMIT: std::time::Duration = std::time::Duration::from_secs(3600);

/// The largest header section a client reads in a response, and the embedded server in a request, over
/// HTTP/2 and HTTP/3: 16 KiB, measured as both protocols measure it (each field's name and value plus 32
/// bytes, RFC 9114 4.2.2 and RFC 9113 6.5.2), and hyper's own default for HTTP/2 on both sides, so one bound
/// for both. Without it h3 accepted any size: a 16 MiB header value was read whole, and a block of 40,000
/// one-byte fields made `http`'s `HeaderMap::with_capacity` panic (its limit is 32,768 fields). A header
/// section over the bound is one failed request (`protocol`) for a client, and a 431 from the server.
pub(crate) const MAX_FIELD_SECTION_BYTES: u64 = 16 * 1024;

/// The QUIC transport settings of the raw floor and the embedded server: [`IDLE_LIMIT`].
pub(crate) fn quic_transport() -> Arc<quinn::TransportConfig> {
    let mut transport = quinn::TransportConfig::default();
    transport.max_idle_timeout(quinn::IdleTimeout::try_from(IDLE_LIMIT).ok());
    Arc::new(transport)
}
