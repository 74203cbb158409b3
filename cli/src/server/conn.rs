//! One connection of the embedded server, over TCP (HTTP/1.1, or HTTP/2 after ALPN over TLS): accepting it,
//! serving its requests ([`handle`]: the routes, posted results and status, the counters), and what the server
//! keeps about it ([`Conn`]).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper::{Method, Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::net::TcpListener;

use super::{body, handshakes, origin, page, results, routes, status, tags, State, CONNECTIONS_PATH, HANDSHAKES_PATH};

/// A TLS connection's handshake, and whether it has been taken out of the tally (it asked for the tally).
struct ConnTls {
    seen: handshakes::Seen,
    uncounted: std::sync::atomic::AtomicBool,
}

/// What the server keeps about one connection.
#[derive(Default)]
pub(super) struct Conn {
    /// Its TLS handshake, over TLS.
    tls: Option<ConnTls>,
    /// The case tags its requests carried.
    pub(super) tags: tags::Seen,
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
        page::respond(state.page.as_ref(), &path, page::takes_gzip(req.headers()))
    } else {
        if let Some(tag) = httpbench_shared::protocol::conns_tag(req.uri().query()) {
            state.tags.note(&conn.tags, tag, std::time::Instant::now());
        }
        let delay = httpbench_shared::protocol::asks_for_delay(req.uri().query()).unwrap_or(state.default_delay_ms);
        if let Some(ms) = Some(delay).filter(|ms| *ms > 0) {
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
pub(super) fn counters(state: &State, conn: &Conn, path: &str, query: Option<&str>) -> Response<body::TargetBody> {
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
pub(crate) async fn serve(listener: TcpListener, state: Arc<State>, tls: Option<tokio_rustls::TlsAcceptor>) {
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
