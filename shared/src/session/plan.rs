//! How a run measures, and the one check of it both front ends make: a count or a duration per case, the
//! warm-up, the rounds and whether they interleave, within the limits of each environment (the page takes
//! less than the CLI: a typo in a link must not start a day-long run in someone's browser). `run --browser`
//! checks its plan against both, so the CLI refuses up front, naming the flag, what the page would refuse.

use std::fmt;
use std::time::Duration;

use super::field::{Field, Spelling};
use crate::model::EnvironmentKind;

/// How much to measure per case: a request count or a wall-clock duration, split evenly over the rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// This many measured requests per case.
    Count(u64),
    /// Requests for this much wall time per case.
    Duration(Duration),
}

/// What one round of a case may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundBudget {
    /// This many requests.
    Requests(u64),
    /// Requests until this much time has passed (at least one request).
    Time(Duration),
}

impl RoundBudget {
    /// Whether a round that has made `done` requests in `elapsed` should make another.
    pub fn wants_more(self, done: u64, elapsed: Duration) -> bool {
        match self {
            RoundBudget::Requests(n) => done < n,
            RoundBudget::Time(d) => done == 0 || elapsed < d,
        }
    }
}

/// How a run measures: the same for every case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Measured requests or time per case.
    pub budget: Budget,
    /// Requests per case before measuring, excluded from every figure.
    pub warmup: u64,
    /// Rounds per case (at least 1); their spread gives the confidence interval.
    pub rounds: u32,
    /// Round-robin across cases instead of case after case, so drift of the machine hits every case alike.
    pub interleave: bool,
}

impl Plan {
    /// The budget of round `round` (0-based): a count's remainder goes to the first rounds.
    pub fn round_budget(&self, round: u32) -> RoundBudget {
        let rounds = self.rounds.max(1);
        match self.budget {
            Budget::Duration(d) => RoundBudget::Time(d / rounds),
            Budget::Count(n) => {
                let r = u64::from(rounds);
                RoundBudget::Requests(n / r + u64::from(u64::from(round) < n % r))
            }
        }
    }

    /// The pass round `round` belongs to: the round itself when the rounds interleave (pass `r` is round `r`
    /// of every case), else 0 (the whole plan is one pass, case after case).
    pub fn pass_of(&self, round: u32) -> u32 {
        if self.interleave {
            round
        } else {
            0
        }
    }

    /// About how long `cases` cases take when a request takes `per_request` (one in flight): every case's
    /// warm-up and its count, or its duration; what a form says before Run.
    pub fn estimate(&self, cases: usize, per_request: Duration) -> Duration {
        let per_case = match self.budget {
            Budget::Count(n) => per_request.saturating_mul(u32::try_from(n + self.warmup).unwrap_or(u32::MAX)),
            Budget::Duration(d) => d + per_request.saturating_mul(u32::try_from(self.warmup).unwrap_or(u32::MAX)),
        };
        per_case.saturating_mul(u32::try_from(cases).unwrap_or(u32::MAX))
    }

    /// The (case index, round) pairs in the order they run.
    pub(super) fn order(&self, cases: usize) -> Vec<(usize, u32)> {
        let rounds = self.rounds.max(1);
        if self.interleave {
            (0..rounds).flat_map(|r| (0..cases).map(move |c| (c, r))).collect()
        } else {
            (0..cases).flat_map(|c| (0..rounds).map(move |r| (c, r))).collect()
        }
    }

    /// Check a plan as a front end read it against the limits of every environment in `environments` (the
    /// CLI with `--browser`: both). The count must cover one request per round.
    pub fn check(
        budget: Budget,
        warmup: u64,
        rounds: u64,
        interleave: bool,
        environments: &[EnvironmentKind],
    ) -> Result<Plan, PlanError> {
        for &env in environments {
            let limits = Limits::of(env);
            let out = |field, value, max| PlanError::OutOfRange { field, value, max, environment: env };
            if let Budget::Count(n) = budget {
                if n == 0 || n > limits.max_count {
                    return Err(out(Field::Count, n, limits.max_count));
                }
            }
            if rounds == 0 || rounds > u64::from(limits.max_rounds) {
                return Err(out(Field::Rounds, rounds, u64::from(limits.max_rounds)));
            }
            if warmup > limits.max_count {
                return Err(out(Field::Warmup, warmup, limits.max_count));
            }
        }
        // In range of some environment's `max_rounds`, so a u32.
        let rounds = u32::try_from(rounds).unwrap_or(u32::MAX);
        match budget {
            Budget::Count(n) if n < u64::from(rounds) => Err(PlanError::FewerThanRounds { count: n, rounds }),
            _ => Ok(Plan { budget, warmup, rounds, interleave }),
        }
    }
}

/// The largest plan an environment runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest count (and warm-up) per case.
    pub max_count: u64,
    /// Largest number of rounds.
    pub max_rounds: u32,
}

