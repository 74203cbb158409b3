//! Resource Timing: the connect, TLS and time-to-first-byte phases of the measured requests, where the browser
//! exposes them (same origin, or a target that sends `Timing-Allow-Origin`). Entries are read after each
//! round, outside the timed loop, and handed back for the run's session to record; the buffer is cleared and
//! sized per round so long runs never overflow it (the default buffer holds 250 entries and then drops new
//! ones).

use std::time::Duration;

use httpbench_shared::model::HttpVersion;
use httpbench_shared::session::RoundBudget;
use httpbench_shared::PhaseTimes;
use wasm_bindgen::JsCast;
use web_sys::{Performance, PerformanceResourceTiming};

use crate::settings::MAX_COUNT;

/// Entries kept beyond a round's requests (the page's own fetches, the import of a file, ...).
const SLACK: u32 = 64;

fn performance() -> Option<Performance> {
    web_sys::window()?.performance()
}

/// Clear the buffer and make room for a round of `budget`. A timed round's request count is unknown in
/// advance: it gets room for as many as the largest count the page accepts. The limit only caps the buffer
/// (entries use memory as requests make them, as a count's would), and past it the browser drops the newest
/// entries, so the phases then describe the round's first requests; `phases_ns.samples` says how many.
pub fn prepare(budget: RoundBudget) {
    let requests = match budget {
        RoundBudget::Requests(n) => n,
        RoundBudget::Time(_) => MAX_COUNT,
    };
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

/// The phases of the entries named `name`, in the order the requests were made, and the HTTP version the
/// first of them came over (`nextHopProtocol`); then clear the buffer. Entries whose timing is hidden (no
/// `Timing-Allow-Origin`) have a zero `responseStart` and are skipped. Over TLS (`secureConnectionStart` set)
/// connect ends where the handshake starts.
pub fn collect(name: &str) -> (Vec<PhaseTimes>, Option<HttpVersion>) {
    let Some(p) = performance() else { return (Vec::new(), None) };
    let entries: Vec<PerformanceResourceTiming> = p
        .get_entries_by_name_with_entry_type(name, "resource")
        .iter()
        .filter_map(|entry| entry.dyn_into::<PerformanceResourceTiming>().ok())
        .filter(|e| e.response_start() > 0.0)
        .collect();
    let seen = entries.first().and_then(|e| HttpVersion::from_alpn(&e.next_hop_protocol()));
    let phases = entries
        .iter()
        .map(|e| {
            let secure = e.secure_connection_start();
            let tls = (secure > 0.0).then(|| ms((e.connect_end() - secure).max(0.0)));
            let tcp_end = if secure > 0.0 { secure } else { e.connect_end() };
            PhaseTimes {
                connect: ms((tcp_end - e.connect_start()).max(0.0)),
                tls,
                ttfb: ms((e.response_start() - e.start_time()).max(0.0)),
            }
        })
        .collect();
    p.clear_resource_timings();
    (phases, seen)
}

fn ms(v: f64) -> Duration {
    Duration::from_secs_f64(v / 1000.0)
}
