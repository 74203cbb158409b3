//! Notes and warnings under a report: a debug build, a partial run, the per-case warnings of [`super::warnings`] (one line
//! per kind), clients that disagree on the body, placements, and how CPU time was measured. Each warning says
//! why it matters and what to do. Each also has a short form for a terminal (one line of at most
//! [`TEXT_COLUMNS`](super::TEXT_COLUMNS)); notes that are details (phases, placement, TLS) have none and are
//! counted there instead, whole with `--wide` and in every file.

use std::collections::BTreeSet;

use super::warnings::case_warnings;
use crate::model::{EnvironmentKind, HttpVersion};
use crate::view::{Row, Source};

/// One note or warning under a report.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    /// The whole line: `warning: ...` or `note: ...`, with why it matters and what to do.
    pub text: String,
    /// Its line on a terminal, at most [`TEXT_COLUMNS`](super::TEXT_COLUMNS) columns; `None` for a detail
    /// that a terminal leaves to `--wide`.
    pub short: Option<String>,
}

impl Note {
    /// A detail: whole in files and with `--wide`, counted on a terminal.
    pub fn detail(text: String) -> Note {
        Note { text, short: None }
    }

    /// A note whose terminal line is itself, cut to fit.
    pub fn kept(text: String) -> Note {
        Note { short: Some(fit(&text)), text }
    }

    /// Whether it is a warning rather than a note.
    pub fn is_warning(&self) -> bool {
        self.text.starts_with("warning:")
    }
}

