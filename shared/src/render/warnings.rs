//! The per-case warnings under a report, and the thresholds behind them: failed requests, noisy rounds,
//! latency outliers that matter, a timer too coarse for the latencies it measured. Each kind is one line that
//! names every case it applies to with its figure, then says once why it matters and what to do, so that a run
//! of many cases still reads in a few lines. The thresholds live here once; the page's environment panel uses
//! [`timer_too_coarse`] too.

use super::notes::{fit, Note};
use crate::model::Case;
use crate::units::duration_ns;
use crate::view::Row;

/// Rounds whose rates differ by more than this coefficient of variation are called noisy.
pub const NOISY_CV: f64 = 0.10;

/// Outliers that are more than this fraction of a case's ok requests get a warning, whatever they do to the
/// mean. A right tail alone makes a few percent outliers by the modified z-score: about 4% for an exponential
/// tail whatever its scale, under 2.5% for a log-normal one up to σ = 0.5 (p90 about twice the median). More
/// than 5% is a second, slower population of requests.
pub const OUTLIER_SHARE: f64 = 0.05;

/// Outliers that move a case's mean latency by more than this fraction of the mean without them get a
/// warning, however few they are. For sequential requests the wall rate is about 1 / mean latency, so this is
/// also about how far they move the rate. The tail of a tight distribution (log-normal, σ = 0.3) moves the
/// mean by about 1%, and 1.1% of requests at two or three times the median (a quiet loopback run) by 1–2.5%;
/// 1% of stalls at ten times the median move it by 10%.
pub const OUTLIER_MEAN_SHIFT: f64 = 0.05;

/// A timer step above this fraction of the median latency makes per-request figures quantized.
pub const COARSE_TIMER_FRACTION: f64 = 0.05;

/// With no median latency to compare with (no run yet), a timer step above this many nanoseconds is called
/// coarse: it is the 5% rule for a 400 µs median, and lies between the 5 µs step of a cross-origin isolated
/// browser and the 100 µs step of one that is not.
pub const COARSE_TIMER_FALLBACK_NS: f64 = 20_000.0;

/// Whether a timer step of `step_ns` is too coarse for per-request latencies: above [`COARSE_TIMER_FRACTION`]
/// of the median latency `p50_ns` where one was measured, else above [`COARSE_TIMER_FALLBACK_NS`].
pub fn timer_too_coarse(step_ns: f64, p50_ns: Option<f64>) -> bool {
    match p50_ns {
        Some(p50) => step_ns > COARSE_TIMER_FRACTION * p50,
        None => step_ns > COARSE_TIMER_FALLBACK_NS,
    }
}

/// How far a case's outliers move its mean latency, as a signed fraction of the mean without them; `None`
/// where no request was ok or the file does not say (written before `latency_mean_without_outliers_ns`).
pub fn outlier_mean_shift(case: &Case) -> Option<f64> {
    let mean = case.latency_ns?.mean;
    let without = case.latency_mean_without_outliers_ns.filter(|m| *m > 0.0)?;
    Some(mean / without - 1.0)
}

/// Whether a case's latency outliers matter: more than [`OUTLIER_SHARE`] of its ok requests, or moving its
/// mean by more than [`OUTLIER_MEAN_SHIFT`] (the share test only, for files that do not record the shift).
pub fn outliers_matter(case: &Case) -> bool {
    if case.ok == 0 || case.latency_outliers == 0 {
        return false;
    }
    let share = case.latency_outliers as f64 / case.ok as f64;
    share > OUTLIER_SHARE || outlier_mean_shift(case).is_some_and(|s| s.abs() > OUTLIER_MEAN_SHIFT)
}

