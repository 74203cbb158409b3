//! Hand-made SVG charts (no chart library, no CDN), shared by the page and the HTML report: wall rates as
//! horizontal bars on a log axis with 95% confidence intervals, every case's latency by percentile on one
//! chart ([`percentile_plot`]), a latency histogram per case, a percentile ladder, and ([`scan`]) a line
//! chart of a figure against a scanned parameter. Pure
//! functions from figures to SVG text; the caller puts the text into a document and styles the classes
//! (`bar`, `err`, `label`, `value`, `axis`).

mod percentiles;
mod scan;

pub use percentiles::{percentile_plot, Curve};
pub use scan::{scan_chart, scan_chart_labelled, Series};

use crate::model::Latency;
use crate::stats::Bin;
use crate::units::duration_ns;
use crate::view::Row;

/// One bar of the rate chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Case label, as in the statistics table.
    pub label: String,
    /// Where the case ran (`native`, `chromium`, ...): the bar's class, so browsers and native differ.
    pub environment: String,
    /// Wall rate, requests per second.
    pub rate: f64,
    /// 95% confidence interval of the rate, where there were two rounds or more.
    pub ci95: Option<(f64, f64)>,
}

/// The bar of each row: its label, environment, wall rate and interval (on a log scale, never below zero).
pub fn rate_bars(rows: &[Row<'_>]) -> Vec<Bar> {
    rows.iter()
        .map(|row| Bar {
            label: row.label.clone(),
            environment: row.report.environment.name().to_string(),
            rate: row.case.rate_wall,
            ci95: crate::headline::rate_interval(row.case),
        })
        .collect()
}

/// Width of the rate chart. Labels sit above their bars, so the bars get the whole width and the chart
/// needs few units: drawn about as wide on a desktop as on a phone, its text stays near 12 px on both.
const WIDTH: f64 = 400.0;
const ROW_H: f64 = 36.0;
/// Room right of the longest bar for its figure.
const VALUE_W: f64 = 56.0;
/// Where the rate axis and the bars start.
const X0: f64 = 20.0;
/// Width of a small chart (histogram, percentiles): small multiples, a few side by side on a desktop.
const SMALL_W: f64 = 320.0;
const SMALL_H: f64 = 160.0;

/// The rate chart: one horizontal bar per case under its label, on a log axis from the decade below the
/// smallest rate or interval end to the decade above the largest, so 300 req/s and 7,500 req/s both read.
pub fn rate_chart(bars: &[Bar]) -> String {
    let ends = bars.iter().flat_map(|b| [Some(b.rate), b.ci95.map(|c| c.0), b.ci95.map(|c| c.1)]).flatten();
    let positive: Vec<f64> = ends.filter(|v| v.is_finite() && *v > 0.0).collect();
    let lo = positive.iter().copied().fold(f64::INFINITY, f64::min).log10().floor();
    let hi = positive.iter().copied().fold(0.0, f64::max).log10().ceil();
    let (lo, hi) = if lo.is_finite() && hi.is_finite() { (lo, hi.max(lo + 1.0)) } else { (0.0, 1.0) };
    // The axis starts a little in, so its first decade's label is not cut at the edge.
    let plot_w = WIDTH - X0 - 4.0 - VALUE_W;
    let x = |v: f64| X0 + plot_w * ((v.max(10f64.powf(lo)).log10() - lo) / (hi - lo));
    let rows_h = ROW_H * bars.len() as f64 + 4.0;
    let mut svg = open(
        WIDTH,
        rows_h + 22.0,
        "Wall rate of each case, requests per second on a log axis, with 95% confidence intervals",
    );
    for decade in lo as i32..=hi as i32 {
        let (at, v) = (x(10f64.powi(decade)), 10f64.powi(decade));
        svg.push_str(&format!(
            r##"<path d="M{at:.1} 4V{rows_h:.1}" stroke="#d0d7de" class="grid"/><text x="{at:.1}" y="{:.1}" text-anchor="middle" class="axis">{}</text>"##,
            rows_h + 14.0,
            crate::units::rate(v)
        ));
    }
    for (i, b) in bars.iter().enumerate() {
        let y = 4.0 + ROW_H * i as f64;
        let w = if b.rate > 0.0 { x(b.rate) - X0 } else { 0.0 };
        svg.push_str(&format!(r#"<text x="4" y="{:.1}" class="label">{}</text>"#, y + 11.0, escape(&b.label)));
        svg.push_str(&format!(
            r#"<rect x="{X0}" y="{:.1}" width="{w:.1}" height="14" class="bar {}"><title>{}: {:.0} req/s</title></rect>"#,
            y + 16.0,
            escape(&b.environment),
            escape(&b.label),
            b.rate
        ));
        if let Some((lo, hi)) = b.ci95.filter(|(lo, _)| *lo > 0.0) {
            let (x0, x1, yc) = (x(lo), x(hi), y + 23.0);
            svg.push_str(&format!(
                r#"<path d="M{x0:.1} {yc:.1}H{x1:.1}M{x0:.1} {:.1}v10M{x1:.1} {:.1}v10" class="err"/>"#,
                yc - 5.0,
                yc - 5.0
            ));
        }
        let text_x = X0 + b.ci95.map_or(w, |(_, hi)| (x(hi) - X0).max(w)) + 6.0;
        svg.push_str(&format!(r#"<text x="{text_x:.1}" y="{:.1}" class="value">{:.0}</text>"#, y + 28.0, b.rate));
    }
    svg.push_str("</svg>");
    svg
}

/// A latency histogram of one case, small enough to sit in a grid with the others: bars of request counts
/// from the fastest request to p99 (the slowest 1% are counted in the last bar, as [`crate::Recorder`]
/// bins them), the fastest, middle and p99 latencies under the axis.
pub fn histogram(label: &str, bins: &[Bin]) -> String {
    let plot_h = SMALL_H - 50.0;
    let top = bins.iter().map(|b| b.count).max().unwrap_or(0).max(1) as f64;
    let bar_w = if bins.is_empty() { 0.0 } else { (SMALL_W - 20.0) / bins.len() as f64 };
    let title = format!("Latency histogram of {label}, fastest request to p99 (slower ones in the last bar)");
    let mut svg = open(SMALL_W, SMALL_H, &title);
    svg.push_str(&format!(r#"<text x="10" y="14" class="label">{}</text>"#, escape(label)));
    for (i, b) in bins.iter().enumerate() {
        let h = b.count as f64 / top * plot_h;
        svg.push_str(&format!(
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" class="bar"><title>{}–{}: {}</title></rect>"#,
            10.0 + bar_w * i as f64,
            24.0 + plot_h - h,
            (bar_w - 1.0).max(0.5),
            duration_ns(b.low_ns),
            duration_ns(b.high_ns),
            b.count
        ));
    }
    if let (Some(first), Some(last)) = (bins.first(), bins.last()) {
        let y = SMALL_H - 12.0;
        let mid = (first.low_ns + last.high_ns) / 2.0;
        svg.push_str(&format!(
            r#"<path d="M10 {a}H{r}" class="err"/><text x="10" y="{y}" class="axis">{}</text><text x="{c}" y="{y}" text-anchor="middle" class="axis">{}</text><text x="{r}" y="{y}" text-anchor="end" class="axis">p99 {}</text>"#,
            duration_ns(first.low_ns),
            duration_ns(mid),
            duration_ns(last.high_ns),
            a = 24.0 + plot_h + 0.5,
            c = SMALL_W / 2.0,
            r = SMALL_W - 10.0,
        ));
    }
    svg.push_str("</svg>");
    svg
}

/// Where a case has percentiles but no histogram (a report read from a file keeps only its [`Latency`]):
/// one bar per figure, min to max, on a linear scale to the slowest request, each labelled with its value,
/// the same size as a [`histogram`] so the two mix in one grid.
pub fn percentile_chart(label: &str, latency: &Latency) -> String {
    let figures = [
        ("min", latency.min),
        ("p50", latency.p50),
        ("p90", latency.p90),
        ("p99", latency.p99),
        ("p99.9", latency.p999),
    ];
    let figures = figures.iter().copied().chain(std::iter::once(("max", latency.max)));
    let (left, plot_w, row_h) = (52.0, SMALL_W - 52.0 - 78.0, 20.0);
    let scale = if latency.max > 0.0 { plot_w / latency.max } else { 0.0 };
    let title = format!("Latency percentiles of {label} (the report keeps no histogram)");
    let mut svg = open(SMALL_W, SMALL_H, &title);
    svg.push_str(&format!(r#"<text x="10" y="14" class="label">{} (percentiles)</text>"#, escape(label)));
    for (i, (name, ns)) in figures.enumerate() {
        let y = 24.0 + row_h * i as f64;
        let w = (ns * scale).max(0.5);
        svg.push_str(&format!(
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" class="axis">{name}</text><rect x="{left}" y="{:.1}" width="{w:.1}" height="{:.1}" class="bar"/><text x="{:.1}" y="{:.1}" class="value">{}</text>"#,
            left - 6.0,
            y + 14.0,
            y + 3.0,
            row_h - 6.0,
            left + w + 5.0,
            y + 14.0,
            duration_ns(ns)
        ));
    }
    svg.push_str("</svg>");
    svg
}

/// The opening tag of a chart `width` × `height` user units wide that scales to its container, with `title`
/// for screen readers and as a tooltip. The namespace keeps the text a valid SVG file on its own too.
fn open(width: f64, height: f64, title: &str) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height:.0}" width="100%" role="img" aria-label="{t}"><title>{t}</title>"#,
        t = escape(title)
    )
}

/// [`open`] with `title` also written over the plot in bold: the line charts' head.
fn open_titled(width: f64, height: f64, title: &str) -> String {
    let mut svg = open(width, height, title);
    svg.push_str(&format!(r#"<text x="8" y="18" class="label" font-weight="bold">{}</text>"#, escape(title)));
    svg
}

/// The line charts' frame: the y axis at `left` from `top` down to `bottom`, and the x axis to `right`.
fn frame(out: &mut String, left: f64, top: f64, bottom: f64, right: f64) {
    out.push_str(&format!(
        r##"<path d="M{left} {top}V{bottom}H{right}" stroke="#57606a" fill="none" class="frame"/>"##
    ));
}

/// How a line is drawn: its colour, its dash pattern (an attribute, or empty) and its class for a sheet.
struct Ink<'a> {
    colour: &'a str,
    dash: &'a str,
    class: &'a str,
}

/// A legend entry of a line chart at (`x`, `y`): a short stretch of the line as `ink` draws it, then `label`.
fn legend_entry(out: &mut String, x: f64, y: f64, ink: &Ink<'_>, label: &str) {
    out.push_str(&format!(
        r#"<path d="M{x:.1} {:.1}h22" class="line {}" stroke="{}" stroke-width="2"{}/><text x="{:.1}" y="{y:.1}" class="label">{}</text>"#,
        y - 4.0,
        ink.class,
        ink.colour,
        ink.dash,
        x + 28.0,
        escape(label)
    ));
}

/// Text made safe for HTML and SVG content and double-quoted attributes: the one escape of every markup
/// renderer.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest_interval_and_draw_error_bars() {
        let bars = vec![
            Bar { label: "fetch".into(), environment: "chromium".into(), rate: 400.0, ci95: Some((380.0, 420.0)) },
            Bar { label: "native/<raw>".into(), environment: "native".into(), rate: 20_000.0, ci95: None },
        ];
        let svg = rate_chart(&bars);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<rect").count(), 2);
        assert_eq!(svg.matches(r#"class="err""#).count(), 1, "only the case with rounds has an interval");
        assert!(svg.contains("native/&lt;raw&gt;"), "labels are escaped");
        assert!(svg.contains(r#"class="bar chromium""#) && svg.contains(r#"class="bar native""#), "{svg}");
        // 380 to 20,000 req/s: the axis runs from 100 to 100,000, three decades over 320 units. 400 req/s is
        // log10(4) of one decade in (106.7 × 0.602 = 64.2 units); 20,000 is 2.301 decades (245.4 units).
        assert!(svg.contains(r#"width="64.2""#) && svg.contains(r#"width="245.4""#), "{svg}");
        for tick in [">100<", ">1000<", ">10000<", ">100000<"] {
            assert!(svg.contains(tick), "{tick}: {svg}");
        }
    }

    #[test]
    fn histogram_bars_follow_counts() {
        let bins = vec![
            Bin { low_ns: 1_000.0, high_ns: 2_000.0, count: 4 },
            Bin { low_ns: 2_000.0, high_ns: 3_000.0, count: 0 },
            Bin { low_ns: 3_000.0, high_ns: 4_000.0, count: 2 },
        ];
        let svg = histogram("x<hr", &bins);
        assert_eq!(svg.matches("<rect").count(), 3);
        // The plot is 110 units high: the tallest bar fills it, half the count is half as high.
        assert!(svg.contains(r#"height="110.0""#) && svg.contains(r#"height="55.0""#), "{svg}");
        assert!(svg.contains("Latency histogram of x&lt;hr"));
        assert!(svg.contains(">1.0 µs<") && svg.contains(">2.5 µs<") && svg.contains(">p99 4.0 µs<"), "{svg}");
        assert!(histogram("none", &[]).ends_with("</svg>"));
    }

    #[test]
    fn percentiles_are_bars_to_the_slowest_request() {
        let l = Latency {
            min: 1_000.0,
            mean: 2_000.0,
            stddev: 10.0,
            p50: 2_000.0,
            p90: 3_000.0,
            p99: 5_000.0,
            p999: 8_000.0,
            max: 10_000.0,
        };
        let svg = percentile_chart("curl", &l);
        assert_eq!(svg.matches("<rect").count(), 6);
        // The plot is 190 units wide: max fills it, p50 is a fifth of it.
        assert!(svg.contains(r#"width="190.0""#) && svg.contains(r#"width="38.0""#), "{svg}");
        assert!(svg.contains(">p99.9<") && svg.contains(">8.0 µs<"), "{svg}");
    }

    #[test]
    fn escape_covers_markup_and_attributes() {
        assert_eq!(escape(r#"<a href="x">&</a>"#), "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
    }
}
