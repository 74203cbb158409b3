//! The delay line of one direction of an emulated link, without I/O: when a packet that reached it at a given
//! time leaves, or that it is lost. The packet queue ([`super::queue`]) asks it for every packet.

use std::time::Duration;

use httpbench_shared::protocol::Link;

/// One direction of a link: its one-way delay, jitter and loss, and when the last packet leaves (packets
/// leave in the order they came: a jittered packet waits for the one before it, as on a real link, which
/// does not reorder).
pub(crate) struct DelayLine {
    one_way: Duration,
    jitter_us: u64,
    loss_ppm: u32,
    rng: fastrand::Rng,
    last: Duration,
    /// How many times the link was changed: a packet held for an earlier link is let go at once.
    generation: u64,
}

impl DelayLine {
    /// A line for `link`, its random draws (jitter, loss) from `seed`.
    pub(crate) fn new(link: &Link, seed: u64) -> DelayLine {
        let mut line = DelayLine {
            one_way: Duration::ZERO,
            jitter_us: 0,
            loss_ppm: 0,
            rng: fastrand::Rng::with_seed(seed),
            last: Duration::ZERO,
            generation: 0,
        };
        line.set(link);
        line
    }

    /// Change to `link` (a scan's next link). The next packet waits for none that came before: the queue lets
    /// those go at once, between cases, so none is held behind the last link's delay.
    pub(crate) fn set(&mut self, link: &Link) {
        self.one_way = Duration::from_micros(link.one_way_us());
        self.jitter_us = link.jitter_us;
        self.loss_ppm = link.loss_ppm;
        self.last = Duration::ZERO;
        self.generation += 1;
    }

    /// Which link the line is at: the count of changes so far. A packet admitted at an earlier one is the last
    /// link's, to let go now; one admitted at this one keeps its time.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// When a packet that reached the line at `now` (since any fixed start) leaves it; `None`: it is lost.
    pub(crate) fn admit(&mut self, now: Duration) -> Option<Duration> {
        if self.loss_ppm > 0 && self.rng.u32(0..1_000_000) < self.loss_ppm {
            return None;
        }
        let mut delay = self.one_way;
        if self.jitter_us > 0 {
            let offset = self.rng.u64(0..=2 * self.jitter_us);
            delay = (delay + Duration::from_micros(offset)).saturating_sub(Duration::from_micros(self.jitter_us));
        }
        self.last = self.last.max(now + delay);
        Some(self.last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(rtt_ms: u64, jitter_us: u64, loss_ppm: u32) -> Link {
        Link { rtt_us: rtt_ms * 1000, jitter_us, loss_ppm, down_kbit: None, up_kbit: None }
    }

    #[test]
    fn each_packet_leaves_half_a_round_trip_after_it_came() {
        let mut line = DelayLine::new(&link(40, 0, 0), 1);
        for ms in [0, 1, 5, 100] {
            let now = Duration::from_millis(ms);
            assert_eq!(line.admit(now), Some(now + Duration::from_millis(20)));
        }
    }

    #[test]
    fn jitter_stays_within_its_bounds_and_never_reorders() {
        let mut line = DelayLine::new(&link(40, 5000, 0), 7);
        let (mut earliest, mut latest, mut last) = (Duration::MAX, Duration::ZERO, Duration::ZERO);
        for i in 0..10_000u64 {
            // A packet every 10 ms: far enough apart that order never holds one back.
            let now = Duration::from_millis(10 * i);
            let leaves = line.admit(now).unwrap();
            assert!(leaves >= last, "packet {i} left before the one before it");
            last = leaves;
            earliest = earliest.min(leaves - now);
            latest = latest.max(leaves - now);
        }
        assert!(earliest >= Duration::from_millis(15) && earliest < Duration::from_millis(16), "{earliest:?}");
        assert!(latest <= Duration::from_millis(25) && latest > Duration::from_millis(24), "{latest:?}");
        // Back to back, a packet waits for the one before it.
        let now = Duration::from_secs(1000);
        let a = line.admit(now).unwrap();
        assert!(line.admit(now).unwrap() >= a);
    }

    #[test]
    fn loss_drops_the_asked_share_and_a_change_takes_hold() {
        let mut line = DelayLine::new(&link(0, 0, 20_000), 42);
        let lost = (0..100_000).filter(|_| line.admit(Duration::ZERO).is_none()).count();
        assert!((1800..2200).contains(&lost), "2% of 100000 asked, {lost} lost");
        line.set(&link(10, 0, 0));
        assert!((0..1000).all(|_| line.admit(Duration::ZERO) == Some(Duration::from_millis(5))));
        // From 80 ms to none: the next packet does not wait behind the last one's 40 ms.
        let mut line = DelayLine::new(&link(80, 0, 0), 1);
        assert_eq!(line.admit(Duration::ZERO), Some(Duration::from_millis(40)));
        line.set(&link(0, 0, 0));
        assert_eq!(line.admit(Duration::from_millis(1)), Some(Duration::from_millis(1)));
    }
}
