//! CPU placement of the measuring thread and the embedded server (Linux). On a 2-vCPU machine one sequential
//! client on loopback runs several times faster when client and server share a core than when they sit on
//! different cores (waking the other core costs more than the request), so placement is chosen, applied,
//! read back and recorded, never left implicit.

use std::fmt;

use httpbench_shared::model::{Pin, Placement};

/// What the user asked for, and the CPUs chosen for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PlacementPlan {
    /// The requested policy.
    pub pin: Pin,
    /// CPU for the measuring thread (and every thread it starts), if pinned.
    pub client_cpu: Option<usize>,
    /// CPU for the embedded server process, if pinned.
    pub server_cpu: Option<usize>,
}

/// A placement that cannot be applied here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlacementError(pub String);

impl fmt::Display for PlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Choose CPUs for `pin` among the CPUs this process may use. `None` (auto) means `split` where two CPUs are
/// available, else `same`; off Linux it means `none`. Split gave the most repeatable comparison between
/// clients on this project's 2-vCPU machines (scripts/bench-placement.sh: mean CV of client-to-client rate
/// ratios over 12 interleaved rounds 15.3% split, 17.0% same, 22.5% none).
pub(crate) fn plan(pin: Option<Pin>) -> Result<PlacementPlan, PlacementError> {
    let pin = match pin {
        Some(p) => p,
        None if !cfg!(target_os = "linux") => Pin::None,
        None => match sys::current_thread_cpus() {
            Ok(cpus) if cpus.len() >= 2 => Pin::Split,
            Ok(_) => Pin::Same,
            Err(_) => Pin::None,
        },
    };
    if pin == Pin::None {
        return Ok(PlacementPlan { pin, client_cpu: None, server_cpu: None });
    }
    if !cfg!(target_os = "linux") {
        return Err(PlacementError(format!(
            "--pin {pin} is not supported on {}: use --pin none",
            std::env::consts::OS
        )));
    }
    let allowed = sys::current_thread_cpus().map_err(|e| PlacementError(format!("cannot read CPU affinity: {e}")))?;
    let first = *allowed.first().ok_or_else(|| PlacementError("no CPU is available to this process".into()))?;
    let server = match pin {
        Pin::Split => *allowed.get(1).ok_or_else(|| {
            PlacementError(format!(
                "--pin split needs two CPUs, but this process may run on CPU {first} only: use --pin same or none"
            ))
        })?,
        _ => first,
    };
    Ok(PlacementPlan { pin, client_cpu: Some(first), server_cpu: Some(server) })
}

/// Pin the calling thread (threads it starts later inherit the mask) to `cpu`, and read the mask back.
pub(crate) fn pin_current_thread(cpu: usize) -> std::io::Result<Vec<usize>> {
    sys::set_current_thread_cpus(&[cpu])?;
    sys::current_thread_cpus()
}

/// The CPUs the calling thread may run on.
pub(crate) fn current_thread_cpus() -> std::io::Result<Vec<usize>> {
    sys::current_thread_cpus()
}

/// The CPUs process `pid` (its main thread) may run on.
pub(crate) fn process_cpus(pid: u32) -> std::io::Result<Vec<usize>> {
    sys::process_cpus(pid)
}

/// The CPUs for a browser placed by `pin` relative to the embedded server on `server` (among `allowed`, the
/// CPUs this process could use before pinning): `none` every allowed CPU, as a browser runs for a user;
/// `same` the server's CPUs; `split` every allowed CPU but the server's. Chromium is several processes that
/// pass every request along, so squeezing it onto one CPU halves its rate (TOOLCHAIN.md, issue 14).
pub(crate) fn browser_cpus(
    pin: Pin,
    allowed: &[usize],
    server: Option<&[usize]>,
) -> Result<Vec<usize>, PlacementError> {
    let server = server.unwrap_or_default();
    let cpus: Vec<usize> = match pin {
        Pin::None => allowed.to_vec(),
        Pin::Same => server.to_vec(),
        Pin::Split => allowed.iter().copied().filter(|c| !server.contains(c)).collect(),
    };
    if cpus.is_empty() {
        return Err(PlacementError(format!(
            "--browser-pin {pin}: no CPU left for the browser (allowed {allowed:?}, server {server:?}): use --browser-pin none"
        )));
    }
    Ok(cpus)
}

/// Start `cmd`'s process on `cpus` only (it and every process it starts inherit the mask).
pub(crate) fn pin_command(cmd: &mut std::process::Command, cpus: &[usize]) -> std::io::Result<()> {
    sys::pin_command(cmd, cpus)
}

/// The 1-minute load average, where the OS tells it.
pub(crate) fn load_average() -> Option<f64> {
    let mut loads = [0f64; 3];
    // SAFETY: getloadavg writes at most the 3 doubles we pass.
    let n = unsafe { libc::getloadavg(loads.as_mut_ptr(), 3) };
    (n >= 1).then_some(loads[0])
}

/// What to record in the report, from CPU masks read back after pinning.
pub(crate) fn record(pin: Pin, client: Option<Vec<usize>>, server: Option<Vec<usize>>) -> Placement {
    let to_u32 = |v: Vec<usize>| v.into_iter().filter_map(|c| u32::try_from(c).ok()).collect();
    Placement {
        pin,
        client_cpus: client.map(to_u32).unwrap_or_default(),
        server_cpus: server.map(to_u32),
        load_average_1m: load_average(),
    }
}

