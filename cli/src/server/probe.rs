//! Reads the embedded server's own counters, outside any timing: the TLS handshake tally
//! (`GET /tls/handshakes`, [`super::handshakes`]) and the connections that carried a case's tag
//! (`GET /stats/connections?tag=TAG`). The runner reads them around each step of a case, so the case's report
//! says what was negotiated and how many connections its client opened. Every read is bounded ([`PROBE_LIMIT`]).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use httpbench_shared::stats::Handshakes;

/// How long the probe waits on the server for anything.
const PROBE_LIMIT: Duration = Duration::from_secs(5);

/// A probe of one embedded server, over TLS (trusting its CA) or plaintext, as the server speaks.
pub(crate) struct Probe {
    addr: SocketAddr,
    tls: Option<Arc<rustls::ClientConfig>>,
}

impl Probe {
    /// A probe of the server at `url`; `ca` is its CA when it speaks TLS.
    pub(crate) fn new(url: &url::Url, ca: Option<&crate::tls::CaFile>) -> anyhow::Result<Probe> {
        let addr = *url.socket_addrs(|| None)?.first().ok_or_else(|| anyhow::anyhow!("{url} has no address"))?;
        let tls = match (url.scheme(), ca) {
            ("https", Some(ca)) => {
                // This server's CA alone, not the run's (a browser run's HTTP/1.1 target has a CA of its own).
                let mut config = crate::clients::tls::config_trusting(ca)?;
                // No ALPN: the server may offer h2 alone, and then serves a client that offers nothing HTTP/1.1.
                config.alpn_protocols.clear();
                Some(Arc::new(config))
            }
            ("https", None) => anyhow::bail!("{url}: the probe needs the server's CA"),
            _ => None,
        };
        Ok(Probe { addr, tls })
    }

    /// Whether the server speaks TLS (so it has a handshake tally).
    pub(crate) fn is_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// The handshake tally now; `None` if the server did not answer in time.
    pub(crate) fn handshakes(&self) -> Option<Vec<Handshakes>> {
        super::handshakes::parse(&self.get(super::HANDSHAKES_PATH)?)
    }

    /// Connections that carried requests tagged `tag` so far (a case's, [`httpbench_shared::protocol::case_tag`]),
    /// read as the page reads them; `None` if the server did not answer.
    pub(crate) fn connections_of(&self, tag: &str) -> Option<u64> {
        use httpbench_shared::protocol::{connections_query, read_connections};
        read_connections(&self.get(&connections_query(super::CONNECTIONS_PATH, tag))?)
    }

    /// The body of `GET path` on a connection of its own.
    fn get(&self, path: &str) -> Option<String> {
        let tcp = TcpStream::connect_timeout(&self.addr, PROBE_LIMIT).ok()?;
        tcp.set_read_timeout(Some(PROBE_LIMIT)).ok()?;
        tcp.set_write_timeout(Some(PROBE_LIMIT)).ok()?;
        let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let mut text = String::new();
        match &self.tls {
            Some(config) => {
                let name = rustls::pki_types::ServerName::IpAddress(self.addr.ip().into());
                let conn = rustls::ClientConnection::new(config.clone(), name).ok()?;
                let mut tls = rustls::StreamOwned::new(conn, tcp);
                tls.write_all(request.as_bytes()).ok()?;
                // The server closes after answering; a missing close_notify is not a failure here.
                let _ = tls.take(64 * 1024).read_to_string(&mut text);
            }
            None => {
                let mut tcp = tcp;
                tcp.write_all(request.as_bytes()).ok()?;
                let _ = tcp.take(64 * 1024).read_to_string(&mut text);
            }
        }
        text.split("\r\n\r\n").nth(1).map(str::to_string)
    }
}
