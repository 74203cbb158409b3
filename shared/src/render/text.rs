//! The text report: a header per source, the headline (each case against its reference), the statistics
//! table, the change between runs, then notes and warnings. By default it fits a terminal of 100 columns (a
//! compact table, long lines wrapped); wide (`--wide`, and every file) it holds every column and Perl's
//! `timethese` lines and `cmpthese` chart, which `--perl` also shows, rated by CPU as Perl's Benchmark rates.

use super::notes::{notes, Note};
use super::table::{columns, stats_tables};
use super::RenderOptions;
use crate::model::Report;
use crate::perl::{cmpthese, timethese, RateBasis, Timing};
use crate::view::{rows, Row, Source};

/// The widest line the default text report prints: a terminal's 100 columns.
pub const TEXT_COLUMNS: usize = 100;

/// Render the text report.
pub(super) fn render(sources: &[Source<'_>], options: &RenderOptions) -> String {
    let rows = rows(sources);
    let mut out = String::new();
    for source in sources {
        out.push_str(&wrap(&header(source), options.wide));
    }
    if rows.is_empty() {
        out.push_str("\nNo cases were measured.\n");
        return out;
    }
    out.push('\n');
    // Runs of one plan compared: the change of each case is the answer (a headline across runs and clients
    // would set one run's client against another's).
    let changes = super::gate::text(sources, options.change);
    if changes.is_none() {
        let headline = super::headline::text(&crate::headline::headline(&rows, options.reference.as_deref()));
        if !headline.is_empty() {
            out.push_str(&headline);
            out.push('\n');
        }
    }
    if options.wide || options.basis == RateBasis::Cpu {
        out.push_str(&perl(sources, &rows, options.basis));
    }
    out.push_str(&tables(&rows, options.wide));
    if let Some(lines) = changes {
        out.push('\n');
        // The change lines of two runs wrap like prose; a trend is a table, whose rows stay whole.
        let wrapped = if lines.starts_with("Change from") { wrap(&lines, options.wide) } else { lines };
        out.push_str(&wrapped);
    }
    out.push_str(&notes_block(&notes(sources, &rows), options.wide));
    out
}

/// The notes: every one whole when `wide`; else one short line each for warnings and notes that matter,
/// and the details (phases, placement, TLS) counted in one line.
fn notes_block(notes: &[Note], wide: bool) -> String {
    if notes.is_empty() {
        return String::new();
    }
    let mut out = "\n".to_string();
    if wide {
        for n in notes {
            out.push_str(&format!("{}\n", n.text));
        }
        return out;
    }
    // Two debug builds compared say so once: a short line drops the names that set them apart.
    let mut said: Vec<&str> = Vec::new();
    for short in notes.iter().filter_map(|n| n.short.as_deref()) {
        if !said.contains(&short) {
            said.push(short);
            out.push_str(&format!("{short}\n"));
        }
    }
    let details = notes.iter().filter(|n| n.short.is_none()).count();
    if details > 0 {
        let (s, them) = if details == 1 { ("", "it") } else { ("s", "them") };
        let whole = if notes.iter().any(Note::is_warning) { ", and each warning whole" } else { "" };
        out.push_str(&format!("({details} more note{s}: --wide shows {them}{whole})\n"));
    }
    out
}

/// Perl's block: which rate, `timethese`'s line per case and `cmpthese`'s chart (one per load level).
fn perl(sources: &[Source<'_>], rows: &[Row<'_>], basis: RateBasis) -> String {
    let mut out = rate_line(rows, basis);
    out.push('\n');
    let timings: Vec<Timing> = rows.iter().map(timing).collect();
    // One duration for the header only when every source ran for the same one.
    let duration = sources
        .first()
        .and_then(|s| s.report.settings.duration_secs)
        .filter(|d| sources.iter().all(|s| s.report.settings.duration_secs == Some(*d)));
    out.push_str(&timethese(&timings, basis, duration));
    out.push('\n');
    for (title, members) in &super::levels::levels(rows) {
        // A scan compares the clients at each level: one chart per level.
        if !title.is_empty() {
            out.push_str(&format!("At {title}:\n"));
        }
        // A case with no ok request has no rate to compare (Perl's own cmpthese dies dividing by it): it is left
        // out of the chart, and said so, rather than shown as an Inf row and NaN% cells.
        let all = members.iter().map(|&i| (timings[i].name.clone(), timings[i].rate(basis)));
        let (rates, unrated): (Vec<_>, Vec<_>) = all.partition(|(_, rate)| rate.is_finite() && *rate > 0.0);
        out.push_str(&cmpthese(&rates));
        if !unrated.is_empty() {
            let names: Vec<&str> = unrated.iter().map(|(name, _)| name.as_str()).collect();
            out.push_str(&format!("(not in the chart, no ok request to rate: {})\n", names.join(", ")));
        }
        out.push('\n');
    }
    out
}

/// The statistics table, one per load level when a scan ran (each titled), with the body throughput when
/// body sizes were asked for.
fn tables(rows: &[Row<'_>], wide: bool) -> String {
    let tables = stats_tables(rows, wide);
    let mut out = String::new();
    for (n, (title, body)) in tables.levels.iter().enumerate() {
        if !title.is_empty() {
            out.push_str(&format!("{}At {title}:\n", if n > 0 { "\n" } else { "" }));
        }
        out.push_str(&columns(&tables.header, body));
    }
    out
}

/// `text` with each line longer than [`TEXT_COLUMNS`] broken at spaces (at ` · ` first, the header's
/// separator), the rest indented by two; unchanged when `wide`. A word longer than a line stays whole.
pub fn wrap(text: &str, wide: bool) -> String {
    if wide {
        return text.to_string();
    }
    let mut out = String::new();
    for line in text.lines() {
        let mut rest = line;
        let mut indent = "";
        while indent.len() + rest.chars().count() > TEXT_COLUMNS {
            let room = TEXT_COLUMNS - indent.len();
            let cut = rest.char_indices().nth(room).map_or(rest.len(), |(i, _)| i);
            let Some(at) = rest[..cut].rfind(" · ").or_else(|| rest[..cut].rfind(' ')).filter(|&at| at > 0) else {
                break;
            };
            out.push_str(&format!("{indent}{}\n", rest[..at].trim_end()));
            rest = rest[at..].trim_start_matches([' ', '·']);
            indent = "  ";
        }
        out.push_str(&format!("{indent}{rest}\n"));
    }
    out
}

/// Two lines naming the program, the environment and what was requested (the HTML report's header too).
pub(super) fn header(source: &Source<'_>) -> String {
    let r: &Report = source.report;
    let e = &r.environment;
    let tag = source.tag.map(|t| format!("[{t}] ")).unwrap_or_default();
    let mut machine = format!("{} {}/{}", e.title(), e.os, e.arch);
    if let Some(cpu) = &e.cpu {
        machine.push_str(&format!(" · {cpu}"));
    }
    if let Some(n) = e.cpus_online {
        machine.push_str(&format!(" · {n} CPUs"));
    }
    if let Some(ua) = &e.user_agent {
        machine.push_str(&format!(" · {ua}"));
    }
    let mut server = if r.target.embedded_server { " (embedded server)" } else { "" }.to_string();
    if r.settings.tls || r.settings.http_versions.iter().any(|v| *v != crate::model::HttpVersion::Http11) {
        let versions: Vec<String> = r.settings.http_versions.iter().map(|v| v.to_string()).collect();
        let tls = if r.settings.tls { " over TLS" } else { "" };
        server.push_str(&format!(" · {}{tls}", versions.join(" and ")));
    }
    server.push_str(&super::levels::header_part(&r.cases));
    let modes: Vec<&str> = r.settings.modes.iter().map(|m| m.as_str()).collect();
    let st = &r.settings;
    let amount = match (st.count, st.duration_secs) {
        (_, Some(d)) => format!("at least {} s per case", crate::cfmt::general(d)),
        (Some(n), None) => format!("{n} requests per case"),
        (None, None) => "requests per case unknown".to_string(),
    };
    let rounds = match (st.rounds, st.interleave) {
        (1, _) => "1 round".to_string(),
        (n, true) => format!("{n} rounds, interleaved"),
        (n, false) => format!("{n} rounds"),
    };
    format!(
        "{tag}{} {} ({}) · {machine}\n{tag}GET {}{server} · {amount} after {} warm-up · {rounds} · mode {}\n",
        r.tool.name,
        r.tool.version,
        r.tool.build_profile,
        r.target.url,
        st.warmup,
        modes.join(", ")
    )
}

/// Which rate the Perl-style block shows.
fn rate_line(rows: &[Row<'_>], basis: RateBasis) -> String {
    match basis {
        RateBasis::Wall => {
            "Rates: ok requests per wall-clock second (Perl's Benchmark rates by CPU time: --perl).\n".to_string()
        }
        RateBasis::Cpu => {
            let mut s =
                "Rates: iterations per CPU second (user + sys), as Perl's Benchmark computes them.\n".to_string();
            if rows.iter().any(|r| r.case.cpu_secs().is_none()) {
                s.push_str("Cases without CPU times (browser) are rated by wall clock.\n");
            }
            s
        }
    }
}

fn timing(row: &Row<'_>) -> Timing {
    let c = row.case;
    Timing {
        name: row.label.clone(),
        wall_secs: c.wall_secs,
        cpu_secs: c.cpu_user_secs.zip(c.cpu_sys_secs),
        iterations: c.iterations,
        rate_wall: c.rate_wall,
    }
}
