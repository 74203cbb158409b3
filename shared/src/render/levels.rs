//! Scans in the reports: the cases grouped by their load level (concurrency, body size, server delay), so a
//! scan reads as one table per level, clients side by side; and the body throughput column, shown when
//! body sizes vary. A run without a scan is one group without a title.

use crate::view::Row;

/// The load of a case: (body size asked, server delay asked, requests in flight).
type Load = (Option<u64>, Option<u64>, u64);

fn load_of(row: &Row<'_>) -> Load {
    (row.case.body_bytes, row.case.server_delay_ms, row.case.in_flight())
}

/// The rows grouped by load level, in order of first appearance: (title, row indices). One group with an
/// empty title when every case ran at the same level.
pub fn levels(rows: &[Row<'_>]) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(Load, Vec<usize>)> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let load = load_of(row);
        match groups.iter_mut().find(|(l, _)| *l == load) {
            Some((_, members)) => members.push(i),
            None => groups.push((load, vec![i])),
        }
    }
    if groups.len() < 2 {
        return groups.into_iter().map(|(_, members)| (String::new(), members)).collect();
    }
    let varies = |f: fn(&Load) -> u64| groups.iter().any(|(l, _)| f(l) != f(&groups[0].0));
    let (sizes, delays, levels) =
        (varies(|l| l.0.map_or(u64::MAX, |b| b)), varies(|l| l.1.unwrap_or(0)), varies(|l| l.2));
    groups
        .iter()
        .map(|((body, delay, n), members)| {
            let mut parts = Vec::new();
            if levels {
                parts.push(format!("{n} in flight"));
            }
            if sizes {
                parts.push(body.map_or_else(
                    || "the target as given".to_string(),
                    |b| format!("{} bodies", crate::protocol::size_label(b)),
                ));
            }
            if delays {
                parts.push(format!("server delay {} ms", delay.unwrap_or(0)));
            }
            (parts.join(", "), members.clone())
        })
        .collect()
}

/// Whether the reports show a body throughput column: when any case asked for a body size.
pub fn shows_throughput(rows: &[Row<'_>]) -> bool {
    rows.iter().any(|r| r.case.body_bytes.is_some())
}

/// A case's body throughput, `12.3 MB/s` style (decimal megabytes, as network rates are given).
pub fn throughput(row: &Row<'_>) -> String {
    match row.case.bytes_per_sec() {
        Some(b) if b >= 1e9 => format!("{:.2} GB/s", b / 1e9),
        Some(b) if b >= 1e5 => format!("{:.1} MB/s", b / 1e6),
        Some(b) => format!("{:.1} kB/s", b / 1e3),
        None => "n/a".to_string(),
    }
}

/// What a report's cases asked of the load, for its header: ` · in flight 16` (or `1, 4, 16`), ` · bodies 64k`,
/// ` · server delay 5 ms`, ` · emulated link rtt40ms+loss1%`; empty for sequential requests of the target as given.
pub fn header_part(cases: &[crate::model::Case]) -> String {
    let mut out = String::new();
    values(&mut out, " · in flight ", "", cases, |c| Some(c.in_flight().to_string()));
    values(&mut out, " · bodies ", "", cases, |c| c.body_bytes.map(crate::protocol::size_label));
    values(&mut out, " · server delay ", " ms", cases, |c| c.server_delay_ms.map(|d| d.to_string()));
    values(&mut out, " · emulated link ", "", cases, |c| c.link().map(|l| l.label()));
    out
}

/// `name`, the distinct values of `value` over `cases` in order, `unit`; nothing when there are none, or only
/// the default (1 in flight, no delay).
fn values(
    out: &mut String,
    name: &str,
    unit: &str,
    cases: &[crate::model::Case],
    value: fn(&crate::model::Case) -> Option<String>,
) {
    let mut seen: Vec<String> = Vec::new();
    for v in cases.iter().filter_map(value) {
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    let default = matches!(seen.as_slice(), [one] if one == "1" && unit.is_empty() || one == "0");
    if !seen.is_empty() && !default {
        out.push_str(name);
        out.push_str(&seen.join(", "));
        out.push_str(unit);
    }
}
