//! The environment panel, "This browser": user agent, `crossOriginIsolated` and how it was reached (headers or
//! the page's service worker), the measured `performance.now()` step, and a warning when that step is too
//! coarse for per-request percentiles (rates, timed over whole rounds, are not affected), by the report's own
//! rule ([`timer_too_coarse`]): against the last run's fastest median, or an absolute step before any run. It
//! shows the environment of the last run, or the browser's as detected when the page loaded, so before any run
//! too; the results' own Environment section says where each report shown ran.

use httpbench_shared::render::warnings::timer_too_coarse;
use httpbench_shared::units::duration_ns;
use httpbench_shared::{Environment, Report};
use leptos::prelude::*;

use super::PageState;

/// The environment panel; the environment of the last run comes from the page state (context).
// The component macro's expansion is flagged by unreachable_pub whatever the function's visibility.
#[allow(unreachable_pub)]
#[component]
pub(super) fn EnvironmentPanel() -> impl IntoView {
    let state = expect_context::<PageState>();
    let detected = crate::browser::environment(&[]);
    let env = move || state.own.with(|o| o.as_ref().map(|r| r.environment.clone())).unwrap_or_else(|| detected.clone());
    let p50 = move || state.own.with(|o| o.as_ref().and_then(fastest_median));
    view! {
        <section class="environment" aria-label="This browser" data-testid="environment">
            <h2>"This browser"</h2>
            {move || panel(&env(), p50())}
        </section>
    }
}

/// The smallest median latency of a run's cases: the one a coarse step quantizes most.
fn fastest_median(r: &Report) -> Option<f64> {
    r.cases.iter().filter_map(|c| c.latency_ns.map(|l| l.p50)).min_by(f64::total_cmp)
}

/// The panel for environment `e`, whose run (if any) had `p50_ns` as its fastest median latency.
fn panel(e: &Environment, p50_ns: Option<f64>) -> impl IntoView {
    let step = e.timer_resolution_ns;
    let isolated = e.cross_origin_isolated;
    let warning = step.filter(|s| timer_too_coarse(*s, p50_ns)).map(|s| {
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
            <dt>"Isolation"</dt>
            <dd data-testid="isolation">{crate::browser::isolation()}</dd>
            <dt>"performance.now() step"</dt>
            <dd data-testid="timer-resolution">{step.map_or("not measured".to_string(), duration_ns)}</dd>
        </dl>
        {warning.map(|w| view! { <p class="warning" role="note" data-testid="timer-warning">{w}</p> })}
    }
}
