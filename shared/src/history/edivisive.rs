//! E-divisive means (Matteson & James 2014, "A Nonparametric Approach for Multiple Change Point Analysis of
//! Multivariate Data"): split a series where the energy distance between the two sides is largest, keep the
//! split when a permutation test says it is significant, and repeat inside the pieces. It adapts to a series'
//! own noise instead of a fixed threshold; Apache Otava (formerly Hunter) runs the same algorithm, and a test
//! checks both find the same change points.
//!
//! Pure: the permutation test's shuffles come from a generator seeded by the caller, so one series always
//! gives the same answer.

/// How change points are tested.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detect {
    /// A split is kept when its p-value is at most this (0.01: about one false change point in 100 series of
    /// pure noise).
    pub alpha: f64,
    /// Permutations per test; the smallest p-value it can give is 1 / (permutations + 1).
    pub permutations: u32,
    /// Seed of the shuffles.
    pub seed: u64,
}

impl Default for Detect {
    fn default() -> Self {
        // R = 199 as Matteson and James's `ecp` package; 0.01 rather than its 0.05, because a history is read
        // over many series and every false change point costs someone an investigation.
        Detect { alpha: 0.01, permutations: 199, seed: 0x6874_7470_6265_6e63 }
    }
}

/// A change point: the series' values from `index` on differ in distribution from those before it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Found {
    /// The first value after the change.
    pub index: usize,
    /// The energy statistic of the split (Q̂): how far apart the two sides are, scaled by their sizes.
    pub qhat: f64,
    /// The permutation test's p-value: the share of shuffles (within the pieces) that split as well or better,
    /// counting the series itself, (extreme + 1) / (permutations + 1).
    pub p_value: f64,
}

/// The change points of `series`, in index order. Non-finite values are the caller's to remove.
pub fn change_points(series: &[f64], detect: &Detect) -> Vec<Found> {
    let mut rng = fastrand::Rng::with_seed(detect.seed);
    let mut found: Vec<Found> = Vec::new();
    loop {
        let bounds = pieces(series.len(), &found);
        let Some(candidate) = best_split(series, &bounds) else { break };
        let mut extreme = 0u32;
        let mut shuffled = series.to_vec();
        for _ in 0..detect.permutations {
            shuffled.copy_from_slice(series);
            // Shuffle within each piece: the change points already found stay, only the new one is tested.
            for &(start, end) in &bounds {
                rng.shuffle(&mut shuffled[start..end]);
            }
            if best_split(&shuffled, &bounds).is_some_and(|c| c.qhat >= candidate.qhat) {
                extreme += 1;
                // Past this many, the p-value cannot come below alpha whatever the remaining shuffles give:
                // the decision is made (the split is not kept, and its p-value is reported nowhere).
                if f64::from(extreme + 1) / f64::from(detect.permutations + 1) > detect.alpha {
                    break;
                }
            }
        }
        let p_value = f64::from(extreme + 1) / f64::from(detect.permutations + 1);
        if p_value > detect.alpha {
            break;
        }
        found.push(Found { index: candidate.index, qhat: candidate.qhat, p_value });
        found.sort_by_key(|f| f.index);
    }
    found
}

/// The pieces `[start, end)` of a series of `len` values that the change points `found` (sorted) cut.
fn pieces(len: usize, found: &[Found]) -> Vec<(usize, usize)> {
    let mut cuts: Vec<usize> = vec![0];
    cuts.extend(found.iter().map(|f| f.index));
    cuts.push(len);
    cuts.windows(2).map(|w| (w[0], w[1])).filter(|(a, b)| b > a).collect()
}

/// A split candidate: its index and statistic.
#[derive(Debug, Clone, Copy)]
struct Split {
    index: usize,
    qhat: f64,
}

/// The best split over every piece of at least two values (the largest Q̂), as the next change point to test.
fn best_split(series: &[f64], bounds: &[(usize, usize)]) -> Option<Split> {
    bounds.iter().filter(|(start, end)| end - start > 1).map(|&(start, end)| best_in(&series[start..end], start)).fold(
        None,
        |best: Option<Split>, s| match best {
            Some(b) if b.qhat >= s.qhat => Some(b),
            _ => Some(s),
        },
    )
}

