//! A network namespace held by a file descriptor of this process: made by a short-lived thread that leaves
//! the host's network, entered by the threads and children that must live in it. Nothing else holds it, so it
//! vanishes with its interfaces and rules when the descriptor closes or the process ends, however it ends.

use std::ffi::OsStr;
use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use anyhow::{bail, Context};

/// A network namespace of this process.
pub(crate) struct Namespace {
    fd: OwnedFd,
}

impl Namespace {
    /// A new, empty network namespace (only `lo`, down).
    pub(crate) fn new() -> anyhow::Result<Namespace> {
        // unshare moves the calling thread only: a thread of its own, which ends once the namespace is held.
        let fd = std::thread::spawn(|| -> std::io::Result<OwnedFd> {
            // SAFETY: unshare takes no pointers; it changes this thread's network namespace only.
            if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(File::open("/proc/thread-self/ns/net")?.into())
        })
        .join()
        .map_err(|_| anyhow::anyhow!("the thread making a network namespace panicked"))?
        .context("cannot make a network namespace (unshare CLONE_NEWNET)")?;
        Ok(Namespace { fd })
    }

    /// Move the calling thread into this namespace: the sockets it opens from now on, and the threads and
    /// processes it starts, are in it.
    pub(crate) fn enter(&self) -> std::io::Result<()> {
        setns(self.fd.as_raw_fd())
    }

    /// A path naming this namespace to a child process (`ip link set DEV netns PATH`).
    pub(crate) fn path(&self) -> String {
        format!("/proc/{}/fd/{}", std::process::id(), self.fd.as_raw_fd())
    }

    /// `program` to be started inside this namespace.
    pub(crate) fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        let fd = self.fd.as_raw_fd();
        // SAFETY: between fork and exec only setns, an async-signal-safe system call, runs.
        unsafe {
            cmd.pre_exec(move || setns(fd));
        }
        cmd
    }

    /// Run `program ARGS` inside this namespace and wait for it; its error output names what failed.
    pub(crate) fn run(&self, program: &str, args: &[&str]) -> anyhow::Result<()> {
        self.output(program, args).map(drop)
    }

    /// What `program ARGS`, run inside this namespace, printed; its error output names what failed.
    pub(crate) fn output(&self, program: &str, args: &[&str]) -> anyhow::Result<String> {
        let out = self.command(program).args(args).stdin(Stdio::null()).output().with_context(|| {
            format!("cannot run {program} (install iproute2 and iptables: scripts/setup.sh --link)")
        })?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            bail!("{program} {} failed: {}", args.join(" "), err.trim());
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Write `value` to `/proc/sys` file `path` as seen inside this namespace (its own network settings).
    pub(crate) fn write(&self, path: &str, value: &str) -> anyhow::Result<()> {
        std::thread::scope(|s| {
            s.spawn(|| -> anyhow::Result<()> {
                self.enter()?;
                std::fs::write(path, value).with_context(|| format!("cannot set {path} to {value}"))
            })
            .join()
            .map_err(|_| anyhow::anyhow!("the thread setting {path} panicked"))?
        })
    }
}

fn setns(fd: i32) -> std::io::Result<()> {
    // SAFETY: fd is a namespace descriptor this process holds open.
    if unsafe { libc::setns(fd, libc::CLONE_NEWNET) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
