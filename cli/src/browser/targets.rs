//! The servers the browser half requests ([`BrowserTargets`]): the embedded server, and over TLS the extra
//! servers a browser needs to be measured on HTTP/1.1 and HTTP/3 ([`start_h1_target`], [`start_h3_target`]);
//! the URLs of an engine's cases on them, and what its browser is given to trust them.

use std::path::PathBuf;

use httpbench_shared::model::HttpVersion;
use httpbench_shared::protocol::Link;
use httpbench_shared::session::Targets;

use super::engine::BrowserEngine;
use crate::netem::Namespace;
use crate::server::spawned::ChildServer;

/// For `--browser --tls --http 1.1,2` (`tls`: the embedded server over TLS; `versions`: the run's): a second
/// embedded server that offers only `http/1.1` by ALPN, the browser's HTTP/1.1 target (the browser takes the
/// best protocol a server offers, and the first server then offers h2 too). Otherwise the first server offers
/// HTTP/1.1 alone, or does not serve it.
/// `ns`: with `--link`, the server's namespace.
pub(crate) fn start_h1_target(
    tls: bool,
    versions: &[HttpVersion],
    cpu: Option<usize>,
    ns: Option<&Namespace>,
) -> TargetServer {
    let wanted = tls && versions.contains(&HttpVersion::Http11) && versions.contains(&HttpVersion::Http2);
    start_target(cpu, wanted, "1.1", ns)
}

/// For `--browser --tls` with HTTP/3: a server that speaks HTTP/3 (on UDP), the browser's HTTP/3 target,
/// which each engine is told to reach over QUIC (its [`BrowserEngine::quic_host`]): a browser uses QUIC only
/// for an origin it was told speaks it, and the page's own origin must stay on TCP (it serves the page).
pub(crate) fn start_h3_target(
    tls: bool,
    versions: &[HttpVersion],
    cpu: Option<usize>,
    ns: Option<&Namespace>,
) -> TargetServer {
    let wanted = tls && versions.contains(&HttpVersion::Http3);
    start_target(cpu, wanted, "3", ns)
}

/// A target server, if one was wanted, or why it did not start.
type TargetServer = anyhow::Result<Option<ChildServer>>;

fn start_target(cpu: Option<usize>, wanted: bool, http: &str, ns: Option<&Namespace>) -> TargetServer {
    Ok(match wanted {
        true => Some(ChildServer::start_in(ns, cpu, &["--tls".into(), "--http".into(), http.into()])?),
        false => None,
    })
}

/// The servers and URL the browser half requests.
pub struct BrowserTargets<'a> {
    /// The embedded server: it serves the page, saves its results, and is the target (HTTP/2 over TLS).
    pub server: &'a ChildServer,
    /// Over TLS, the server offering only HTTP/1.1.
    pub h1: Option<&'a ChildServer>,
    /// Over TLS, the server of the HTTP/3 cases.
    pub h3: Option<&'a ChildServer>,
    /// The run's target URL on `server`.
    pub url: &'a url::Url,
    /// Whether the targets are across an emulated link (`--link`): then the HTTP/3 target is reached at an
    /// address of its own on the link, whatever the engine.
    pub over_link: bool,
    /// The links the run scans (`[None]` without `--link`): each engine has a page per link.
    pub links: &'a [Option<Link>],
    /// Sets the emulated link to a page's before its turn.
    pub set_link: Option<SetLink<'a>>,
}

/// Sets the emulated link to a page's before its turn (`--link`).
pub type SetLink<'a> = &'a dyn Fn(Option<&Link>);

impl BrowserTargets<'_> {
    /// The URLs of `engine`'s cases: the run's, over TLS HTTP/1.1's on the server that offers it alone, and
    /// HTTP/3's on its server (by the engine's [`BrowserEngine::quic_host`]).
    pub(in crate::browser) fn targets(&self, engine: &dyn BrowserEngine) -> Targets {
        let mut targets = Targets::one(self.url.as_str());
        for (version, server) in [(HttpVersion::Http11, self.h1), (HttpVersion::Http3, self.h3)] {
            if let Some(s) = server {
                let mut url = s.url.join(self.url.path()).unwrap_or_else(|_| s.url.clone());
                if version == HttpVersion::Http3 {
                    // A valid host name for an https URL: setting it cannot fail.
                    let _ = url.set_host(Some(self.quic_host(engine)));
                }
                targets.per_version.push((version, url.to_string()));
            }
        }
        targets
    }

    /// Every server the page requests.
    fn servers(&self) -> impl Iterator<Item = &ChildServer> {
        [Some(self.server), self.h1, self.h3].into_iter().flatten()
    }

    /// The SPKI pins of the servers' keys, for an engine that trusts by them (over TLS).
    pub(in crate::browser) fn pins(&self) -> Vec<String> {
        self.servers().filter_map(|s| s.pin.clone()).collect()
    }

    /// The servers' CA files, for an engine that trusts them in its profile (over TLS).
    pub(in crate::browser) fn cas(&self) -> Vec<PathBuf> {
        self.servers().filter_map(|s| s.ca.clone()).collect()
    }

    /// The servers' own (leaf) certificate files, for an engine that accepts a server by its certificate (over
    /// TLS).
    pub(in crate::browser) fn leaves(&self) -> Vec<PathBuf> {
        self.servers().filter_map(|s| s.leaf.clone()).collect()
    }

    /// The origins `engine` must reach over QUIC (`HOST:PORT`, by its [`BrowserEngine::quic_host`]): the
    /// HTTP/3 target's.
    pub(in crate::browser) fn quic_origins(&self, engine: &dyn BrowserEngine) -> Vec<String> {
        self.h3.iter().filter_map(|s| Some(format!("{}:{}", self.quic_host(engine), s.url.port()?))).collect()
    }

    /// The host `engine` reaches the HTTP/3 target by.
    fn quic_host(&self, engine: &dyn BrowserEngine) -> &'static str {
        match self.over_link {
            true => crate::netem::QUIC_ADDR,
            false => engine.quic_host(),
        }
    }
}
