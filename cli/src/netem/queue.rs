//! The packet queue of one direction of an emulated link: a thread inside one namespace takes every packet
//! leaving its side (NFQUEUE), asks the direction's [`DelayLine`] when it may go, and lets it go then, or drops
//! it. It counts what it did and how late it let packets go, the emulator's own error.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Context;
use httpbench_shared::protocol::Link;
use nfq::{Queue, Verdict};

use super::line::DelayLine;
use super::ns::Namespace;

/// The NFQUEUE number each side's rule sends its packets to (queues are per namespace).
pub(crate) const QUEUE_NUM: u16 = 0;
/// Packets the kernel holds for the queue at most: at 100 Mbit/s and 1 s of delay, some 8000 full packets.
const QUEUE_MAX_LEN: u32 = 16_384;
/// The longest the thread sleeps without looking at its stop flag.
const TICK: Duration = Duration::from_millis(20);
/// How long before a packet is due the thread stops sleeping and spins: waking from a sleep takes some 100 µs
/// on a virtual machine (measured here: 110 µs late on average with sleep alone), a spin a microsecond.
const SPIN: Duration = Duration::from_micros(200);

/// What a direction's queue did: packets seen, dropped, and how much later than asked it let them go.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Counts {
    /// Packets that reached the queue.
    pub packets: u64,
    /// Of them, dropped as the link's loss.
    pub dropped: u64,
    /// Sum of the delays asked of the packets let go, in microseconds.
    pub asked_us: u64,
    /// Sum of how much later than asked each was let go, in microseconds.
    pub late_us: u64,
    /// The latest any packet was let go, in microseconds.
    pub late_max_us: u64,
}

/// The queue's netlink socket, as a descriptor to wait on (nfq keeps it private).
struct Bound {
    queue: Queue,
    fd: i32,
}

/// A running queue thread; dropping it lets every packet it holds go and stops it.
pub(crate) struct Worker {
    stop: Arc<AtomicBool>,
    line: Arc<Mutex<DelayLine>>,
    counts: Arc<Mutex<Counts>>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// Start the queue of `ns`'s outgoing packets for `link`; returns once the queue is bound, or why not.
    pub(crate) fn start(ns: &Namespace, link: &Link, seed: u64) -> anyhow::Result<Worker> {
        let Bound { mut queue, fd } = bind(ns).context("cannot take the emulated link's packets (NFQUEUE)")?;
        let stop = Arc::new(AtomicBool::new(false));
        let line = Arc::new(Mutex::new(DelayLine::new(link, seed)));
        let counts = Arc::new(Mutex::new(Counts::default()));
        let (s, l, c) = (stop.clone(), line.clone(), counts.clone());
        let thread = std::thread::Builder::new()
            .name("httpbench-link".into())
            .spawn(move || {
                // Timers wake within a microsecond of when they are due, not the default 50.
                // SAFETY: prctl with integer arguments only.
                unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
                if let Err(e) = pump(&mut queue, fd, &s, &l, &c) {
                    eprintln!("httpbench: error: the emulated link stopped: {e}");
                }
            })
            .context("cannot start the emulated link's thread")?;
        Ok(Worker { stop, line, counts, thread: Some(thread) })
    }

    /// Change the direction's delay and loss (the next link of a scan).
    pub(crate) fn set(&self, link: &Link) {
        if let Ok(mut line) = self.line.lock() {
            line.set(link);
        }
    }

