//! Servers written in the tests, so the tests do not depend on the server they are testing: an accept loop
//! ([`Acceptor`]) for servers that misbehave on purpose, and a minimal keep-alive HTTP/1.1 server
//! ([`TestServer`]) that hands every request it gets to the test through a channel, so a test asks "how many
//! requests came, on how many connections, and what were they" with a bounded wait instead of polling
//! counters.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

/// A thread accepting connections on a listener and handing each to a handler on a thread of its own, until
/// dropped. The handler also gets the stop flag, for handlers that must notice the end of the test.
pub(crate) struct Acceptor {
    stop: Arc<AtomicBool>,
    addr: SocketAddr,
}

impl Acceptor {
    /// Start accepting on `listener`: a blocking accept, woken by a connection of the drop's own at the end.
    pub(crate) fn spawn<F>(listener: TcpListener, handle: F) -> Self
    where
        F: Fn(TcpStream, &AtomicBool) + Send + Sync + 'static,
    {
        listener.set_nonblocking(false).unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = Arc::new(handle);
        thread::spawn(move || {
            for s in listener.incoming() {
                if flag.load(Ordering::Relaxed) {
                    break;
                }
                match s {
                    Ok(s) => {
                        let (flag, handle) = (flag.clone(), handle.clone());
                        thread::spawn(move || handle(s, &flag));
                    }
                    // Out of file descriptors, say: wait a little rather than spin.
                    Err(_) => thread::sleep(Duration::from_millis(2)),
                }
            }
        });
        Acceptor { stop, addr }
    }
}

impl Drop for Acceptor {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wakes the blocking accept, which sees the flag and closes the listener.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
    }
}

/// One request a [`TestServer`] received.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    /// The connection it came on: 0 for the server's first, in the order they were accepted.
    pub connection: u64,
    /// Its head as sent (request line and headers, through the blank line).
    pub head: String,
}

/// A minimal HTTP/1.1 server written for the tests: keep-alive, a fixed body, on 127.0.0.1. Each request is
/// sent to the test before it is answered, so once a client has its answers, their requests are in the
/// channel.
pub(crate) struct TestServer {
    /// Base URL, ending in `/`.
    pub url: String,
    requests: mpsc::Receiver<Request>,
    _acceptor: Acceptor,
}

impl TestServer {
    /// Serve `body` with status 200 to every request.
    pub(crate) fn fixed(body: &'static [u8]) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let (tx, requests) = mpsc::channel();
        // The handlers run on threads of their own: each takes the next connection number and a sender.
        let tx = std::sync::Mutex::new((0u64, tx));
        let acceptor = Acceptor::spawn(listener, move |s, _| {
            let (connection, tx) = {
                let mut next = tx.lock().unwrap();
                next.0 += 1;
                (next.0 - 1, next.1.clone())
            };
            serve_conn(s, body, connection, &tx)
        });
        TestServer { url, requests, _acceptor: acceptor }
    }

    /// The next `n` requests, waiting at most `limit` for all of them; fails the test saying how many came.
    pub(crate) fn requests(&self, n: usize, limit: Duration) -> Vec<Request> {
        let deadline = Instant::now() + limit;
        let mut got = Vec::with_capacity(n);
        while got.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.requests.recv_timeout(left) {
                Ok(r) => got.push(r),
                Err(_) => panic!("{} of {n} requests within {limit:?}: {:?}", got.len(), got.last()),
            }
        }
        got
    }

    /// The requests received and not yet taken, without waiting: after a client has ended, all it made.
    pub(crate) fn received(&self) -> Vec<Request> {
        self.requests.try_iter().collect()
    }
}

/// How many connections `requests` came on.
pub(crate) fn connections(requests: &[Request]) -> usize {
    let mut seen: Vec<u64> = requests.iter().map(|r| r.connection).collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

fn serve_conn(mut s: TcpStream, body: &[u8], connection: u64, requests: &mpsc::Sender<Request>) {
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
        let head = String::from_utf8_lossy(&buf[..end]).into_owned();
        buf.drain(..end);
        let lower = head.to_ascii_lowercase();
        let close = lower.contains("connection: close") || lower.contains("http/1.0");
        // The test may have stopped listening (its receiver dropped): the server answers all the same.
        let _ = requests.send(Request { connection, head });
        let resp = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: text/plain\r\n{}\r\n",
            body.len(),
            if close { "Connection: close\r\n" } else { "" }
        );
        if s.write_all(resp.as_bytes()).and_then(|_| s.write_all(body)).is_err() || close {
            return;
        }
    }
}

/// A port on 127.0.0.1 with nothing listening (bound, then released).
pub(crate) fn refused_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}
