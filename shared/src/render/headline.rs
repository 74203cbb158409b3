//! The headline as the reports show it ([`crate::headline`]): a block per load and reference, a line per case
//! with its verdict glyph and word, its difference in time per request and how many times the reference's
//! time it takes, each with its 95% interval. Text (columns that fit a terminal), Markdown and HTML.

use super::charts::escape as escape_html;
use crate::change::Verdict;
use crate::headline::{Block, Headline, Line, Solo, FEW_ROUNDS};
use crate::units::duration_ns;
use crate::units::rate;

/// What the headline's figures are, under its title.
const ABOUT: &str = "time per request against a reference at the same load, 95% intervals";

/// `+2.80 ms`, `−812 ns`: a signed duration, with the minus sign.
fn signed(secs: f64) -> String {
    let sign = if secs < 0.0 { "−" } else { "+" };
    format!("{sign}{}", duration_ns(secs.abs() * 1e9))
}

/// `1.21×`, `24.1×`, `0.873×`: three significant digits.
fn times(r: f64) -> String {
    match r {
        r if r >= 100.0 => format!("{r:.0}×"),
        r if r >= 10.0 => format!("{r:.1}×"),
        r if r >= 1.0 => format!("{r:.2}×"),
        r => format!("{r:.3}×"),
    }
}

/// The cells of one line: glyph and word, case, difference with interval, ratio with interval.
fn cells(l: &Line) -> Vec<String> {
    let verdict = l.verdict.label();
    if l.verdict == Verdict::Failed {
        return vec![verdict, l.case.clone(), "no ok request".to_string(), String::new()];
    }
    let difference = match l.difference_interval_secs {
        Some((lo, hi)) => format!("{} [{}, {}]", signed(l.difference_secs), signed(lo), signed(hi)),
        None => format!("{} (one round: no interval)", signed(l.difference_secs)),
    };
    let ratio = match l.ratio_interval {
        Some((lo, hi)) => format!("{} [{}, {}]", times(l.ratio), times(lo), times(hi)),
        None => times(l.ratio),
    };
    vec![verdict, l.case.clone(), difference, ratio]
}

/// The block's title: its load, its reference and why, and the reference's own time per request.
fn title(b: &Block) -> String {
    let load = if b.load.is_empty() { String::new() } else { format!("{}: ", b.load) };
    format!(
        "{load}against {} ({}, {}/req)",
        b.reference,
        b.why.describe(),
        duration_ns(b.reference_time_per_request_secs * 1e9)
    )
}

/// `curl ran at 1000 req/s [998, 1002] (1.00 ms per request)`.
fn solo(s: &Solo) -> String {
    let interval = s.rate_interval.map(|(lo, hi)| format!(" [{}, {}]", rate(lo), rate(hi))).unwrap_or_default();
    format!("{} ran at {} req/s{interval} ({} per request)", s.case, rate(s.rate_wall), duration_ns(1e9 / s.rate_wall))
}

/// What limits the headline, a line each.
fn limits(h: &Headline) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(n) = h.few_rounds {
        out.push(format!(
            "{n} round{} of some cases: intervals that wide mean little; --rounds {FEW_ROUNDS} or more narrows them",
            if n == 1 { "" } else { "s" }
        ));
    }
    if let Some(r) = &h.reference_missing {
        out.push(format!("no case is `{r}`: the default references answer instead"));
    }
    out
}

/// The headline as text: `Headline (...)`, then per block its title and its lines in columns.
pub fn text(h: &Headline) -> String {
    if h.blocks.is_empty() {
        return h.solos.iter().map(|s| format!("{}\n", solo(s))).collect();
    }
    let mut out = format!("Headline: {ABOUT}\n");
    for b in &h.blocks {
        out.push_str(&title(b));
        out.push('\n');
        let body: Vec<Vec<String>> = b.lines.iter().map(cells).collect();
        out.push_str(&aligned(&body));
    }
    for s in &h.solos {
        out.push_str(&format!("{}\n", solo(s)));
    }
    for l in limits(h) {
        out.push_str(&format!("note: {l}\n"));
    }
    out
}

/// The headline as Markdown: a table per block under its title.
pub fn markdown(h: &Headline) -> String {
    if h.blocks.is_empty() {
        return h.solos.iter().map(|s| format!("{}\n\n", solo(s))).collect();
    }
    let mut out = format!("**Headline**: {ABOUT}\n\n");
    for b in &h.blocks {
        out.push_str(&format!("{}\n\n| verdict | case | time per request | times the reference |\n", title(b)));
        out.push_str("| :--- | :--- | ---: | ---: |\n");
        for l in &b.lines {
            let cells: Vec<String> = cells(l).iter().map(|c| c.replace('|', "\\|")).collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        out.push('\n');
    }
    for s in &h.solos {
        out.push_str(&format!("{}\n\n", solo(s)));
    }
    for l in limits(h) {
        out.push_str(&format!("> {l}\n"));
    }
    out
}

/// The headline as HTML: a section with a list per block, each line's verdict a class the sheet colours.
pub fn html(h: &Headline) -> String {
    if h.blocks.is_empty() && h.solos.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<section class=\"headline\" data-testid=\"headline\">\n<h2>Headline</h2>\n<p class=\"caption\">{}</p>\n",
        escape_html(&capitalised(ABOUT))
    );
    for b in &h.blocks {
        out.push_str(&format!("<h3>{}</h3>\n<ul class=\"verdicts\">\n", escape_html(&title(b))));
        for l in &b.lines {
            let c = cells(l);
            out.push_str(&format!(
                "<li class=\"{}\" data-case=\"{}\"><span class=\"verdict\">{}</span> <span class=\"case\">{}</span> {} <span class=\"times\">{}</span></li>\n",
                l.verdict.as_str(),
                escape_html(&l.case),
                escape_html(&c[0]),
                escape_html(&c[1]),
                escape_html(&c[2]),
                escape_html(&c[3]),
            ));
        }
        out.push_str("</ul>\n");
    }
    for s in &h.solos {
        out.push_str(&format!("<p class=\"solo\">{}</p>\n", escape_html(&solo(s))));
    }
    for l in limits(h) {
        out.push_str(&format!("<p class=\"warning\">{}</p>\n", escape_html(&l)));
    }
    out.push_str("</section>\n");
    out
}

/// Cells in left-aligned columns two spaces apart, each line indented by two.
fn aligned(body: &[Vec<String>]) -> String {
    let mut widths = vec![0; body.iter().map(Vec::len).max().unwrap_or(0)];
    for row in body {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in body {
        let cells: Vec<String> =
            row.iter().zip(&widths).map(|(c, &w)| format!("{c}{}", " ".repeat(w - c.chars().count()))).collect();
        out.push_str(&format!("  {}\n", cells.join("  ").trim_end()));
    }
    out
}

/// `s` with its first letter in capitals. Its words are the report's own (ASCII): ASCII's rule spares the page
/// the Unicode case tables (about 20 KB of its wasm).
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| std::iter::once(f.to_ascii_uppercase()).chain(c).collect()).unwrap_or_default()
}
