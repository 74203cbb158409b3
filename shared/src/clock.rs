//! The one small module that reads a monotonic clock, chosen by target: `std::time::Instant` natively, and
//! `performance.now()` on wasm32, where `Instant::now()` panics. Nothing else in `shared` calls it; front ends
//! time requests with it and hand the durations over. [`MockClock`] makes timing code deterministic in tests.

use std::cell::Cell;
use std::time::Duration;

/// A monotonic clock: the time since some fixed origin.
pub trait Clock {
    /// Time elapsed since this clock's origin.
    fn now(&self) -> Duration;
}

/// The platform's monotonic clock.
#[derive(Debug, Clone)]
pub struct SystemClock {
    #[cfg(not(target_arch = "wasm32"))]
    origin: std::time::Instant,
    /// Looked up once: reading the clock is one call into JavaScript, not four (global, instanceof Window,
    /// the `performance` getter, `now`), since it is read around every request.
    #[cfg(target_arch = "wasm32")]
    performance: Option<web_sys::Performance>,
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl SystemClock {
    /// A clock whose origin is now.
    pub fn new() -> Self {
        SystemClock { origin: std::time::Instant::now() }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }
}

#[cfg(target_arch = "wasm32")]
impl SystemClock {
    /// The page's (or worker's) clock, origin at its time origin.
    pub fn new() -> Self {
        use wasm_bindgen::JsCast;
        let global = js_sys::global();
        let performance = match global.clone().dyn_into::<web_sys::Window>() {
            Ok(window) => window.performance(),
            Err(_) => global.dyn_into::<web_sys::WorkerGlobalScope>().ok().and_then(|w| w.performance()),
        };
        SystemClock { performance }
    }
}

#[cfg(target_arch = "wasm32")]
impl Clock for SystemClock {
    fn now(&self) -> Duration {
        // Without a Performance object (never seen in a browser) fall back to the millisecond wall clock.
        let ms = self.performance.as_ref().map(|p| p.now()).unwrap_or_else(js_sys::Date::now);
        Duration::from_secs_f64(ms.max(0.0) / 1000.0)
    }
}

/// A clock that moves only when told to: for deterministic tests of timing code.
#[derive(Debug, Default)]
pub struct MockClock {
    now: Cell<Duration>,
}

impl MockClock {
    /// A clock at its origin.
    pub fn new() -> Self {
        Self::default()
    }

    /// Move the clock forward.
    pub fn advance(&self, by: Duration) {
        self.now.set(self.now.get() + by);
    }
}

impl Clock for MockClock {
    fn now(&self) -> Duration {
        self.now.get()
    }
}

/// The smallest step `clock` takes, found by reading it until it changes (at most `max_reads` reads);
/// `None` if it never changed. A coarse step (100 µs in a browser that is not cross-origin isolated) makes
/// per-request latencies meaningless while batch timing still works.
pub fn resolution(clock: &dyn Clock, max_reads: u32) -> Option<Duration> {
    let mut best: Option<Duration> = None;
    let mut last = clock.now();
    for _ in 0..max_reads {
        let now = clock.now();
        if now > last {
            let step = now - last;
            best = Some(best.map_or(step, |b| b.min(step)));
            last = now;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mock_clock_moves_only_when_advanced() {
        let c = MockClock::new();
        assert_eq!(c.now(), Duration::ZERO);
        c.advance(Duration::from_micros(5));
        assert_eq!(c.now(), Duration::from_micros(5));
        assert_eq!(resolution(&c, 10), None);
    }

    #[test]
    fn system_clock_is_monotonic_and_fine() {
        let c = SystemClock::new();
        let a = c.now();
        let b = c.now();
        assert!(b >= a);
        let step = resolution(&c, 1_000_000).expect("the clock advances");
        assert!(step < Duration::from_millis(1), "{step:?}");
    }
}
