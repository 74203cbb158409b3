//! The status endpoint, `POST /status`: the page's word on its run (shared's [`PageStatus`]: progress, or a
//! refusal of its plan). A child server of `run --browser` hands it to its parent as a [`super::STATUS_LINE`]
//! on stdout, so the parent bounds its wait by the page's silence and fails at once on a refusal; `serve` in
//! the foreground prints a refusal for the person who opened the page and keeps progress to itself. Only the
//! origins [`super::origin`] allows get here: another site's page cannot make the CLI fail a run.

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};

use httpbench_shared::protocol::{PageStatus, MAX_STATUS_BYTES};

use super::body::TargetBody;
use super::results::reply;

/// Take one status.
pub(super) async fn accept(quiet: bool, req: Request<Incoming>) -> Response<TargetBody> {
    let page = super::page_id(req.uri().query()).to_string();
    let body: Bytes = match Limited::new(req.into_body(), MAX_STATUS_BYTES).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return reply(StatusCode::PAYLOAD_TOO_LARGE, &format!("a status is at most {MAX_STATUS_BYTES} bytes"))
        }
    };
    let Some(status) = PageStatus::parse(&String::from_utf8_lossy(&body)) else {
        return reply(StatusCode::BAD_REQUEST, "expected 'progress TEXT' or 'refused TEXT'");
    };
    if quiet {
        // The parent's signal; a parent that went away must not fail the page.
        let _ = crate::output::print(&format!("{}{page} {}\n", super::STATUS_LINE, status.to_body()));
    } else if let PageStatus::Refused(reason) = &status {
        eprintln!("httpbench serve: the page refused its plan: {reason}");
    }
    reply(StatusCode::NO_CONTENT, "")
}
