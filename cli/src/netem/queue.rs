//! The packet queue of one direction of an emulated link: a thread inside one namespace takes every packet
//! leaving its side (NFQUEUE), asks the direction's [`DelayLine`] when it may go, and lets it go then, or drops
//! it. It counts what it did and how late it let packets go, the emulator's own error.

use std::collections::VecDeque;
use std::io::{Read, Seek};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Context;
use httpbench_shared::protocol::Link;
use httpbench_shared::CpuTime;
use nfq::{Queue, Verdict};

use super::line::DelayLine;
use super::ns::Namespace;

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
    /// Packets the kernel dropped because the queue was full or this thread could not take them.
    pub overflowed: u64,
}

/// The queue's netlink socket, as a descriptor to wait on (nfq keeps it private), and the kernel's counters
/// of the queue, opened inside its namespace (a `/proc/net` file shows the namespace it was opened in).
struct Bound {
    queue: Queue,
    fd: i32,
    stats: std::fs::File,
}

/// What the queue thread shares with the rest of the run.
#[derive(Default)]
struct Shared {
    /// Set to end the thread.
    stop: AtomicBool,
    /// Set when the thread ended on an error: its direction no longer passes packets.
    failed: AtomicBool,
    /// Set by a change of link: let every packet held for the last link go now, so none waits behind its
    /// delay (packets that came since keep theirs).
    drain: AtomicBool,
    counts: Mutex<Counts>,
    /// The thread's own CPU time so far, updated after each pass of its loop.
    cpu: Mutex<CpuTime>,
}

/// A running queue thread; dropping it lets every packet it holds go and stops it.
pub(crate) struct Worker {
    /// The NFQUEUE number its rule sends packets to.
    num: u16,
    shared: Arc<Shared>,
    line: Arc<Mutex<DelayLine>>,
    stats: Mutex<std::fs::File>,
    /// The kernel's drop count when last read.
    overflowed: Mutex<u64>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// Start queue `num` of `ns` (where a rule sends it one direction's packets) for `link`; returns once the
    /// queue is bound, or why not.
    pub(crate) fn start(ns: &Namespace, num: u16, link: &Link, seed: u64) -> anyhow::Result<Worker> {
        let Bound { mut queue, fd, mut stats } =
            bind(ns, num).context("cannot take the emulated link's packets (NFQUEUE)")?;
        let shared = Arc::new(Shared::default());
        let line = Arc::new(Mutex::new(DelayLine::new(link, seed)));
        let overflowed = Mutex::new(overflow_count(&mut stats, num).unwrap_or(0));
        let (s, l) = (shared.clone(), line.clone());
        let thread = std::thread::Builder::new()
            .name("httpbench-link".into())
            .spawn(move || {
                // Timers wake within a microsecond of when they are due, not the default 50.
                // SAFETY: prctl with integer arguments only.
                unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
                if let Err(e) = pump(&mut queue, fd, &s, &l) {
                    s.failed.store(true, Ordering::Relaxed);
                    eprintln!("httpbench: error: the emulated link stopped: {e}");
                }
            })
            .context("cannot start the emulated link's thread")?;
        Ok(Worker { num, shared, line, stats: Mutex::new(stats), overflowed, thread: Some(thread) })
    }

    /// Change the direction's delay and loss (the next link of a scan); packets held for the last link go at
    /// the thread's next pass.
    pub(crate) fn set(&self, link: &Link) {
        if let Ok(mut line) = self.line.lock() {
            line.set(link);
            self.shared.drain.store(true, Ordering::Relaxed);
        }
    }

    /// What the queue did since the last call, the kernel's drops of its packets included.
    pub(crate) fn take(&self) -> Counts {
        let mut counts = self.shared.counts.lock().map(|mut c| std::mem::take(&mut *c)).unwrap_or_default();
        let mut stats = self.stats.lock().unwrap_or_else(|p| p.into_inner());
        let mut last = self.overflowed.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(now) = overflow_count(&mut stats, self.num) {
            counts.overflowed = now.saturating_sub(*last);
            *last = now;
        }
        counts
    }

    /// Whether the thread ended on an error (its direction passes no packet any more).
    pub(crate) fn failed(&self) -> bool {
        self.shared.failed.load(Ordering::Relaxed) || self.thread.as_ref().is_none_or(|t| t.is_finished())
    }

    /// The thread's CPU time so far: spent emulating the link, not by the clients, though in this process.
    pub(crate) fn cpu(&self) -> CpuTime {
        self.shared.cpu.lock().map(|c| *c).unwrap_or_default()
    }
}