    /// What the queue did since the last call.
    pub(crate) fn take(&self) -> Counts {
        self.counts.lock().map(|mut c| std::mem::take(&mut *c)).unwrap_or_default()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The queue bound inside `ns`: the socket must be opened there, where the rule is.
fn bind(ns: &Namespace) -> anyhow::Result<Bound> {
    std::thread::scope(|s| {
        s.spawn(|| -> anyhow::Result<Bound> {
            ns.enter().context("cannot enter the link's namespace")?;
            // nfq does not show its socket, and the thread must sleep on it (until a packet comes or one is
            // due). A new descriptor takes the lowest free number: find it, free it, and check that the
            // queue's socket took it.
            // SAFETY: open and close of /dev/null, a descriptor of this function's own.
            let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
            if fd < 0 {
                return Err(std::io::Error::last_os_error().into());
            }
            unsafe { libc::close(fd) };
            let mut queue = Queue::open()?;
            anyhow::ensure!(is_netfilter_socket(fd), "cannot find the queue's socket (descriptor {fd})");
            // nfq opens it inheritable: the server, adapters and `ip`/`tc` would inherit it, and a socket keeps
            // its namespace alive after this process.
            // SAFETY: fcntl on a descriptor this thread just checked.
            unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
            queue.bind(QUEUE_NUM)?;
            // Metadata only: the verdict needs the packet's id, not its bytes.
            queue.set_copy_range(QUEUE_NUM, 0)?;
            queue.set_queue_max_len(QUEUE_NUM, QUEUE_MAX_LEN)?;
            // A full queue drops, as a full router buffer does; it never lets a packet past the link.
            queue.set_fail_open(QUEUE_NUM, false)?;
            queue.set_nonblocking(true);
            Ok(Bound { queue, fd })
        })
        .join()
        .map_err(|_| anyhow::anyhow!("the thread binding the link's queue panicked"))?
    })
}

/// Take packets and let them go when their line says, until `stop`; then let every held packet go.
fn pump(
    queue: &mut Queue,
    fd: i32,
    stop: &AtomicBool,
    line: &Mutex<DelayLine>,
    counts: &Mutex<Counts>,
) -> std::io::Result<()> {
    let start = Instant::now();
    let mut held: VecDeque<(Duration, Duration, nfq::Message)> = VecDeque::new();
    while !stop.load(Ordering::Relaxed) {
        let now = start.elapsed();
        let wait = held.front().map_or(TICK, |(at, _, _)| at.saturating_sub(now).saturating_sub(SPIN)).min(TICK);
        wait_readable(fd, wait);
        loop {
            let mut msg = match queue.recv() {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            };
            let came = start.elapsed();
            let leaves = line.lock().ok().and_then(|mut l| l.admit(came));
            let mut c = counts.lock().unwrap_or_else(|p| p.into_inner());
            c.packets += 1;
            match leaves {
                Some(at) => held.push_back((at, at - came, msg)),
                None => {
                    c.dropped += 1;
                    drop(c);
                    msg.set_verdict(Verdict::Drop);
                    queue.verdict(msg)?;
                }
            }
        }
        let now = start.elapsed();
        while held.front().is_some_and(|(at, _, _)| *at <= now) {
            let Some((at, asked, mut msg)) = held.pop_front() else { break };
            msg.set_verdict(Verdict::Accept);
            queue.verdict(msg)?;
            let late = u64::try_from(start.elapsed().saturating_sub(at).as_micros()).unwrap_or(u64::MAX);
            let mut c = counts.lock().unwrap_or_else(|p| p.into_inner());
            c.asked_us += u64::try_from(asked.as_micros()).unwrap_or(u64::MAX);
            c.late_us += late;
            c.late_max_us = c.late_max_us.max(late);
        }
    }
    for (_, _, mut msg) in held {
        msg.set_verdict(Verdict::Accept);
        queue.verdict(msg)?;
    }
    Ok(())
}

/// Sleep until `fd` has a packet or `wait` has passed, whichever comes first (to the nanosecond: ppoll).
fn wait_readable(fd: i32, wait: Duration) {
    let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    let ts = libc::timespec {
        tv_sec: libc::time_t::try_from(wait.as_secs()).unwrap_or(libc::time_t::MAX),
        tv_nsec: libc::c_long::from(wait.subsec_nanos() as i32),
    };
    // SAFETY: one valid pollfd and a valid timespec, no signal mask.
    unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
}

/// Whether descriptor `fd` is a netlink socket of netfilter's (what an NFQUEUE listens on).
fn is_netfilter_socket(fd: i32) -> bool {
    let get = |option| {
        let mut value: libc::c_int = -1;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: an int-sized buffer and its length.
        let r = unsafe { libc::getsockopt(fd, libc::SOL_SOCKET, option, (&raw mut value).cast(), &mut len) };
        (r == 0).then_some(value)
    };
    get(libc::SO_DOMAIN) == Some(libc::AF_NETLINK) && get(libc::SO_PROTOCOL) == Some(libc::NETLINK_NETFILTER)
}
