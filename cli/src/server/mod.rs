//! The embedded target server: hyper on tokio, HTTP/1.1 keep-alive, pre-built responses, no logging on the
//! hot path, so the server is never what a benchmark measures. `httpbench serve` runs it in the foreground;
//! `httpbench run` starts it as a child process ([`child`]) so its CPU time is not billed to the clients.

mod body;
mod conn;
pub(crate) mod handshakes;
pub(crate) mod origin;
pub(crate) mod page;
pub(crate) mod probe;
mod quic;
mod quota;
mod results;
mod routes;
pub(crate) mod spawned;
mod status;
mod tags;
pub(crate) mod tls;
pub(crate) mod turn;

use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use tokio::net::TcpListener;

pub(crate) use conn::serve;

/// With `--quiet`, the server prints this, the posting page's id ([`page_id`]) and the file's path on stdout
/// for every result file it saved: the line `run --browser` waits for (it reads the child server's stdout).
pub(crate) const SAVED_LINE: &str = "saved ";

/// With `--quiet`, the server prints this, the page's id and its status (shared's `PageStatus`, one line) on
/// stdout for every status a page posts: how `run --browser` hears its pages' progress and refusals.
pub(crate) const STATUS_LINE: &str = "page ";

/// With `--quiet`, the server prints this, the page's id and a pass on stdout when a page waits for its turn
/// at that pass ([`turn`]).
pub(crate) const TURN_LINE: &str = "turn ";

/// With `--sealed`, the server prints this and the page's id on stdout once the page's seal (a `seal ID
/// SECRET` line on its stdin) holds: the parent starts the page only after that.
pub(crate) const SEALED_LINE: &str = "sealed ";

/// The id a page's post or turn request names itself by (`page=ID`), or `-` for a page that names none (one
/// opened by hand).
pub(crate) fn page_id(query: Option<&str>) -> &str {
    httpbench_shared::protocol::asked_page(query).unwrap_or("-")
}

/// Checked options of `httpbench serve`.
#[derive(Debug, Clone)]
pub(crate) struct ServeOptions {
    /// Address to bind (127.0.0.1 unless the user asked otherwise).
    pub bind: IpAddr,
    /// Port; 0 picks a free one.
    pub port: u16,
    /// Worker threads; 1 gives the lowest latency for one sequential client.
    pub threads: usize,
    /// CPU to pin the server to (all its threads), if any.
    pub cpu: Option<usize>,
    /// The built page (trunk's `dist/`, or the copy built into this binary), served under `/app/`, if found.
    pub page: Option<page::Page>,
    /// Where posted result files are saved; `None` prints them only.
    pub results_dir: Option<PathBuf>,
    /// Open the page in the default browser once listening.
    pub open: bool,
    /// Announce nothing but the address on stdout, then a [`SAVED_LINE`] per saved result (for programs
    /// that start the server).
    pub quiet: bool,
    /// Serve HTTPS with a generated certificate ([`tls`]).
    pub tls: bool,
    /// The HTTP versions offered by ALPN over TLS.
    pub http_versions: Vec<httpbench_shared::model::HttpVersion>,
    /// `--cert`/`--key`: the user's certificate instead of a generated one.
    pub own_cert: Option<tls::OwnCert>,
    /// `--allow-origin`: the origins besides the page's own that may post results and status, canonical
    /// ([`origin::canonical`]).
    pub allowed_origins: Vec<String>,
    /// `--server-delay`: think time before answering a target request that asks for none, milliseconds.
    pub server_delay_ms: u64,
    /// `--sealed`: turns, status and results only from the pages sealed on stdin ([`turn::Gate::admits`]).
    pub sealed: bool,
}

/// After `listening on`, an HTTPS server prints this and the CA file's path on stdout.
pub(crate) const CA_LINE: &str = "CA certificate: ";
/// ... or, with `--cert`, this and the certificate file given.
pub(crate) const CERT_LINE: &str = "certificate: ";
/// ... then this and the server key's SPKI pin.
pub(crate) const PIN_LINE: &str = "SPKI pin: ";

/// What the request handler needs.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The page.
    pub page: Option<page::Page>,
    /// The results folder.
    pub results_dir: Option<PathBuf>,
    /// Print saved results as [`SAVED_LINE`]s on stdout, no summary line (a parent program reports them).
    pub quiet: bool,
    /// TLS handshakes completed so far (`GET /tls/handshakes` tells them), so that a fresh client can be
    /// shown to make a full handshake every time.
    pub handshakes: handshakes::Tally,
    /// Connections accepted so far (`GET /stats/connections` tells them), so each case can say how many
    /// connections its client opened.
    pub connections: std::sync::atomic::AtomicU64,
    /// Connections per case tag (`conns=TAG`; `GET /stats/connections?tag=TAG` tells them), so a case that
    /// shares its client's connections with other cases (a browser's) can say how many served it.
    pub tags: tags::Tally,
    /// Who may post results and status.
    pub origins: origin::Policy,
    /// Think time of a target request that asks for none (`serve --server-delay`), milliseconds.
    pub default_delay_ms: u64,
    /// What this server may still write into the results folder.
    pub quota: quota::Quota,
    /// The pages waiting for their turn, and the turns the parent handed out.
    pub gate: Arc<turn::Gate>,
}

/// The path that answers `full N resumed M` and a line per TLS version and cipher suite: the TLS handshakes
/// the server completed ([`handshakes`]).
pub(crate) const HANDSHAKES_PATH: &str = "/tls/handshakes";

