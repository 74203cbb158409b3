//! The latency of every case on one chart: a line per case through its percentiles (min, p50, p90, p99,
//! p99.9, max), the percentiles spaced by their nines (so the tail gets room) and the latency on a log axis
//! (so a 40 µs native case and a 3 ms browser case are both readable). Coloured by environment, dashed by
//! case within it (by case, when one environment ran them all). Every case has these figures, a result file's too, so every report draws the same chart.

use std::fmt::Write;

use super::{escape, frame, legend_entry, open_titled, Ink};
use crate::model::Latency;
use crate::units::duration_ns;

/// One line of the chart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Curve<'a> {
    /// The case's label.
    pub label: &'a str,
    /// Where it ran (`native`, `chromium`, ...): its colour.
    pub environment: &'a str,
    /// Its latency figures, nanoseconds.
    pub latency: &'a Latency,
}

const WIDTH: f64 = 480.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 34.0;
const PLOT_H: f64 = 220.0;
const LEGEND_ROW: f64 = 20.0;
/// Each percentile's place along the x axis: −log₁₀(1 − p), the max a half step past p99.9.
const AT: [(&str, f64); 6] = [("min", 0.0), ("p50", 0.301), ("p90", 1.0), ("p99", 2.0), ("p99.9", 3.0), ("max", 3.5)];
/// Dashes that tell cases of one environment apart.
const DASHES: [&str; 6] = [
    "",
    " stroke-dasharray=\"6 3\"",
    " stroke-dasharray=\"2 3\"",
    " stroke-dasharray=\"9 3 2 3\"",
    " stroke-dasharray=\"12 4\"",
    " stroke-dasharray=\"2 2 6 2\"",
];

/// The colour of an environment (Okabe and Ito's colour-blind-safe palette), and its class for a dark sheet.
fn colour(environment: &str) -> &'static str {
    match environment {
        "native" => "#0072b2",
        "chromium" => "#d55e00",
        "firefox" => "#cc79a7",
        "webkit" => "#009e73",
        _ => "#8c8c8c",
    }
}

fn figures(l: &Latency) -> [f64; 6] {
    [l.min, l.p50, l.p90, l.p99, l.p999, l.max]
}

