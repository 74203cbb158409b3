//! The target server as a child process of `httpbench run`: started from this same binary, its address read
//! from the first line it prints, killed when the run ends (and by the kernel if the parent dies first).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use anyhow::{bail, Context};
use url::Url;

/// A running child server; dropping it stops the server.
pub struct ChildServer {
    child: Child,
    /// Base URL of the server, ending in `/`.
    pub url: Url,
}

impl ChildServer {
    /// Start `httpbench serve --port 0 --threads 1 --quiet EXTRA...` on 127.0.0.1, pinned to `cpu` if given,
    /// and wait for its address.
    pub fn start(cpu: Option<usize>, extra: &[std::ffi::OsString]) -> anyhow::Result<Self> {
        let exe = std::env::current_exe().context("cannot find the httpbench executable to start the server")?;
        let mut cmd = Command::new(exe);
        cmd.args(["serve", "--port", "0", "--threads", "1", "--quiet"]).stdin(Stdio::null()).stdout(Stdio::piped());
        if let Some(cpu) = cpu {
            cmd.args(["--cpu", &cpu.to_string()]);
        }
        cmd.args(extra);
        die_with_parent(&mut cmd);
        let mut child = cmd.spawn().context("cannot start the embedded server process")?;
        let url = match read_url(&mut child) {
            Ok(url) => url,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(e);
            }
        };
        Ok(ChildServer { child, url })
    }

    /// The child's process id (for CPU placement and diagnostics).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

fn read_url(child: &mut Child) -> anyhow::Result<Url> {
    let stdout = child.stdout.take().context("the server process has no stdout")?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).context("cannot read the server's address")?;
    let Some(addr) = line.trim().strip_prefix("listening on ") else {
        bail!("the embedded server did not start (it printed {:?})", line.trim());
    };
    Url::parse(addr).with_context(|| format!("the embedded server printed a bad address {addr:?}"))
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(target_os = "linux")]
fn die_with_parent(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl and setpgid are async-signal-safe and touch only the child's own attributes.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // A process group of its own: Ctrl-C in the terminal stops the run, not the server under the
            // request in flight; the parent ends the server when it has reported.
            if libc::setpgid(0, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_cmd: &mut Command) {}
