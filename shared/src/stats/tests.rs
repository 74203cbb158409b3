//! The recorder on known inputs: exact moments, percentiles within the histogram's precision, outliers
//! against an exact computation, failures, rounds, phases and bins.

use super::*;

fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

#[test]
fn mean_and_stddev_are_exact_for_known_inputs() {
    // 2, 4, 4, 4, 5, 5, 7, 9 µs: mean 5, sample variance 32/7.
    let mut r = Recorder::new();
    for v in [2, 4, 4, 4, 5, 5, 7, 9] {
        r.record(&Outcome::response(200, 10), us(v));
    }
    let l = r.latency().unwrap();
    assert_eq!(l.mean, 5_000.0);
    let expected = (32.0f64 / 7.0).sqrt() * 1_000.0;
    assert!((l.stddev - expected).abs() < 1e-6, "{} vs {expected}", l.stddev);
    assert_eq!(l.min, 2_000.0);
    assert_eq!(l.max, 9_000.0);
    // The histogram keeps 3 significant digits: the median is 4 µs within 0.1%.
    assert!((l.p50 - 4_000.0).abs() <= 4.0, "{}", l.p50);
}

#[test]
fn percentiles_of_a_uniform_ramp_are_within_histogram_precision() {
    let mut r = Recorder::new();
    for v in 1..=10_000u64 {
        r.record(&Outcome::response(200, 1), Duration::from_nanos(v * 1_000));
    }
    let l = r.latency().unwrap();
    for (got, want) in [(l.p50, 5_000_000.0), (l.p90, 9_000_000.0), (l.p99, 9_900_000.0), (l.p999, 9_990_000.0)] {
        assert!((got - want).abs() / want < 0.001, "{got} vs {want}");
    }
}

#[test]
fn failures_are_counted_by_kind_and_status_but_not_timed() {
    let mut r = Recorder::new();
    r.record(&Outcome::response(200, 600), us(100));
    r.record(&Outcome::response(404, 20), us(1));
    r.record(&Outcome::failed(ErrorKind::Connect, None), us(1));
    r.record(&Outcome::failed(ErrorKind::Truncated, Some(200)), us(1));
    r.end_round(Duration::from_secs(2), None);
    let case = r.finish("curl", Mode::Reuse, None);
    assert_eq!(case.iterations, 4);
    assert_eq!(case.ok, 1);
    assert_eq!(case.bytes, 600);
    assert_eq!(case.errors[&ErrorKind::Status], 1);
    assert_eq!(case.errors[&ErrorKind::Connect], 1);
    assert_eq!(case.errors[&ErrorKind::Truncated], 1);
    assert_eq!(case.statuses["200"], 2);
    assert_eq!(case.statuses["404"], 1);
    assert_eq!(case.rate_wall, 0.5);
    assert_eq!(case.rate_cpu, None);
    assert_eq!(case.latency_ns.unwrap().max, 100_000.0);
}

#[test]
fn cpu_rate_follows_perl_iterations_over_cpu_seconds() {
    let mut r = Recorder::new();
    for _ in 0..100 {
        r.record(&Outcome::response(200, 1), us(10));
    }
    let cpu = CpuTime { user: Duration::from_millis(150), sys: Duration::from_millis(50) };
    r.end_round(Duration::from_secs(1), None);
    let case = r.finish("raw", Mode::Fresh, Some(cpu));
    assert_eq!(case.rate_cpu, Some(500.0));
    assert_eq!(case.cpu_user_secs, Some(0.15));
    assert_eq!(case.rate_wall, 100.0);
}

#[test]
fn no_ok_request_means_no_latency_and_zero_rate() {
    let mut r = Recorder::new();
    r.record(&Outcome::failed(ErrorKind::Connect, None), us(5));
    r.end_round(Duration::from_millis(5), None);
    let case = r.finish("ureq", Mode::Fresh, None);
    assert_eq!(case.latency_ns, None);
    assert_eq!(case.rate_wall, 0.0);
}

