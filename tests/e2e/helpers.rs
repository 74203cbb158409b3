//! Shared by the end-to-end tests: the binary, a `httpbench serve` child, and a small HTTP server written
//! here so tests do not depend on the server they are testing.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use httpbench::process::KillOnDrop;
use serde_json::Value;

/// Wait until `probe` gives a value, trying every 20 ms for at most `limit`; past it the test fails saying
/// what it waited for and `why()` (the page's status line, say). The one bounded wait of these tests: a
/// condition to wait for, never a pause that guesses how long something takes.
pub fn wait_for<T>(what: &str, limit: Duration, mut probe: impl FnMut() -> Option<T>, why: impl Fn() -> String) -> T {
    let start = std::time::Instant::now();
    loop {
        if let Some(v) = probe() {
            return v;
        }
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}; {}", why());
        thread::sleep(Duration::from_millis(20));
    }
}

/// [`wait_for`] a condition.
pub fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool, why: impl Fn() -> String) {
    wait_for(what, limit, || done().then_some(()), why)
}

/// The `httpbench` binary built for these tests.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_httpbench"))
}

/// Run `httpbench ARGS` with a time limit, returning (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_httpbench"))
        .args(args)
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(120))
        .output()
        .expect("httpbench runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run and parse stdout as the JSON result file.
pub fn run_json(args: &[&str]) -> (i32, Value, String) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let (code, out, err) = run(&all);
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{out}\nstderr:\n{err}"));
    (code, v, err)
}

/// `httpbench serve --port 0` as a child process; killed on drop.
pub struct Serve {
    _child: KillOnDrop,
    /// Base URL, ending in `/`.
    pub url: String,
    stdout: std::sync::mpsc::Receiver<String>,
}

impl Serve {
    pub fn start() -> Self {
        Self::start_with(&["--quiet"])
    }

    /// `httpbench serve --port 0 --threads 2 EXTRA...`.
    pub fn start_with(extra: &[&str]) -> Self {
        let mut child = KillOnDrop::spawn(
            bin()
                .args(["serve", "--port", "0", "--threads", "2"])
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
        let (tx, rx) = std::sync::mpsc::channel();
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
    pub fn stdout_until(&self, needle: &str, secs: u64) -> Vec<String> {
        let deadline = std::time::Instant::now() + Duration::from_secs(secs);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
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

/// A thread accepting connections on a listener and handing each to a handler on a thread of its own, until
/// dropped. The handler also gets the stop flag, for handlers that must notice the end of the test.
pub struct Acceptor {
    stop: Arc<AtomicBool>,
}

impl Acceptor {
    /// Start accepting on `listener` (switched to non-blocking, so the loop sees the stop flag).
    pub fn spawn<F>(listener: TcpListener, handle: F) -> Self
    where
        F: Fn(TcpStream, &AtomicBool) + Send + Sync + 'static,
    {
        listener.set_nonblocking(true).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = Arc::new(handle);
        thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((s, _)) => {
                        let (flag, handle) = (flag.clone(), handle.clone());
                        thread::spawn(move || handle(s, &flag));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(2)),
                }
            }
        });
        Acceptor { stop }
    }
}

impl Drop for Acceptor {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A minimal HTTP/1.1 server written for the tests: keep-alive, a fixed body, on 127.0.0.1.
pub struct TestServer {
    /// Base URL, ending in `/`.
    pub url: String,
    /// Requests answered so far, so a test can wait until a client is measuring.
    pub answered: Arc<std::sync::atomic::AtomicU64>,
    /// Connections accepted so far, so a test can tell fresh connections from kept-alive ones.
    pub connections: Arc<std::sync::atomic::AtomicU64>,
    _acceptor: Acceptor,
}

impl TestServer {
    /// Serve `body` with status 200 to every request.
    pub fn fixed(body: &'static [u8]) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let answered = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let connections = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let (count, conns) = (answered.clone(), connections.clone());
        let acceptor = Acceptor::spawn(listener, move |s, _| {
            conns.fetch_add(1, Ordering::Relaxed);
            serve_conn(s, body, &count)
        });
        TestServer { url, answered, connections, _acceptor: acceptor }
    }
}

fn serve_conn(mut s: TcpStream, body: &[u8], answered: &std::sync::atomic::AtomicU64) {
    let _ = s.set_nonblocking(false);
    let _ = s.set_nodelay(true);
    let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            match s.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
        buf.drain(..end);
        let close = head.contains("connection: close") || head.contains("http/1.0");
        let resp = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: text/plain\r\n{}\r\n",
            body.len(),
            if close { "Connection: close\r\n" } else { "" }
        );
        if s.write_all(resp.as_bytes()).and_then(|_| s.write_all(body)).is_err() {
            return;
        }
        answered.fetch_add(1, Ordering::Relaxed);
        if close {
            return;
        }
    }
}

