//! Perl `Benchmark.pm` (version 1.23, `:hireswallclock`) output: the `timethese` lines and the `cmpthese` matrix,
//! reproduced rule for rule so that the same times give the same bytes (checked against Perl's own output in
//! `shared/tests/perl_golden.rs`).
//!
//! The one liberty: Perl always rates by CPU time. Callers choose the rate ([`RateBasis`]); with
//! [`RateBasis::Cpu`] and CPU times present, the output is exactly Perl's.

use crate::cfmt::{exp, fixed, general, pad_left, pad_right};

/// Which rate the Perl-style lines show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateBasis {
    /// Ok requests per wall-clock second: the only rate a browser can measure, and httpbench's default.
    Wall,
    /// Iterations per CPU second (user + sys): what Perl's `Benchmark` prints.
    Cpu,
}

/// The times of one case, as `timethese` needs them.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// Case name (Perl's hash key).
    pub name: String,
    /// Wall-clock seconds.
    pub wall_secs: f64,
    /// User and system CPU seconds, where known.
    pub cpu_secs: Option<(f64, f64)>,
    /// Iterations run (Perl's `n`).
    pub iterations: u64,
    /// Ok requests per wall second (used with [`RateBasis::Wall`]).
    pub rate_wall: f64,
}

impl Timing {
    /// The rate `cmpthese` compares, by Perl's formula for [`RateBasis::Cpu`] (including its epsilon).
    pub fn rate(&self, basis: RateBasis) -> f64 {
        match (basis, self.cpu_secs) {
            (RateBasis::Cpu, Some((user, sys))) => {
                // Benchmark::cpu_a is pu+ps+cu+cs; children's times are always 0 here.
                self.iterations as f64 / ((user + sys + 0.0 + 0.0) + 0.000000000000001)
            }
            _ => self.rate_wall,
        }
    }
}

const WARN_TOO_FEW: &str = "            (warning: too few iterations for a reliable count)\n";

/// The `Benchmark: timing N iterations of a, b...` header, or Perl's `running a, b, each for at least D ...`
/// form when cases ran for a duration (Perl's negative count; ours is wall-clock). Names are sorted as Perl's
/// `sort keys` does.
pub fn timethese_header(timings: &[Timing], duration_secs: Option<f64>) -> String {
    let names = sorted(timings).iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ");
    if let Some(d) = duration_secs {
        let each = if timings.len() > 1 { ", each" } else { "" };
        return format!("Benchmark: running {names}{each} for at least {} wallclock seconds...\n", general(d));
    }
    match timings.first().map(|t| t.iterations) {
        Some(n) if timings.iter().all(|t| t.iterations == n) => {
            format!("Benchmark: timing {n} iterations of {names}...\n")
        }
        // Perl has no header for unequal counts; its count-free form reads true.
        _ => format!("Benchmark: running {names}...\n"),
    }
}

/// The whole `timethese` block: header, then one line (and maybe a warning) per case, sorted by name.
pub fn timethese(timings: &[Timing], basis: RateBasis, duration_secs: Option<f64>) -> String {
    let mut out = timethese_header(timings, duration_secs);
    for t in sorted(timings) {
        out.push_str(&timethis_line(t, basis));
    }
    out
}

/// One `timethis` line: `%10s: ` then `timestr`, then Perl's too-few-iterations warning when it applies.
pub fn timethis_line(t: &Timing, basis: RateBasis) -> String {
    let mut s = format!("{:>10}: {}", t.name, timestr(t, basis));
    s.push('\n');
    if too_few_iterations(t, basis) {
        s.push_str(WARN_TOO_FEW);
    }
    s
}

/// Perl's warning rule. Benchmark.pm: `$n < $Min_Count || ($t->real < 1 && $n < 1000) || $t->cpu_a < $Min_CPU`
/// (4 and 0.4 s). The CPU clause is Perl's alone: with wall-clock rates only the first two apply.
pub fn too_few_iterations(t: &Timing, basis: RateBasis) -> bool {
    let perl_rule = t.iterations < 4 || (t.wall_secs < 1.0 && t.iterations < 1000);
    match (basis, t.cpu_secs) {
        (RateBasis::Cpu, Some((user, sys))) => perl_rule || user + sys < 0.4,
        _ => perl_rule,
    }
}

/// Perl's `timestr` in the `noc` style with `%5.2f` and the `%2g` wallclock of `:hireswallclock`.
fn timestr(t: &Timing, basis: RateBasis) -> String {
    let wall = pad_left(&general(t.wall_secs), 2);
    let cpu = match t.cpu_secs {
        Some((user, sys)) => format!(
            "({} usr + {} sys = {} CPU)",
            pad_left(&fixed(user, 2), 5),
            pad_left(&fixed(sys, 2), 5),
            pad_left(&fixed(user + sys, 2), 5)
        ),
        None => "(  n/a usr +   n/a sys =   n/a CPU)".to_string(),
    };
    let rate = match (basis, t.cpu_secs) {
        (RateBasis::Cpu, Some((user, sys))) => {
            let elapsed = user + sys;
            (t.iterations > 0 && elapsed != 0.0).then(|| t.iterations as f64 / elapsed)
        }
        _ => (t.iterations > 0 && t.wall_secs > 0.0).then_some(t.rate_wall),
    };
    let mut s = format!("{wall} wallclock secs {cpu}");
    if let Some(rate) = rate {
        s.push_str(&format!(" @ {}/s (n={})", pad_left(&fixed(rate, 2), 5), t.iterations));
    }
    s
}