#[test]
fn rounds_sum_to_the_case_and_give_a_spread() {
    let mut r = Recorder::new();
    for (n, ms) in [(10, 100), (12, 100), (11, 100)] {
        for _ in 0..n {
            r.record(&Outcome::response(200, 1), us(10));
        }
        r.end_round(Duration::from_millis(ms), None);
    }
    let case = r.finish("raw", Mode::Reuse, None);
    assert_eq!(case.rounds.len(), 3);
    let round = case.rounds[1];
    assert_eq!((round.iterations, round.ok, round.wall_secs, round.cpu_secs), (12, 12, 0.1, None));
    // The histogram's 3 significant digits: within 0.1%.
    assert!(round.latency_p50_ns.is_some_and(|p| (p - 10_000.0).abs() <= 10.0), "{round:?}");
    assert!((case.wall_secs - 0.3).abs() < 1e-12);
    assert!((case.rate_wall - 110.0).abs() < 1e-9);
    let s = case.rate_wall_spread.unwrap();
    assert!((s.mean - 110.0).abs() < 1e-9 && (s.stddev - 10.0).abs() < 1e-9, "{s:?}");
}

/// Outliers by an exact, independent computation on the raw values.
fn exact_outliers(values: &[u64]) -> u64 {
    let median_of = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    };
    let mut xs: Vec<f64> = values.iter().map(|&v| v as f64).collect();
    let m = median_of(&mut xs);
    let mut dev: Vec<f64> = xs.iter().map(|x| (x - m).abs()).collect();
    let mad = median_of(&mut dev);
    xs.iter().filter(|x| 0.6745 * (*x - m).abs() / mad > 3.5).count() as u64
}

#[test]
fn outliers_match_an_exact_modified_z_score() {
    // A tight cluster around 100 µs with a few slow requests; odd count so both medians are exact values.
    let mut values: Vec<u64> = (0..999).map(|i| 95 + (i % 11)).collect();
    values.extend([400, 900, 2_000]);
    values.push(100);
    let mut r = Recorder::new();
    for &v in &values {
        r.record(&Outcome::response(200, 1), us(v));
    }
    let want = exact_outliers(&values);
    assert_eq!(want, 3);
    assert_eq!(r.latency_outliers(), want);
    // One slow request among identical ones: MAD is 0, so nothing is called an outlier.
    let mut flat = Recorder::new();
    for v in [100, 100, 100, 100, 5_000] {
        flat.record(&Outcome::response(200, 1), us(v));
    }
    assert_eq!(flat.latency_outliers(), 0);
}

#[test]
fn the_mean_without_outliers_leaves_out_exactly_the_outliers() {
    let mut values: Vec<u64> = (0..999).map(|i| 95 + (i % 11)).collect();
    values.extend([400, 900, 2_000, 100]);
    let mut r = Recorder::new();
    for &v in &values {
        r.record(&Outcome::response(200, 1), us(v));
    }
    let kept: Vec<u64> = values.iter().copied().filter(|&v| v < 400).collect();
    let want = kept.iter().sum::<u64>() as f64 * 1_000.0 / kept.len() as f64;
    let got = r.latency_mean_without_outliers().unwrap();
    // The outliers' 3.3 ms come from the histogram, each within half a bucket (under 0.9 µs in all), and
    // are spread over the 1000 other requests.
    assert!((got - want).abs() < 1.0, "{got} vs {want}");
    assert!(r.latency().unwrap().mean > want + 2_900.0);
    r.end_round(Duration::from_millis(100), None);
    assert_eq!(r.finish("curl", Mode::Reuse, None).latency_mean_without_outliers_ns, Some(got));
    // No outlier (a MAD of 0): exactly the mean. No ok request: none.
    let mut flat = Recorder::new();
    for v in [100, 100, 100, 100, 5_000] {
        flat.record(&Outcome::response(200, 1), us(v));
    }
    assert_eq!(flat.latency_mean_without_outliers(), Some(flat.latency().unwrap().mean));
    assert_eq!(Recorder::new().latency_mean_without_outliers(), None);
}

