//! Child processes httpbench starts (the embedded server, the browsers, WebKit's driver and display) and the
//! tests start (`httpbench serve`): one guard that kills and reaps the child (with its process group and its
//! companions, where it has them) however the parent's scope ends, early returns and panics included, so no
//! run leaves a server or a browser behind.

use std::ops::{Deref, DerefMut};
use std::process::{Child, Command};

/// Owns a child process; dropping it kills the child and waits for it (and with it what it keeps: its process
/// group, [`KillOnDrop::spawn_group`], and companions, [`KillOnDrop::with`]).
#[derive(Debug)]
pub struct KillOnDrop {
    child: Child,
    /// Whether to end the child's whole process group: the processes it starts (a browser's own) too.
    group: bool,
    /// Processes that live as long as the child and are ended after it (WebKit's X display).
    companions: Vec<KillOnDrop>,
}

impl KillOnDrop {
    /// Start `cmd` under the guard.
    pub fn spawn(cmd: &mut Command) -> std::io::Result<Self> {
        cmd.spawn().map(|child| KillOnDrop { child, group: false, companions: Vec::new() })
    }

    /// Start `cmd` as a process group of its own under a guard that ends the whole group: what the child
    /// starts, which the kernel would not end with httpbench, is ended with it.
    pub fn spawn_group(cmd: &mut Command) -> std::io::Result<Self> {
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(cmd, 0);
        let mut guard = KillOnDrop::spawn(cmd)?;
        guard.group = true;
        Ok(guard)
    }

    /// This guard, keeping `companion` running until the child is ended, then ending it.
    pub fn with(mut self, companion: KillOnDrop) -> Self {
        self.companions.push(companion);
        self
    }
}

impl Deref for KillOnDrop {
    type Target = Child;

    fn deref(&self) -> &Child {
        &self.child
    }
}

impl DerefMut for KillOnDrop {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.child
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        #[cfg(unix)]
        if self.group {
            if let Ok(pid) = i32::try_from(self.child.id()) {
                // SAFETY: a plain system call. The group is the child's own (its pid, made at its start). Its id
                // names no one else's group while any of its members lives (the kernel gives no process a live
                // group's id), and once all are gone the call finds none: a reaped child's group id could be
                // another's only after every member died and the pid came round again, in the moment between.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
            }
        }
        // Both fail only when the child is already gone, which is what we want.
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Companions after the child: dropping them ends each the same way.
        self.companions.clear();
    }
}

/// Make `cmd`'s process die with this one (Linux: the kernel sends it SIGKILL when the parent exits), in a
/// process group of its own so Ctrl-C in the terminal stops the run, not the child under the request in
/// flight; the parent ends the child when it has reported.
#[cfg(target_os = "linux")]
pub fn die_with_parent(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl and setpgid are async-signal-safe and touch only the child's own attributes.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::setpgid(0, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Elsewhere the child is only killed by the guard.
#[cfg(not(target_os = "linux"))]
pub fn die_with_parent(_cmd: &mut Command) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropping_the_guard_ends_the_child() {
        let guard = KillOnDrop::spawn(Command::new("sleep").arg("30")).unwrap();
        let pid = guard.id();
        drop(guard);
        // Reaped: the pid no longer names our child.
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        assert!(!status.contains("State:\tS"), "the child still sleeps: {status}");
    }

    /// A shell that starts a grandchild: ending the group ends the grandchild too, and the companion after.
    #[test]
    fn a_group_guard_ends_what_the_child_started_and_its_companions() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 31 & echo $!; wait"]).stdout(std::process::Stdio::piped());
        die_with_parent(&mut cmd);
        let companion = KillOnDrop::spawn(Command::new("sleep").arg("32")).unwrap();
        let companion_pid = companion.id();
        let mut guard = KillOnDrop::spawn_group(&mut cmd).unwrap().with(companion);
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(guard.stdout.take().unwrap()), &mut line).unwrap();
        let grandchild: u32 = line.trim().parse().unwrap();
        drop(guard);
        let alive = |pid: u32| {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
            status.contains("State:\tS") || status.contains("State:\tR")
        };
        // The grandchild was not ours to reap: killed, it is a zombie of init's at most, never asleep.
        for _ in 0..100 {
            if !alive(grandchild) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!alive(grandchild), "the grandchild {grandchild} outlived its group's guard");
        assert!(!alive(companion_pid), "the companion {companion_pid} outlived the guard");
    }
}
