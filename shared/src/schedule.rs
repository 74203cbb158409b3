//! The measurement schedule shared by both front ends: how a count or a duration is split into rounds, and
//! the order in which (case, round) pairs run — round-robin across cases when interleaving, so drift of the
//! machine hits every case alike (as Google's tachometer does). Pure logic: the front ends execute it.

use std::time::Duration;

/// How much to measure, and in what order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// Measured requests per case, split evenly over the rounds (`None` with a duration).
    pub count: Option<u64>,
    /// Measured wall time per case, split evenly over the rounds (`None` with a count).
    pub duration: Option<Duration>,
    /// Requests per case before measuring.
    pub warmup: u64,
    /// Rounds per case (at least 1).
    pub rounds: u32,
    /// Round-robin across cases instead of case after case.
    pub interleave: bool,
}

/// What one round of a case may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// This many requests.
    Requests(u64),
    /// Requests until this much time has passed (at least one request).
    Time(Duration),
}

impl Budget {
    /// Whether a round that has made `done` requests in `elapsed` should make another.
    pub fn wants_more(self, done: u64, elapsed: Duration) -> bool {
        match self {
            Budget::Requests(n) => done < n,
            Budget::Time(d) => done == 0 || elapsed < d,
        }
    }
}

impl Plan {
    /// The budget of round `round` (0-based): the count's remainder goes to the first rounds.
    pub fn budget(&self, round: u32) -> Budget {
        let rounds = u64::from(self.rounds.max(1));
        match (self.count, self.duration) {
            (_, Some(d)) => Budget::Time(d / self.rounds.max(1)),
            (Some(n), None) => Budget::Requests(n / rounds + u64::from(u64::from(round) < n % rounds)),
            (None, None) => Budget::Requests(0),
        }
    }

    /// The (case index, round) pairs in the order they run.
    pub fn order(&self, cases: usize) -> Vec<(usize, u32)> {
        let rounds = self.rounds.max(1);
        if self.interleave {
            (0..rounds).flat_map(|r| (0..cases).map(move |c| (c, r))).collect()
        } else {
            (0..cases).flat_map(|c| (0..rounds).map(move |r| (c, r))).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(interleave: bool) -> Plan {
        Plan { count: Some(10), duration: None, warmup: 2, rounds: 3, interleave }
    }

    #[test]
    fn budgets_split_the_count_and_the_duration() {
        let p = plan(true);
        let per_round: Vec<Budget> = (0..3).map(|r| p.budget(r)).collect();
        assert_eq!(per_round, vec![Budget::Requests(4), Budget::Requests(3), Budget::Requests(3)]);
        let d = Plan { count: None, duration: Some(Duration::from_secs(3)), ..p };
        assert_eq!(d.budget(0), Budget::Time(Duration::from_secs(1)));
        assert!(Budget::Time(Duration::from_secs(1)).wants_more(0, Duration::from_secs(5)), "at least one request");
        assert!(!Budget::Time(Duration::from_secs(1)).wants_more(3, Duration::from_secs(1)));
        assert!(!Budget::Requests(3).wants_more(3, Duration::ZERO));
    }

    #[test]
    fn interleaving_is_round_robin() {
        assert_eq!(plan(true).order(2), vec![(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]);
        assert_eq!(plan(false).order(2), vec![(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]);
    }
}
