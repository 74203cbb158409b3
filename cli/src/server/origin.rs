//! Who may post to the server's own endpoints (`POST /results`, `POST /status`) and read saved results
//! cross-origin: the page's own origin, the origins the user named with `serve --allow-origin`, and programs
//! that send no `Origin` (curl). Any web page can make a browser send a POST to 127.0.0.1, so without this check
//! every site the user visits could fill the results folder. The target routes stay open to every origin: the
//! page benchmarks targets on other origins (`run --browser` puts them on other ports), and the hosted page
//! benchmarks this server from its own.

use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Request, Response, StatusCode};
use url::{Host, Url};

use super::body::TargetBody;
use super::results::reply;

/// The longest origin a message repeats: a header can be kilobytes, a message is one line.
const SHOWN_CHARS: usize = 120;

/// `text` as an origin in its canonical form (`https://you.github.io`, `http://127.0.0.1:8080`: scheme and
/// host lowercased, a default port left out), as browsers send it in `Origin`; why not, naming what is wrong.
pub(crate) fn canonical(text: &str) -> Result<String, String> {
    if text == "*" {
        return Err("give each origin by name; `*` would let every web page post".into());
    }
    let url = Url::parse(text).map_err(|e| format!("not an origin ({e}): give scheme://host[:port]"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("the scheme {} is not http or https", url.scheme()));
    }
    let origin = url.origin().ascii_serialization();
    if !url.username().is_empty() || url.password().is_some() || url.query().is_some() || url.fragment().is_some() {
        return Err(format!("an origin has no user, query or fragment: give {origin}"));
    }
    if url.path() != "/" {
        return Err(format!("an origin has no path: give {origin}"));
    }
    Ok(origin)
}

/// The origins allowed to post, besides the page's own.
#[derive(Debug, Clone, Default)]
pub(crate) struct Policy {
    /// `--allow-origin`, canonical ([`canonical`]).
    pub allowed: Vec<String>,
    /// Whether the server speaks HTTPS: the scheme of its own origin.
    pub tls: bool,
}

/// What the policy says of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// No `Origin` header: not a browser's cross-site request (curl, a script); nothing to name in CORS.
    NoOrigin,
    /// An allowed origin, to name in `Access-Control-Allow-Origin`.
    Allowed(HeaderValue),
    /// Refused, with the one-line reason.
    Refused(String),
}

impl Policy {
    /// Judge the request's `Origin` against the server's own origin, as its `Host` (or HTTP/2 authority)
    /// tells it, and the allowed ones.
    pub(crate) fn judge<B>(&self, req: &Request<B>) -> Verdict {
        let Some(value) = req.headers().get(header::ORIGIN) else {
            return Verdict::NoOrigin;
        };
        let Ok(text) = value.to_str() else {
            return Verdict::Refused("the Origin header is not plain text; this server accepts posts only from its own page and --allow-origin ones".into());
        };
        let origin = canonical(text).ok();
        let own = own_origin(self.tls, authority(req));
        match origin {
            Some(o) if own.as_deref() == Some(o.as_str()) || self.allowed.contains(&o) => {
                HeaderValue::from_str(&o).map_or_else(|_| Verdict::Refused("a bad Origin".into()), Verdict::Allowed)
            }
            _ => Verdict::Refused(format!(
                "origin '{}' may not post here: only the page's own origin{} and those given with serve --allow-origin ORIGIN",
                text.chars().take(SHOWN_CHARS).collect::<String>(),
                own.map(|o| format!(" ({o})")).unwrap_or_default()
            )),
        }
    }
}

/// The authority the client asked for: HTTP/2's `:authority`, else the `Host` header.
fn authority<B>(req: &Request<B>) -> Option<&str> {
    req.uri().authority().map(|a| a.as_str()).or_else(|| req.headers().get(header::HOST)?.to_str().ok())
}