/// The split of `z` (at least two values) that maximises Q̂(τ, κ) over left = z[..τ], right = z[τ..κ], every
/// 0 < τ < κ ≤ len (the right side may stop short of the end, as in the paper); `offset` places it in the series.
///
/// Q̂ = 2/(n+m)·Σ|x−y| − 2m/((n+m)(n−1))·Σ_{i<k}|xᵢ−xₖ| − 2n/((n+m)(m−1))·Σ_{j<k}|yⱼ−yₖ|, for n values left and
/// m right (a sum over a side of one value is zero). Sums grow by one column at a time from the column prefix
/// sums of the distance matrix, so a piece of length L costs O(L²) rather than O(L⁴).
fn best_in(z: &[f64], offset: usize) -> Split {
    let len = z.len();
    // prefix[k][i] = Σ_{i' < i} |z[i'] − z[k]|, for i in 0..=k.
    let prefix: Vec<Vec<f64>> = (0..len)
        .map(|k| {
            let mut row = Vec::with_capacity(k + 1);
            let mut sum = 0.0;
            row.push(0.0);
            for zi in &z[..k] {
                sum += (zi - z[k]).abs();
                row.push(sum);
            }
            row
        })
        .collect();
    let mut best = Split { index: offset + 1, qhat: f64::NEG_INFINITY };
    let mut within_left = 0.0;
    for tau in 1..len {
        // Σ over pairs in z[..tau]: add the pairs the value tau − 1 makes with those before it.
        within_left += prefix[tau - 1][tau - 1];
        let n = tau as f64;
        let (mut between, mut within_right) = (0.0, 0.0);
        for kappa in tau + 1..=len {
            let newest = kappa - 1;
            between += prefix[newest][tau];
            within_right += prefix[newest][newest] - prefix[newest][tau];
            let m = (kappa - tau) as f64;
            let left_term = if tau > 1 { 2.0 * m / ((n + m) * (n - 1.0)) * within_left } else { 0.0 };
            let right_term = if kappa - tau > 1 { 2.0 * n / ((n + m) * (m - 1.0)) * within_right } else { 0.0 };
            let qhat = 2.0 / (n + m) * between - left_term - right_term;
            if qhat > best.qhat {
                best = Split { index: offset + tau, qhat };
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Q̂ of one split, by the definition's sums: the check of the incremental sums.
    fn qhat_direct(x: &[f64], y: &[f64]) -> f64 {
        let (n, m) = (x.len() as f64, y.len() as f64);
        let between: f64 = x.iter().flat_map(|a| y.iter().map(move |b| (a - b).abs())).sum();
        let pairs = |v: &[f64]| -> f64 {
            (0..v.len()).flat_map(|i| (i + 1..v.len()).map(move |k| (i, k))).map(|(i, k)| (v[i] - v[k]).abs()).sum()
        };
        let l = if x.len() > 1 { 2.0 * m / ((n + m) * (n - 1.0)) * pairs(x) } else { 0.0 };
        let r = if y.len() > 1 { 2.0 * n / ((n + m) * (m - 1.0)) * pairs(y) } else { 0.0 };
        2.0 / (n + m) * between - l - r
    }

    #[test]
    fn incremental_sums_match_the_definition() {
        let z = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0];
        let mut best = (0, f64::NEG_INFINITY);
        for tau in 1..z.len() {
            for kappa in tau + 1..=z.len() {
                let q = qhat_direct(&z[..tau], &z[tau..kappa]);
                if q > best.1 {
                    best = (tau, q);
                }
            }
        }
        let split = best_in(&z, 0);
        assert_eq!(split.index, best.0);
        assert!((split.qhat - best.1).abs() < 1e-9, "{} vs {}", split.qhat, best.1);
    }

    /// Deterministic noise: a normal-ish value from a seeded generator (sum of 12 uniforms − 6).
    fn noise(rng: &mut fastrand::Rng) -> f64 {
        (0..12).map(|_| rng.f64()).sum::<f64>() - 6.0
    }

    #[test]
    fn finds_a_step_where_it_is() {
        let mut rng = fastrand::Rng::with_seed(7);
        let series: Vec<f64> = (0..40).map(|i| if i < 25 { 100.0 } else { 110.0 } + noise(&mut rng)).collect();
        let found = change_points(&series, &Detect::default());
        assert_eq!(found.iter().map(|f| f.index).collect::<Vec<_>>(), vec![25]);
        assert!(found[0].p_value <= 0.01);
    }

    #[test]
    fn finds_two_steps() {
        let mut rng = fastrand::Rng::with_seed(11);
        let level = |i: usize| match i {
            0..=19 => 50.0,
            20..=39 => 60.0,
            _ => 45.0,
        };
        let series: Vec<f64> = (0..60).map(|i| level(i) + noise(&mut rng)).collect();
        let found = change_points(&series, &Detect::default());
        assert_eq!(found.iter().map(|f| f.index).collect::<Vec<_>>(), vec![20, 40]);
    }

    #[test]
    fn rarely_finds_anything_in_noise() {
        // 100 series of pure noise: at alpha 0.01, about one false change point is expected; 5 or more would
        // happen by chance with probability below 0.4% (binomial), so this fails only on a real bias.
        let mut rng = fastrand::Rng::with_seed(3);
        let alarms = (0..100)
            .filter(|_| {
                let series: Vec<f64> = (0..30).map(|_| 20.0 + noise(&mut rng)).collect();
                !change_points(&series, &Detect::default()).is_empty()
            })
            .count();
        assert!(alarms < 5, "{alarms} of 100 noise series had a change point");
    }

    #[test]
    fn short_and_flat_series_have_none() {
        for series in [&[][..], &[1.0][..], &[1.0, 2.0][..], &[5.0; 20][..]] {
            assert!(change_points(series, &Detect::default()).is_empty(), "{series:?}");
        }
    }

    #[test]
    fn the_same_series_gives_the_same_answer() {
        let mut rng = fastrand::Rng::with_seed(5);
        let series: Vec<f64> = (0..30).map(|i| if i < 12 { 1.0 } else { 1.4 } + noise(&mut rng) / 10.0).collect();
        let d = Detect::default();
        assert_eq!(change_points(&series, &d), change_points(&series, &d));
    }
}
