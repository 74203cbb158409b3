//! What the scan charts draw: for each load dimension that varies among the cases shown (requests in flight,
//! body size, server delay), the wall rate against it, one series per client (and mode, HTTP version, source,
//! and the other dimensions' levels: everything in a case's label but the scanned dimension); for body
//! sizes also the body throughput (MB/s), where larger bodies trade requests for bytes.

use super::charts::{scan_chart, scan_chart_labelled, Series};
use crate::change::Metric;
use crate::headline::rate_interval;
use crate::model::Case;
use crate::protocol::size_label;
use crate::view::{LoadParts, Row};

/// One scan chart's figures, for [`super::charts::scan_chart_labelled`].
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ScanChart {
    /// What the chart shows, with its unit (`Wall rate (requests/s) by requests in flight`).
    pub title: String,
    /// The scanned dimension, as the x axis names it.
    pub x_name: &'static str,
    /// Whether x values are byte counts, labelled as body sizes are (`64k`, `1m`).
    pub x_is_size: bool,
    /// One line per client (and everything else but the scanned dimension).
    pub series: Vec<Series>,
}

/// A load dimension: its name on the axis, where a case stands on it, and its part of a case's label.
struct Dimension {
    name: &'static str,
    is_size: bool,
    x: fn(&Case) -> Option<f64>,
    part: fn(&Case) -> LoadParts,
}

const DIMENSIONS: [Dimension; 3] = [
    Dimension {
        name: "requests in flight",
        is_size: false,
        x: |c| Some(c.in_flight() as f64),
        part: |c| LoadParts { concurrency: Some(c.in_flight()), ..LoadParts::default() },
    },
    Dimension {
        name: "body bytes",
        is_size: true,
        // The target as given has no size asked for: its bodies' measured size places it.
        x: |c| c.body_bytes.map(|b| b as f64).or_else(|| c.bytes_per_ok().map(f64::round)),
        part: |c| LoadParts { body_bytes: Some(c.body_bytes), ..LoadParts::default() },
    },
    Dimension {
        name: "server delay (ms)",
        is_size: false,
        x: |c| Some(c.server_delay_ms.unwrap_or(0) as f64),
        part: |c| LoadParts { server_delay_ms: Some(c.server_delay_ms), ..LoadParts::default() },
    },
];

/// A figure a scan chart draws against a load dimension, with its 95% interval.
struct Figure {
    /// What it is, with its unit.
    title: &'static str,
    /// Drawn against body sizes only (bytes per second say nothing new against the other dimensions).
    sizes_only: bool,
    y: fn(&Case) -> Option<f64>,
    interval: fn(&Case) -> Option<(f64, f64)>,
}

/// In milliseconds, a latency in nanoseconds.
fn ms((lo, hi): (f64, f64)) -> (f64, f64) {
    (lo / 1e6, hi / 1e6)
}

/// The rate, the body throughput, and the latency's median and 99th percentile: with the rate by requests in
/// flight, the latencies make the throughput-latency view (where more load stops buying rate and starts
/// costing latency).
const FIGURES: [Figure; 4] = [
    Figure { title: "Wall rate (requests/s)", sizes_only: false, y: |c| Some(c.rate_wall), interval: rate_interval },
    Figure {
        title: "Body throughput (MB/s)",
        sizes_only: true,
        y: |c| c.bytes_per_sec().map(|b| b / 1e6),
        // The rate's interval, in the bytes each request brought.
        interval: |c| {
            let per_request = c.bytes_per_sec()? / 1e6 / c.rate_wall;
            rate_interval(c).filter(|_| per_request.is_finite()).map(|(lo, hi)| (lo * per_request, hi * per_request))
        },
    },
    Figure {
        title: "Median latency (ms)",
        sizes_only: false,
        y: |c| c.latency_ns.map(|l| l.p50 / 1e6),
        interval: |c| Metric::P50.interval(c).map(ms),
    },
    Figure {
        title: "p99 latency (ms)",
        sizes_only: false,
        y: |c| c.latency_ns.map(|l| l.p99 / 1e6),
        interval: |c| Metric::P99.interval(c).map(ms),
    },
];

