//! The scan chart: a figure (requests per second, MB/s) against a scanned parameter (concurrency, body size,
//! server think time), one line per client. Generic over what is scanned: the caller names the axis and
//! hands the points. The x axis is logarithmic when the values span more than a factor of 10 (scans double
//! or multiply by ten, and a linear axis would squeeze the small values into one corner).

use std::fmt::Write;

use super::{escape, frame, legend_entry, open_titled, Ink};

/// One line of a scan chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// What the line is, in the legend (`curl/reuse`).
    pub label: String,
    /// (parameter value, figure) pairs; drawn in parameter order, non-finite values left out.
    pub points: Vec<(f64, f64)>,
    /// (parameter value, low, high): the 95% interval of the figure at that value, drawn as a whisker.
    pub intervals: Vec<(f64, f64, f64)>,
}

/// Okabe and Ito's colour-blind-safe palette ("Color Universal Design", 2008), its yellow (too pale on white)
/// replaced by grey. Series from the ninth on repeat the colours, dashed.
pub(super) const PALETTE: [&str; 8] =
    ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#8c8c8c"];

/// Few units wide, so that drawn at a phone's width the text stays readable (9 px at 375 px) and at its widest
/// (36rem in the HTML report) about 14 px.
const WIDTH: f64 = 480.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 34.0;
const PLOT_H: f64 = 220.0;
/// Space between the plot's edge and the first and last parameter value, so markers are not cut in half.
const PAD: f64 = 12.0;
const LEGEND_COLUMNS: usize = 2;
const LEGEND_ROW: f64 = 20.0;
const GRID: &str = "#d0d7de";
const INK: &str = "#57606a";

/// A line chart titled `title`, its x axis named `x_name`, of `series`: axes with labelled ticks (at the
/// parameter values themselves when there are few), a light grid, and a legend under the axis. Each series
/// has a class `s0`..`s7` for a stylesheet, and its colour inline so the chart reads the same without one.
pub fn scan_chart(title: &str, x_name: &str, series: &[Series]) -> String {
    scan_chart_labelled(title, x_name, series, &tick_label)
}

/// [`scan_chart`] with the parameter's values spelled by `x_label` (body sizes as `64k`, say).
pub fn scan_chart_labelled(title: &str, x_name: &str, series: &[Series], x_label: &dyn Fn(f64) -> String) -> String {
    let lines: Vec<Vec<(f64, f64)>> = series.iter().map(|s| finite_sorted(&s.points)).collect();
    let xs: Vec<f64> = lines.iter().flatten().map(|p| p.0).collect();
    let x = XAxis::new(&xs);
    let highs = series.iter().flat_map(|s| s.intervals.iter().map(|w| w.2)).filter(|v| v.is_finite());
    let top = lines.iter().flatten().map(|p| p.1).chain(highs).fold(0.0, f64::max);
    let (y_hi, y_ticks) = y_ticks(top);
    let bottom = TOP + PLOT_H;
    let legend_rows = series.len().div_ceil(LEGEND_COLUMNS) as f64;
    let height = bottom + 48.0 + legend_rows * LEGEND_ROW;
    // `write!` into the one string throughout, not `format!` and `push_str`: fewer copies, and less code in
    // the page, which draws these charts too.
    let mut svg = open_titled(WIDTH, height, title);
    let y_at = |v: f64| bottom - PLOT_H * v / y_hi;
    for t in &y_ticks {
        let _ = write!(
            svg,
            r#"<path d="M{LEFT} {y:.1}H{r}" stroke="{GRID}" class="grid"/><text x="{:.1}" y="{:.1}" text-anchor="end" class="axis">{}</text>"#,
            LEFT - 6.0,
            y_at(*t) + 4.0,
            tick_label(*t),
            y = y_at(*t),
            r = WIDTH - RIGHT,
        );
    }
    x.ticks(&mut svg, bottom, x_label);
    frame(&mut svg, LEFT, TOP, bottom, WIDTH - RIGHT);
    let _ = write!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" class="axis">{}{}</text>"#,
        LEFT + (WIDTH - LEFT - RIGHT) / 2.0,
        bottom + 34.0,
        escape(x_name),
        if x.log { " (log scale)" } else { "" },
    );
    for (i, (s, points)) in series.iter().zip(&lines).enumerate() {
        let at = Place { x: &|v| x.at(v), y: &y_at, x_label };
        whiskers(&mut svg, i, &s.intervals, &at);
        line(&mut svg, i, &s.label, x_name, points, &at);
        legend(&mut svg, i, &s.label, bottom + 52.0);
    }
    svg.push_str("</svg>");
    svg
}

