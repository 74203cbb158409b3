//! Human-readable numbers for reports: durations in the unit that fits, rates and byte counts.

/// A duration given in nanoseconds, in the largest unit that keeps it ≥ 1 (`812 ns`, `183.2 µs`, `4.51 ms`).
pub fn duration_ns(ns: f64) -> String {
    let (value, unit) = scale(ns, ns);
    format!("{value} {unit}")
}

/// `mean ± σ`, both in the mean's unit so they read as one figure.
pub fn mean_sigma_ns(mean: f64, sigma: f64) -> String {
    let (m, unit) = scale(mean, mean);
    let (s, _) = scale(sigma, mean);
    format!("{m} ± {s} {unit}")
}

/// Format `ns` in the unit chosen by the magnitude of `pick`.
fn scale(ns: f64, pick: f64) -> (String, &'static str) {
    let (div, unit, decimals) = if pick < 1e3 {
        (1.0, "ns", 0)
    } else if pick < 1e6 {
        (1e3, "µs", 1)
    } else if pick < 1e9 {
        (1e6, "ms", 2)
    } else {
        (1e9, "s", 3)
    };
    (format!("{:.*}", decimals, ns / div), unit)
}

/// A wait a person reads, in whole units: `45 s`, `3 min 20 s`, `2 h 5 min` (under a second: `1 s`).
pub fn wait(d: std::time::Duration) -> String {
    let s = d.as_secs_f64().round().max(1.0) as u64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 if s.is_multiple_of(60) => format!("{} min", s / 60),
        60..=3599 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// A rate with thousands kept readable: `12345/s` → `12345`, small rates with decimals.
pub fn rate(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}")
    } else if r >= 1.0 {
        format!("{r:.1}")
    } else {
        format!("{r:.3}")
    }
}

/// CPU time per request, in the unit that fits, where known.
pub fn cpu_us_per_request(cpu_secs: Option<f64>, iterations: u64) -> String {
    match cpu_secs {
        Some(s) if iterations > 0 => duration_ns(s * 1e9 / iterations as f64),
        _ => "n/a".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_pick_their_unit() {
        assert_eq!(duration_ns(812.4), "812 ns");
        assert_eq!(duration_ns(183_249.0), "183.2 µs");
        assert_eq!(duration_ns(4_512_000.0), "4.51 ms");
        assert_eq!(duration_ns(2_000_000_000.0), "2.000 s");
        assert_eq!(mean_sigma_ns(183_249.0, 20_110.0), "183.2 ± 20.1 µs");
        assert_eq!(mean_sigma_ns(950.0, 12.0), "950 ± 12 ns");
    }

    #[test]
    fn waits_read_in_whole_units() {
        let s = std::time::Duration::from_secs_f64;
        assert_eq!(wait(s(0.2)), "1 s");
        assert_eq!(wait(s(44.6)), "45 s");
        assert_eq!(wait(s(120.0)), "2 min");
        assert_eq!(wait(s(200.0)), "3 min 20 s");
        assert_eq!(wait(s(7500.0)), "2 h 5 min");
    }

    #[test]
    fn rates_and_cpu() {
        assert_eq!(rate(12345.6), "12346");
        assert_eq!(rate(12.34), "12.3");
        assert_eq!(rate(0.5), "0.500");
        assert_eq!(cpu_us_per_request(Some(0.5), 1000), "500.0 µs");
        assert_eq!(cpu_us_per_request(Some(6.5), 1000), "6.50 ms");
        assert_eq!(cpu_us_per_request(None, 1000), "n/a");
    }
}
