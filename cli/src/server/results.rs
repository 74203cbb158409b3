//! The results endpoint, `POST /results`: the page posts its result file when a run ends. Only well-formed
//! result files of a known schema version, at most 8 MiB, are accepted (400 or 413 with the reason otherwise);
//! an accepted one is printed in the text format and saved atomically in the results folder.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};

use httpbench_shared::parse::parse_reports;
use httpbench_shared::{render, Format, RenderOptions, Source};

use super::body::TargetBody;

/// Largest result file accepted.
pub const MAX_BYTES: usize = 8 * 1024 * 1024;

/// Accept one posted result file.
pub async fn accept(dir: Option<&Path>, quiet: bool, req: Request<Incoming>) -> Response<TargetBody> {
    let declared = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BYTES) {
        return reply(StatusCode::PAYLOAD_TOO_LARGE, &format!("result files are limited to {MAX_BYTES} bytes"));
    }
    let body: Bytes = match Limited::new(req.into_body(), MAX_BYTES).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return reply(StatusCode::PAYLOAD_TOO_LARGE, &format!("result files are limited to {MAX_BYTES} bytes"))
        }
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return reply(StatusCode::BAD_REQUEST, "the body is not UTF-8 text");
    };
    let reports = match parse_reports(text) {
        Ok(r) => r,
        Err(e) => return reply(StatusCode::BAD_REQUEST, &e.to_string()),
    };
    let sources: Vec<Source<'_>> = reports.iter().map(Source::new).collect();
    if !quiet {
        // Best effort: a reader that went away must not fail the upload.
        let _ = crate::output::print(&render(&sources, Format::Text, &RenderOptions::default()));
    }
    let Some(dir) = dir else {
        return reply(StatusCode::OK, "printed (no results folder)");
    };
    let path = file_name(dir, reports.first().map(|r| r.environment.kind.as_str()).unwrap_or("report"));
    let saved = std::fs::create_dir_all(dir)
        .map_err(anyhow::Error::from)
        .and_then(|()| crate::output::write_atomic(&path, &render(&sources, Format::Json, &RenderOptions::default())));
    match saved {
        Ok(()) => {
            if quiet {
                // The parent's signal that a result landed; a parent that went away must not fail the upload.
                let _ = crate::output::print(&format!("{}{}\n", super::SAVED_LINE, path.display()));
            } else {
                eprintln!("httpbench serve: saved {}", path.display());
            }
            reply(StatusCode::CREATED, &format!("saved {}", path.display()))
        }
        Err(e) => reply(StatusCode::INTERNAL_SERVER_ERROR, &format!("{e:#}")),
    }
}

/// `/app/serve.json`: where the page may post its results.
pub fn service_description(saving: bool) -> Response<TargetBody> {
    let status = httpbench_shared::protocol::STATUS_PATH;
    let body = format!("{{\"results\": \"/results\", \"status\": \"{status}\", \"saving\": {saving}}}\n");
    let mut r = Response::new(TargetBody::owned(body));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// A small plain-text answer that is never cached.
pub fn plain(text: String) -> Response<TargetBody> {
    let mut r = Response::new(TargetBody::owned(text));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// `GET /results/NAME`: a saved result file, so a page can import it (never anything outside the folder).
pub fn saved(dir: Option<&Path>, name: &str) -> Response<TargetBody> {
    let file = dir.filter(|_| name.ends_with(".json")).and_then(|d| super::page::inside(d, name));
    match file.and_then(|f| std::fs::read(f).ok()) {
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
