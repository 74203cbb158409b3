//! Resource Timing: the connect and time-to-first-byte phases of the measured requests, where the browser
//! exposes them (same origin, or a target that sends `Timing-Allow-Origin`). Entries are read after each
//! round, outside the timed loop, and the buffer is cleared and sized per round so long runs never overflow
//! it (the default buffer holds 250 entries and then drops new ones).

use std::time::Duration;

use httpbench_shared::Recorder;
use wasm_bindgen::JsCast;
use web_sys::{Performance, PerformanceResourceTiming};

/// Entries kept beyond a round's requests (the page's own fetches, the import of a file, ...).
const SLACK: u32 = 64;

fn performance() -> Option<Performance> {
    web_sys::window()?.performance()
}

/// Clear the buffer and make room for a round of `requests`.
pub fn prepare(requests: u64) {
    if let Some(p) = performance() {
        p.clear_resource_timings();
        let size = u32::try_from(requests).unwrap_or(u32::MAX - SLACK).saturating_add(SLACK).max(250);
        p.set_resource_timing_buffer_size(size);
    }
}

/// The URL as Resource Timing names it (absolute, normalised), so entries can be matched exactly.
pub fn entry_name(url: &str) -> String {
    web_sys::Url::new(url).map(|u| u.href()).unwrap_or_else(|_| url.to_string())
}

/// Record the phases of the entries named `name` into `recorder`, then clear the buffer. Entries whose
/// timing is hidden (no `Timing-Allow-Origin`) have a zero `responseStart` and are skipped.
pub fn collect(name: &str, recorder: &mut Recorder) {
    let Some(p) = performance() else { return };
    for entry in p.get_entries_by_name_with_entry_type(name, "resource").iter() {
        let Ok(e) = entry.dyn_into::<PerformanceResourceTiming>() else { continue };
        if e.response_start() <= 0.0 {
            continue;
        }
        let connect = (e.connect_end() - e.connect_start()).max(0.0);
        let ttfb = (e.response_start() - e.start_time()).max(0.0);
        recorder.record_phases(ms(connect), ms(ttfb));
    }
    p.clear_resource_timings();
}

fn ms(v: f64) -> Duration {
    Duration::from_secs_f64(v / 1000.0)
}
