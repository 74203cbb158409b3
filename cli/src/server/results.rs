//! The results endpoint, `POST /results`: the page posts its result file when a run ends. Only well-formed
//! result files of a known schema version, at most 8 MiB, are accepted (400 or 413 with the reason otherwise;
//! the origin is checked before, [`super::origin`]); an accepted one is saved atomically in the results folder,
//! within the server's [`super::quota`], and summed up in one line on the terminal. The answer names the
//! file, never the folder: the page has no business knowing the user's paths.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};

use httpbench_shared::parse::parse_reports;
use httpbench_shared::{render, EnvironmentKind, Format, RenderOptions, Report, Source};

use super::body::TargetBody;
use super::State;

/// Largest result file accepted. With the parser's own cap on cases, this bounds what reading one costs.
pub(super) const MAX_BYTES: usize = 8 * 1024 * 1024;

/// Largest saved file served back: the server saves files it rendered from posts of at most [`MAX_BYTES`],
/// with room for a layout wider than the page's.
const MAX_SAVED_BYTES: u64 = 4 * MAX_BYTES as u64;

/// Accept one posted result file.
pub(super) async fn accept(state: &State, req: Request<Incoming>) -> Response<TargetBody> {
    let page = super::page_id(req.uri().query()).to_string();
    let too_large = || reply(StatusCode::PAYLOAD_TOO_LARGE, &format!("result files are limited to {MAX_BYTES} bytes"));
    let declared = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BYTES) {
        return too_large();
    }
    let body: Bytes = match Limited::new(req.into_body(), MAX_BYTES).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => return too_large(),
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return reply(StatusCode::BAD_REQUEST, "the body is not UTF-8 text");
    };
    let reports = match parse_reports(text) {
        Ok(r) => r,
        Err(e) => return reply(StatusCode::BAD_REQUEST, &e.to_string()),
    };
    let Some(dir) = state.results_dir.as_deref() else {
        if !state.quiet {
            say(&summary(&reports, "not saved (no results folder)"));
        }
        return reply(StatusCode::OK, "not saved (no results folder)");
    };
    let sources: Vec<Source<'_>> = reports.iter().map(Source::new).collect();
    let json = render(&sources, Format::Json, &RenderOptions::default());
    let kind = reports.first().map(|r| r.environment.kind.as_str()).unwrap_or("report");
    match save(state, dir, kind, &json) {
        Ok(path) => {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if state.quiet {
                // The parent's signal that a result landed, with the whole path: the parent reads the file.
                say(&format!("{}{page} {}\n", super::SAVED_LINE, path.display()));
            } else {
                say(&summary(&reports, &format!("saved {}", path.display())));
            }
            reply(StatusCode::CREATED, &format!("saved {name}"))
        }
        Err((status, reason)) => reply(status, &reason),
    }
}

/// Save `json` as a new file of `kind` in `dir`, within the quota; the status and reason to answer when it
/// cannot be.
fn save(state: &State, dir: &Path, kind: &str, json: &str) -> Result<PathBuf, (StatusCode, String)> {
    let size = json.len() as u64;
    state.quota.reserve(size).map_err(|full| (StatusCode::INSUFFICIENT_STORAGE, full.to_string()))?;
    let path = file_name(dir, kind);
    let written = std::fs::create_dir_all(dir)
        .map_err(anyhow::Error::from)
        .and_then(|()| crate::output::write_atomic(&path, json));
    match written {
        Ok(()) => Ok(path),
        Err(e) => {
            state.quota.release(size);
            // The whole error, paths included, for the user; the page hears only what went wrong.
            eprintln!("httpbench serve: error: {e:#}");
            let why = e.root_cause().downcast_ref::<std::io::Error>().map(|io| io.kind().to_string());
            let why = why.unwrap_or_else(|| "see the server's terminal".into());
            Err((StatusCode::INTERNAL_SERVER_ERROR, format!("cannot save the result file: {why}")))
        }
    }
}

/// Print a line for the user (stdout, control characters escaped); a reader that went away must not fail the
/// upload.
fn say(line: &str) {
    let _ = crate::output::print(line);
}

/// The terminal's line for a posted result: where it ran, how many cases and requests, and `outcome`.
fn summary(reports: &[Report], outcome: &str) -> String {
    // A file may hold thousands of empty reports: name a few.
    const NAMED: usize = 3;
    let mut from: Vec<String> = reports.iter().take(NAMED).map(ran_in).collect();
    if reports.len() > NAMED {
        from.push(format!("{} more", reports.len() - NAMED));
    }
    let cases: usize = reports.iter().map(|r| r.cases.len()).sum();
    let requests = reports.iter().flat_map(|r| &r.cases).fold(0u64, |n, c| n.saturating_add(c.iterations));
    let plural = |n: u64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    format!(
        "httpbench serve: result from {}: {}, {}, {outcome}\n",
        from.join(" and "),
        plural(cases as u64, "case"),
        plural(requests, "request")
    )
}

