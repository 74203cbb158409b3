//! CPU time of this process (user and system), from getrusage. The embedded server runs in its own process,
//! so everything counted here is the clients' work (and the runner's, which is a few clock reads per request).
//! A command client runs in processes of its own: [`tree_usage`] reads theirs from `/proc`, and the same walk
//! of the process tree finds what an adapter left running ([`tree_usage`], [`carrying`], [`end_all`]).

use std::time::Duration;

use httpbench_shared::CpuTime;

/// CPU time used by this process so far, or `None` where the OS does not say.
pub(crate) fn process_cpu() -> Option<CpuTime> {
    // SAFETY: getrusage writes into the struct we pass and nothing else; an all-zero rusage is valid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    (rc == 0).then(|| CpuTime { user: timeval(usage.ru_utime), sys: timeval(usage.ru_stime) })
}

/// CPU time used by the calling thread so far, or `None` where the OS does not say.
pub(crate) fn thread_cpu() -> Option<CpuTime> {
    // SAFETY: as in process_cpu, for the calling thread only.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_THREAD with a valid pointer.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    (rc == 0).then(|| CpuTime { user: timeval(usage.ru_utime), sys: timeval(usage.ru_stime) })
}

fn timeval(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
}

/// One process as `/proc/PID/stat` tells it.
struct Proc {
    pid: u32,
    ppid: u32,
    /// User and system clock ticks, its waited-for children's added.
    user: u64,
    sys: u64,
    /// When it started, in clock ticks since boot: with the pid, it names the process (pids are reused).
    start: u64,
}

/// Process `pid` and every process below it (Linux `/proc`): a command run through `sh -c` is the shell's
/// child, and an adapter may start helpers, some in sessions of their own. `None` when `pid` is gone.
fn tree(pid: u32) -> Option<Vec<Proc>> {
    let procs: Vec<Proc> = std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| stat_line(p, &std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?))
        .collect();
    procs.iter().find(|p| p.pid == pid)?;
    let (mut tree, mut i) = (vec![pid], 0);
    while let Some(&p) = tree.get(i) {
        let children: Vec<u32> =
            procs.iter().filter(|c| c.ppid == p && !tree.contains(&c.pid)).map(|c| c.pid).collect();
        tree.extend(children);
        i += 1;
    }
    Some(procs.into_iter().filter(|p| tree.contains(&p.pid)).collect())
}

/// CPU time used so far by process `pid` and every process below it, including descendants that have ended
/// and were waited for (`None` where `/proc` does not say), and the processes below `pid` now, each as (pid,
/// start time): what [`end_all`] may end later. One walk of `/proc` for both. Clock ticks (10 ms on Linux),
/// like Perl's `times`; it is read once before and once after each round, outside the timed window.
pub(crate) fn tree_usage(pid: u32) -> Option<(CpuTime, Vec<(u32, u64)>)> {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = u64::try_from(hz).ok().filter(|h| *h > 0)?;
    let procs = tree(pid)?;
    let (user, sys) = procs.iter().fold((0, 0), |(u, s), p| (u + p.user, s + p.sys));
    let ticks = |t: u64| Duration::from_nanos(t.saturating_mul(1_000_000_000) / hz);
    let below = procs.iter().filter(|p| p.pid != pid).map(|p| (p.pid, p.start)).collect();
    Some((CpuTime { user: ticks(user), sys: ticks(sys) }, below))
}

/// SIGKILL each of `procs` that still runs (the same pid with the same start time: never a stranger that
/// was given a freed pid), and the process group it leads, if it leads one. A helper that made a session of
/// its own (`setsid`) is out of its adapter's process group, so killing that group missed it.
pub(crate) fn end_all(procs: &[(u32, u64)]) {
    for &(pid, start) in procs {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let (Some(p), Ok(id)) = (stat_line(pid, &stat).filter(|p| p.start == start), libc::pid_t::try_from(pid)) else {
            continue;
        };
        let leads_group = stat_field(&stat, 2) == Some(u64::from(p.pid));
        // SAFETY: kill only sends a signal, to the process seen below the adapter (pid and start time checked).
        unsafe {
            libc::kill(id, libc::SIGKILL);
            if leads_group {
                libc::kill(-id, libc::SIGKILL);
            }
        }
    }
}

