//! Reading an adapter's stdout line by line with a deadline on each line and an eye on the stop flag, so no
//! wait on an adapter is unbounded: the pipe is non-blocking and waited on with poll(2), a slice at a time.
//! One read takes every line the adapter has flushed, so a batch costs a few system calls, not one per line.

use std::io::{self, Read as _};
use std::os::fd::AsRawFd;
use std::process::ChildStdout;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::lines::MAX_LINE;

/// How often a wait looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(50);

/// What waiting for the next line gave.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Next<'a> {
    /// A whole line, without its newline.
    Line(&'a str),
    /// The adapter closed its stdout (it exited). A last line without its newline is dropped: a line cut
    /// off by a crash is not the adapter's answer, and its exit status says more.
    Eof,
    /// No line before the deadline.
    TimedOut,
    /// The stop flag was set.
    Stopped,
    /// A line longer than [`MAX_LINE`], or not UTF-8: its start, for the error message.
    Garbled(String),
}

/// Lines of one adapter's stdout.
pub(super) struct LineReader {
    out: ChildStdout,
    buf: Vec<u8>,
    /// Start of the unread part of `buf`.
    start: usize,
    eof: bool,
}

impl LineReader {
    /// Read `out`, made non-blocking.
    pub(super) fn new(out: ChildStdout) -> io::Result<Self> {
        let fd = out.as_raw_fd();
        // SAFETY: fcntl on a descriptor we own, reading then setting its status flags.
        let ok = unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            flags != -1 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) != -1
        };
        if !ok {
            return Err(io::Error::last_os_error());
        }
        Ok(LineReader { out, buf: Vec::with_capacity(64 * 1024), start: 0, eof: false })
    }

    /// The next line, waiting until `deadline` at most, or until `stop` is set.
    pub(super) fn next(&mut self, deadline: Instant, stop: &AtomicBool) -> io::Result<Next<'_>> {
        loop {
            if let Some(len) = self.buf[self.start..].iter().position(|&b| b == b'\n') {
                let (from, to) = (self.start, self.start + len);
                self.start = to + 1;
                return Ok(self.line(from, to));
            }
            if self.buf.len() - self.start > MAX_LINE {
                let head = String::from_utf8_lossy(&self.buf[self.start..self.start + 80]).into_owned();
                self.start = self.buf.len();
                return Ok(Next::Garbled(format!("{head}... (a line over {MAX_LINE} bytes)")));
            }
            if self.eof {
                return Ok(Next::Eof);
            }
            if stop.load(Ordering::Relaxed) {
                return Ok(Next::Stopped);
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(Next::TimedOut);
            }
            if self.wait_readable((deadline - now).min(STOP_POLL))? {
                self.fill()?;
            }
        }
    }

    fn line(&self, from: usize, to: usize) -> Next<'_> {
        if to - from > MAX_LINE {
            let head = String::from_utf8_lossy(&self.buf[from..from + 80]);
            return Next::Garbled(format!("{head}... (a line over {MAX_LINE} bytes)"));
        }
        match std::str::from_utf8(&self.buf[from..to]) {
            Ok(s) => Next::Line(s),
            Err(_) => Next::Garbled(format!("{} (not UTF-8)", String::from_utf8_lossy(&self.buf[from..to]))),
        }
    }

    /// Move the unread part to the front, then read what is there.
    fn fill(&mut self) -> io::Result<()> {
        self.buf.drain(..self.start);
        self.start = 0;
        let mut chunk = [0u8; 64 * 1024];
        loop {
            match self.out.read(&mut chunk) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            if self.buf.len() > 4 * MAX_LINE && self.buf.contains(&b'\n') {
                return Ok(());
            }
        }
    }

    /// Whether the pipe became readable (or closed) within `wait`.
    fn wait_readable(&self, wait: Duration) -> io::Result<bool> {
        let mut pfd = libc::pollfd { fd: self.out.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let ms = libc::c_int::try_from(wait.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
        // SAFETY: one valid pollfd for the duration of the call.
        let rc = unsafe { libc::poll(&mut pfd, 1, ms) };
        match rc {
            -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => Ok(false),
            -1 => Err(io::Error::last_os_error()),
            n => Ok(n > 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::process::{Command, Stdio};

    use super::*;

    fn reader(script: &str) -> (std::process::Child, LineReader) {
        let mut child = Command::new("sh").args(["-c", script]).stdout(Stdio::piped()).spawn().unwrap();
        let out = child.stdout.take().unwrap();
        (child, LineReader::new(out).unwrap())
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[test]
    fn lines_then_eof_and_a_line_cut_off_by_the_end_is_dropped() {
        let (mut child, mut r) = reader("printf 'a\\nbb\\n'; sleep 0.1; printf 'c'");
        let stop = AtomicBool::new(false);
        let mut got = Vec::new();
        loop {
            match r.next(soon(), &stop).unwrap() {
                Next::Line(l) => got.push(l.to_string()),
                other => {
                    assert_eq!(other, Next::Eof);
                    break;
                }
            }
        }
        assert_eq!(got, ["a", "bb"]);
        child.wait().unwrap();
    }

    #[test]
    fn a_silent_adapter_times_out_at_the_deadline_and_a_stop_is_heard() {
        let (mut child, mut r) = reader("sleep 5");
        let stop = AtomicBool::new(false);
        let t = Instant::now();
        assert_eq!(r.next(t + Duration::from_millis(200), &stop).unwrap(), Next::TimedOut);
        assert!(t.elapsed() >= Duration::from_millis(200) && t.elapsed() < Duration::from_secs(2));
        stop.store(true, Ordering::Relaxed);
        assert_eq!(r.next(soon(), &stop).unwrap(), Next::Stopped);
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn a_long_line_that_comes_whole_is_garbled_too() {
        let (mut child, mut r) = reader("head -c 3000 /dev/zero | tr '\\0' y; echo");
        let stop = AtomicBool::new(false);
        // The whole line is in the pipe (3001 bytes, well under its buffer) once the writer has exited.
        child.wait().unwrap();
        let Next::Garbled(head) = r.next(soon(), &stop).unwrap() else { panic!("expected a garbled line") };
        assert!(head.starts_with("yyy") && head.len() < 200, "{head}");
    }

    #[test]
    fn an_endless_line_is_garbled_not_buffered_forever() {
        let (mut child, mut r) = reader("head -c 100000 /dev/zero | tr '\\0' x");
        let stop = AtomicBool::new(false);
        let Next::Garbled(head) = r.next(soon(), &stop).unwrap() else { panic!("expected a garbled line") };
        assert!(head.starts_with("xxx") && head.contains("over 1024 bytes"), "{head}");
        let _ = child.kill();
        child.wait().unwrap();
    }
}