impl Limits {
    /// The limits of `environment`: natively a billion requests is days of benchmarking (larger is a typo);
    /// in the page a million, which is already an hour of a browser's time per case.
    pub const fn of(environment: EnvironmentKind) -> Limits {
        match environment {
            EnvironmentKind::Native => Limits { max_count: 1_000_000_000, max_rounds: 10_000 },
            EnvironmentKind::Browser => Limits { max_count: 1_000_000, max_rounds: 100 },
        }
    }
}

/// A plan that cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// A value beyond what `environment` runs.
    OutOfRange {
        /// Which value.
        field: Field,
        /// As given.
        value: u64,
        /// The largest `environment` takes.
        max: u64,
        /// Whose limit it is.
        environment: EnvironmentKind,
    },
    /// Fewer requests than rounds: some round would have none.
    FewerThanRounds {
        /// The count given.
        count: u64,
        /// The rounds given.
        rounds: u32,
    },
}

impl PlanError {
    /// The value to mend: the one out of range, or the count when it is fewer than the rounds.
    pub fn field(&self) -> Field {
        match *self {
            PlanError::OutOfRange { field, .. } => field,
            PlanError::FewerThanRounds { .. } => Field::Count,
        }
    }

    /// The one-line message, naming the values as `spelling` does.
    pub fn message(&self, spelling: Spelling) -> String {
        match *self {
            PlanError::OutOfRange { field, value, max, environment } => {
                let whose = match (environment, spelling) {
                    (EnvironmentKind::Browser, Spelling::Cli) => " (the browser page's limit, for --browser)",
                    _ => "",
                };
                format!("{} {value} is out of range: give {} to {max}{whose}", field.name(spelling), field.min())
            }
            PlanError::FewerThanRounds { count, rounds } => format!(
                "{} {count} is fewer than {} {rounds}: give at least one request per round",
                Field::Count.name(spelling),
                Field::Rounds.name(spelling)
            ),
        }
    }
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Spelling::Page))
    }
}

impl std::error::Error for PlanError {}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: [EnvironmentKind; 2] = [EnvironmentKind::Native, EnvironmentKind::Browser];

    #[test]
    fn an_estimate_counts_every_case_s_warmup_and_budget() {
        let ms = Duration::from_millis;
        let count = Plan { budget: Budget::Count(500), warmup: 20, rounds: 5, interleave: true };
        assert_eq!(count.estimate(8, ms(1)), ms(8 * 520));
        let timed = Plan { budget: Budget::Duration(Duration::from_secs(3)), ..count };
        assert_eq!(timed.estimate(2, ms(1)), ms(2 * (3000 + 20)));
        assert_eq!(count.estimate(0, ms(1)), Duration::ZERO);
    }

    #[test]
    fn a_plan_is_checked_against_every_environment_it_runs_in() {
        let ok = Plan::check(Budget::Count(2_000_000), 0, 5, true, &[EnvironmentKind::Native]).unwrap();
        assert_eq!(ok, Plan { budget: Budget::Count(2_000_000), warmup: 0, rounds: 5, interleave: true });
        let e = Plan::check(Budget::Count(2_000_000), 0, 5, true, &BOTH).unwrap_err();
        assert_eq!(
            e.message(Spelling::Cli),
            "-n/--count 2000000 is out of range: give 1 to 1000000 (the browser page's limit, for --browser)"
        );
        assert_eq!(e.message(Spelling::Page), "count 2000000 is out of range: give 1 to 1000000");
        let e = Plan::check(Budget::Count(500), 0, 200, true, &BOTH).unwrap_err();
        assert!(e.message(Spelling::Cli).starts_with("--rounds 200 is out of range: give 1 to 100"), "{e}");
        let e = Plan::check(Budget::Count(500), 0, 0, true, &[EnvironmentKind::Native]).unwrap_err();
        assert_eq!(e.message(Spelling::Cli), "--rounds 0 is out of range: give 1 to 10000");
        let e = Plan::check(Budget::Count(500), 2_000_000, 5, true, &BOTH).unwrap_err();
        assert!(e.message(Spelling::Page).starts_with("warm-up 2000000 is out of range: give 0 to"), "{e}");
        let e = Plan::check(Budget::Count(0), 0, 1, true, &[EnvironmentKind::Native]).unwrap_err();
        assert!(e.message(Spelling::Cli).starts_with("-n/--count 0 is out of range"), "{e}");
    }

    #[test]
    fn a_count_covers_one_request_per_round_and_a_duration_any() {
        let e = Plan::check(Budget::Count(2), 0, 3, true, &BOTH).unwrap_err();
        assert_eq!(
            e.message(Spelling::Cli),
            "-n/--count 2 is fewer than --rounds 3: give at least one request per round"
        );
        let timed = Budget::Duration(Duration::from_millis(10));
        assert_eq!(Plan::check(timed, 3, 100, false, &BOTH).unwrap().rounds, 100);
    }
}