/// The server's own origin as the browser sees it: the scheme it serves and the authority the browser asked
/// for. Over plain HTTP only an authority that no other site can stand for counts: an IP address or
/// `localhost`. A DNS name could be an attacker's, re-pointed at 127.0.0.1 after its page loaded (DNS
/// rebinding): its page would then be same-origin with itself here. Over HTTPS the certificate stops that.
fn own_origin(tls: bool, authority: Option<&str>) -> Option<String> {
    let scheme = if tls { "https" } else { "http" };
    let url = Url::parse(&format!("{scheme}://{}", authority?)).ok()?;
    let fixed = match url.host()? {
        Host::Ipv4(_) | Host::Ipv6(_) => true,
        Host::Domain(d) => d == "localhost" || d.ends_with(".localhost"),
    };
    (fixed || tls).then(|| canonical(url.as_str()).ok()).flatten()
}

/// Name the allowed origin in the answer's CORS header (never `*`); the answer differs by `Origin`, so caches
/// must keep them apart.
pub(crate) fn cors(res: &mut Response<TargetBody>, verdict: &Verdict) {
    let h = res.headers_mut();
    if let Verdict::Allowed(origin) = verdict {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
    }
    h.insert(header::VARY, HeaderValue::from_static("Origin"));
}

/// The preflight of a post to the server's own endpoints: granted, Private Network Access included, only to an
/// allowed origin (or a request without `Origin`); refused with 403 and the reason otherwise.
pub(crate) fn preflight(request: &HeaderMap, verdict: &Verdict) -> Response<TargetBody> {
    if let Verdict::Refused(reason) = verdict {
        return reply(StatusCode::FORBIDDEN, reason);
    }
    let mut r = Response::new(TargetBody::empty());
    *r.status_mut() = StatusCode::NO_CONTENT;
    let h = r.headers_mut();
    super::routes::grant_local_network(request, h);
    h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("POST, OPTIONS"));
    h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("content-type"));
    h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(policy: &Policy, host: &str, origin: Option<&str>) -> Verdict {
        let mut req = Request::post("/results").header("host", host);
        if let Some(o) = origin {
            req = req.header("origin", o);
        }
        policy.judge(&req.body(()).unwrap())
    }

    #[test]
    fn origins_are_checked_and_made_canonical() {
        assert_eq!(canonical("HTTPS://You.GitHub.io").unwrap(), "https://you.github.io");
        assert_eq!(canonical("http://127.0.0.1:80/").unwrap(), "http://127.0.0.1");
        assert_eq!(canonical("http://[::1]:8080").unwrap(), "http://[::1]:8080");
        for (bad, says) in [
            ("*", "each origin"),
            ("you.github.io", "not an origin"),
            ("ftp://x", "not http"),
            ("https://you.github.io/httpbench/", "no path: give https://you.github.io"),
            ("https://u:p@x", "no user"),
            ("null", "not an origin"),
        ] {
            let e = canonical(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn own_allowed_and_absent_origins_pass_others_are_refused() {
        let policy = Policy { allowed: vec!["https://you.github.io".into()], tls: false };
        let own = HeaderValue::from_static("http://127.0.0.1:8080");
        assert_eq!(judged(&policy, "127.0.0.1:8080", Some("http://127.0.0.1:8080")), Verdict::Allowed(own));
        assert_eq!(judged(&policy, "localhost:8080", None), Verdict::NoOrigin);
        let hosted = judged(&policy, "127.0.0.1:8080", Some("https://you.github.io"));
        assert_eq!(hosted, Verdict::Allowed(HeaderValue::from_static("https://you.github.io")));
        assert!(matches!(judged(&policy, "localhost:8080", Some("http://localhost:8080")), Verdict::Allowed(_)));
        for (host, origin) in [
            ("127.0.0.1:8080", "http://evil.example"),
            ("127.0.0.1:8080", "https://127.0.0.1:8080"),
            ("127.0.0.1:8080", "null"),
            // DNS rebinding: the attacker's name, same-origin with itself, over plain HTTP.
            ("evil.example:8080", "http://evil.example:8080"),
        ] {
            let Verdict::Refused(reason) = judged(&policy, host, Some(origin)) else { panic!("{origin} passed") };
            assert!(reason.contains(origin) && reason.contains("--allow-origin"), "{reason}");
        }
        let tls = Policy { allowed: vec![], tls: true };
        assert!(matches!(judged(&tls, "bench.example:8443", Some("https://bench.example:8443")), Verdict::Allowed(_)));
    }
}
