//! The statistics table: one row of cells per case, shared by the text, Markdown and HTML renderers, and its
//! split into one table per load level when a scan ran.

use crate::headline::rate_interval;
use crate::model::Case;
use crate::units::{cpu_us_per_request, duration_ns, mean_sigma_ns, rate};
use crate::view::Row;

/// Column titles of the compact statistics table, the terminal's default: what fits 100 columns.
pub fn compact_header() -> Vec<&'static str> {
    vec!["case", "req/s", "95% CI", "p50", "p99", "errors"]
}

/// The compact cells of one case, in [`compact_header`] order.
pub fn compact_row(row: &Row<'_>) -> Vec<String> {
    let c = row.case;
    let (p50, p99) = match &c.latency_ns {
        Some(l) => (duration_ns(l.p50), duration_ns(l.p99)),
        None => ("n/a".to_string(), "n/a".to_string()),
    };
    vec![row.label.clone(), rate(c.rate_wall), rate_interval_cell(c), p50, p99, c.failed().to_string()]
}

fn rate_interval_cell(c: &Case) -> String {
    rate_interval(c).map_or_else(|| "n/a".to_string(), |(lo, hi)| format!("[{}, {}]", rate(lo), rate(hi)))
}

/// Column titles of the statistics table.
pub fn stats_header() -> Vec<&'static str> {
    vec![
        "case",
        "ok",
        "errors",
        "req/s",
        "95% CI",
        "CV",
        "mean ± σ",
        "p50",
        "p90",
        "p99",
        "p99.9",
        "max",
        "outliers",
        "CPU/req",
        "bytes/req",
    ]
}

/// The statistics cells of one case, in [`stats_header`] order.
pub fn stats_row(row: &Row<'_>) -> Vec<String> {
    let c = row.case;
    let mut cells = vec![row.label.clone(), c.ok.to_string(), c.failed().to_string(), rate(c.rate_wall)];
    cells.push(rate_interval_cell(c));
    cells.push(c.rate_wall_spread.map_or_else(|| "n/a".to_string(), |s| format!("{:.1}%", s.cv * 100.0)));
    match &c.latency_ns {
        Some(l) => {
            cells.push(mean_sigma_ns(l.mean, l.stddev));
            for v in [l.p50, l.p90, l.p99, l.p999, l.max] {
                cells.push(duration_ns(v));
            }
            cells.push(c.latency_outliers.to_string());
        }
        None => cells.extend(std::iter::repeat_n("n/a".to_string(), 7)),
    }
    cells.push(cpu_us_per_request(c.cpu_secs(), c.iterations));
    cells.push(match c.bytes_per_ok() {
        Some(b) if b.fract() == 0.0 => format!("{b:.0}"),
        Some(b) => format!("{b:.1}"),
        None => "n/a".to_string(),
    });
    cells
}

/// The statistics tables of a report: one header, and a table per load level when a scan ran.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Tables {
    /// Column titles: [`stats_header`], and `body/s` when body sizes were asked for.
    pub header: Vec<&'static str>,
    /// Each level's title (`16 in flight, 64k bodies`; empty when every case ran at one level) and the cells
    /// of its cases, in `header` order.
    pub levels: Vec<(String, Vec<Vec<String>>)>,
}

/// The statistics tables of `rows`, one per load level of [`super::levels::levels`], with the body throughput
/// when body sizes were asked for: every column when `wide`, else the compact ones.
pub(super) fn stats_tables(rows: &[Row<'_>], wide: bool) -> Tables {
    let throughput = super::levels::shows_throughput(rows);
    let mut header = if wide { stats_header() } else { compact_header() };
    if throughput {
        header.push("body/s");
    }
    let cells = |i: usize| {
        let mut cells = if wide { stats_row(&rows[i]) } else { compact_row(&rows[i]) };
        if throughput {
            cells.push(super::levels::throughput(&rows[i]));
        }
        cells
    };
    let levels = super::levels::levels(rows)
        .into_iter()
        .map(|(title, members)| (title, members.into_iter().map(cells).collect()))
        .collect();
    Tables { header, levels }
}

/// Lay out cells in columns: the first left-aligned, the rest right-aligned, two spaces apart.
pub(super) fn columns(header: &[&str], body: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in body {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let header: Vec<String> = header.iter().map(|s| s.to_string()).collect();
    let mut out = String::new();
    for row in std::iter::once(&header).chain(body) {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, &w))| {
                let pad = w - cell.chars().count();
                if i == 0 {
                    format!("{cell}{}", " ".repeat(pad))
                } else {
                    format!("{}{cell}", " ".repeat(pad))
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}