/// The scan charts of `rows`: for each dimension with two values or more among them, each figure of
/// [`FIGURES`] that a series crosses two of them with. None when no scan ran.
pub(super) fn scan_charts(rows: &[Row<'_>]) -> Vec<ScanChart> {
    let mut out = Vec::new();
    for d in &DIMENSIONS {
        let mut values: Vec<f64> = Vec::new();
        for x in rows.iter().filter_map(|r| (d.x)(r.case)) {
            if !values.contains(&x) {
                values.push(x);
            }
        }
        if values.len() < 2 {
            continue;
        }
        for f in FIGURES.iter().filter(|f| d.is_size || !f.sizes_only) {
            let series = series(rows, d, f);
            if series.iter().any(|s| s.points.len() >= 2) {
                let title = format!("{} by {}", f.title, d.name);
                out.push(ScanChart { title, x_name: d.name, x_is_size: d.is_size, series });
            }
        }
    }
    out
}

/// The scan charts of `rows` as markup, one `<figure>` each (empty when no scan ran): what the HTML report
/// and the page both draw.
pub(super) fn scan_figures(rows: &[Row<'_>]) -> String {
    let mut body = String::new();
    for c in scan_charts(rows) {
        let svg = match c.x_is_size {
            true => scan_chart_labelled(&c.title, c.x_name, &c.series, &|x| size_label(x as u64)),
            false => scan_chart(&c.title, c.x_name, &c.series),
        };
        body.push_str("<figure class=\"scan\" data-testid=\"scan-chart\">");
        body.push_str(&svg);
        body.push_str("</figure>\n");
    }
    body
}

/// The rows as series along dimension `d`: grouped by their label without `d`'s part, in order of first
/// appearance, each point (`d`'s value, figure `f` of the case) with its interval where it has one.
fn series(rows: &[Row<'_>], d: &Dimension, f: &Figure) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for row in rows {
        let (Some(x), Some(y)) = ((d.x)(row.case), (f.y)(row.case)) else { continue };
        let label = without_part(&row.label, (d.part)(row.case));
        let s = match out.iter().position(|s| s.label == label) {
            Some(i) => &mut out[i],
            None => {
                out.push(Series { label, points: Vec::new(), intervals: Vec::new() });
                out.last_mut().expect("just pushed")
            }
        };
        s.points.push((x, y));
        s.intervals.extend((f.interval)(row.case).map(|(lo, hi)| (x, lo, hi)));
    }
    out
}

/// `label` without the load part `part` spells (its last occurrence: load parts end a label, and no other part
/// of one can contain another's, `/64k`, `/d5ms`, `/c16`).
fn without_part(label: &str, part: LoadParts) -> String {
    let mut spelled = String::new();
    part.push_to(&mut spelled);
    match label.rfind(&spelled).filter(|_| !spelled.is_empty()) {
        Some(i) => format!("{}{}", &label[..i], &label[i + spelled.len()..]),
        None => label.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;
    use crate::model::{EnvironmentKind, Mode};
    use crate::view::{rows, Source};
    use crate::Recorder;

    fn case(client: &str, concurrency: u64, body: Option<u64>, rate: f64) -> Case {
        let mut c = Recorder::new().finish(client, Mode::Reuse, None);
        c.concurrency = (concurrency > 1).then_some(concurrency);
        c.body_bytes = body;
        (c.rate_wall, c.ok, c.wall_secs) = (rate, 100, 100.0 / rate);
        c.bytes = 100 * body.unwrap_or(612);
        c
    }

    #[test]
    fn a_concurrency_scan_is_one_series_per_client() {
        let mut r = fixture::report(EnvironmentKind::Native);
        r.cases = vec![
            case("curl", 1, None, 100.0),
            case("raw", 1, None, 300.0),
            case("curl", 4, None, 350.0),
            case("raw", 4, None, 900.0),
        ];
        let charts = scan_charts(&rows(&[Source::new(&r)]));
        assert_eq!(charts.len(), 1, "{charts:?}");
        assert_eq!(charts[0].x_name, "requests in flight");
        let series =
            |label: &str, points: Vec<(f64, f64)>| Series { label: label.into(), points, intervals: Vec::new() };
        let (curl, raw) =
            (series("curl", vec![(1.0, 100.0), (4.0, 350.0)]), series("raw", vec![(1.0, 300.0), (4.0, 900.0)]));
        assert_eq!(charts[0].series, [curl, raw]);
    }

    #[test]
    fn a_body_size_scan_also_charts_the_throughput_and_keeps_the_other_dimension_in_labels() {
        let mut r = fixture::report(EnvironmentKind::Native);
        r.cases = vec![
            case("curl", 1, Some(1024), 1000.0),
            case("curl", 1, Some(65536), 400.0),
            case("curl", 8, Some(1024), 3000.0),
            case("curl", 8, Some(65536), 900.0),
        ];
        let charts = scan_charts(&rows(&[Source::new(&r)]));
        let titles: Vec<&str> = charts.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Wall rate (requests/s) by requests in flight",
                "Wall rate (requests/s) by body bytes",
                "Body throughput (MB/s) by body bytes"
            ]
        );
        let labels: Vec<&str> = charts[0].series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["curl/1k", "curl/64k"], "by concurrency: a line per body size");
        let labels: Vec<&str> = charts[1].series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["curl/c1", "curl/c8"], "by body size: a line per concurrency");
        // 400 requests/s of 64 KiB bodies: 26.2 MB/s.
        assert!((charts[2].series[0].points[1].1 - 26.2144).abs() < 1e-9, "{:?}", charts[2].series);
    }

    #[test]
    fn a_scan_with_latencies_and_rounds_draws_the_throughput_latency_view_with_intervals() {
        let mut r = fixture::report(EnvironmentKind::Native);
        r.cases = [(1, 1.0), (4, 2.0)]
            .map(|(n, slower)| {
                let mut c = case("curl", n, None, 1000.0 * n as f64 / slower);
                let (p50, p99) = (1e6 * slower, 3e6 * slower);
                let (min, mean, stddev, p90, p999, max) = (p50, p50, 0.0, p99, p99, p99);
                c.latency_ns = Some(crate::model::Latency { min, mean, stddev, p50, p90, p99, p999, max });
                // Three rounds of 100 requests, their p50 and p99 a little apart.
                c.rounds = [0.95, 1.0, 1.05]
                    .map(|k| crate::model::Round {
                        iterations: 100,
                        ok: 100,
                        wall_secs: 0.1 * k * slower / n as f64,
                        cpu_secs: None,
                        latency_p50_ns: Some(1e6 * k * slower),
                        latency_p99_ns: Some(3e6 * k * slower),
                    })
                    .to_vec();
                c
            })
            .to_vec();
        let charts = scan_charts(&rows(&[Source::new(&r)]));
        let titles: Vec<&str> = charts.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Wall rate (requests/s) by requests in flight",
                "Median latency (ms) by requests in flight",
                "p99 latency (ms) by requests in flight"
            ]
        );
        let p99 = &charts[2].series[0];
        assert_eq!(p99.points, [(1.0, 3.0), (4.0, 6.0)]);
        let (x, lo, hi) = p99.intervals[1];
        assert!(x == 4.0 && lo < 6.0 && hi > 6.0 && lo > 5.0 && hi < 7.0, "{:?}", p99.intervals);
        assert_eq!(charts[0].series[0].intervals.len(), 2, "the rate's intervals too");
    }

    #[test]
    fn no_scan_no_chart() {
        let mut r = fixture::report(EnvironmentKind::Native);
        r.cases = vec![case("curl", 1, None, 100.0), case("raw", 1, None, 300.0)];
        assert!(scan_charts(&rows(&[Source::new(&r)])).is_empty());
        // Levels that differ but no client ran at two of them: nothing to draw a line through.
        r.cases = vec![case("curl", 1, None, 100.0), case("raw", 4, None, 300.0)];
        assert!(scan_charts(&rows(&[Source::new(&r)])).is_empty());
    }
}
