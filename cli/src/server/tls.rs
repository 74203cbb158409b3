//! HTTPS for the embedded server: a certificate authority and a server certificate for `127.0.0.1`,
//! `localhost` and `::1`, generated at start (rcgen), so clients trust the server by being given the CA
//! (`--cacert`), never by turning verification off. The CA is written to a file whose path the server
//! prints, with the server key's SPKI pin (what Chromium's `--ignore-certificate-errors-spki-list` takes).
//! ALPN offers `h2` and `http/1.1`, or only the one asked for.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use base64::Engine;
use httpbench_shared::model::HttpVersion;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose, PublicKeyData};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// The names the server certificate is good for on loopback; it is good for its addresses on an emulated link
/// too (`--link`, [`crate::netem::SERVER_ADDRS`]).
const LOOPBACK_NAMES: [&str; 3] = ["127.0.0.1", "localhost", "::1"];

/// The server's TLS set-up, and what a client needs to trust it.
pub(crate) struct Tls {
    /// Accepts TLS on a TCP connection.
    pub acceptor: tokio_rustls::TlsAcceptor,
    /// The file holding the CA certificate (PEM); `None` for a certificate of the user's (`--cert`).
    pub ca_file: Option<PathBuf>,
    /// `sha256/BASE64` of the server key's SubjectPublicKeyInfo.
    pub spki_pin: String,
    /// With HTTP/3 among the versions: QUIC's configuration, the same certificate ([`super::quic`]).
    pub quic: Option<Arc<quinn::crypto::rustls::QuicServerConfig>>,
}

/// `serve --tls --cert FILE --key FILE`: the user's certificate chain and key, read and checked.
#[derive(Debug)]
pub(crate) struct OwnCert {
    /// The chain (PEM), leaf first.
    pub cert_file: PathBuf,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    spki_pin: String,
}

impl Clone for OwnCert {
    fn clone(&self) -> Self {
        let (chain, key) = (self.chain.clone(), self.key.clone_key());
        OwnCert { cert_file: self.cert_file.clone(), chain, key, spki_pin: self.spki_pin.clone() }
    }
}

impl OwnCert {
    /// Read `cert` and `key`; the error names the flag and the file, and says what is wrong with it.
    pub(crate) fn read(cert: &Path, key: &Path) -> Result<OwnCert, String> {
        use rustls::pki_types::pem::PemObject;
        let read = |flag: &str, path: &Path| {
            crate::files::read_text(path, crate::tls::MAX_PEM_BYTES)
                .map_err(|e| format!("{flag} {}: {e}", path.display()))
        };
        let cert_pem = read("--cert", cert)?;
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert_pem.as_bytes())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("--cert {}: not a PEM certificate file ({e})", cert.display()))?;
        if chain.is_empty() {
            return Err(format!("--cert {}: holds no certificate (expected PEM, leaf first)", cert.display()));
        }
        let key_pem = read("--key", key)?;
        let der = PrivateKeyDer::from_pem_slice(key_pem.as_bytes())
            .map_err(|e| format!("--key {}: no PEM private key in it ({e})", key.display()))?;
        // The pin is of the key's public half: the SubjectPublicKeyInfo the certificate carries.
        let spki = KeyPair::from_pem(&key_pem)
            .map(|k| k.subject_public_key_info())
            .map_err(|e| format!("--key {}: a key this server cannot use ({e})", key.display()))?;
        let own = OwnCert { cert_file: cert.to_path_buf(), chain, key: der, spki_pin: pin(&spki) };
        server_config(own.chain.clone(), own.key.clone_key(), &[HttpVersion::Http11]).map_err(|e| {
            format!(
                "--cert {} --key {}: refused together ({e:#}); is it the key of that certificate?",
                cert.display(),
                key.display()
            )
        })?;
        Ok(own)
    }

    /// The server's TLS set-up from this certificate, ALPN offering `versions`.
    pub(crate) fn tls(&self, versions: &[HttpVersion]) -> anyhow::Result<Tls> {
        let config = server_config(self.chain.clone(), self.key.clone_key(), versions)?;
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let quic = quic_config(&self.chain, &self.key, versions)?;
        Ok(Tls { acceptor, ca_file: None, spki_pin: self.spki_pin.clone(), quic })
    }
}

/// `sha256/BASE64` of a SubjectPublicKeyInfo.
fn pin(spki: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, spki);
    format!("sha256/{}", base64::engine::general_purpose::STANDARD.encode(digest.as_ref()))
}

