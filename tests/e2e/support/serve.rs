//! `httpbench serve` as a child process of a test: started on a free port, its address read from its first
//! line, the rest of what it prints handed to the test through a channel, killed when dropped.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use httpbench::process::KillOnDrop;

use super::cli::bin;

/// `httpbench serve --port 0` as a child process; killed on drop.
pub(crate) struct Serve {
    _child: KillOnDrop,
    /// Base URL, ending in `/`.
    pub url: String,
    stdout: mpsc::Receiver<String>,
}

impl Serve {
    pub(crate) fn start() -> Self {
        Self::start_with(&["--quiet"])
    }

    /// `httpbench serve --port 0 --threads 2 EXTRA...`.
    pub(crate) fn start_with(extra: &[&str]) -> Self {
        Self::start_on(0, extra)
    }

    /// `httpbench serve --port PORT --threads 2 EXTRA...`: a server that comes back at the same address (a
    /// target URL that stays the same across servers).
    pub(crate) fn start_on(port: u16, extra: &[&str]) -> Self {
        let port = port.to_string();
        let mut child = KillOnDrop::spawn(
            bin()
                .args(["serve", "--port", &port, "--threads", "2"])
                .args(extra)
                .stdout(Stdio::piped())
                .stdin(Stdio::null()),
        )
        .expect("httpbench serve starts");
        let mut line = String::new();
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        reader.read_line(&mut line).unwrap();
        let url = line.trim().strip_prefix("listening on ").expect("serve prints its address").to_string();
        // The rest of stdout goes to a channel, so a test can wait for what the server prints, with a timeout.
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            for line in reader.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Serve { _child: child, url, stdout: rx }
    }

    /// Lines the server prints on stdout until one contains `needle` (panics after `secs` seconds).
    pub(crate) fn stdout_until(&self, needle: &str, secs: u64) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stdout.recv_timeout(left) {
                Ok(line) => {
                    let done = line.contains(needle);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("serve did not print {needle:?} within {secs} s; it printed {seen:?}"),
            }
        }
    }
}
