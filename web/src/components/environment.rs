//! The environment panel: user agent, `crossOriginIsolated`, the measured `performance.now()` step, and a
//! warning when that step is too coarse for per-request percentiles (rates, timed over whole rounds, are not
//! affected). It shows the environment of the last run, or the browser's as detected when the page loaded.

use httpbench_shared::units::duration_ns;
use httpbench_shared::Environment;
use leptos::prelude::*;

use super::PageState;

/// A timer step above this (in ns) is the coarse, non-isolated kind (100 µs in Chromium; 5 µs isolated).
const COARSE_STEP_NS: f64 = 20_000.0;

/// The environment panel.
#[component]
pub fn EnvironmentPanel(
    /// The page state (the environment of the last run).
    state: PageState,
) -> impl IntoView {
    let detected = crate::browser::environment(&[]);
    let env = move || state.own.with(|o| o.as_ref().map(|r| r.environment.clone())).unwrap_or_else(|| detected.clone());
    view! {
        <section class="environment" aria-label="Environment" data-testid="environment">
            <h2>"Environment"</h2>
            {move || panel(&env())}
        </section>
    }
}

fn panel(e: &Environment) -> impl IntoView {
    let step = e.timer_resolution_ns;
    let isolated = e.cross_origin_isolated;
    let warning = step.filter(|s| *s > COARSE_STEP_NS).map(|s| {
        format!(
            "The timer's step is {}: per-request latencies and percentiles are quantized to it. Rates are timed \
             over whole rounds and stay exact. Serve the page with Cross-Origin-Opener-Policy: same-origin and \
             Cross-Origin-Embedder-Policy: require-corp for a 5 µs step.",
            duration_ns(s)
        )
    });
    view! {
        <dl>
            <dt>"User agent"</dt>
            <dd data-testid="user-agent">{e.user_agent.clone().unwrap_or_else(|| "unknown".into())}</dd>
            <dt>"crossOriginIsolated"</dt>
            <dd data-testid="cross-origin-isolated">{isolated.map_or("unknown".to_string(), |b| b.to_string())}</dd>
            <dt>"performance.now() step"</dt>
            <dd data-testid="timer-resolution">{step.map_or("not measured".to_string(), duration_ns)}</dd>
        </dl>
        {warning.map(|w| view! { <p class="warning" role="note" data-testid="timer-warning">{w}</p> })}
    }
}
