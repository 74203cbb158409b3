//! The text report: a header per source, Perl's `timethese` lines and `cmpthese` chart, the statistics table,
//! then notes and warnings.

use super::notes::notes;
use super::table::{columns, stats_tables};
use super::RenderOptions;
use crate::inference::ratio;
use crate::model::Report;
use crate::perl::{cmpthese, timethese, RateBasis, Timing};
use crate::view::{rows, Row, Source};

/// Render the text report.
pub(super) fn render(sources: &[Source<'_>], options: &RenderOptions) -> String {
    let rows = rows(sources);
    let mut out = String::new();
    for source in sources {
        out.push_str(&header(source));
    }
    if rows.is_empty() {
        out.push_str("\nNo cases were measured.\n");
        return out;
    }
    out.push_str(&rate_line(&rows, options.basis));
    out.push('\n');
    let timings: Vec<Timing> = rows.iter().map(timing).collect();
    // One duration for the header only when every source ran for the same one.
    let duration = sources
        .first()
        .and_then(|s| s.report.settings.duration_secs)
        .filter(|d| sources.iter().all(|s| s.report.settings.duration_secs == Some(*d)));
    out.push_str(&timethese(&timings, options.basis, duration));
    out.push('\n');
    let levels = super::levels::levels(&rows);
    for (title, members) in &levels {
        // A scan compares the clients at each level: one chart per level.
        if !title.is_empty() {
            out.push_str(&format!("At {title}:\n"));
        }
        // A case with no ok request has no rate to compare (Perl's own cmpthese dies dividing by it): it is left
        // out of the chart, and said so, rather than shown as an Inf row and NaN% cells.
        let all = members.iter().map(|&i| (timings[i].name.clone(), timings[i].rate(options.basis)));
        let (rates, unrated): (Vec<_>, Vec<_>) = all.partition(|(_, rate)| rate.is_finite() && *rate > 0.0);
        out.push_str(&cmpthese(&rates));
        if !unrated.is_empty() {
            let names: Vec<&str> = unrated.iter().map(|(name, _)| name.as_str()).collect();
            out.push_str(&format!("(not in the chart, no ok request to rate: {})\n", names.join(", ")));
        }
        out.push('\n');
    }
    if let Some(summary) = summary(&rows) {
        out.push_str(&summary);
        out.push('\n');
    }
    if let Some(lines) = super::gate::text(sources, options.change) {
        out.push_str(&lines);
        out.push('\n');
    }
    out.push_str(&tables(&rows));
    let notes = notes(sources, &rows);
    if !notes.is_empty() {
        out.push('\n');
        for n in notes {
            out.push_str(&n);
            out.push('\n');
        }
    }
    out
}

/// The statistics table, one per load level when a scan ran (each titled), with the body throughput when
/// body sizes were asked for.
fn tables(rows: &[Row<'_>]) -> String {
    let tables = stats_tables(rows);
    let mut out = String::new();
    for (n, (title, body)) in tables.levels.iter().enumerate() {
        if !title.is_empty() {
            out.push_str(&format!("{}At {title}:\n", if n > 0 { "\n" } else { "" }));
        }
        out.push_str(&columns(&tables.header, body));
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

/// Hyperfine's summary, by wall rate: the fastest case, then how many times faster it ran than each other case,
/// ± the uncertainty propagated from both cases' standard errors over rounds. `None` with fewer than two
/// cases that completed requests. The text and HTML reports and the page all show this one.
pub(super) fn summary(rows: &[Row<'_>]) -> Option<String> {
    let ranked: Vec<&Row<'_>> = rows.iter().filter(|r| r.case.rate_wall > 0.0).collect();
    if ranked.len() < 2 {
        return None;
    }
    let ranked = crate::order::sorted_by(&ranked, &|a, b| b.case.rate_wall.total_cmp(&a.case.rate_wall));
    let err = |r: &Row<'_>| r.case.rate_wall_spread.map_or(0.0, |s| s.stderr);
    let best = ranked[0];
    let mut s = format!("Summary (wall rates; ± from the spread of rounds)\n  {} ran\n", best.label);
    for other in &ranked[1..] {
        if let Some((r, e)) = ratio(best.case.rate_wall, err(best), other.case.rate_wall, err(other)) {
            s.push_str(&format!("    {r:.2} ± {e:.2} times faster than {}\n", other.label));
        }
    }
    Some(s)
}