/// `line` cut to [`TEXT_COLUMNS`](super::TEXT_COLUMNS) characters, with `…` where it was cut.
pub(super) fn fit(line: &str) -> String {
    let max = super::TEXT_COLUMNS;
    if line.chars().count() <= max {
        return line.to_string();
    }
    let mut out: String = line.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// The notes for `rows` (built from `sources`), one line each.
pub fn notes(sources: &[Source<'_>], rows: &[Row<'_>]) -> Vec<Note> {
    let mut out = Vec::new();
    for s in sources {
        let (name, version, profile) = (&s.report.tool.name, &s.report.tool.version, &s.report.tool.build_profile);
        if profile != "release" {
            out.push(Note {
                text: format!("warning: {name} {version} is a {profile} build: its figures are meaningless. Build with --release."),
                short: Some(format!("warning: a {profile} build: its figures are meaningless; build with --release")),
            });
        }
        if s.report.partial {
            let name = s.tag.map(|t| format!("[{t}]")).unwrap_or_else(|| "this run".to_string());
            out.push(Note {
                text: format!("warning: {name} {}.", super::PARTIAL),
                short: Some(fit(&format!("warning: {name} is partial: stopped before its plan was done"))),
            });
        }
    }
    out.extend(case_warnings(rows));
    let (kept, details) = protocol_notes(sources, rows);
    out.extend(kept.into_iter().map(Note::kept));
    out.extend(details.into_iter().map(Note::detail));
    out.extend(phases_notes(rows).into_iter().map(Note::detail));
    out.extend(body_size_note(rows).map(Note::kept));
    out.extend(browser_connection_note(rows).map(Note::detail));
    out.extend(connections_note(rows).map(Note::detail));
    out.extend(super::link::link_notes(rows));
    out.extend(placement_notes(sources));
    let native: Vec<&Row<'_>> = rows.iter().filter(|r| r.report.environment.kind == EnvironmentKind::Native).collect();
    if !native.is_empty() {
        let mut s = "note: CPU/req is the client's user + sys time per request (a command client's: its processes')."
            .to_string();
        if native.iter().any(|r| r.report.target.embedded_server) {
            s.push_str(" The embedded server runs in a process of its own and is not billed to the client.");
        }
        out.push(Note::detail(s));
    }
    out
}

/// How many connections served each case, where the embedded server counted them and any case kept more than
/// one request in flight (sequential cases open one per request or one in all, which says nothing new).
fn connections_note(rows: &[Row<'_>]) -> Option<String> {
    if !rows.iter().any(|r| r.case.in_flight() > 1) {
        return None;
    }
    let counted: Vec<String> =
        rows.iter().filter_map(|r| Some(format!("{} {}", r.label, r.case.connections?))).collect();
    (!counted.is_empty()).then(|| {
        format!(
            "note: connections used per case (the embedded server's count, warm-up included): {}.",
            counted.join(", ")
        )
    })
}

/// Where a report's client (or browser) and server ran, with the CPUs online and the load at the start: the
/// notes' placement line and the HTML report's environment say it in these words.
pub(super) fn placement(e: &crate::model::Environment, p: &crate::model::Placement) -> String {
    let mut line = match e.kind {
        EnvironmentKind::Native => p.describe(),
        EnvironmentKind::Browser => p.describe_browser(e.name()),
    };
    if let Some(n) = e.cpus_online {
        line.push_str(&format!("; {n} CPUs online"));
    }
    if let Some(load) = p.load_average_1m {
        line.push_str(&format!("; load average {load:.2} at start"));
    }
    line
}

/// The protocol side of a run: cases left out (a client without HTTP/2) and why failures failed (the first
/// reason of each kind), both kept on a terminal; and TLS as the embedded server negotiated it, a detail.
fn protocol_notes(sources: &[Source<'_>], rows: &[Row<'_>]) -> (Vec<String>, Vec<String>) {
    let mut out = Vec::new();
    for s in sources {
        if !s.report.settings.skipped.is_empty() {
            out.push(format!("note: left out: {}.", s.report.settings.skipped.join(", ")));
        }
    }
    for row in rows {
        for reason in &row.case.error_reasons {
            let line = match reason.split_once(": ") {
                Some((kind, why)) => format!("note: {}: the first {kind} error: {why}", row.label),
                None => format!("note: {}: {reason}", row.label),
            };
            out.push(line);
        }
    }
    // One line per negotiated version and suite: usually one for the whole run. A case whose rounds made no
    // handshake (a connection from the warm-up) goes with the run's first suite.
    let first = rows.iter().find_map(|r| r.case.tls.as_deref()).unwrap_or("(no handshake)");
    let mut suites: Vec<(&str, Vec<String>)> = Vec::new();
    for row in rows {
        let c = row.case;
        let (Some(full), Some(resumed)) = (c.tls_full_handshakes, c.tls_resumed_handshakes) else { continue };
        let suite = c.tls.as_deref().unwrap_or(first);
        let count = format!("{} {full}/{resumed}", row.label);
        match suites.iter_mut().find(|(s, _)| *s == suite) {
            Some((_, cases)) => cases.push(count),
            None => suites.push((suite, vec![count])),
        }
    }
    let tls = suites.into_iter().map(|(suite, cases)| {
        format!("note: TLS {suite}; handshakes full/resumed, counted by the server: {}.", cases.join(", "))
    });
    (out, tls.collect())
}

/// Connection phases, where a client reported them (libcurl, raw, the browser's Resource Timing): how much of
/// a request was connecting, shaking hands and waiting.
fn phases_notes(rows: &[Row<'_>]) -> Vec<String> {
    use crate::units::duration_ns;
    rows.iter()
        .filter_map(|row| {
            let p = row.case.phases_ns?;
            let source = match row.report.environment.kind {
                EnvironmentKind::Browser => "Resource Timing",
                EnvironmentKind::Native => "phases",
            };
            let connect = duration_ns(p.connect_mean);
            let handshakes = match (row.case.http_version, p.tls_mean) {
                // QUIC has one handshake, the transport's and TLS's in one: shown whole.
                (HttpVersion::Http3, Some(t)) => {
                    format!("QUIC handshake {} mean (connect and TLS in one)", duration_ns(p.connect_mean + t))
                }
                (_, Some(t)) => format!("connect {connect} mean, TLS handshake {} mean", duration_ns(t)),
                (_, None) => format!("connect {connect} mean"),
            };
            Some(format!(
                "note: {}: {source} over {} requests: {handshakes}, time to first byte {} mean.",
                row.label,
                p.samples,
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
    // Cases of a body-size scan asked for different sizes on purpose: compare those that asked alike.
    let mut asked: Vec<Option<u64>> = Vec::new();
    for r in rows {
        if !asked.contains(&r.case.body_bytes) {
            asked.push(r.case.body_bytes);
        }
    }
    asked.into_iter().find_map(|a| {
        let group: Vec<&Row<'_>> = rows.iter().filter(|r| r.case.body_bytes == a).collect();
        let mut sizes = BTreeSet::new();
        let mut parts = Vec::new();
        for row in &group {
            if let Some(b) = row.case.bytes_per_ok() {
                sizes.insert(b.to_bits());
                parts.push(format!("{} {b:.0} B", row.label));
            }
        }
        let same_target = group.windows(2).all(|w| w[0].report.target.url == w[1].report.target.url);
        (sizes.len() > 1 && same_target).then(|| {
            format!(
                "warning: clients read different body sizes from the same URL ({}): they are not doing the same work.",
                parts.join(", ")
            )
        })
    })
}

/// Where each native run ran, and a warning when reports shown together ran under different placements:
/// on loopback, placement alone can change a single client's rate several-fold.
fn placement_notes(sources: &[Source<'_>]) -> Vec<Note> {
    let mut out = Vec::new();
    let placed: Vec<(&Source<'_>, &crate::model::Placement)> =
        sources.iter().filter_map(|s| s.report.environment.placement.as_ref().map(|p| (s, p))).collect();
    for (s, p) in &placed {
        let tag = s.tag.map(|t| format!("[{t}] ")).unwrap_or_default();
        let browser = if s.report.environment.kind == EnvironmentKind::Browser { "browser " } else { "" };
        out.push(Note::detail(format!("note: {tag}{browser}placement: {}.", placement(&s.report.environment, p))));
    }
    // A browser is placed as it runs for a user, not as a single-threaded client is: native and browser
    // placements differ by design, so only reports of one environment are held to the same placement.
    for kind in [EnvironmentKind::Native, EnvironmentKind::Browser] {
        let group: Vec<(String, &crate::model::Placement)> = placed
            .iter()
            .enumerate()
            .filter(|(_, (s, _))| s.report.environment.kind == kind)
            .map(|(i, (s, p))| (s.tag.map(str::to_string).unwrap_or_else(|| format!("#{}", i + 1)), *p))
            .collect();
        let differs = placement_differences(&group);
        if !differs.is_empty() {
            out.push(Note {
                text: format!(
                    "warning: these reports ran under different CPU placements ({}): placement alone can change \
                     loopback rates several-fold, so compare runs placed alike (the same --pin, on the same CPUs).",
                    differs.join("; ")
                ),
                short: Some(fit(&format!(
                    "warning: different CPU placements ({}): compare runs placed alike",
                    differs.join("; ")
                ))),
            });
        }
    }
    out
}

/// What differs between the placements of `group` (each with its report's name), each as `what: name value,
/// ...`: the pin, the client's CPUs, the server's CPUs. A server that could not be placed (an external URL)
/// differs in kind, not in placement: the server line of a comparison names that.
fn placement_differences(group: &[(String, &crate::model::Placement)]) -> Vec<String> {
    let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    let mut out = Vec::new();
    let mut differ = |what: &str, values: Vec<(&str, String)>| {
        if values.windows(2).any(|w| w[0].1 != w[1].1) {
            let each: Vec<String> = values.iter().map(|(name, v)| format!("{name} {v}")).collect();
            out.push(format!("{what}: {}", each.join(", ")));
        }
    };
    differ("pin", group.iter().map(|(n, p)| (n.as_str(), p.pin.to_string())).collect());
    differ("client CPUs", group.iter().map(|(n, p)| (n.as_str(), list(&p.client_cpus))).collect());
    let servers = group.iter().filter_map(|(n, p)| Some((n.as_str(), list(p.server_cpus.as_deref()?))));
    differ("server CPUs", servers.collect());
    out
}
