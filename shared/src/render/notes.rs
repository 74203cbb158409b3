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
    out.extend(placement_notes(sources));
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

/// Where each native run ran, and a warning when reports shown together ran under different placements:
/// on loopback, placement alone can change a single client's rate several-fold.
fn placement_notes(sources: &[Source<'_>]) -> Vec<String> {
    let mut out = Vec::new();
    let placed: Vec<(&Source<'_>, &crate::model::Placement)> =
        sources.iter().filter_map(|s| s.report.environment.placement.as_ref().map(|p| (s, p))).collect();
    for (s, p) in &placed {
        let tag = s.tag.map(|t| format!("[{t}] ")).unwrap_or_default();
        let mut line = format!("note: {tag}placement: {}", p.describe());
        if let Some(n) = s.report.environment.cpus_online {
            line.push_str(&format!("; {n} CPUs online"));
        }
        if let Some(load) = p.load_average_1m {
            line.push_str(&format!("; load average {load:.2} at start"));
        }
        line.push('.');
        out.push(line);
    }
    let differs = placed.windows(2).any(|w| {
        let (a, b) = (w[0].1, w[1].1);
        a.pin != b.pin || a.client_cpus != b.client_cpus || a.server_cpus != b.server_cpus
    });
    if differs {
        let each: Vec<String> = placed
            .iter()
            .enumerate()
            .map(|(i, (s, p))| {
                format!("{}: {}", s.tag.map(str::to_string).unwrap_or_else(|| format!("#{}", i + 1)), p.pin)
            })
            .collect();
        out.push(format!(
            "warning: these reports ran under different CPU placements ({}): placement alone can change loopback \
             rates several-fold, so compare runs made with the same --pin.",
            each.join(", ")
        ));
    }
    out
}