/// The chart of `curves`, titled `title`.
pub fn percentile_plot(title: &str, curves: &[Curve<'_>]) -> String {
    let all: Vec<f64> = curves.iter().flat_map(|c| figures(c.latency)).filter(|v| *v > 0.0).collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min).max(1.0).log10().floor();
    let hi = all.iter().copied().fold(0.0, f64::max).max(10.0).log10().ceil().max(lo + 1.0);
    let bottom = TOP + PLOT_H;
    let y_at = |ns: f64| bottom - PLOT_H * (ns.max(1.0).log10() - lo) / (hi - lo);
    let x_at = |nines: f64| LEFT + 8.0 + (WIDTH - LEFT - RIGHT - 16.0) * nines / 3.5;
    let height = bottom + 40.0 + curves.len().div_ceil(2) as f64 * LEGEND_ROW;
    let mut svg = open_titled(WIDTH, height, title);
    let right = WIDTH - RIGHT;
    for decade in lo as i32..=hi as i32 {
        let y = y_at(10f64.powi(decade));
        let _ = write!(
            svg,
            r##"<path d="M{LEFT} {y:.1}H{right}" stroke="#d0d7de" class="grid"/><text x="{:.1}" y="{:.1}" text-anchor="end" class="axis">{}</text>"##,
            LEFT - 6.0,
            y + 4.0,
            duration_ns(10f64.powi(decade))
        );
    }
    for (name, nines) in AT {
        let x = x_at(nines);
        let _ =
            write!(svg, r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" class="axis">{name}</text>"#, bottom + 16.0);
    }
    frame(&mut svg, LEFT, TOP, bottom, right);
    let mut seen: Vec<&str> = Vec::new();
    let one_environment = curves.iter().all(|c| c.environment == curves[0].environment);
    for (i, c) in curves.iter().enumerate() {
        let nth = seen.iter().filter(|e| **e == c.environment).count();
        seen.push(c.environment);
        // One environment: its colour would tell nothing, so each case gets its own (as a scan's lines do).
        let (ink, dash) = match one_environment {
            true => (super::scan::PALETTE[i % 8], DASHES[(i / 8) % DASHES.len()]),
            false => (colour(c.environment), DASHES[nth % DASHES.len()]),
        };
        let points: Vec<(f64, f64)> =
            AT.iter().zip(figures(c.latency)).map(|((_, n), v)| (x_at(*n), y_at(v))).collect();
        let path: Vec<String> = points.iter().map(|(x, y)| format!("{x:.1} {y:.1}")).collect();
        // The class a dark sheet recolours by: the environment's, or the case's own colour.
        let env = match one_environment {
            true => format!("s{}", i % 8),
            false => escape(c.environment),
        };
        let _ = write!(
            svg,
            r#"<path d="M{}" class="line {env}" stroke="{ink}" stroke-width="2" fill="none"{dash}/>"#,
            path.join("L")
        );
        for ((name, _), ((x, y), v)) in AT.iter().zip(points.iter().zip(figures(c.latency))) {
            let _ = write!(
                svg,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" class="dot {env}" fill="{ink}"><title>{}: {name} {}</title></circle>"#,
                escape(c.label),
                duration_ns(v)
            );
        }
        let column_w = (WIDTH - LEFT - RIGHT) / 2.0;
        let (x, y) = (LEFT + column_w * (i % 2) as f64, bottom + 40.0 + LEGEND_ROW * (i / 2) as f64);
        legend_entry(&mut svg, x, y, &Ink { colour: ink, dash, class: &env }, c.label);
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn latency(scale: f64) -> Latency {
        let f = |v: f64| v * scale;
        Latency {
            min: f(20.0),
            mean: f(50.0),
            stddev: 1.0,
            p50: f(40.0),
            p90: f(60.0),
            p99: f(90.0),
            p999: f(200.0),
            max: f(400.0),
        }
    }

    #[test]
    fn every_case_is_a_line_on_shared_log_axes_coloured_by_environment() {
        let (native, browser) = (latency(1_000.0), latency(100_000.0));
        let curves = [
            Curve { label: "native/curl", environment: "native", latency: &native },
            Curve { label: "native/raw", environment: "native", latency: &native },
            Curve { label: "chromium/<fetch>", environment: "chromium", latency: &browser },
        ];
        let svg = percentile_plot("Latency by percentile", &curves);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        // 20 µs to 40 ms: decades from 10 µs to 100 ms, each a grid line.
        for tick in [">10.0 µs<", ">100.0 µs<", ">1.00 ms<", ">10.00 ms<", ">100.00 ms<"] {
            assert!(svg.contains(tick), "{tick}: {svg}");
        }
        assert_eq!(svg.matches(r#"class="line native""#).count(), 4, "two lines and their legend entries");
        assert_eq!(svg.matches("<circle").count(), 18, "six percentiles per case");
        assert!(svg.contains("stroke-dasharray=\"6 3\""), "the second native case is dashed");
        assert!(svg.contains("chromium/&lt;fetch&gt;: max 40.00 ms"), "escaped labels, figures in tooltips");
        // A case 100× slower sits two decades higher: the same shape, shifted up by 2 of the plot's 4 decades.
        let y = |label: &str| -> f64 {
            let at = svg.find(&format!("<title>{label}: p50")).unwrap();
            let cy = svg[..at].rfind("cy=\"").unwrap() + 4;
            svg[cy..].split('"').next().unwrap().parse().unwrap()
        };
        assert!((y("native/curl") - y("chromium/&lt;fetch&gt;") - PLOT_H * 2.0 / 4.0).abs() < 0.2, "{svg}");
    }
}
