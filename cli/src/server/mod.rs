//! The embedded target server: hyper on tokio, HTTP/1.1 keep-alive, pre-built responses, no logging on the
//! hot path, so the server is never what a benchmark measures. `httpbench serve` runs it in the foreground;
//! `httpbench run` starts it as a child process ([`child`]) so its CPU time is not billed to the clients.

mod body;
pub mod handshakes;
pub mod origin;
pub mod page;
pub mod probe;
mod quic;
mod quota;
mod results;
mod routes;
pub mod spawned;
mod status;
mod tags;
pub mod tls;
pub mod turn;

use std::convert::Infallible;
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper::{Method, Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::net::TcpListener;

/// With `--quiet`, the server prints this, the posting page's id ([`page_id`]) and the file's path on stdout
/// for every result file it saved: the line `run --browser` waits for (it reads the child server's stdout).
pub const SAVED_LINE: &str = "saved ";

/// With `--quiet`, the server prints this, the page's id and its status (shared's `PageStatus`, one line) on
/// stdout for every status a page posts: how `run --browser` hears its pages' progress and refusals.
pub const STATUS_LINE: &str = "page ";

/// With `--quiet`, the server prints this, the page's id and a pass on stdout when a page waits for its turn
/// at that pass ([`turn`]).
pub const TURN_LINE: &str = "turn ";

/// With `--sealed`, the server prints this and the page's id on stdout once the page's seal (a `seal ID
/// SECRET` line on its stdin) holds: the parent starts the page only after that.
pub const SEALED_LINE: &str = "sealed ";

/// The id a page's post or turn request names itself by (`page=ID`), or `-` for a page that names none (one
/// opened by hand).
pub fn page_id(query: Option<&str>) -> &str {
    httpbench_shared::protocol::asked_page(query).unwrap_or("-")
}

/// Checked options of `httpbench serve`.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to bind (127.0.0.1 unless the user asked otherwise).
    pub bind: IpAddr,
    /// Port; 0 picks a free one.
    pub port: u16,
    /// Worker threads; 1 gives the lowest latency for one sequential client.
    pub threads: usize,
    /// CPU to pin the server to (all its threads), if any.
    pub cpu: Option<usize>,
    /// The built page (trunk's `dist/`), served under `/app/`, if found.
    pub page_dir: Option<PathBuf>,
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
    /// `--sealed`: turns, status and results only from the pages sealed on stdin ([`turn::Gate::admits`]).
    pub sealed: bool,
}

/// After `listening on`, an HTTPS server prints this and the CA file's path on stdout.
pub const CA_LINE: &str = "CA certificate: ";
/// ... or, with `--cert`, this and the certificate file given.
pub const CERT_LINE: &str = "certificate: ";
/// ... then this and the server key's SPKI pin.
pub const PIN_LINE: &str = "SPKI pin: ";

/// What the request handler needs.
#[derive(Debug, Default)]
pub struct State {
    /// The page directory.
    pub page_dir: Option<PathBuf>,
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
    /// What this server may still write into the results folder.
    pub quota: quota::Quota,
    /// The pages waiting for their turn, and the turns the parent handed out.
    pub gate: Arc<turn::Gate>,
}

/// The path that answers `full N resumed M` and a line per TLS version and cipher suite: the TLS handshakes
/// the server completed ([`handshakes`]).
pub const HANDSHAKES_PATH: &str = "/tls/handshakes";

/// The path that answers `connections N` (per case tag with `?tag=TAG`, [`tags`]): shared's, since the page
/// reads it too.
pub use httpbench_shared::protocol::CONNECTIONS_PATH;

