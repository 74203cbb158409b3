//! Child processes httpbench starts (the embedded server, Chromium) and the tests start (`httpbench serve`):
//! one guard that kills and reaps the child however the parent's scope ends, early returns and panics
//! included, so no run leaves a server or a browser behind.

use std::ops::{Deref, DerefMut};
use std::process::{Child, Command};

/// Owns a child process; dropping it kills the child and waits for it.
#[derive(Debug)]
pub struct KillOnDrop(pub Child);

impl KillOnDrop {
    /// Start `cmd` under the guard.
    pub fn spawn(cmd: &mut Command) -> std::io::Result<Self> {
        cmd.spawn().map(KillOnDrop)
    }
}

impl Deref for KillOnDrop {
    type Target = Child;

    fn deref(&self) -> &Child {
        &self.0
    }
}

impl DerefMut for KillOnDrop {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        // Both fail only when the child is already gone, which is what we want.
        let _ = self.0.kill();
        let _ = self.0.wait();
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
}