fn sorted(timings: &[Timing]) -> Vec<&Timing> {
    let v: Vec<&Timing> = timings.iter().collect();
    crate::order::sorted_by(&v, &|a, b| a.name.as_bytes().cmp(b.name.as_bytes()))
}

/// The `cmpthese` chart for (name, rate) pairs: rows slowest first, `Rate` or `s/iter`, Perl's widths.
pub fn cmpthese(rates: &[(String, f64)]) -> String {
    if rates.is_empty() {
        return String::new();
    }
    let vals: Vec<&(String, f64)> = rates.iter().collect();
    // Perl's sort is a stable merge sort; equal rates keep the caller's order.
    let vals = crate::order::sorted_by(&vals, &|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
    let display_as_rate = vals[(vals.len() - 1) >> 1].1 > 1.0;

    let mut rows: Vec<Vec<String>> = Vec::with_capacity(vals.len() + 1);
    let mut top = vec![String::new(), if display_as_rate { "Rate" } else { "s/iter" }.to_string()];
    top.extend(vals.iter().map(|v| v.0.clone()));
    let mut widths: Vec<usize> = top.iter().map(|s| s.chars().count()).collect();
    rows.push(top);

    for (name, row_rate) in &vals {
        let mut row = vec![name.clone(), format_rate(*row_rate, display_as_rate)];
        for (col_name, col_rate) in &vals {
            row.push(if col_name == name {
                "--".to_string()
            } else {
                format!("{}%", fixed(100.0 * row_rate / col_rate - 100.0, 0))
            });
        }
        for (w, cell) in widths.iter_mut().zip(&row) {
            *w = (*w).max(cell.chars().count());
        }
        rows.push(row);
    }
    stretch(&mut widths);

    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, w))| if i == 0 { pad_right(cell, *w) } else { pad_left(cell, *w) })
            .collect();
        out.push_str(&cells.join(" "));
        out.push('\n');
    }
    out
}

/// Column 1 of a `cmpthese` row: fewer decimals the bigger the number, scientific below 0.1.
fn format_rate(row_rate: f64, display_as_rate: bool) -> String {
    let rate = if display_as_rate { row_rate } else { 1.0 / row_rate };
    let mut s = if rate >= 100.0 {
        fixed(rate, 0)
    } else if rate >= 10.0 {
        fixed(rate, 1)
    } else if rate >= 1.0 {
        fixed(rate, 2)
    } else if rate >= 0.1 {
        fixed(rate, 3)
    } else {
        exp(rate, 2)
    };
    if display_as_rate {
        s.push_str("/s");
    }
    s
}

/// Perl's column equalizer: widen the narrowest ratio columns, in their sorted order, toward the widest while
/// the chart is under 80 characters. Columns 0 and 1 are left alone.
fn stretch(widths: &mut [usize]) {
    if widths.len() < 3 {
        return;
    }
    let order: Vec<usize> = crate::order::stable_order(widths.len() - 2, &|a, b| widths[a + 2].cmp(&widths[b + 2]))
        .iter()
        .map(|i| i + 2)
        .collect();
    let max_width = widths[order[order.len() - 1]];
    let mut total = widths.len() - 1 + widths.iter().sum::<usize>();
    'stretcher: while total < 80 {
        let min_width = widths[order[0]];
        if min_width == max_width {
            break;
        }
        for &i in &order {
            if widths[i] > min_width {
                break;
            }
            widths[i] += 1;
            total += 1;
            if total >= 80 {
                break 'stretcher;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(wall_secs: f64, iterations: u64, cpu: Option<(f64, f64)>) -> Timing {
        Timing { name: "x".into(), wall_secs, cpu_secs: cpu, iterations, rate_wall: 1.0 }
    }

    #[test]
    fn too_few_iterations_on_both_sides_of_each_threshold() {
        let w = RateBasis::Wall;
        assert!(too_few_iterations(&timing(5.0, 3, None), w));
        assert!(!too_few_iterations(&timing(5.0, 4, None), w));
        assert!(too_few_iterations(&timing(0.99, 999, None), w));
        assert!(!too_few_iterations(&timing(0.99, 1000, None), w));
        assert!(!too_few_iterations(&timing(1.0, 999, None), w));
        // Perl's CPU clause, only with CPU rates.
        assert!(too_few_iterations(&timing(5.0, 5000, Some((0.2, 0.19))), RateBasis::Cpu));
        assert!(!too_few_iterations(&timing(5.0, 5000, Some((0.2, 0.2))), RateBasis::Cpu));
        assert!(!too_few_iterations(&timing(5.0, 5000, Some((0.2, 0.19))), w));
    }
}