/// The generated server certificate's file, beside its CA's (`httpbench-ca.pem`): what an engine that
/// accepts a server by its own certificate (WebKit) is given.
pub(crate) fn leaf_beside(ca_file: &Path) -> PathBuf {
    ca_file.with_file_name("httpbench-cert.pem")
}

/// Generate a CA and a server certificate signed by it, and write the CA to `dir/httpbench-ca.pem` and the
/// server's certificate beside it ([`leaf_beside`]); ALPN offers `versions`.
pub(crate) fn generated(dir: &Path, versions: &[HttpVersion]) -> anyhow::Result<Tls> {
    let (ca_pem, leaf_pem, chain, key, spki) = generate().context("cannot generate the server's certificate")?;
    let ca_file = dir.join("httpbench-ca.pem");
    crate::output::write_atomic(&leaf_beside(&ca_file), &leaf_pem)?;
    crate::output::write_atomic(&ca_file, &ca_pem)?;
    let quic = quic_config(&chain, &key, versions)?;
    let config = server_config(chain, key, versions).context("the generated certificate was refused")?;
    Ok(Tls {
        acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
        ca_file: Some(ca_file),
        spki_pin: pin(&spki),
        quic,
    })
}

/// QUIC's configuration for `chain` and `key` when `versions` holds HTTP/3.
fn quic_config(
    chain: &[CertificateDer<'static>],
    key: &PrivateKeyDer<'static>,
    versions: &[HttpVersion],
) -> anyhow::Result<Option<Arc<quinn::crypto::rustls::QuicServerConfig>>> {
    if !versions.contains(&HttpVersion::Http3) {
        return Ok(None);
    }
    Ok(Some(Arc::new(super::quic::config(chain.to_vec(), key.clone_key())?)))
}

/// A rustls server configuration for `chain` and `key`, ALPN offering `versions`.
fn server_config(
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    versions: &[HttpVersion],
) -> anyhow::Result<rustls::ServerConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    // HTTP/2 first: a client that offers both gets h2, as from any HTTPS server; each client offers only the
    // version its case asks for.
    config.alpn_protocols = [HttpVersion::Http2, HttpVersion::Http11]
        .into_iter()
        .filter(|v| versions.contains(v))
        .map(|v| if v == HttpVersion::Http2 { b"h2".to_vec() } else { b"http/1.1".to_vec() })
        .collect();
    Ok(config)
}

/// (CA PEM, server chain, server key, server SPKI DER).
type Generated = (String, String, Vec<CertificateDer<'static>>, PrivateKeyDer<'static>, Vec<u8>);

fn generate() -> Result<Generated, rcgen::Error> {
    let ca_key = KeyPair::generate()?;
    let mut ca = CertificateParams::new(Vec::<String>::new())?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, "httpbench local CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
    let ca_cert = ca.self_signed(&ca_key)?;
    let issuer = Issuer::new(ca, ca_key);
    let key = KeyPair::generate()?;
    let names = LOOPBACK_NAMES.into_iter().chain(crate::netem::SERVER_ADDRS).map(String::from).collect::<Vec<_>>();
    let mut leaf = CertificateParams::new(names)?;
    leaf.distinguished_name.push(DnType::CommonName, "httpbench serve");
    let cert = leaf.signed_by(&key, &issuer)?;
    let spki = key.subject_public_key_info();
    let der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    Ok((ca_cert.pem(), cert.pem(), vec![cert.der().clone(), ca_cert.der().clone()], der, spki))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tls::CaFile;

    #[test]
    fn the_generated_ca_is_read_back_and_the_pin_is_a_sha256() {
        let dir = tempfile::tempdir().unwrap();
        let tls = generated(dir.path(), &[HttpVersion::Http11]).unwrap();
        let ca = CaFile::read(tls.ca_file.as_ref().unwrap()).unwrap();
        assert_eq!(ca.certs.len(), 1);
        assert!(tls.spki_pin.starts_with("sha256/") && tls.spki_pin.len() == 7 + 44, "{}", tls.spki_pin);
        let e = CaFile::read(&dir.path().join("nope.pem")).unwrap_err();
        assert!(e.contains("nope.pem") && e.contains("cannot read"), "{e}");
        std::fs::write(dir.path().join("empty.pem"), "hello").unwrap();
        assert!(CaFile::read(&dir.path().join("empty.pem")).unwrap_err().contains("holds no certificate"));
    }
}