/// The path that answers `connections N` (per case tag with `?tag=TAG`, [`tags`]): shared's, since the page
/// reads it too.
pub(crate) use httpbench_shared::protocol::CONNECTIONS_PATH;

/// Run the server until Ctrl-C, printing `listening on http://ADDR/` first (the parent of a child server
/// reads that line to learn the port).
pub(crate) fn run_foreground(options: &ServeOptions) -> anyhow::Result<()> {
    if let Some(cpu) = options.cpu {
        // Before the runtime exists: every thread it starts inherits the mask.
        crate::placement::pin_current_thread(cpu).with_context(|| {
            format!("--cpu {cpu}: cannot pin the server to CPU {cpu}; give a CPU this process may use")
        })?;
    }
    let runtime = if options.threads <= 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(options.threads).enable_all().build()
    }
    .context("cannot start the server's runtime")?;
    runtime.block_on(async {
        let addr = SocketAddr::new(options.bind, options.port);
        let listener = TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}: is the port in use? Try --port 0 for a free one"))?;
        let local = listener.local_addr()?;
        // The CA file's folder lives as long as the server.
        let (_ca_dir, tls) = server_tls(options)?;
        let scheme = if tls.is_some() { "https" } else { "http" };
        let base = format!("{scheme}://{}/", display_addr(local));
        print_address(options, &base, tls.as_ref())?;
        if !options.quiet {
            announce(options, &base);
        }
        let state = Arc::new(State {
            page: options.page.clone(),
            results_dir: options.results_dir.clone(),
            quiet: options.quiet,
            handshakes: Default::default(),
            connections: Default::default(),
            tags: Default::default(),
            origins: origin::Policy { allowed: options.allowed_origins.clone(), tls: scheme == "https" },
            quota: Default::default(),
            default_delay_ms: options.server_delay_ms,
            gate: turn::Gate::new(options.quiet, options.sealed),
        });
        // HTTP/3 on UDP of the same port, beside TCP.
        let quic = match tls.as_ref().and_then(|t| t.quic.as_ref()) {
            Some(config) => Some(quic::endpoint(local, config)?),
            None => None,
        };
        if let Some(endpoint) = quic {
            if !options.quiet {
                eprintln!("httpbench serve: HTTP/3 on UDP port {} too (QUIC, ALPN h3)", local.port());
            }
            tokio::spawn(quic::serve(endpoint, state.clone()));
        }
        let acceptor = tls.map(|t| t.acceptor);
        tokio::select! {
            _ = serve(listener, state, acceptor) => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        Ok(())
    })
}

/// The server's TLS, with `--tls`: the certificate given (`--cert`), or one generated for this server with its
/// CA in a folder of its own (made only then: a read-only or full TMPDIR must not stop a server that needs
/// none), which the caller keeps as long as the server runs.
fn server_tls(options: &ServeOptions) -> anyhow::Result<(Option<tempfile::TempDir>, Option<tls::Tls>)> {
    let ca_dir = match (&options.own_cert, options.tls) {
        (None, true) => Some(
            tempfile::Builder::new()
                .prefix("httpbench-tls-")
                .tempdir()
                .context("cannot create a folder for the generated CA in TMPDIR")?,
        ),
        _ => None,
    };
    let tls = match (&options.own_cert, &ca_dir) {
        (Some(own), _) => Some(own.tls(&options.http_versions)?),
        (None, Some(dir)) => Some(tls::generated(dir.path(), &options.http_versions)?),
        (None, None) => None,
    };
    Ok((ca_dir, tls))
}

/// The lines a parent reads on stdout: the address, and over TLS the CA (or certificate) file and the key's pin.
fn print_address(options: &ServeOptions, base: &str, tls: Option<&tls::Tls>) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "listening on {base}")?;
    if let Some(t) = tls {
        match (&t.ca_file, &options.own_cert) {
            (Some(ca), _) => writeln!(out, "{CA_LINE}{}", ca.display())?,
            (None, Some(own)) => writeln!(out, "{CERT_LINE}{}", own.cert_file.display())?,
            (None, None) => {}
        }
        writeln!(out, "{PIN_LINE}{}", t.spki_pin)?;
    }
    out.flush()?;
    Ok(())
}

/// `127.0.0.1:8080`, or `[::1]:8080` for IPv6.
pub(crate) fn display_addr(addr: SocketAddr) -> String {
    match addr {
        SocketAddr::V4(a) => a.to_string(),
        SocketAddr::V6(a) => format!("[{}]:{}", a.ip(), a.port()),
    }
}

/// Tell the user (on stderr: stdout's first line is the address a parent reads) where the page is, where
/// results go, and open the browser if asked.
fn announce(options: &ServeOptions, base: &str) {
    let page = format!("{base}app/");
    match &options.page {
        Some(p) => eprintln!("httpbench serve: page {page} ({})", p.describe()),
        None => eprintln!("httpbench serve: no page: {}", page::HOW_TO_BUILD),
    }
    if let Some(dir) = &options.results_dir {
        let also = match options.allowed_origins.as_slice() {
            [] => String::new(),
            allowed => format!(" and from {}", allowed.join(", ")),
        };
        eprintln!(
            "httpbench serve: results posted by the page (from its own origin{also}) are saved in {}, at most {} \
             files and {} MiB from this server",
            dir.display(),
            quota::MAX_FILES,
            quota::MAX_BYTES >> 20
        );
    }
    if options.open {
        let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
        if std::process::Command::new(opener).arg(&page).spawn().is_err() {
            eprintln!("httpbench serve: could not start {opener}; open {page} yourself");
        }
    }
}
