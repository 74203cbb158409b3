//! A blocking `TcpStream` whose reads all end by the request's deadline, for the raw client. A socket read
//! timeout alone does not give that: each read gets the whole timeout, so a server that stalls after part of
//! an answer took up to two timeouts, and one that drips a byte every half second kept a TLS handshake going
//! for minutes (each read returned in time, and rustls's handshake loop never looked at the clock). Here the
//! deadline is checked before every read and the socket's timeout is kept no longer than the time left.
//!
//! Setting the timeout is a system call, so it is set lazily: only when the one on the socket would overrun
//! the deadline by more than [`SLACK`]. A quick request never needs it (its reads start within microseconds
//! of its deadline being set), so a kept-alive request still costs one `sendto` and one `recvfrom`
//! (bench-perf figure 7); a slow one pays one `setsockopt` per [`SLACK`] of its time at most.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// How far a read may run past the deadline: the price of not setting the socket's timeout per read.
pub(super) const SLACK: Duration = Duration::from_millis(2);

/// A connection's socket and the deadline of the request it is carrying.
pub(super) struct Timed {
    tcp: TcpStream,
    deadline: Instant,
    /// The read timeout the socket has now.
    armed: Duration,
}

impl Timed {
    /// `tcp`, whose read timeout was set to `armed`, carrying a request due by `deadline`.
    pub(super) fn new(tcp: TcpStream, armed: Duration, deadline: Instant) -> Self {
        Timed { tcp, deadline, armed }
    }

    /// The next request on this connection is due by `deadline`.
    pub(super) fn set_deadline(&mut self, deadline: Instant) {
        self.deadline = deadline;
    }

    /// Before a read: `TimedOut` once the deadline has passed, else a socket timeout that ends the read by
    /// the deadline (within [`SLACK`]), set when the one there would not, or always with `force`.
    fn arm(&mut self, force: bool) -> io::Result<()> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "no answer within --timeout"));
        }
        if force || self.armed > left + SLACK {
            self.tcp.set_read_timeout(Some(left))?;
            self.armed = left;
        }
        Ok(())
    }
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut force = false;
        loop {
            self.arm(force)?;
            match self.tcp.read(buf) {
                // The socket's timeout, shorter than the time left (set for an earlier, later-started read):
                // wait again with what is left.
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => force = true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }
}

impl Write for Timed {
    /// Writes are bounded by the send timeout set at connect: a request is far smaller than a socket's buffer.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tcp.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.tcp.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A peer that sends one byte every 50 ms: every read returns in time, the request does not.
    #[test]
    fn a_drip_is_cut_at_the_deadline_and_a_stall_within_slack() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let peer = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            for _ in 0..40 {
                if s.write_all(b"x").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let tcp = TcpStream::connect(addr).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let start = Instant::now();
        let mut timed = Timed::new(tcp, Duration::from_secs(10), start + Duration::from_millis(400));
        let mut buf = [0u8; 16];
        let err = loop {
            match timed.read(&mut buf) {
                Ok(0) => panic!("the peer closed first"),
                Ok(_) => {}
                Err(e) => break e,
            }
        };
        let took = start.elapsed();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut, "{err}");
        assert!(took >= Duration::from_millis(400) && took < Duration::from_millis(400) + 60 * SLACK, "{took:?}");
        // The next request on the connection gets its own deadline, and a stall ends by it too.
        let again = Instant::now();
        timed.set_deadline(again + Duration::from_millis(30));
        while timed.read(&mut buf).is_ok() {}
        assert!(again.elapsed() < Duration::from_millis(30) + 40 * SLACK, "{:?}", again.elapsed());
        drop(timed);
        peer.join().unwrap();
    }
}
