//! Serving the built page (trunk's `dist/`) under `/app/`, with the cross-origin isolation headers that give
//! the page a 5 µs timer, from a folder or from the copy built into this binary ([`Page`]). Paths are decoded
//! and checked segment by segment, then a folder's file's real path must still lie inside the folder, so no
//! request (`..`, encoded dots, symlinks) escapes it; the embedded copy is looked up by name only.

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};

use super::body::TargetBody;

/// Where the page is served.
pub(crate) const PREFIX: &str = "/app";

/// How to get the page, for messages: this binary was built without one and none is in `./dist`.
pub(crate) const HOW_TO_BUILD: &str =
    "this httpbench was built without its page and found none in ./dist: in a checkout \
     of httpbench, scripts/build-page.sh builds it (scripts/run.sh --browser installs its tools too) and `cargo \
     install --path cli` then builds it into the binary; or pass --page-dir DIR";

/// Where the page's files come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Page {
    /// A built page's folder: `--page-dir`, `./dist`, or `dist/` beside the repository's `target/`.
    Dir(PathBuf),
    /// The page built into this binary (from `dist/` when it was compiled; see build.rs).
    Embedded,
}

/// The page built into this binary: every file of the folder build.rs named, or none.
#[derive(rust_embed::Embed)]
#[folder = "$HTTPBENCH_EMBEDDED_PAGE"]
#[allow_missing = true]
struct Embedded;

impl Page {
    /// A folder that holds a built page (an `index.html`).
    pub(crate) fn dir(dir: &Path) -> Option<Page> {
        dir.join("index.html").is_file().then(|| Page::Dir(dir.to_path_buf()))
    }

    /// The page built into this binary, if it was built with one.
    pub(crate) fn embedded() -> Option<Page> {
        Embedded::get("index.html").map(|_| Page::Embedded)
    }

    /// Where it is, for messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Page::Dir(dir) => format!("from {}", dir.display()),
            Page::Embedded => "built into this binary".to_string(),
        }
    }

    /// The bytes of file `rel` (checked by [`inside`] for a folder), or of its gzip twin when `gzip` and it
    /// has one: (bytes, whether they are the twin).
    fn file(&self, rel: &str, gzip: bool) -> Option<(Cow<'static, [u8]>, bool)> {
        let twin = format!("{rel}.gz");
        match self {
            Page::Dir(dir) => {
                let dir = Page::dir(dir).map(|_| dir)?;
                let file = inside(dir, rel)?;
                let packed = gzip.then(|| inside(dir, &twin)).flatten();
                // Through the one capped reader: a file swapped for a FIFO or a device after the check is still
                // refused.
                let read = |p: &Path| crate::files::read_capped(p, MAX_FILE_BYTES).ok().map(Cow::Owned);
                match packed {
                    Some(gz) => Some((read(&gz)?, true)),
                    None => Some((read(&file)?, false)),
                }
            }
            Page::Embedded => match gzip.then(|| Embedded::get(&twin)).flatten() {
                Some(gz) => Some((gz.data, true)),
                None => Some((Embedded::get(rel)?.data, false)),
            },
        }
    }
}

/// Answer a GET under [`PREFIX`]: `path` is the request path, `page` the page if any; `gzip` when the
/// browser takes gzip (`Accept-Encoding`), which gets a file's precompressed twin (`file.gz`, written by
/// scripts/build-page.sh) where there is one: the wasm in 290 KB instead of 700.
pub(crate) fn respond(page: Option<&Page>, path: &str, gzip: bool) -> Response<TargetBody> {
    let rest = &path[PREFIX.len()..];
    if rest.is_empty() {
        // Relative asset URLs need the trailing slash.
        let mut r = Response::new(TargetBody::empty());
        *r.status_mut() = StatusCode::MOVED_PERMANENTLY;
        r.headers_mut().insert(header::LOCATION, HeaderValue::from_static("/app/"));
        return r;
    }
    let Some(page) = page else {
        return message(StatusCode::NOT_FOUND, &format!("The page is not here: {HOW_TO_BUILD}."));
    };
    let rel = match rest.strip_prefix('/').map(decode) {
        Some(Some(r)) if r.is_empty() => "index.html".to_string(),
        Some(Some(r)) => r,
        _ => return message(StatusCode::BAD_REQUEST, "bad path"),
    };
    match page.file(&rel, gzip) {
        Some((bytes, encoded)) => {
            let body = match bytes {
                Cow::Borrowed(b) => TargetBody::fixed(b),
                Cow::Owned(v) => TargetBody::owned(v),
            };
            let mut r = isolated(Response::new(body), content_type(Path::new(&rel)));
            // Caches keep both forms apart.
            r.headers_mut().insert(header::VARY, HeaderValue::from_static("accept-encoding"));
            if encoded {
                r.headers_mut().insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            }
            r
        }
        None => message(StatusCode::NOT_FOUND, "not found"),
    }
}

