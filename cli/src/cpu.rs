//! CPU time of this process (user and system), from getrusage. The embedded server runs in its own process,
//! so everything counted here is the clients' work (and the runner's, which is a few clock reads per request).
//! A command client runs in processes of its own: [`tree_cpu`] reads theirs from `/proc`.

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

/// CPU time used so far by process `pid` and every process below it (Linux `/proc`: a command run through
/// `sh -c` is the shell's child, and an adapter may start helpers), including descendants that have ended
/// and were waited for; `None` where `/proc` does not say. In clock ticks (10 ms on Linux), like Perl's
/// `times`; it is read once before and once after each round, outside the timed window.
pub fn tree_cpu(pid: u32) -> Option<CpuTime> {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = u64::try_from(hz).ok().filter(|h| *h > 0)?;
    let procs: Vec<(u32, u32, u64, u64)> = std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| {
            stat_times(&std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?).map(|t| (p, t.0, t.1, t.2))
        })
        .collect();
    procs.iter().find(|p| p.0 == pid)?;
    let (mut tree, mut user, mut sys) = (vec![pid], 0, 0);
    let mut i = 0;
    while let Some(&p) = tree.get(i) {
        for &(child, parent, u, s) in &procs {
            if child == p {
                (user, sys) = (user + u, sys + s);
            }
            if parent == p && !tree.contains(&child) {
                tree.push(child);
            }
        }
        i += 1;
    }
    let ticks = |t: u64| Duration::from_nanos(t.saturating_mul(1_000_000_000) / hz);
    Some(CpuTime { user: ticks(user), sys: ticks(sys) })
}

/// (parent pid, user ticks, system ticks) of one `/proc/PID/stat` line, the ended children's ticks added.
fn stat_times(stat: &str) -> Option<(u32, u64, u64)> {
    // The command name is in parentheses and may hold spaces: the fields start after the last ')'.
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 1..)?.split_whitespace().collect();
    let num = |i: usize| fields.get(i)?.parse::<u64>().ok();
    // After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
    let ppid = fields.get(1)?.parse().ok()?;
    Some((ppid, num(11)? + num(13)?, num(12)? + num(14)?))
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
    fn a_busy_grandchild_is_billed_to_the_tree() {
        // sh starts a busy awk as its child: the grandchild of this test.
        let mut child =
            std::process::Command::new("sh").args(["-c", "awk 'BEGIN { while (1) x++ }'; true"]).spawn().unwrap();
        let pid = child.id();
        let start = tree_cpu(pid).expect("/proc is readable");
        std::thread::sleep(Duration::from_millis(300));
        let used = since(Some(start), tree_cpu(pid)).unwrap();
        let _ = std::process::Command::new("pkill").args(["-P", &pid.to_string()]).status();
        let _ = child.kill();
        let _ = child.wait();
        assert!(used.user + used.sys >= Duration::from_millis(100), "{used:?}");
        assert_eq!(tree_cpu(u32::MAX), None, "no such process");
    }

    #[test]
    fn stat_lines_with_spaces_in_the_name_parse() {
        let line = "42 (my (odd) name) S 7 42 42 0 -1 4194304 100 0 0 0 250 30 5 2 20 0 1 0 100 0 0";
        assert_eq!(stat_times(line), Some((7, 255, 32)));
    }

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