/// Packets of queue `num` the kernel dropped so far: its queue was full (`queue_dropped`) or the
/// thread's socket was (`user_dropped`), from `/proc/net/netfilter/nfnetlink_queue`.
fn overflow_count(stats: &mut std::fs::File, num: u16) -> Option<u64> {
    let mut text = String::new();
    stats.rewind().ok()?;
    stats.read_to_string(&mut text).ok()?;
    let fields: Vec<u64> = text
        .lines()
        .map(|l| l.split_whitespace().filter_map(|f| f.parse().ok()).collect::<Vec<u64>>())
        .find(|f| f.first() == Some(&u64::from(num)))?;
    // queue_number portid queue_total copy_mode copy_range queue_dropped user_dropped id_sequence 1
    Some(fields.get(5)? + fields.get(6)?)
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Queue `num` bound inside `ns`: the socket must be opened there, where the rule is.
fn bind(ns: &Namespace, num: u16) -> anyhow::Result<Bound> {
    std::thread::scope(|s| {
        s.spawn(|| -> anyhow::Result<Bound> {
            ns.enter().context("cannot enter the link's namespace")?;
            // nfq does not show its socket, and the thread must sleep on it (until a packet comes or one is
            // due): it is the one netfilter socket that was not there before. (Numbers alone do not tell: the
            // socket may take the number the listing's own directory had.)
            let before = netfilter_sockets()?;
            let mut queue = Queue::open()?;
            let mut new = netfilter_sockets()?.into_iter().filter(|fd| !before.contains(fd));
            let (Some(fd), None) = (new.next(), new.next()) else {
                anyhow::bail!("cannot tell the queue's socket among this process's descriptors");
            };
            // nfq opens it inheritable: the server, adapters and `ip`/`tc` would inherit it, and a socket keeps
            // its namespace alive after this process.
            // SAFETY: fcntl on a descriptor this thread just checked.
            unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
            queue.bind(num)?;
            // Metadata only: the verdict needs the packet's id, not its bytes.
            queue.set_copy_range(num, 0)?;
            queue.set_queue_max_len(num, QUEUE_MAX_LEN)?;
            // A full queue drops, as a full router buffer does; it never lets a packet past the link.
            queue.set_fail_open(num, false)?;
            queue.set_nonblocking(true);
            let stats = std::fs::File::open("/proc/thread-self/net/netfilter/nfnetlink_queue")
                .context("cannot read the queue's counters")?;
            Ok(Bound { queue, fd, stats })
        })
        .join()
        .map_err(|_| anyhow::anyhow!("the thread binding the link's queue panicked"))?
    })
}

/// The netfilter sockets this process has open now.
fn netfilter_sockets() -> anyhow::Result<Vec<i32>> {
    let dir = std::fs::read_dir("/proc/self/fd").context("cannot list this process's descriptors")?;
    let fds: Vec<i32> = dir.flatten().filter_map(|e| e.file_name().to_str()?.parse().ok()).collect();
    Ok(fds.into_iter().filter(|fd| is_netfilter_socket(*fd)).collect())
}

/// Take packets and let them go when their line says, until told to stop; then let every held packet go.
fn pump(queue: &mut Queue, fd: i32, shared: &Shared, line: &Mutex<DelayLine>) -> std::io::Result<()> {
    let start = Instant::now();
    let counts = &shared.counts;
    let mut held: Held = VecDeque::new();
    while !shared.stop.load(Ordering::Relaxed) {
        if shared.drain.swap(false, Ordering::Relaxed) {
            let now_at = line.lock().map(|l| l.generation()).unwrap_or(u64::MAX);
            release(queue, &mut held, |generation| generation < now_at)?;
        }
        let now = start.elapsed();
        let wait = held.front().map_or(TICK, |p| p.at.saturating_sub(now).saturating_sub(SPIN)).min(TICK);
        // Published before each sleep, so what the thread did up to now is counted when a round ends (not
        // while it spins: that is a pass a microsecond).
        if !wait.is_zero() {
            if let Ok(mut c) = shared.cpu.lock() {
                *c = crate::cpu::thread_cpu().unwrap_or(*c);
            }
        }
        wait_readable(fd, wait);
        loop {
            let mut msg = match queue.recv() {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            };
            let came = start.elapsed();
            let leaves = line.lock().ok().and_then(|mut l| Some((l.admit(came)?, l.generation())));
            let mut c = counts.lock().unwrap_or_else(|p| p.into_inner());
            c.packets += 1;
            match leaves {
                Some((at, generation)) => held.push_back(HeldPacket { at, asked: at - came, generation, msg }),
                None => {
                    c.dropped += 1;
                    drop(c);
                    msg.set_verdict(Verdict::Drop);
                    queue.verdict(msg)?;
                }
            }
        }
        let now = start.elapsed();
        while held.front().is_some_and(|p| p.at <= now) {
            let Some(HeldPacket { at, asked, mut msg, .. }) = held.pop_front() else { break };
            msg.set_verdict(Verdict::Accept);
            queue.verdict(msg)?;
            let late = u64::try_from(start.elapsed().saturating_sub(at).as_micros()).unwrap_or(u64::MAX);
            let mut c = counts.lock().unwrap_or_else(|p| p.into_inner());
            c.asked_us += u64::try_from(asked.as_micros()).unwrap_or(u64::MAX);
            c.late_us += late;
            c.late_max_us = c.late_max_us.max(late);
        }
    }
    release(queue, &mut held, |_| true)
}

/// A packet the queue holds: when it is due, the delay it was asked, the link it came at, itself.
struct HeldPacket {
    at: Duration,
    asked: Duration,
    generation: u64,
    msg: nfq::Message,
}

/// The held packets, in the order they are due.
type Held = VecDeque<HeldPacket>;

/// Let every held packet whose link generation `which` names go now; the others keep their order.
fn release(queue: &mut Queue, held: &mut Held, which: impl Fn(u64) -> bool) -> std::io::Result<()> {
    let (go, keep): (Held, Held) = held.drain(..).partition(|p| which(p.generation));
    *held = keep;
    for mut p in go {
        p.msg.set_verdict(Verdict::Accept);
        queue.verdict(p.msg)?;
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