/// Whether a request's `Accept-Encoding` takes gzip (any `gzip` not refused with `q=0`).
pub(crate) fn takes_gzip(headers: &hyper::HeaderMap) -> bool {
    headers.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).any(
        |item| {
            let mut parts = item.split(';').map(str::trim);
            let refused = |p: &str| p.strip_prefix("q=").and_then(|q| q.trim().parse::<f64>().ok()) == Some(0.0);
            parts.next().is_some_and(|coding| coding.eq_ignore_ascii_case("gzip")) && !parts.any(refused)
        },
    )
}

/// Largest page file served: the page's wasm is about 500 KB.
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// `dir/rel` if `rel` is a plain relative path whose real location is inside `dir`.
pub(crate) fn inside(dir: &Path, rel: &str) -> Option<PathBuf> {
    let rel = Path::new(rel);
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) || rel.to_str()?.contains('\\') {
        return None;
    }
    let root = dir.canonicalize().ok()?;
    let real = root.join(rel).canonicalize().ok()?;
    (real.starts_with(&root) && real.is_file()).then_some(real)
}

/// Percent-decode a path; `None` for bad escapes, NUL bytes or invalid UTF-8.
fn decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    (!out.contains(&0)).then_some(())?;
    String::from_utf8(out).ok()
}

fn content_type(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript",
        "wasm" => "application/wasm",
        "css" => "text/css",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        _ => "application/octet-stream",
    }
}

/// The page's own responses: cross-origin isolated (COOP + COEP), so `performance.now()` is fine-grained.
fn isolated(mut r: Response<TargetBody>, content_type: &'static str) -> Response<TargetBody> {
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert("cross-origin-opener-policy", HeaderValue::from_static("same-origin"));
    h.insert("cross-origin-embedder-policy", HeaderValue::from_static("require-corp"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

fn message(status: StatusCode, text: &str) -> Response<TargetBody> {
    let html = format!("<!DOCTYPE html><title>httpbench</title><p>{text}</p>\n");
    let mut r = isolated(Response::new(TargetBody::owned(html)), "text/html; charset=utf-8");
    *r.status_mut() = status;
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_is_taken_unless_refused() {
        let take = |v: &str| {
            let mut h = hyper::HeaderMap::new();
            h.insert(header::ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
            takes_gzip(&h)
        };
        assert!(take("gzip, deflate, br, zstd") && take("br;q=1.0, GZIP;q=0.5"));
        assert!(!take("br") && !take("gzip;q=0") && !take("gzip; q=0.000") && !take("x-gzip2"));
        assert!(take("gzip;q=0.05"));
        assert!(!takes_gzip(&hyper::HeaderMap::new()));
    }

    #[test]
    fn decoding_and_containment() {
        assert_eq!(decode("a%20b").as_deref(), Some("a b"));
        assert_eq!(decode("%2e%2e/x").as_deref(), Some("../x"));
        assert_eq!(decode("%zz"), None);
        assert_eq!(decode("a%00b"), None);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("index.html"), "<p>hi</p>").unwrap();
        assert!(inside(dir.path(), "index.html").is_some());
        for bad in ["../index.html", "/etc/passwd", "a/../../x", "..", "a\\..\\b", "./index.html"] {
            assert!(inside(dir.path(), bad).is_none(), "{bad}");
        }
    }
}