/// The per-case warnings for `rows`: at most one line per kind.
pub(super) fn case_warnings(rows: &[Row<'_>]) -> Vec<Note> {
    let each = |item: fn(&Row<'_>) -> Option<String>| rows.iter().filter_map(item).collect::<Vec<_>>();
    let outliers_kind = format!(
        "latency outliers (above {:.0}% of requests, or moving the mean by more than {:.0}%)",
        OUTLIER_SHARE * 100.0,
        OUTLIER_MEAN_SHIFT * 100.0
    );
    [
        stopped(rows),
        Kind {
            name: "failed requests",
            short: "failed requests",
            advice: "Failed requests are left out of rates and latencies; check the URL and the server.",
            short_advice: "check the URL and the server",
        }
        .line(each(failures)),
        Kind {
            name: &format!("noisy rounds (CV above {:.0}%)", NOISY_CV * 100.0),
            short: &format!("noisy rounds (CV > {:.0}%)", NOISY_CV * 100.0),
            advice: "the machine is noisy. Re-run on a quieter machine, or raise -n or --rounds.",
            short_advice: "re-run quieter or raise --rounds",
        }
        .line(each(noisy_rounds)),
        Kind {
            name: &outliers_kind,
            short: "latency outliers",
            advice: "other work on the machine or a stalling server interfered (outliers: modified z-score above \
                     3.5). Mean and σ include them; the percentiles show their effect.",
            short_advice: "other work interfered, see p99",
        }
        .line(each(outliers)),
        Kind {
            name: &format!("coarse timer (step above {:.0}% of the median latency)", COARSE_TIMER_FRACTION * 100.0),
            short: "coarse timer",
            advice: "per-request latencies are quantized; rates, timed over whole rounds, are not affected.",
            short_advice: "rates unaffected",
        }
        .line(each(coarse_timer)),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// A kind of per-case warning, in the words of a file and of a terminal.
struct Kind<'a> {
    /// What went wrong, with the threshold.
    name: &'a str,
    /// What went wrong, in a few words.
    short: &'a str,
    /// Why it matters and what to do.
    advice: &'a str,
    /// What to do, in a few words.
    short_advice: &'a str,
}

impl Kind<'_> {
    /// `warning: {name}: {item}, {item}: {advice}`, or nothing when no case is listed. On a terminal every
    /// item with the advice if that fits, else every item alone, else as many items as fit with the advice and
    /// how many more.
    fn line(&self, items: Vec<String>) -> Option<Note> {
        if items.is_empty() {
            return None;
        }
        let text = format!("warning: {}: {}: {}", self.name, items.join(", "), self.advice);
        let line = |shown: usize, advice: bool| {
            let more = items.len() - shown;
            let more = if more > 0 { format!(" +{more} more") } else { String::new() };
            let advice = if advice { format!("; {}", self.short_advice) } else { String::new() };
            format!("warning: {}: {}{more}{advice}", self.short, items[..shown].join(", "))
        };
        let all = [line(items.len(), true), line(items.len(), false)];
        let fewer = (1..items.len()).rev().map(|shown| line(shown, true));
        let short = all
            .into_iter()
            .chain(fewer)
            .find(|line| line.chars().count() <= super::TEXT_COLUMNS)
            .unwrap_or_else(|| fit(&line(1, false)));
        Some(Note { text, short: Some(short) })
    }
}

/// `warning: cases stopped early: mine/fresh after 37 requests (mine: printed 'x'); ...: ...`, or nothing.
/// Reasons are sentences with commas of their own, so the cases are set apart by semicolons.
fn stopped(rows: &[Row<'_>]) -> Option<Note> {
    let items: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            Some(format!("{} after {} requests ({})", r.label, r.case.iterations, r.case.aborted.as_ref()?))
        })
        .collect();
    (!items.is_empty()).then(|| Note {
        text: format!(
            "warning: cases stopped early: {}: their figures are what they measured until then; the other cases \
             ran to their end.",
            items.join("; ")
        ),
        short: Some(fit(&format!("warning: cases stopped early: {}", items.join("; ")))),
    })
}

/// `curl/fresh 3 of 100 (connect: 2, status: 1; statuses 404×1)`.
fn failures(row: &Row<'_>) -> Option<String> {
    let c = row.case;
    let failed = c.failed();
    if failed == 0 {
        return None;
    }
    let kinds: Vec<String> = c.errors.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    let mut s = format!("{} {failed} of {} ({}", row.label, c.iterations, kinds.join(", "));
    let odd: Vec<String> =
        c.statuses.iter().filter(|(code, _)| !code.starts_with('2')).map(|(code, n)| format!("{code}×{n}")).collect();
    if !odd.is_empty() {
        s.push_str(&format!("; statuses {}", odd.join(", ")));
    }
    s.push(')');
    Some(s)
}

/// `curl/fresh 16.5%`: the CV of the case's per-round rates.
fn noisy_rounds(row: &Row<'_>) -> Option<String> {
    let s = row.case.rate_wall_spread?;
    (s.cv > NOISY_CV).then(|| format!("{} {:.1}%", row.label, s.cv * 100.0))
}

/// `curl/fresh 6.2% (mean +8.1%)`: the outliers' share of ok requests, and how far they move the mean.
fn outliers(row: &Row<'_>) -> Option<String> {
    let c = row.case;
    if !outliers_matter(c) {
        return None;
    }
    let mut s = format!("{} {:.1}%", row.label, c.latency_outliers as f64 / c.ok as f64 * 100.0);
    if let Some(shift) = outlier_mean_shift(c) {
        s.push_str(&format!(" (mean {:+.1}%)", shift * 100.0));
    }
    Some(s)
}

/// `fetch 5.3% (100.0 µs of 1.9 ms)`: the timer step as a share of the median latency.
fn coarse_timer(row: &Row<'_>) -> Option<String> {
    let step = row.report.environment.timer_resolution_ns?;
    let p50 = row.case.latency_ns?.p50;
    timer_too_coarse(step, Some(p50))
        .then(|| format!("{} {:.1}% ({} of {})", row.label, step / p50 * 100.0, duration_ns(step), duration_ns(p50)))
}
