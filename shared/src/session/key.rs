//! What identifies a case ([`CaseKey`]): every dimension it varies in, its label and the tag its requests carry.

use crate::model::{Case, HttpVersion, Mode};
use crate::protocol::Link;

/// What identifies a case: every dimension it varies in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CaseKey {
    /// Client name, as the catalog spells it.
    pub client: String,
    /// Connection mode.
    pub mode: Mode,
    /// The HTTP version asked for.
    pub http: HttpVersion,
    /// Body size asked of the embedded server (`None`: the target as given).
    pub body_bytes: Option<u64>,
    /// Think time asked of the embedded server, in milliseconds (`None`: none).
    pub server_delay_ms: Option<u64>,
    /// The emulated link the case runs over (`None`: loopback).
    pub link: Option<Link>,
    /// Requests in flight (1: sequential).
    pub concurrency: u32,
}

impl CaseKey {
    /// The key of `client` in `mode` over `http` at `load`: (body size, server delay, link, concurrency).
    pub fn new(
        client: String,
        mode: Mode,
        http: HttpVersion,
        load: (Option<u64>, Option<u64>, Option<Link>, u32),
    ) -> Self {
        let (body_bytes, server_delay_ms, link, concurrency) = load;
        CaseKey { client, mode, http, body_bytes, server_delay_ms, link, concurrency }
    }

    /// The tag the requests of this case, case `case` of its session, carry in run `run`, under which the
    /// embedded server counts its connections ([`crate::protocol::case_tag`]): the case's index keeps apart
    /// cases that differ only in a dimension the tag does not name (HTTP version, body, think time).
    pub fn tag(&self, case: usize, run: u64) -> String {
        crate::protocol::case_tag(&self.client, self.mode, self.concurrency, run) + &format!(".n{case}")
    }

    /// `client/mode`, for progress and messages; [`Session::label`] adds the dimensions that vary.
    pub fn label(&self) -> String {
        format!("{}/{}", self.client, self.mode)
    }
}

impl CaseKey {
    /// The key of a finished case, from what its report records: how a renderer finds the case's histogram
    /// ([`CaseHistogram::key`]) in a report whose cases and histograms need not be in the same order.
    pub fn of(case: &Case) -> CaseKey {
        CaseKey {
            client: case.client.clone(),
            mode: case.mode,
            http: case.http_version,
            body_bytes: case.body_bytes,
            server_delay_ms: case.server_delay_ms,
            link: case.link(),
            // A report's concurrency came from a `u32` key; a hand-made one beyond it matches no histogram.
            concurrency: u32::try_from(case.in_flight()).unwrap_or(u32::MAX),
        }
    }
}