/// The finite points of a series, in parameter order.
fn finite_sorted(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let finite: Vec<(f64, f64)> = points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
    crate::order::sorted_by(&finite, &|a, b| a.0.total_cmp(&b.0))
}

/// Series `i`'s colour, and a dash pattern once the palette has gone round.
fn style(i: usize) -> (&'static str, &'static str) {
    (PALETTE[i % PALETTE.len()], if (i / PALETTE.len()) % 2 == 1 { r#" stroke-dasharray="6 3""# } else { "" })
}

/// Where a point goes on the chart, and how its parameter value is spelled.
struct Place<'a> {
    x: &'a dyn Fn(f64) -> f64,
    y: &'a dyn Fn(f64) -> f64,
    x_label: &'a dyn Fn(f64) -> String,
}

/// Series `i` as a line through its points, with a marker on each that tells its figures as a tooltip.
fn line(out: &mut String, i: usize, label: &str, x_name: &str, points: &[(f64, f64)], at: &Place<'_>) {
    let (colour, dash) = style(i);
    let class = i % PALETTE.len();
    out.push_str("<path d=\"");
    for (j, (x, y)) in points.iter().enumerate() {
        let _ = write!(out, "{}{:.1} {:.1}", if j == 0 { 'M' } else { 'L' }, (at.x)(*x), (at.y)(*y));
    }
    let _ = write!(out, r#"" class="line s{class}" stroke="{colour}" stroke-width="2" fill="none"{dash}/>"#);
    let (label, x_name) = (escape(label), escape(x_name));
    for (x, y) in points {
        let _ = write!(
            out,
            r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" class="s{class}" fill="{colour}"><title>{label}: {x_name} {}, {}</title></circle>"#,
            (at.x)(*x),
            (at.y)(*y),
            escape(&(at.x_label)(*x)),
            tick_label(*y)
        );
    }
}

/// Series `i`'s 95% intervals, each a vertical whisker with caps, in the series' colour.
fn whiskers(out: &mut String, i: usize, intervals: &[(f64, f64, f64)], at: &Place<'_>) {
    let (colour, _) = style(i);
    for &(x, lo, hi) in intervals.iter().filter(|(x, lo, hi)| x.is_finite() && lo.is_finite() && hi.is_finite()) {
        let (x, lo, hi) = ((at.x)(x), (at.y)(lo), (at.y)(hi));
        let _ = write!(
            out,
            r#"<path d="M{x:.1} {lo:.1}V{hi:.1}M{:.1} {lo:.1}h6M{:.1} {hi:.1}h6" class="whisker s{}" stroke="{colour}" stroke-width="1"/>"#,
            x - 3.0,
            x - 3.0,
            i % PALETTE.len()
        );
    }
}

/// Series `i`'s entry in the legend, which starts at `top`: its line, and its marker on it.
fn legend(out: &mut String, i: usize, label: &str, top: f64) {
    let (colour, dash) = style(i);
    let column_w = (WIDTH - LEFT - RIGHT) / LEGEND_COLUMNS as f64;
    let x = LEFT + column_w * (i % LEGEND_COLUMNS) as f64;
    let y = top + LEGEND_ROW * (i / LEGEND_COLUMNS) as f64;
    let class = format!("s{}", i % PALETTE.len());
    legend_entry(out, x, y, &Ink { colour, dash, class: &class }, label);
    let _ =
        write!(out, r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" class="{class}" fill="{colour}"/>"#, x + 11.0, y - 4.0);
}

/// The parameter axis: its range, whether it is logarithmic, and where its ticks go.
struct XAxis {
    lo: f64,
    hi: f64,
    log: bool,
    ticks: Vec<f64>,
}

impl XAxis {
    /// The axis for parameter values `xs`: a tick at each distinct value when there are at most 12 (a scan's
    /// own steps read best), else at powers of ten (log) or round steps (linear).
    fn new(xs: &[f64]) -> XAxis {
        let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if xs.is_empty() {
            return XAxis { lo: 0.0, hi: 1.0, log: false, ticks: Vec::new() };
        }
        let log = lo > 0.0 && hi / lo > 10.0;
        let mut distinct: Vec<f64> = crate::order::sorted_by(xs, &|a, b| a.total_cmp(b));
        distinct.dedup();
        let ticks = if distinct.len() <= 12 {
            distinct
        } else if log {
            // The powers of ten from the first at or above `lo` to the last at or below `hi`.
            let mut t = power_of_ten_at_most(lo);
            if t < lo {
                t *= 10.0;
            }
            let mut ticks = Vec::new();
            while t <= hi {
                ticks.push(t);
                t *= 10.0;
            }
            ticks
        } else {
            let step = nice_step((hi - lo) / 5.0);
            let first = (lo / step).ceil() as i64;
            (first..).map(|k| k as f64 * step).take_while(|t| *t <= hi).collect()
        };
        XAxis { lo, hi, log, ticks }
    }

    /// The x coordinate of parameter value `v`.
    fn at(&self, v: f64) -> f64 {
        let span = WIDTH - LEFT - RIGHT - 2.0 * PAD;
        let f = if self.hi <= self.lo {
            0.5
        } else if self.log {
            (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        LEFT + PAD + span * f
    }

    /// Tick marks under the plot's `bottom` edge onto `out`, labelled by `label` unless too close to the last
    /// labelled one.
    fn ticks(&self, out: &mut String, bottom: f64, label: &dyn Fn(f64) -> String) {
        let mut last_label = f64::NEG_INFINITY;
        for t in &self.ticks {
            let x = self.at(*t);
            let _ = write!(out, r#"<path d="M{x:.1} {bottom}v5" stroke="{INK}" class="frame"/>"#);
            if x - last_label >= 34.0 {
                let _ = write!(
                    out,
                    r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" class="axis">{}</text>"#,
                    bottom + 18.0,
                    escape(&label(*t))
                );
                last_label = x;
            }
        }
    }
}

/// The y axis from 0 for figures up to `top`: its upper end and its ticks, about five round steps.
fn y_ticks(top: f64) -> (f64, Vec<f64>) {
    let top = if top > 0.0 { top } else { 1.0 };
    let step = nice_step(top / 5.0);
    let n = (top / step).ceil() as usize;
    (step * n as f64, (0..=n).map(|k| k as f64 * step).collect())
}

/// The round step (1, 2, 2.5 or 5 times a power of ten) at or above `raw`.
fn nice_step(raw: f64) -> f64 {
    let magnitude = power_of_ten_at_most(raw);
    let f = raw / magnitude;
    let nice = [1.0, 2.0, 2.5, 5.0].into_iter().find(|n| f <= *n).unwrap_or(10.0);
    nice * magnitude
}

/// The largest power of ten at or below `v` (1 for anything not positive and finite). By steps, not
/// `10f64.powf(v.log10().floor())`, whose floating-point `log10` can land just below a whole number at an
/// exact power (and which pulls libm's `pow` and `log10` into the page). Chart values are request rates, byte
/// counts and milliseconds: a few dozen steps at most.
fn power_of_ten_at_most(v: f64) -> f64 {
    if !(v.is_finite() && v > 0.0) {
        return 1.0;
    }
    let mut m = 1.0;
    while m * 10.0 <= v {
        m *= 10.0;
    }
    while m > v {
        m /= 10.0;
    }
    m
}

/// A tick value in at most three significant digits, thousands and millions as `k` and `M` from 10 000 on
/// (`12.5k`, `1024`, `0.25`).
fn tick_label(v: f64) -> String {
    let (div, suffix) = match v.abs() {
        a if a >= 1e7 => (1e6, "M"),
        a if a >= 1e4 => (1e3, "k"),
        _ => (1.0, ""),
    };
    let x = v / div;
    // Digits after the point for three significant ones: 2 for 1-9.99, 1 for 10-99.9, none from 100 on.
    let magnitude = power_of_ten_at_most(x.abs());
    let digits = match magnitude {
        _ if x == 0.0 || magnitude >= 100.0 => 0,
        m if m >= 10.0 => 1,
        m if m >= 1.0 => 2,
        _ => 3,
    };
    let mut s = format!("{x:.digits$}");
    if s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    s + suffix
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(label: &str, points: &[(f64, f64)]) -> Series {
        Series { label: label.into(), points: points.to_vec(), intervals: Vec::new() }
    }

    #[test]
    fn intervals_are_whiskers_and_the_axis_holds_them() {
        let mut s = series("curl", &[(1.0, 100.0), (4.0, 300.0)]);
        s.intervals = vec![(1.0, 90.0, 110.0), (4.0, 250.0, 420.0)];
        let svg = scan_chart("Rate", "requests in flight", &[s]);
        assert_eq!(svg.matches(r#"class="whisker s0""#).count(), 2, "{svg}");
        assert!(svg.contains(">500</text>"), "the axis reaches past the highest bound, 420: {svg}");
    }

    #[test]
    fn ticks_are_round_and_labels_short() {
        assert_eq!(y_ticks(9_300.0), (10_000.0, vec![0.0, 2_000.0, 4_000.0, 6_000.0, 8_000.0, 10_000.0]));
        assert_eq!(y_ticks(0.0).0, 1.0, "an empty chart still has an axis");
        assert_eq!(nice_step(230.0), 250.0);
        assert_eq!((nice_step(0.03), nice_step(7.0), nice_step(1000.0)), (0.05, 10.0, 1000.0));
        assert_eq!([0.02, 1.0, 999.0, 1000.0, 0.0].map(power_of_ten_at_most), [0.01, 1.0, 100.0, 1000.0, 1.0]);
        let labels: Vec<String> =
            [0.0, 0.25, 1024.0, 12_500.0, 65_536.0, 2.5e7, 3.25159, 0.0123].map(tick_label).to_vec();
        assert_eq!(labels, ["0", "0.25", "1024", "12.5k", "65.5k", "25M", "3.25", "0.012"]);
    }

    #[test]
    fn the_axis_is_logarithmic_past_a_factor_of_ten() {
        let doubling = XAxis::new(&[1.0, 2.0, 4.0, 8.0, 16.0]);
        assert!(doubling.log);
        assert_eq!(doubling.ticks, [1.0, 2.0, 4.0, 8.0, 16.0], "few values: a tick at each");
        // Equal steps on a log axis: 1 → 2 is as long as 8 → 16.
        let (a, b) = (doubling.at(2.0) - doubling.at(1.0), doubling.at(16.0) - doubling.at(8.0));
        assert!((a - b).abs() < 1e-9, "{a} {b}");
        assert!(!XAxis::new(&[1.0, 5.0, 10.0]).log, "a factor of 10 exactly stays linear");
        assert!(!XAxis::new(&[0.0, 10.0, 100.0]).log, "0 has no place on a log axis");
        let many: Vec<f64> = (0..20).map(|k| 2f64.powi(k)).collect();
        assert_eq!(XAxis::new(&many).ticks, [1.0, 10.0, 100.0, 1_000.0, 10_000.0, 100_000.0]);
    }

    #[test]
    fn one_line_and_legend_entry_per_series_coloured_inline() {
        let svg = scan_chart(
            "Rate by concurrency",
            "requests in flight",
            &[series("curl/<reuse>", &[(4.0, 300.0), (1.0, 100.0), (16.0, f64::NAN)]), series("raw", &[(1.0, 50.0)])],
        );
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches(r#"class="line s"#).count(), 4, "two lines and their legend entries");
        assert!(
            svg.contains(r##"class="line s0" stroke="#0072b2""##)
                && svg.contains(r##"class="line s1" stroke="#d55e00""##)
        );
        // The NaN point is left out; the others are drawn in x order, x = 1 at the left edge of the plot.
        assert!(svg.contains(r#"<path d="M76.0 "#), "{svg}");
        assert_eq!(svg.matches("<title>curl/&lt;reuse&gt;: requests in flight").count(), 2, "{svg}");
        assert!(svg.contains(">requests in flight<"), "linear for 1..4: no log note");
        assert!(
            svg.contains(">200</text>") && svg.contains(">300</text>"),
            "y ticks labelled up to a round top: {svg}"
        );
    }
}
