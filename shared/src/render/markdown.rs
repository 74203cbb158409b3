//! The statistics table as GitHub-flavoured Markdown, under a line per source saying what was measured.

use super::table::{stats_header, stats_row};
use super::RenderOptions;
use crate::view::{rows, Source};

/// Render the Markdown report: for two runs or more, the change between each run and the next first (what a
/// CI job's step summary leads with), then the headline, a line per source and the statistics table.
pub(super) fn render(sources: &[Source<'_>], options: &RenderOptions) -> String {
    let mut out = String::new();
    let rows = rows(sources);
    let comparisons = super::gate::comparisons(sources, options.change);
    let changed: Vec<_> = comparisons.iter().filter(|c| !c.changes.is_empty()).collect();
    for cmp in &changed {
        out.push_str(&super::gate::comparison_markdown(cmp));
        out.push('\n');
    }
    // Runs compared: their change is the answer, not a headline across runs and clients.
    if changed.is_empty() {
        out.push_str(&super::headline::markdown(&crate::headline::headline(&rows, options.reference.as_deref())));
    }
    for s in sources {
        let r = s.report;
        let tag = s.tag.map(|t| format!("**{t}**: ")).unwrap_or_default();
        out.push_str(&format!(
            "{tag}{} {} ({}), {} {}/{}, `GET {}`, {} per case after {} warm-up\n\n",
            r.tool.name,
            r.tool.version,
            r.tool.build_profile,
            r.environment.title(),
            r.environment.os,
            r.environment.arch,
            r.target.url,
            match (r.settings.count, r.settings.duration_secs) {
                (_, Some(d)) => format!("at least {d} s"),
                (Some(n), None) => format!("{n} requests"),
                (None, None) => "unknown requests".to_string(),
            },
            r.settings.warmup
        ));
    }
    let header = stats_header();
    out.push_str(&format!("| {} |\n", header.join(" | ")));
    let align: Vec<&str> = header.iter().enumerate().map(|(i, _)| if i == 0 { ":---" } else { "---:" }).collect();
    out.push_str(&format!("| {} |\n", align.join(" | ")));
    for row in &rows {
        let cells: Vec<String> = stats_row(row).iter().map(|c| escape(c)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

/// A pipe inside a cell would end the cell.
fn escape(cell: &str) -> String {
    cell.replace('|', "\\|")
}