/// A port on 127.0.0.1 with nothing listening (bound, then released).
pub fn refused_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// A fresh directory under the target dir, for files a test writes.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small, quick run: 5 requests of the raw client in reuse mode, no warm-up.
pub const SMALL_RAW: [&str; 8] = ["-n", "5", "--warmup", "0", "--clients", "raw", "--mode", "reuse"];

/// Run `httpbench` with `args`, exporting the result file to `path` (stdout in CSV), check that it succeeded,
/// and return the file's text.
pub fn export_run(path: &Path, args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.extend(["--format", "csv", "--export-json", path.to_str().unwrap()]);
    let (code, _, err) = run(&all);
    assert_eq!(code, 0, "{err}");
    std::fs::read_to_string(path).unwrap()
}

/// The cases of a result file.
pub fn cases(v: &Value) -> &Vec<Value> {
    v["cases"].as_array().expect("cases is an array")
}

/// Plain GET with std, returning (head, body) — to test the server without any client under test.
pub fn get(url_base: &str, path: &str) -> (String, Vec<u8>) {
    let addr = url_base.trim_start_matches("http://").trim_end_matches('/');
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let split = all.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head");
    (String::from_utf8_lossy(&all[..split]).into_owned(), all[split + 4..].to_vec())
}

/// Send raw request bytes and return (status line and headers, body).
pub fn exchange(url_base: &str, request: &[u8]) -> (String, Vec<u8>) {
    let addr = url_base.trim_start_matches("http://").trim_end_matches('/');
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = s.write_all(request);
    let mut all = Vec::new();
    let _ = s.read_to_end(&mut all);
    match all.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(split) => (String::from_utf8_lossy(&all[..split]).into_owned(), all[split + 4..].to_vec()),
        None => (String::from_utf8_lossy(&all).into_owned(), Vec::new()),
    }
}

/// POST `body` to `path` with `Connection: close`.
pub fn post(url_base: &str, path: &str, body: &[u8]) -> (String, Vec<u8>) {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    exchange(url_base, &[head.as_bytes(), body].concat())
}

/// Whether python3 has the requests module (the python-requests command client needs it).
pub fn python_has_requests() -> bool {
    Command::new("python3").args(["-c", "import requests"]).status().is_ok_and(|s| s.success())
}

/// What [`run_bounded`] saw: exit code, stdout, stderr, the peak memory of the process in MiB, and its time.
pub struct Bounded {
    pub code: i32,
    pub out: String,
    pub err: String,
    pub peak_mib: i64,
    pub took: Duration,
}

/// Run `httpbench ARGS` for at most `secs` seconds (killed then, code -9), with its peak memory: for inputs
/// that once grew without end (`/dev/zero`, a matrix of 55,000 cases). The peak is the largest `VmHWM` seen
/// in `/proc` while it ran, not wait4's `ru_maxrss`: a spawned child's `ru_maxrss` starts from the test
/// process's own high-water mark (the kernel keeps it across exec), which other tests here push up.
pub fn run_bounded(args: &[&str], secs: u64) -> Bounded {
    let start = std::time::Instant::now();
    // Reaped below with wait4, which also gives its peak memory; Child::wait would not.
    #[allow(clippy::zombie_processes)]
    let mut child = bin()
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("httpbench runs");
    let drain = |mut r: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut text = Vec::new();
            let _ = r.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let pid = child.id() as i32;
    let (mut status, mut killed, mut peak_kib) = (0, false, 0);
    loop {
        peak_kib = peak_kib.max(high_water_kib(pid));
        // SAFETY: our own child's pid; WNOHANG returns at once.
        let got = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if got == pid {
            break;
        }
        if !killed && start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            killed = true;
        }
        thread::sleep(Duration::from_millis(10));
    }
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -libc::WTERMSIG(status) };
    Bounded {
        code,
        out: out.join().unwrap(),
        err: err.join().unwrap(),
        peak_mib: peak_kib / 1024,
        took: start.elapsed(),
    }
}

/// `VmHWM` of a running process in KiB (0 once it has ended).
fn high_water_kib(pid: i32) -> i64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap_or("0 kB");
    line.trim().trim_end_matches("kB").trim().parse().unwrap_or(0)
}

/// Make a FIFO (named pipe) at `path`, which blocks whoever opens it for reading until a writer comes.
pub fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path and creates a file; nothing else.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
}