/// `native linux/x86_64`, `browser Chrome 156`: a report's environment in a few words (bounded: the file is
/// someone else's).
fn ran_in(report: &Report) -> String {
    let e = &report.environment;
    let what = match (e.kind, e.user_agent.as_deref()) {
        (EnvironmentKind::Browser, Some(ua)) => browser_name(ua),
        (EnvironmentKind::Browser, None) => "(no user agent)".into(),
        (EnvironmentKind::Native, _) => format!("{}/{}", e.os, e.arch),
    };
    format!("{} {}", e.kind.as_str(), what.chars().take(60).collect::<String>())
}

/// A browser's name and major version from its user agent, `Chrome 156` (the whole agent is in the file).
fn browser_name(ua: &str) -> String {
    // Edge and Opera name Chrome too, and Chrome names Safari: the first token found wins.
    const TOKENS: [(&str, &str); 6] = [
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("HeadlessChrome/", "HeadlessChrome"),
        ("Chrome/", "Chrome"),
        ("Version/", "Safari"),
    ];
    for (token, name) in TOKENS {
        if let Some((_, rest)) = ua.split_once(token) {
            let major: String = rest.chars().take_while(char::is_ascii_digit).take(6).collect();
            return format!("{name} {major}");
        }
    }
    ua.to_string()
}

/// `/app/serve.json`: where the page may post its results.
pub(super) fn service_description(saving: bool) -> Response<TargetBody> {
    let status = httpbench_shared::protocol::STATUS_PATH;
    let body = format!("{{\"results\": \"/results\", \"status\": \"{status}\", \"saving\": {saving}}}\n");
    let mut r = Response::new(TargetBody::owned(body));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// A small plain-text answer that is never cached.
pub(super) fn plain(text: String) -> Response<TargetBody> {
    let mut r = Response::new(TargetBody::owned(text));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// `GET /results/NAME`: a saved result file, so a page can import it (never anything outside the folder).
pub(super) fn saved(dir: Option<&Path>, name: &str) -> Response<TargetBody> {
    let file = dir.filter(|_| name.ends_with(".json")).and_then(|d| super::page::inside(d, name));
    // Through the one capped reader: the folder is the user's, and a FIFO or a device put there is refused
    // without blocking, a file larger than any the server saves is not read whole.
    match file.and_then(|f| crate::files::read_capped(&f, MAX_SAVED_BYTES).ok()) {
        Some(bytes) => {
            let mut r = Response::new(TargetBody::owned(bytes));
            r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            r
        }
        None => reply(StatusCode::NOT_FOUND, "no such result file"),
    }
}

/// `DIR/<kind>-<unix seconds>-<pid>-<n>.json` (kind: `browser` or `native`), unique on this machine.
fn file_name(dir: &Path, kind: &str) -> PathBuf {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    dir.join(format!("{kind}-{secs}-{}-{}.json", std::process::id(), SEQ.fetch_add(1, Ordering::Relaxed)))
}

pub(super) fn reply(status: StatusCode, reason: &str) -> Response<TargetBody> {
    let mut r = Response::new(TargetBody::owned(format!("{reason}\n")));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use httpbench_shared::fixture;

    #[test]
    fn a_posted_result_is_summed_up_in_one_bounded_line() {
        let (native, mut browser) =
            (fixture::report(EnvironmentKind::Native), fixture::report(EnvironmentKind::Browser));
        let line = summary(&[native.clone(), browser.clone()], "saved x.json");
        assert_eq!(line, "httpbench serve: result from native linux/x86_64 and browser HeadlessChrome 156: 0 cases, 0 requests, saved x.json\n");
        browser.environment.user_agent = Some(format!("{}\u{1b}]52;c;evil", "A".repeat(10_000)));
        let many = vec![browser; 5];
        let line = summary(&many, "saved y.json");
        assert!(line.len() < 400 && line.contains("and 2 more") && line.ends_with("saved y.json\n"), "{line}");
    }

    #[test]
    fn browsers_are_named_by_their_own_token() {
        for (ua, name) in [
            ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36", "Chrome 156"),
            ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.85 Safari/537.36", "HeadlessChrome 131"),
            ("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox 133"),
            ("Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 Edg/131.0", "Edge 131"),
            ("Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15", "Safari 18"),
        ] {
            assert_eq!(browser_name(ua), name);
        }
    }
}