#[test]
fn phases_average_and_histogram_bins_count_every_ok_request() {
    let mut r = Recorder::new();
    assert!(r.histogram(4).is_empty());
    for v in [100, 110, 120, 400] {
        r.record(&Outcome::response(200, 1), us(v));
    }
    r.record(&Outcome::failed(ErrorKind::Connect, None), us(1));
    r.record_phases(&PhaseTimes { connect: us(30), tls: None, ttfb: us(90) });
    r.record_phases(&PhaseTimes { connect: Duration::ZERO, tls: None, ttfb: us(70) });
    let p = r.phases().unwrap();
    assert_eq!((p.samples, p.connect_mean, p.ttfb_mean, p.tls_mean), (2, 15_000.0, 80_000.0, None));
    // Over TLS, the handshake's mean comes from the requests that told it.
    let mut t = Recorder::new();
    t.record_phases(&PhaseTimes { connect: us(30), tls: Some(us(300)), ttfb: us(400) });
    t.record_phases(&PhaseTimes { connect: us(10), tls: Some(us(100)), ttfb: us(200) });
    assert_eq!(t.phases().unwrap().tls_mean, Some(200_000.0));
    let bins = r.histogram(3);
    assert_eq!(bins.iter().map(|b| b.count).collect::<Vec<_>>(), vec![3, 0, 1]);
    assert_eq!(bins[0].low_ns, 100_000.0);
    assert_eq!(bins[2].high_ns, 400_000.0);
    r.end_round(Duration::from_millis(1), None);
    assert_eq!(r.finish("fetch", Mode::Reuse, None).phases_ns, Some(p));
}

#[test]
fn huge_latencies_are_clamped_not_lost() {
    let mut r = Recorder::new();
    r.record(&Outcome::response(200, 1), Duration::from_secs(7_200));
    let l = r.latency().unwrap();
    assert_eq!(l.max, 7_200e9);
    assert!(l.p50 <= l.max);
}

#[test]
fn each_round_keeps_its_own_percentiles_and_cpu_time() {
    let mut r = Recorder::new();
    // Round 1: 99 requests of 10 µs and one of 1 ms; round 2: 100 of 100 µs; round 3: failures only.
    for _ in 0..99 {
        r.record(&Outcome::response(200, 1), us(10));
    }
    r.record(&Outcome::response(200, 1), us(1000));
    let cpu = CpuTime { user: Duration::from_millis(3), sys: Duration::from_millis(1) };
    r.end_round(Duration::from_millis(10), Some(cpu));
    for _ in 0..100 {
        r.record(&Outcome::response(200, 1), us(100));
    }
    r.end_round(Duration::from_millis(10), None);
    r.record(&Outcome::failed(ErrorKind::Connect, None), us(5));
    r.end_round(Duration::from_millis(1), None);
    let rounds = r.finish("raw", Mode::Reuse, None).rounds;
    let near = |x: Option<f64>, want: f64| x.is_some_and(|v| (v - want).abs() <= want * 0.001);
    assert!(near(rounds[0].latency_p50_ns, 10_000.0) && near(rounds[0].latency_p99_ns, 10_000.0), "{rounds:?}");
    assert_eq!(rounds[0].cpu_secs, Some(0.004));
    assert!(near(rounds[1].latency_p50_ns, 100_000.0) && near(rounds[1].latency_p99_ns, 100_000.0), "{rounds:?}");
    assert_eq!(rounds[1].cpu_secs, None);
    assert_eq!((rounds[2].latency_p50_ns, rounds[2].latency_p99_ns), (None, None), "no ok request, no percentile");
}