/// Every process whose environment holds the entry `entry` (`NAME=value`), as (pid, start time) for
/// [`end_all`]: an adapter's processes carry the token httpbench gave it, wherever they went. A helper that
/// forked twice (or left with `setsid` and its parent exited) is no descendant any more, re-parented to init,
/// but it still carries its adapter's environment. `/proc/PID/environ` is the environment the process was
/// started with, and its children inherit it; processes of other users cannot be read, and are not ours.
pub(crate) fn carrying(entry: &str) -> Vec<(u32, u64)> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            environ.split(|&b| b == 0).any(|e| e == entry.as_bytes())
        })
        .filter_map(|pid| {
            Some((pid, stat_line(pid, &std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)?.start))
        })
        .collect()
}

/// Field `i` of a `/proc/PID/stat` line, counted after the command name: state(0) ppid(1) pgrp(2) ...
/// utime(11) stime(12) cutime(13) cstime(14) ... starttime(19). The name is in parentheses and may hold
/// spaces: the fields start after the last ')'.
fn stat_field(stat: &str, i: usize) -> Option<u64> {
    stat.get(stat.rfind(')')? + 1..)?.split_whitespace().nth(i)?.parse().ok()
}

/// One `/proc/PID/stat` line of process `pid`: parent, ticks (the ended children's added), start time.
fn stat_line(pid: u32, stat: &str) -> Option<Proc> {
    let f = |i| stat_field(stat, i);
    let ppid = u32::try_from(f(1)?).ok()?;
    Some(Proc { pid, ppid, user: f(11)? + f(13)?, sys: f(12)? + f(14)?, start: f(19).unwrap_or(0) })
}

/// `a` and `b` together.
pub(crate) fn sum(a: CpuTime, b: CpuTime) -> CpuTime {
    CpuTime { user: a.user + b.user, sys: a.sys + b.sys }
}

/// CPU time spent between two readings.
pub(crate) fn since(start: Option<CpuTime>, end: Option<CpuTime>) -> Option<CpuTime> {
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
        let start = tree_usage(pid).map(|t| t.0).expect("/proc is readable");
        std::thread::sleep(Duration::from_millis(300));
        let used = since(Some(start), tree_usage(pid).map(|t| t.0)).unwrap();
        let _ = std::process::Command::new("pkill").args(["-P", &pid.to_string()]).status();
        let _ = child.kill();
        let _ = child.wait();
        assert!(used.user + used.sys >= Duration::from_millis(100), "{used:?}");
        assert_eq!(tree_usage(u32::MAX).map(|t| t.0), None, "no such process");
    }

    #[test]
    fn a_process_is_found_by_its_environment_after_its_parent_left_and_ended() {
        let value = std::process::id().to_string();
        // A double fork: the subshell starts sleep in the background and exits, so sleep is nobody's child here.
        let mut sh = std::process::Command::new("sh");
        let out =
            sh.args(["-c", "(sleep 30 >/dev/null 2>&1 & echo $!)"]).env("HTTPBENCH_CPU_TEST", &value).output().unwrap();
        let pid: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        let found = carrying(&format!("HTTPBENCH_CPU_TEST={value}"));
        end_all(&found);
        assert_eq!(found.iter().map(|p| p.0).collect::<Vec<_>>(), [pid], "only the sleep carries it");
        // Killed; its new parent (init) reaps it in a moment, and a zombie runs no more.
        let running = || {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            stat.rfind(')').is_some_and(|i| !stat[i + 1..].trim_start().starts_with('Z'))
        };
        let until = std::time::Instant::now() + Duration::from_secs(5);
        while running() && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!running(), "{pid} was not ended");
        assert!(carrying("HTTPBENCH_CPU_TEST=nobody").is_empty());
    }

    #[test]
    fn stat_lines_with_spaces_in_the_name_parse() {
        let line = "42 (my (odd) name) S 7 42 42 0 -1 4194304 100 0 0 0 250 30 5 2 20 0 1 0 100 0 0";
        let p = stat_line(42, line).unwrap();
        assert_eq!((p.ppid, p.user, p.sys, p.start), (7, 255, 32, 100));
        assert_eq!(stat_field(line, 2), Some(42));
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
