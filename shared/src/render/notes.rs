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
        out.extend(noisy_rounds_note(row));
        out.extend(outliers_note(row));
        out.extend(coarse_timer_note(row));
    }
    out.extend(phases_notes(rows));
    out.extend(body_size_note(rows));
    out.extend(browser_connection_note(rows));
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

/// Resource Timing phases, where a browser reported them: how much of a request was connecting and waiting.
fn phases_notes(rows: &[Row<'_>]) -> Vec<String> {
    use crate::units::duration_ns;
    rows.iter()
        .filter_map(|row| {
            let p = row.case.phases_ns?;
            Some(format!(
                "note: {}: Resource Timing over {} requests: connect {} mean, time to first byte {} mean.",
                row.label,
                p.samples,
                duration_ns(p.connect_mean),
                duration_ns(p.ttfb_mean)
            ))
        })
        .collect()
}

/// A page cannot open or close connections itself: say how `fresh` was obtained and who decides otherwise.
fn browser_connection_note(rows: &[Row<'_>]) -> Option<String> {
    let browser_fresh = rows
        .iter()
        .any(|r| r.report.environment.kind == EnvironmentKind::Browser && r.case.mode == crate::model::Mode::Fresh);
    browser_fresh.then(|| {
        "note: in the browser, fresh mode adds close=1 to the URL so the server closes the connection after each \
         response; otherwise the browser decides connection reuse itself."
            .to_string()
    })
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

/// Rounds whose rates differ by more than this coefficient of variation are called noisy.
pub const NOISY_CV: f64 = 0.10;
/// More than this fraction of latency outliers gets a warning.
pub const OUTLIER_FRACTION: f64 = 0.01;
/// A timer step above this fraction of the median latency makes per-request figures quantized.
pub const COARSE_TIMER_FRACTION: f64 = 0.05;

fn noisy_rounds_note(row: &Row<'_>) -> Option<String> {
    let s = row.case.rate_wall_spread?;
    (s.cv > NOISY_CV).then(|| {
        format!(
            "warning: {}: rates of its {} rounds vary by {:.1}% (CV above {:.0}%): the machine is noisy. Re-run \
             on a quieter machine, or raise -n or --rounds.",
            row.label,
            s.rounds,
            s.cv * 100.0,
            NOISY_CV * 100.0
        )
    })
}

fn outliers_note(row: &Row<'_>) -> Option<String> {
    let c = row.case;
    (c.ok > 0 && c.latency_outliers as f64 > OUTLIER_FRACTION * c.ok as f64).then(|| {
        format!(
            "warning: {}: {} of {} latencies are statistical outliers (modified z-score above 3.5): other work on \
             the machine or a stalling server interfered. Mean and σ include them; the percentiles show their effect.",
            row.label, c.latency_outliers, c.ok
        )
    })
}

fn coarse_timer_note(row: &Row<'_>) -> Option<String> {
    let step = row.report.environment.timer_resolution_ns?;
    let p50 = row.case.latency_ns?.p50;
    (step > COARSE_TIMER_FRACTION * p50).then(|| {
        format!(
            "warning: {}: the timer's step ({}) is coarse next to the median latency ({}): per-request latencies \
             are quantized; rates, timed over whole rounds, are not affected.",
            row.label,
            crate::units::duration_ns(step),
            crate::units::duration_ns(p50)
        )
    })
}
