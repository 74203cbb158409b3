//! Hand-made SVG charts (no chart library, no CDN): wall rates as horizontal bars with 95% confidence
//! intervals as error bars, and a latency histogram. Pure functions from figures to SVG text, so they are
//! tested natively; the page puts the text into the DOM.

use httpbench_shared::stats::Bin;
use httpbench_shared::units::duration_ns;

/// One bar of the rate chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Case label, as in the statistics table.
    pub label: String,
    /// Wall rate, requests per second.
    pub rate: f64,
    /// 95% confidence interval of the mean per-round rate, where there were two rounds or more.
    pub ci95: Option<(f64, f64)>,
}

const WIDTH: f64 = 640.0;
const LABEL_W: f64 = 190.0;
const ROW_H: f64 = 26.0;

/// The rate chart: one horizontal bar per case, scaled to the largest rate or interval end.
pub fn rate_chart(bars: &[Bar]) -> String {
    let max = bars.iter().map(|b| b.ci95.map_or(b.rate, |(_, hi)| hi.max(b.rate))).fold(0.0, f64::max);
    let scale = if max > 0.0 { (WIDTH - LABEL_W - 90.0) / max } else { 0.0 };
    let height = ROW_H * bars.len() as f64 + 8.0;
    let mut svg = open(height, "Wall rate of each case, requests per second, with 95% confidence intervals");
    for (i, b) in bars.iter().enumerate() {
        let y = 4.0 + ROW_H * i as f64;
        let w = b.rate * scale;
        svg.push_str(&format!(
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" class="label">{}</text>"#,
            LABEL_W - 6.0,
            y + 16.0,
            escape(&b.label)
        ));
        svg.push_str(&format!(
            r#"<rect x="{LABEL_W}" y="{:.1}" width="{w:.1}" height="{:.1}" class="bar"><title>{}: {:.0} req/s</title></rect>"#,
            y + 3.0,
            ROW_H - 8.0,
            escape(&b.label),
            b.rate
        ));
        if let Some((lo, hi)) = b.ci95 {
            let (x0, x1, yc) = (LABEL_W + lo.max(0.0) * scale, LABEL_W + hi * scale, y + ROW_H / 2.0 - 1.0);
            svg.push_str(&format!(
                r#"<path d="M{x0:.1} {yc:.1}H{x1:.1}M{x0:.1} {:.1}v10M{x1:.1} {:.1}v10" class="err"/>"#,
                yc - 5.0,
                yc - 5.0
            ));
        }
        let text_x = LABEL_W + b.ci95.map_or(w, |(_, hi)| (hi * scale).max(w)) + 6.0;
        svg.push_str(&format!(r#"<text x="{text_x:.1}" y="{:.1}" class="value">{:.0}</text>"#, y + 16.0, b.rate));
    }
    svg.push_str("</svg>");
    svg
}

/// A latency histogram of one case: bars of request counts from the fastest to the slowest request.
pub fn histogram(label: &str, bins: &[Bin]) -> String {
    let height = 150.0;
    let plot_h = height - 40.0;
    let top = bins.iter().map(|b| b.count).max().unwrap_or(0).max(1) as f64;
    let bar_w = if bins.is_empty() { 0.0 } else { (WIDTH - 20.0) / bins.len() as f64 };
    let mut svg = open(height, &format!("Latency histogram of {label}"));
    svg.push_str(&format!(r#"<text x="10" y="14" class="label">{}</text>"#, escape(label)));
    for (i, b) in bins.iter().enumerate() {
        let h = b.count as f64 / top * (plot_h - 10.0);
        svg.push_str(&format!(
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" class="bar"><title>{}–{}: {}</title></rect>"#,
            10.0 + bar_w * i as f64,
            20.0 + plot_h - h - 10.0,
            (bar_w - 1.0).max(0.5),
            duration_ns(b.low_ns),
            duration_ns(b.high_ns),
            b.count
        ));
    }
    if let (Some(first), Some(last)) = (bins.first(), bins.last()) {
        let y = height - 8.0;
        svg.push_str(&format!(r#"<text x="10" y="{y}" class="axis">{}</text>"#, duration_ns(first.low_ns)));
        svg.push_str(&format!(
            r#"<text x="{}" y="{y}" text-anchor="end" class="axis">{}</text>"#,
            WIDTH - 10.0,
            duration_ns(last.high_ns) + " (p99; slower ones in the last bar)"
        ));
    }
    svg.push_str("</svg>");
    svg
}

fn open(height: f64, title: &str) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height:.0}" width="100%" role="img" aria-label="{t}"><title>{t}</title>"#,
        t = escape(title)
    )
}

/// Text made safe for SVG content and attributes.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest_interval_and_draw_error_bars() {
        let bars = vec![
            Bar { label: "fetch".into(), rate: 400.0, ci95: Some((380.0, 420.0)) },
            Bar { label: "native/<raw>".into(), rate: 200.0, ci95: None },
        ];
        let svg = rate_chart(&bars);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<rect").count(), 2);
        assert_eq!(svg.matches(r#"class="err""#).count(), 1, "only the case with rounds has an interval");
        assert!(svg.contains("native/&lt;raw&gt;"), "labels are escaped");
        // 420 req/s is the full plot width (360 px from x = 190): 400 req/s is 342.9 px wide.
        assert!(svg.contains(r#"width="342.9""#), "{svg}");
    }

    #[test]
    fn histogram_bars_follow_counts() {
        let bins = vec![
            Bin { low_ns: 1_000.0, high_ns: 2_000.0, count: 4 },
            Bin { low_ns: 2_000.0, high_ns: 3_000.0, count: 0 },
            Bin { low_ns: 3_000.0, high_ns: 4_000.0, count: 2 },
        ];
        let svg = histogram("xhr", &bins);
        assert_eq!(svg.matches("<rect").count(), 3);
        assert!(svg.contains(r#"height="100.0""#) && svg.contains(r#"height="50.0""#), "{svg}");
        assert!(svg.contains("Latency histogram of xhr"));
        assert!(histogram("none", &[]).ends_with("</svg>"));
    }
}
