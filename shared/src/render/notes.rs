//! Notes and warnings under a report: failures, a debug build, clients that disagree on the body, and how
//! CPU time was measured. Each warning says why it matters and what to do.

use std::collections::BTreeSet;

use crate::model::EnvironmentKind;
use crate::view::{Row, Source};

/// The notes for `rows` (built from `sources`), one line each.
pub fn notes(sources: &[Source<'_>], rows: &[Row<'_>]) -> Vec<String> {
    let mut out = Vec::new();
    for s in sources {
        if s.report.tool.build_profile != "release" {
            out.push(format!(
                "warning: {} {} is a {} build: its figures are meaningless. Build with --release.",
                s.report.tool.name, s.report.tool.version, s.report.tool.build_profile
            ));
        }
    }
    for row in rows {
        out.extend(failure_note(row));
    }
    out.extend(body_size_note(rows));
    let native: Vec<&Row<'_>> = rows.iter().filter(|r| r.report.environment.kind == EnvironmentKind::Native).collect();
    if !native.is_empty() {
        let mut s = "note: CPU/req is the client process's user + sys time per request (getrusage).".to_string();
        if native.iter().any(|r| r.report.target.embedded_server) {
            s.push_str(" The embedded server runs in a process of its own and is not billed to the client.");
        }
        out.push(s);
    }
    out
}

fn failure_note(row: &Row<'_>) -> Option<String> {
    let c = row.case;
    let failed = c.failed();
    if failed == 0 {
        return None;
    }
    let kinds: Vec<String> = c.errors.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    let mut s = format!("warning: {}: {failed} of {} requests failed ({})", row.label, c.iterations, kinds.join(", "));
    let odd: Vec<String> =
        c.statuses.iter().filter(|(code, _)| !code.starts_with('2')).map(|(code, n)| format!("{code}×{n}")).collect();
    if !odd.is_empty() {
        s.push_str(&format!("; statuses {}", odd.join(", ")));
    }
    s.push_str(". Failed requests are left out of rates and latencies; check the URL and the server.");
    Some(s)
}

/// Every client should read the same body from the same URL; a difference means one of them is not
/// measuring the same work.
fn body_size_note(rows: &[Row<'_>]) -> Option<String> {
    let mut sizes = BTreeSet::new();
    let mut parts = Vec::new();
    for row in rows {
        if let Some(b) = row.case.bytes_per_ok() {
            sizes.insert(b.to_bits());
            parts.push(format!("{} {b:.0} B", row.label));
        }
    }
    let same_target = rows.windows(2).all(|w| w[0].report.target.url == w[1].report.target.url);
    (sizes.len() > 1 && same_target).then(|| {
        format!(
            "warning: clients read different body sizes from the same URL ({}): they are not doing the same work.",
            parts.join(", ")
        )
    })
}
