//! The dimensions of a run and the cases they make: every (client, mode, HTTP version, body size, server
//! delay, concurrency) whose client can run it, the others left out with why.

use std::collections::BTreeMap;

use super::CaseKey;
use crate::model::{Engine, EnvironmentKind, HttpVersion, Mode};
use crate::protocol::{cannot_run_at, cannot_run_fresh, cannot_speak, Link};
use crate::view::LoadParts;

/// The dimensions of a run: every combination its clients can run is a case, in that nesting (clients
/// outermost, in the order given; concurrency innermost, so a client's levels sit side by side).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matrix {
    /// Where the clients run: the catalog of this environment says which speak HTTP/2.
    pub environment: EnvironmentKind,
    /// Client names.
    pub clients: Vec<String>,
    /// Connection modes.
    pub modes: Vec<Mode>,
    /// HTTP versions.
    pub http_versions: Vec<HttpVersion>,
    /// Whether the target is requested over TLS.
    pub tls: bool,
    /// Response body sizes asked of the embedded server; `[None]`: the target as given.
    pub body_sizes: Vec<Option<u64>>,
    /// Think times asked of the embedded server, in milliseconds; `[None]`: none asked for.
    pub server_delays_ms: Vec<Option<u64>>,
    /// Emulated links between the clients and the embedded server (`--link`); `[None]`: loopback.
    pub links: Vec<Option<Link>>,
    /// Requests in flight per case; `[1]`: sequential requests.
    pub concurrency: Vec<u32>,
    /// The HTTP versions of clients beyond the catalog (command clients) that do not speak HTTP/1.1 alone, as
    /// their front end declares them: `python-aioquic` speaks HTTP/3 alone. Any other speaks HTTP/1.1.
    pub declared_versions: BTreeMap<String, Vec<HttpVersion>>,
    /// No version was asked of a browser, which negotiates one itself (the page opened by hand): its cases
    /// record the version their responses came over. Otherwise a case whose responses came over another
    /// version than it asked for is stopped with that reason.
    pub negotiated: bool,
    /// The browser engine the cases run in, if known: its HTTP stack leaves out the versions it cannot speak
    /// ([`Engine::cannot_speak`]: WebKitGTK has no HTTP/3), for every client alike.
    pub engine: Option<Engine>,
}

impl Matrix {
    /// `clients` × `modes`, sequential requests of the target as given, over plaintext HTTP/1.1.
    pub fn new(environment: EnvironmentKind, clients: Vec<String>, modes: Vec<Mode>) -> Self {
        Matrix {
            environment,
            clients,
            modes,
            http_versions: vec![HttpVersion::Http11],
            tls: false,
            body_sizes: vec![None],
            server_delays_ms: vec![None],
            links: vec![None],
            concurrency: vec![1],
            declared_versions: BTreeMap::new(),
            negotiated: false,
            engine: None,
        }
    }

    /// The cases to run, and those left out because their client or environment cannot run them (one line
    /// each, `fetch/fresh over HTTP/2 at concurrency 8 (why)`).
    pub fn cases(&self) -> (Vec<CaseKey>, Vec<String>) {
        let (mut run, mut skipped) = (Vec::new(), Vec::new());
        for client in &self.clients {
            let versions: Vec<HttpVersion> = self
                .http_versions
                .iter()
                .copied()
                .filter(|&http| {
                    let declared = self.declared_versions.get(client).map(Vec::as_slice);
                    let reason = (self.engine.and_then(|e| e.cannot_speak(http)))
                        .or_else(|| cannot_speak(self.environment, client, http, declared));
                    if let Some(reason) = reason {
                        skipped.push(format!("{client} over {http} ({reason})"));
                    }
                    reason.is_none()
                })
                .collect();
            let levels: Vec<u32> = self
                .concurrency
                .iter()
                .copied()
                .filter(|&c| {
                    let reason = cannot_run_at(self.environment, client, c);
                    if let Some(reason) = reason {
                        skipped.push(format!("{client} at concurrency {c} ({reason})"));
                    }
                    reason.is_none()
                })
                .collect();
            // curl/fresh/h1/64k/d5ms/c1, curl/fresh/h1/64k/d5ms/c4, ...
            for &mode in &self.modes {
                for &http in &versions {
                    let levels = self.levels_of_mode(client, mode, http, &levels, &mut skipped);
                    for &body_bytes in &self.body_sizes {
                        for &server_delay_ms in &self.server_delays_ms {
                            for &link in &self.links {
                                for &concurrency in &levels {
                                    let client = client.clone();
                                    let load = (body_bytes, server_delay_ms, link, concurrency);
                                    run.push(CaseKey::new(client, mode, http, load));
                                }
                            }
                        }
                    }
                }
            }
        }
        (run, skipped)
    }

    /// Of `levels`, those `client` can run `mode` at over `http` in this environment; a line in `skipped` for
    /// each other (a browser runs fresh mode over HTTP/2 one request at a time: [`cannot_run_fresh`]).
    fn levels_of_mode(
        &self,
        client: &str,
        mode: Mode,
        http: HttpVersion,
        levels: &[u32],
        skipped: &mut Vec<String>,
    ) -> Vec<u32> {
        let mut can = Vec::new();
        for &c in levels {
            match cannot_run_fresh(self.environment, http, c).filter(|_| mode == Mode::Fresh) {
                Some(reason) => skipped.push(format!("{client}/fresh over {http} at concurrency {c} ({reason})")),
                None => can.push(c),
            }
        }
        can
    }

    /// Case `key`'s name: `client/mode`, then a part for each dimension that has several values here
    /// (`h2`, `64k`, `d5ms`, `c16`), so a scan's cases tell apart and a plain run's names stay short.
    pub fn label(&self, key: &CaseKey) -> String {
        let mut label = key.label();
        if self.http_versions.len() > 1 {
            label.push('/');
            label.push_str(key.http.short());
        }
        let parts = LoadParts {
            body_bytes: (self.body_sizes.len() > 1).then_some(key.body_bytes),
            server_delay_ms: (self.server_delays_ms.len() > 1).then_some(key.server_delay_ms),
            concurrency: (self.concurrency.len() > 1).then_some(u64::from(key.concurrency)),
            link: (self.links.len() > 1).then_some(key.link),
        };
        parts.push_to(&mut label);
        label
    }
}