/// Run the server until Ctrl-C, printing `listening on http://ADDR/` first (the parent of a child server
/// reads that line to learn the port).
pub fn run_foreground(options: &ServeOptions) -> anyhow::Result<()> {
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
        // The CA file lives as long as the server. Its folder is made only for a generated CA: a read-only or
        // full TMPDIR must not stop a server that needs none.
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
        let scheme = if tls.is_some() { "https" } else { "http" };
        let base = format!("{scheme}://{}/", display_addr(local));
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening on {base}")?;
        if let Some(t) = &tls {
            match (&t.ca_file, &options.own_cert) {
                (Some(ca), _) => writeln!(out, "{CA_LINE}{}", ca.display())?,
                (None, Some(own)) => writeln!(out, "{CERT_LINE}{}", own.cert_file.display())?,
                (None, None) => {}
            }
            writeln!(out, "{PIN_LINE}{}", t.spki_pin)?;
        }
        out.flush()?;
        drop(out);
        if !options.quiet {
            announce(options, &base);
        }
        let state = Arc::new(State {
            page_dir: options.page_dir.clone(),
            results_dir: options.results_dir.clone(),
            quiet: options.quiet,
            handshakes: Default::default(),
            connections: Default::default(),
            tags: Default::default(),
            origins: origin::Policy { allowed: options.allowed_origins.clone(), tls: scheme == "https" },
            quota: Default::default(),
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

/// `127.0.0.1:8080`, or `[::1]:8080` for IPv6.
pub fn display_addr(addr: SocketAddr) -> String {
    match addr {
        SocketAddr::V4(a) => a.to_string(),
        SocketAddr::V6(a) => format!("[{}]:{}", a.ip(), a.port()),
    }
}

/// Tell the user (on stderr: stdout's first line is the address a parent reads) where the page is, where
/// results go, and open the browser if asked.
fn announce(options: &ServeOptions, base: &str) {
    let page = format!("{base}app/");
    match &options.page_dir {
        Some(dir) => eprintln!("httpbench serve: page {page} (from {})", dir.display()),
        None => eprintln!("httpbench serve: no built page found: {}", page::HOW_TO_BUILD),
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

/// A TLS connection's handshake, and whether it has been taken out of the tally (it asked for the tally).
struct ConnTls {
    seen: handshakes::Seen,
    uncounted: std::sync::atomic::AtomicBool,
}

/// What the server keeps about one connection.
#[derive(Default)]
struct Conn {
    /// Its TLS handshake, over TLS.
    tls: Option<ConnTls>,
    /// The case tags its requests carried.
    tags: tags::Seen,
}

/// Route one request: the server's own endpoints (results, status), its counters, the page under `/app/`,
/// or the target endpoints.
async fn handle(state: Arc<State>, conn: &Conn, req: Request<Incoming>) -> Response<body::TargetBody> {
    let path = req.uri().path().to_string();
    let is_read = matches!(*req.method(), Method::GET | Method::HEAD);
    let own_endpoint = path == "/results" || path == httpbench_shared::protocol::STATUS_PATH;
    if own_endpoint && matches!(*req.method(), Method::POST | Method::OPTIONS) {
        return posted(&state, req).await;
    }
    if is_read && path == httpbench_shared::protocol::TURN_PATH {
        // Only the pages that may post their status may take turns: another site's page cannot hold a run up.
        let verdict = state.origins.judge(&req);
        let mut res = match (&verdict, state.gate.admits(req.uri().query())) {
            (origin::Verdict::Refused(reason), _) => results::reply(hyper::StatusCode::FORBIDDEN, reason),
            (_, Err(why)) => results::reply(hyper::StatusCode::FORBIDDEN, why),
            (_, Ok(())) => state.gate.answer(req.uri().query()).await,
        };
        origin::cors(&mut res, &verdict);
        res.headers_mut().insert(header::SERVER, HeaderValue::from_static("httpbench"));
        return res;
    }
    if is_read && path.starts_with("/results/") {
        // The user's results: readable cross-origin only by the origins that may post them.
        let mut res = results::saved(state.results_dir.as_deref(), &path["/results/".len()..]);
        origin::cors(&mut res, &state.origins.judge(&req));
        res.headers_mut().insert(header::SERVER, HeaderValue::from_static("httpbench"));
        return res;
    }
    let mut res = if is_read && path == "/app/serve.json" {
        // Tells the page it is served by `httpbench serve`, so it posts its results back.
        results::service_description(state.results_dir.is_some())
    } else if is_read && (path == HANDSHAKES_PATH || path == CONNECTIONS_PATH) {
        counters(&state, conn, &path, req.uri().query())
    } else if is_read && (path == page::PREFIX || path.starts_with("/app/")) {
        page::respond(state.page_dir.as_deref(), &path)
    } else {
        if let Some(tag) = httpbench_shared::protocol::conns_tag(req.uri().query()) {
            state.tags.note(&conn.tags, tag, std::time::Instant::now());
        }
        if let Some(ms) = httpbench_shared::protocol::asks_for_delay(req.uri().query()).filter(|ms| *ms > 0) {
            // Think time (`delay_ms=N`): the connection waits, the server's other connections go on.
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
        return routes::respond(&req);
    };
    let h = res.headers_mut();
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    h.insert(header::SERVER, HeaderValue::from_static("httpbench"));
    res
}

/// `POST` (or the preflight of a post) to `/results` or `/status`: only from the page's own origin and the
/// allowed ones ([`origin`]), and on a sealed server only with the page's seal; a refused post gets 403 with
/// the reason and is not read further.
async fn posted(state: &State, req: Request<Incoming>) -> Response<body::TargetBody> {
    let verdict = state.origins.judge(&req);
    let post = req.method() == Method::POST;
    let mut res = match (&verdict, state.gate.admits(req.uri().query())) {
        (origin::Verdict::Refused(reason), _) if post => results::reply(hyper::StatusCode::FORBIDDEN, reason),
        (_, Err(why)) if post => results::reply(hyper::StatusCode::FORBIDDEN, why),
        _ if req.method() == Method::OPTIONS => origin::preflight(req.headers(), &verdict),
        _ if req.uri().path() == "/results" => results::accept(state, req).await,
        _ => status::accept(state.quiet, req).await,
    };
    origin::cors(&mut res, &verdict);
    res.headers_mut().insert(header::SERVER, HeaderValue::from_static("httpbench"));
    res
}

/// `GET /tls/handshakes` and `GET /stats/connections[?tag=TAG]`. The tally reads the same before and after:
/// a connection that reads a counter takes its own handshake back.
fn counters(state: &State, conn: &Conn, path: &str, query: Option<&str>) -> Response<body::TargetBody> {
    let tls = conn.tls.as_ref();
    if let Some(c) = tls.filter(|c| !c.uncounted.swap(true, std::sync::atomic::Ordering::Relaxed)) {
        state.handshakes.count(&c.seen, false);
    }
    match (path == HANDSHAKES_PATH, httpbench_shared::protocol::asked_tag(query)) {
        (true, _) => results::plain(state.handshakes.text()),
        (false, Some(tag)) => {
            results::plain(format!("connections {}\n", state.tags.count(tag, std::time::Instant::now())))
        }
        (false, None) => {
            results::plain(format!("connections {}\n", state.connections.load(std::sync::atomic::Ordering::Relaxed)))
        }
    }
}

/// How long a client may take over its TLS handshake.
const HANDSHAKE_LIMIT: Duration = Duration::from_secs(10);

/// Accept connections forever, one task each; over TLS when `tls` is given.
pub async fn serve(listener: TcpListener, state: Arc<State>, tls: Option<tokio_rustls::TlsAcceptor>) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors or a peer gone before accept: back off briefly, keep serving.
                eprintln!("httpbench serve: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        state.connections.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let state = state.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            match tls {
                None => serve_http(TokioIo::new(stream), state, Arc::default()).await,
                Some(acceptor) => {
                    // A client that stalls in its handshake (or speaks plain HTTP) is dropped, bounded.
                    if let Ok(Ok(stream)) = tokio::time::timeout(HANDSHAKE_LIMIT, acceptor.accept(stream)).await {
                        let conn = stream.get_ref().1;
                        let seen = handshakes::Seen::of(conn);
                        let h2 = conn.alpn_protocol() == Some(b"h2");
                        state.handshakes.count(&seen, true);
                        let tls = ConnTls { seen, uncounted: Default::default() };
                        let conn = Arc::new(Conn { tls: Some(tls), tags: Default::default() });
                        match h2 {
                            true => serve_h2(TokioIo::new(stream), state, conn).await,
                            false => serve_http(TokioIo::new(stream), state, conn).await,
                        }
                    }
                }
            }
        });
    }
}

/// HTTP/1.1 with keep-alive on one connection.
async fn serve_http<T>(io: TokioIo<T>, state: Arc<State>, conn: Arc<Conn>)
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let service = service_fn(move |req| {
        let (state, conn) = (state.clone(), conn.clone());
        async move { Ok::<_, Infallible>(handle(state, &conn, req).await) }
    });
    let _ = http1::Builder::new()
        .timer(TokioTimer::new())
        // Also how long a kept-alive connection may wait for its next request (hyper runs this timer then):
        // a reuse case's connection idles while other cases and sides have their turn.
        .header_read_timeout(crate::tls::IDLE_LIMIT)
        .keep_alive(true)
        .serve_connection(io, service)
        .await;
}

/// HTTP/2 on a TLS connection that negotiated `h2`: streams served concurrently, on the server's runtime.
/// `close=1` (a browser's fresh mode) cannot be `Connection: close` in HTTP/2, so it ends the connection
/// gracefully instead (GOAWAY once the open streams are answered): the browser's next request opens a new one.
async fn serve_h2<T>(io: TokioIo<T>, state: Arc<State>, conn: Arc<Conn>)
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let closing = Arc::new(tokio::sync::Notify::new());
    let asked = closing.clone();
    let service = service_fn(move |req: Request<Incoming>| {
        if httpbench_shared::protocol::asks_to_close(req.uri().query()) {
            asked.notify_one();
        }
        let (state, conn) = (state.clone(), conn.clone());
        async move { Ok::<_, Infallible>(handle(state, &conn, req).await) }
    });
    // The header bound HTTP/3 has too (hyper's default, said once for both).
    let max_headers = crate::tls::MAX_FIELD_SECTION_BYTES as u32;
    let conn = http2::Builder::new(TokioExecutor::new())
        .timer(TokioTimer::new())
        .max_header_list_size(max_headers)
        .serve_connection(io, service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        () = closing.notified() => conn.as_mut().graceful_shutdown(),
    }
    let _ = conn.await;
}
