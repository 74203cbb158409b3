//! A command client's word checked against httpbench's own clock. The adapter times each request itself;
//! httpbench times each batch, from asking for it to reading each line. The protocol is sequential (command
//! clients make one request at a time and are left out of levels above 1), so the requests answered so far
//! ran one after another inside that window: the times an adapter claims for them cannot add up to more than
//! the time since httpbench asked, give or take the clocks' error, and no request takes no time. A claim that
//! does not fit (0 ns, 584 years, or 10 s per request while answering 46,000 a second) is refused, and the
//! adapter is stopped as for any broken line. Checked line by line, so a lie is caught at the line that
//! tells it, before it reaches a figure.

use std::time::Duration;

use httpbench_shared::units::duration_ns;

/// The coarsest clock an adapter may time with: a request timed with a clock of this resolution reads at
/// most one tick longer than it took, so each line is allowed one tick over (a nanosecond monotonic clock
/// needs none of it; a microsecond one, Perl's or Python's `time.time()` through floats, does).
pub(super) const CLOCK_TICK: Duration = Duration::from_micros(1);

/// How much faster than httpbench's clock an adapter's may run, per million: two monotonic clocks of one
/// machine tick at one rate, except one that NTP does not slew (`CLOCK_MONOTONIC_RAW`), at most 500 ppm
/// apart; 1000 covers it twice over.
pub(super) const CLOCK_RATE_PPM: u128 = 1000;

/// The adapter's claims in one batch so far.
#[derive(Debug, Default)]
pub(super) struct Witness {
    claimed_ns: u128,
    lines: u128,
}

impl Witness {
    /// A new batch: nothing claimed yet.
    pub(super) fn new() -> Self {
        Self::default()
    }

    /// Take a request line's `latency`, read `since_asked` after httpbench asked for the batch. The error
    /// says what does not fit; the caller names the adapter and the line.
    pub(super) fn check(&mut self, latency: Duration, since_asked: Duration) -> Result<(), String> {
        if latency.is_zero() {
            return Err("a request of 0 ns: every request takes time; time each one with a monotonic clock \
                        around it (nanoseconds, at least 1)"
                .into());
        }
        self.claimed_ns += latency.as_nanos();
        self.lines += 1;
        let wall = since_asked.as_nanos();
        let allowed = wall + wall * CLOCK_RATE_PPM / 1_000_000 + self.lines * CLOCK_TICK.as_nanos();
        if self.claimed_ns <= allowed {
            return Ok(());
        }
        let (claimed, wall) = (duration_ns(self.claimed_ns as f64), duration_ns(wall as f64));
        let lines = if self.lines == 1 {
            "this request claims".to_string()
        } else {
            format!("its {} requests so far claim", self.lines)
        };
        Err(format!(
            "{lines} {claimed} in all, but httpbench asked for this batch {wall} ago and the requests run one \
             after another; time each request with a monotonic clock around it"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn honest_claims_pass_up_to_the_wall_and_the_clocks_error() {
        let mut w = Witness::new();
        // Three requests of 1 ms read as they come: each fits the time since the batch was asked.
        for i in 1..=3u32 {
            w.check(MS, MS * i).unwrap();
        }
        // The clocks' error: 0.1% of the wall and one tick per line. 4 lines in 4 ms allow 4.004 ms + 4 µs.
        let edge = Duration::from_nanos(1_000_000 + 4_000 + 4_000);
        w.check(edge, MS * 4).unwrap();
        let mut w = Witness::new();
        w.check(MS, MS).unwrap();
        let e = w.check(edge + Duration::from_nanos(1), MS * 2).unwrap_err();
        assert!(e.contains("its 2 requests so far claim 2.01 ms in all") && e.contains("2.00 ms ago"), "{e}");
    }

    #[test]
    fn zero_ages_and_slow_claims_at_a_fast_rate_are_refused_at_their_line() {
        let e = Witness::new().check(Duration::ZERO, MS).unwrap_err();
        assert!(e.contains("a request of 0 ns"), "{e}");
        let e = Witness::new().check(Duration::from_nanos(u64::MAX), Duration::from_secs(3600)).unwrap_err();
        assert!(e.contains("this request claims 18446744073.710 s in all") && e.contains("3600.000 s ago"), "{e}");
        // 10 s per request while answering 46,000 a second: the first line already does not fit.
        let per_line = Duration::from_secs(1) / 46_000;
        let e = Witness::new().check(Duration::from_secs(10), per_line).unwrap_err();
        assert!(e.contains("claims 10.000 s in all, but httpbench asked for this batch 21.7 µs ago"), "{e}");
    }

    #[test]
    fn the_sum_is_checked_not_each_line_alone() {
        // Each line alone fits its time since the batch was asked; together they claim twice the wall.
        let mut w = Witness::new();
        w.check(MS * 10, MS * 10).unwrap();
        let e = w.check(MS * 10, MS * 11).unwrap_err();
        assert!(e.contains("its 2 requests so far claim 20.00 ms"), "{e}");
    }
}
