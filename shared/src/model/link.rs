//! What the emulator of a `--link` did to a case's packets ([`LinkCounts`]): the figures that say the link
//! was the one asked for, or by how much it was not.

/// What the emulated link did to a case's packets during its measured rounds, each direction, as its
/// emulator counted them (a case's `link_` fields, typed). Sums, so the counts of rounds and of pooled runs add up.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LinkCounts {
    /// Packets from the client towards the server that reached the emulator.
    pub up_packets: u64,
    /// Of them, dropped as the link's loss.
    pub up_dropped: u64,
    /// Packets from the server towards the client that reached the emulator.
    pub down_packets: u64,
    /// Of them, dropped as the link's loss.
    pub down_dropped: u64,
    /// Sum of the one-way delays asked of the packets let through, in microseconds.
    pub asked_delay_us: u64,
    /// Sum of how much later than asked each packet was let through (the emulator's own delay), in
    /// microseconds.
    pub late_us: u64,
    /// The latest any packet was let through, in microseconds.
    pub late_max_us: u64,
    /// Packets a full queue dropped, both directions: the bandwidth limit's or the emulator's own. Not the
    /// link's loss: a sender overrunning a bounded queue loses packets on any real link.
    pub queue_dropped: u64,
}

impl LinkCounts {
    /// Both directions' counts together (a later round's added to an earlier's).
    pub fn add(&mut self, other: &LinkCounts) {
        self.up_packets += other.up_packets;
        self.up_dropped += other.up_dropped;
        self.down_packets += other.down_packets;
        self.down_dropped += other.down_dropped;
        self.asked_delay_us += other.asked_delay_us;
        self.late_us += other.late_us;
        self.late_max_us = self.late_max_us.max(other.late_max_us);
        self.queue_dropped += other.queue_dropped;
    }

    /// Packets let through, both directions.
    pub fn passed(&self) -> u64 {
        (self.up_packets - self.up_dropped.min(self.up_packets))
            + (self.down_packets - self.down_dropped.min(self.down_packets))
    }

    /// Share of packets dropped, both directions (0 to 1); `None` before any packet.
    pub fn loss(&self) -> Option<f64> {
        let seen = self.up_packets + self.down_packets;
        (seen > 0).then(|| (self.up_dropped + self.down_dropped) as f64 / seen as f64)
    }

    /// Mean one-way delay asked of a packet, and how much later than that packets went on average, in
    /// microseconds; `None` before any packet went through.
    pub fn delay_means_us(&self) -> Option<(f64, f64)> {
        let n = self.passed();
        (n > 0).then(|| (self.asked_delay_us as f64 / n as f64, self.late_us as f64 / n as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_add_up_and_means_and_loss_follow() {
        let mut all = LinkCounts::default();
        assert_eq!((all.loss(), all.delay_means_us()), (None, None));
        let round = LinkCounts {
            up_packets: 60,
            up_dropped: 10,
            down_packets: 40,
            down_dropped: 0,
            asked_delay_us: 2000 * 90,
            late_us: 50 * 90,
            late_max_us: 400,
            queue_dropped: 3,
        };
        all.add(&round);
        all.add(&LinkCounts { late_max_us: 900, ..round });
        assert_eq!((all.up_packets, all.passed(), all.late_max_us, all.queue_dropped), (120, 180, 900, 6));
        assert_eq!(all.loss(), Some(0.1));
        assert_eq!(all.delay_means_us(), Some((2000.0, 50.0)));
    }
}
