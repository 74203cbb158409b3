//! CPU time of this process (user and system), from getrusage. The embedded server runs in its own process,
//! so everything counted here is the clients' work (and the runner's, which is a few clock reads per request).

use std::time::Duration;

use httpbench_shared::CpuTime;

/// CPU time used by this process so far, or `None` where the OS does not say.
pub fn process_cpu() -> Option<CpuTime> {
    // SAFETY: getrusage writes into the struct we pass and nothing else; an all-zero rusage is valid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    (rc == 0).then(|| CpuTime { user: timeval(usage.ru_utime), sys: timeval(usage.ru_stime) })
}

fn timeval(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
}

/// CPU time spent between two readings.
pub fn since(start: Option<CpuTime>, end: Option<CpuTime>) -> Option<CpuTime> {
    let (s, e) = (start?, end?);
    Some(CpuTime { user: e.user.saturating_sub(s.user), sys: e.sys.saturating_sub(s.sys) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_work_shows_up_as_cpu_time() {
        let start = process_cpu();
        let t = std::time::Instant::now();
        let mut x = 0u64;
        while t.elapsed() < Duration::from_millis(50) {
            x = x.wrapping_mul(31).wrapping_add(7);
        }
        std::hint::black_box(x);
        let used = since(start, process_cpu()).expect("getrusage works on this OS");
        assert!(used.user + used.sys >= Duration::from_millis(20), "{used:?}");
    }
}
