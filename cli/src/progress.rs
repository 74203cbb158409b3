//! The progress bar on stderr: shown only when stderr is a terminal, so pipes and CI logs stay clean.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Progress of the whole run, or nothing when no bar is wanted.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar over `total` requests (a spinner when the total is unknown, as with `--duration`), if `wanted`
    /// and stderr is a terminal.
    pub fn new(total: Option<u64>, wanted: bool) -> Self {
        if !wanted || !std::io::stderr().is_terminal() {
            return Self::hidden();
        }
        let target = ProgressDrawTarget::stderr_with_hz(8);
        // The measured requests only (the warm-up is a stage of its own, counted nowhere), a rounded live rate,
        // and the time left by indicatif's estimate.
        let (bar, template) = match total {
            Some(n) => (
                ProgressBar::with_draw_target(Some(n), target),
                "{msg:>26} [{bar:30}] {pos}/{len} · {rate} · {eta} left",
            ),
            None => (ProgressBar::with_draw_target(None, target), "{msg:>26} {spinner} {pos} requests · {rate}"),
        };
        let style = ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
        let style = style.with_key("rate", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{} req/s", httpbench_shared::units::rate(state.per_sec()));
        });
        bar.set_style(style.progress_chars("=> "));
        Progress { bar: Some(bar) }
    }

    /// A line that says what runs now, with a spinner, for a run whose requests are counted elsewhere (the
    /// browser half's page), if `wanted` and stderr is a terminal.
    pub fn stages(wanted: bool) -> Self {
        if !wanted || !std::io::stderr().is_terminal() {
            return Self::hidden();
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(8));
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(125));
        Progress { bar: Some(bar) }
    }

    /// No bar at all.
    pub fn hidden() -> Self {
        Progress { bar: None }
    }

    /// Say what is running now.
    pub fn stage(&self, what: &str) {
        if let Some(b) = &self.bar {
            b.set_message(what.to_string());
        }
    }

    /// Count `n` more measured requests (indicatif redraws at most 8 times a second).
    pub fn advance(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.inc(n);
        }
    }

    /// Where other threads print their lines (a command client's stderr) without tearing the bar.
    pub fn printer(&self) -> Printer {
        Printer { bar: self.bar.clone() }
    }

    /// Remove the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// Prints whole lines on stderr above the progress bar, if there is one (a cheap handle; clone it freely).
#[derive(Debug, Clone)]
pub struct Printer {
    bar: Option<ProgressBar>,
}

impl Printer {
    /// Print `line` on stderr, above the bar.
    pub fn line(&self, line: &str) {
        match &self.bar {
            Some(b) if !b.is_hidden() => b.suspend(|| eprintln!("{line}")),
            _ => eprintln!("{line}"),
        }
    }
}
