//! The target's endpoints: `/` (a small page, about a default web server's), `/bytes/N`, `/status/N`, and
//! `close=1` on any of them for `Connection: close`. Every response carries the CORS and timing headers a
//! browser page on another origin needs to call and time it.

use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};

use super::body::TargetBody;

/// The `/` page: 612 bytes, the size of nginx's default page, so figures compare with the Perl seed's target.
pub(super) const INDEX_HTML: &[u8] = include_bytes!("index.html");

/// Largest `/bytes/N` served (1 TiB): enough for any huge-body test, bounded so a typo is not a day-long reply.
pub(super) const MAX_BYTES: u64 = 1 << 40;

/// Answer one request. Never fails: bad paths get 4xx with a reason.
pub(super) fn respond<B>(req: &Request<B>) -> Response<TargetBody> {
    let close = httpbench_shared::protocol::asks_to_close(req.uri().query());
    let mut res = match *req.method() {
        Method::GET | Method::HEAD => route(req.uri().path()),
        Method::OPTIONS => preflight(req.headers()),
        _ => {
            let mut r = text(StatusCode::METHOD_NOT_ALLOWED, "only GET, HEAD and OPTIONS are served\n");
            r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD, OPTIONS"));
            r
        }
    };
    let h = res.headers_mut();
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    h.insert("timing-allow-origin", HeaderValue::from_static("*"));
    h.insert("cross-origin-resource-policy", HeaderValue::from_static("cross-origin"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::SERVER, HeaderValue::from_static("httpbench"));
    if close {
        h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    res
}

fn route(path: &str) -> Response<TargetBody> {
    if path == "/" || path == "/index.html" {
        return with_type(Response::new(TargetBody::fixed(INDEX_HTML)), "text/html");
    }
    if let Some(n) = path.strip_prefix("/bytes/") {
        return match n.parse::<u64>() {
            Ok(n) if n <= MAX_BYTES => {
                with_type(Response::new(TargetBody::Filler { remaining: n }), "application/octet-stream")
            }
            _ => {
                text(StatusCode::BAD_REQUEST, format!("/bytes/N takes a byte count from 0 to {MAX_BYTES}, not '{n}'\n"))
            }
        };
    }
    if let Some(code) = path.strip_prefix("/status/") {
        return match code.parse::<u16>().ok().and_then(|c| StatusCode::from_u16(c).ok()) {
            Some(s) if s.as_u16() >= 200 => status(s),
            _ => text(StatusCode::BAD_REQUEST, format!("/status/N takes a status from 200 to 999, not '{code}'\n")),
        };
    }
    text(StatusCode::NOT_FOUND, "not found: try /, /bytes/N or /status/N\n")
}

fn status(s: StatusCode) -> Response<TargetBody> {
    if matches!(s.as_u16(), 204 | 304) {
        let mut r = Response::new(TargetBody::empty());
        *r.status_mut() = s;
        return r;
    }
    text(s, format!("{}\n", s))
}

/// The CORS preflight of the target routes, and Private Network Access's: a page on a public origin (the
/// hosted page) that calls this server on 127.0.0.1 makes Chromium ask first with
/// `Access-Control-Request-Private-Network: true`, and the request goes ahead only if the answer allows it. The
/// targets are there to be called by such pages, so every origin gets it; the server still binds 127.0.0.1
/// unless told otherwise. The server's own endpoints (`/results`, `/status`) have their own preflight, granted
/// only to the origins allowed to post ([`super::origin::preflight`]).
fn preflight(request: &hyper::HeaderMap) -> Response<TargetBody> {
    let mut r = Response::new(TargetBody::empty());
    *r.status_mut() = StatusCode::NO_CONTENT;
    let h = r.headers_mut();
    grant_local_network(request, h);
    h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, HEAD, OPTIONS"));
    h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("*"));
    h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("86400"));
    r
}

/// Grant the Private Network Access check (and Local Network Access, its successor's name) when the preflight
/// asks for it; the caller decides whether the origin may have it.
pub(super) fn grant_local_network(request: &hyper::HeaderMap, h: &mut hyper::HeaderMap) {
    let asks = |name: &str| request.get(name).is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"true"));
    if asks("access-control-request-private-network") {
        h.insert("access-control-allow-private-network", HeaderValue::from_static("true"));
    }
    if asks("access-control-request-local-network") {
        h.insert("access-control-allow-local-network", HeaderValue::from_static("true"));
    }
}

fn text(s: StatusCode, body: impl Into<bytes::Bytes>) -> Response<TargetBody> {
    let mut r = with_type(Response::new(TargetBody::owned(body)), "text/plain; charset=utf-8");
    *r.status_mut() = s;
    r
}

fn with_type(mut r: Response<TargetBody>, content_type: &'static str) -> Response<TargetBody> {
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(uri: &str) -> Response<TargetBody> {
        respond(&Request::get(uri).body(()).unwrap())
    }

    #[test]
    fn index_is_about_a_default_page() {
        assert_eq!(INDEX_HTML.len(), 612);
        let r = get("/");
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["access-control-allow-origin"], "*");
        assert_eq!(r.headers()["timing-allow-origin"], "*");
        assert!(r.headers().get("connection").is_none());
    }

    #[test]
    fn close_status_and_bad_input() {
        assert_eq!(get("/?close=1").headers()["connection"], "close");
        assert_eq!(get("/status/503").status(), 503);
        assert_eq!(get("/status/99").status(), 400);
        assert_eq!(get("/bytes/abc").status(), 400);
        assert_eq!(get("/nope").status(), 404);
        let r = respond(&Request::post("/").body(()).unwrap());
        assert_eq!(r.status(), 405);
    }

    #[test]
    fn private_network_preflights_are_allowed_only_when_asked() {
        let ask = Request::options("/bytes/10")
            .header("origin", "https://example.github.io")
            .header("access-control-request-method", "GET")
            .header("access-control-request-private-network", "true")
            .body(())
            .unwrap();
        let r = respond(&ask);
        assert_eq!(r.status(), 204);
        assert_eq!(r.headers()["access-control-allow-private-network"], "true");
        assert_eq!(r.headers()["access-control-allow-origin"], "*");
        let plain = respond(&Request::options("/").header("access-control-request-method", "GET").body(()).unwrap());
        assert!(plain.headers().get("access-control-allow-private-network").is_none());
    }
}