#[cfg(target_os = "linux")]
mod sys {
    use std::io;

    fn to_vec(set: &libc::cpu_set_t) -> Vec<usize> {
        // SAFETY: CPU_ISSET only reads the set.
        (0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, set) }).collect()
    }

    fn get(pid: libc::pid_t) -> io::Result<Vec<usize>> {
        // SAFETY: an all-zero cpu_set_t is an empty set; sched_getaffinity writes at most its size.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::sched_getaffinity(pid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(to_vec(&set))
    }

    pub(super) fn current_thread_cpus() -> io::Result<Vec<usize>> {
        get(0)
    }

    pub(super) fn process_cpus(pid: u32) -> io::Result<Vec<usize>> {
        get(libc::pid_t::try_from(pid).map_err(|_| io::Error::other("pid out of range"))?)
    }

    fn set_of(cpus: &[usize]) -> io::Result<libc::cpu_set_t> {
        // SAFETY: as above; CPU_SET writes inside the set for cpu < CPU_SETSIZE, checked first.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &c in cpus {
            if c >= libc::CPU_SETSIZE as usize {
                return Err(io::Error::other(format!("CPU {c} is out of range")));
            }
            unsafe { libc::CPU_SET(c, &mut set) };
        }
        Ok(set)
    }

    fn apply(set: &libc::cpu_set_t) -> io::Result<()> {
        // SAFETY: pid 0 is the calling thread; the set is a valid cpu_set_t of the size passed.
        let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    pub(super) fn set_current_thread_cpus(cpus: &[usize]) -> io::Result<()> {
        apply(&set_of(cpus)?)
    }

    pub(super) fn pin_command(cmd: &mut std::process::Command, cpus: &[usize]) -> io::Result<()> {
        use std::os::unix::process::CommandExt;
        // Built before the fork: between fork and exec only the system call runs.
        let set = set_of(cpus)?;
        // SAFETY: sched_setaffinity is async-signal-safe and touches only the child.
        unsafe { cmd.pre_exec(move || apply(&set)) };
        Ok(())
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    use std::io;

    fn unsupported<T>() -> io::Result<T> {
        Err(io::Error::new(io::ErrorKind::Unsupported, "CPU affinity is supported on Linux only"))
    }

    pub fn current_thread_cpus() -> io::Result<Vec<usize>> {
        unsupported()
    }

    pub fn process_cpus(_pid: u32) -> io::Result<Vec<usize>> {
        unsupported()
    }

    pub fn set_current_thread_cpus(_cpus: &[usize]) -> io::Result<()> {
        unsupported()
    }
    pub fn pin_command(_cmd: &mut std::process::Command, _cpus: &[usize]) -> io::Result<()> {
        unsupported()
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn pinning_a_thread_is_read_back_from_the_os() {
        let allowed = current_thread_cpus().unwrap();
        let target = *allowed.last().unwrap();
        // A thread of its own, so the test harness's thread keeps its mask.
        let got = std::thread::spawn(move || pin_current_thread(target).unwrap()).join().unwrap();
        assert_eq!(got, vec![target]);
        assert_eq!(current_thread_cpus().unwrap(), allowed, "other threads are untouched");
    }

    #[test]
    fn the_browser_is_placed_relative_to_the_server() {
        let allowed = [0, 1, 2];
        assert_eq!(browser_cpus(Pin::None, &allowed, Some(&[1])).unwrap(), [0, 1, 2]);
        assert_eq!(browser_cpus(Pin::Same, &allowed, Some(&[1])).unwrap(), [1]);
        assert_eq!(browser_cpus(Pin::Split, &allowed, Some(&[1])).unwrap(), [0, 2]);
        let e = browser_cpus(Pin::Split, &[1], Some(&[1])).unwrap_err();
        assert!(e.0.contains("--browser-pin split"), "{e}");
    }

    #[test]
    fn a_command_starts_on_the_cpus_given() {
        let allowed = current_thread_cpus().unwrap();
        let cpu = *allowed.last().unwrap();
        let mut cmd = std::process::Command::new("grep");
        cmd.args(["Cpus_allowed_list", "/proc/self/status"]);
        pin_command(&mut cmd, &[cpu]).unwrap();
        let out = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
        assert_eq!(out.split_whitespace().last(), Some(cpu.to_string().as_str()), "{out}");
    }

    #[test]
    fn plans_pick_cpus_by_policy() {
        let allowed = current_thread_cpus().unwrap();
        let same = plan(Some(Pin::Same)).unwrap();
        assert_eq!((same.client_cpu, same.server_cpu), (Some(allowed[0]), Some(allowed[0])));
        assert_eq!(plan(Some(Pin::None)).unwrap().client_cpu, None);
        let auto = plan(None).unwrap();
        assert_eq!(auto.pin, if allowed.len() >= 2 { Pin::Split } else { Pin::Same });
        match plan(Some(Pin::Split)) {
            Ok(p) => assert_ne!(p.client_cpu, p.server_cpu),
            Err(e) => assert!(allowed.len() < 2 && e.0.contains("--pin split"), "{e}"),
        }
    }
}
