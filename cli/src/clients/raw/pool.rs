//! `raw` with requests in flight, over plaintext: one thread, one mio (epoll) loop, N non-blocking sockets,
//! the raw client's fixed request and head parser; what wrk does. The blocking pool every other blocking
//! client gets (a thread per request in flight) costs a context switch per request per thread, and held raw
//! at 0.70x `wrk -c16 -t1` on the client's one CPU. Over TLS raw keeps its threads.

use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use httpbench_shared::model::HttpVersion;
use httpbench_shared::session::RoundBudget;
use httpbench_shared::{ErrorKind, Mode, Outcome, PhaseTimes};
use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};

use super::conn::{parse_head, request_bytes, resolve, Head};
use crate::clients::classify::{describe, io_kind};
use crate::clients::pool::{Pool, Record, Round, RoundEnd, Sample, Tickets};
use crate::clients::DriverConfig;

/// Longest wait for socket activity before the loop looks at deadlines and the stop flag again.
const WAIT: Duration = Duration::from_millis(10);
/// Largest response head read (as the blocking raw client's buffer).
const MAX_HEAD: usize = 64 * 1024;
/// The body bytes are counted, not kept: every connection reads them into one scratch buffer.
const SCRATCH: usize = 64 * 1024;

/// The pool: the poller, and a slot per request in flight.
pub(super) struct RawPool {
    mode: Mode,
    timeout: Duration,
    addr: Result<SocketAddr, ErrorKind>,
    request: Vec<u8>,
    poll: Poll,
    slots: Vec<Slot>,
    scratch: Vec<u8>,
}

/// One request in flight at a time, and the connection it keeps between requests (reuse mode).
#[derive(Default)]
struct Slot {
    kept: Option<TcpStream>,
    exchange: Option<Exchange>,
}

/// A request on its connection, from the first byte sent (or the connect) to the end of its body.
struct Exchange {
    stream: TcpStream,
    /// When the request began (its latency is counted from here, a retry's reconnect included).
    started: Instant,
    deadline: Instant,
    /// When its connection was made (`None` while connecting; `started` for a reused one).
    connected: Option<Instant>,
    reused: bool,
    /// Request bytes written so far.
    written: usize,
    /// The head's bytes so far (the first `head_len`), until it is whole.
    head_bytes: Vec<u8>,
    head_len: usize,
    head: Option<Head>,
    first_byte: Option<Instant>,
    /// Body bytes read.
    got: u64,
}

/// Where an exchange is after some progress.
enum Step {
    /// Waiting on the socket.
    Pending,
    /// The response is whole; keep the connection if it may be reused.
    Done(Outcome, Option<PhaseTimes>, bool),
    /// Failed, with why.
    Failed(ErrorKind, String),
    /// A reused connection the server had closed before answering: send again on a new one.
    Retry,
}

impl RawPool {
    /// A pool keeping `in_flight` requests going; fails only when the OS refuses a poller.
    pub(super) fn new(config: &DriverConfig, in_flight: usize) -> anyhow::Result<Self> {
        Ok(RawPool {
            mode: config.mode,
            timeout: config.timeout,
            addr: resolve(config).map(|a| a[0]),
            request: request_bytes(config),
            poll: Poll::new()?,
            slots: (0..in_flight.max(1)).map(|_| Slot::default()).collect(),
            scratch: vec![0; SCRATCH],
        })
    }

    /// Begin a request on slot `i`: on its kept connection, or a new one.
    fn start(&mut self, i: usize, started: Instant) -> Result<(), (ErrorKind, String)> {
        let (stream, reused) = match self.slots[i].kept.take() {
            Some(s) => (s, true),
            None => (self.connect(i)?, false),
        };
        let connected = reused.then_some(started);
        let deadline = started + self.timeout;
        let x = Exchange {
            stream,
            started,
            deadline,
            connected,
            reused,
            written: 0,
            head_bytes: Vec::new(),
            head_len: 0,
            head: None,
            first_byte: None,
            got: 0,
        };
        self.slots[i].exchange = Some(x);
        Ok(())
    }

    /// A new non-blocking connection for slot `i`, registered under its token.
    fn connect(&mut self, i: usize) -> Result<TcpStream, (ErrorKind, String)> {
        let addr = self.addr.map_err(|k| (k, "the host did not resolve".to_string()))?;
        let fail = |e: io::Error| (io_kind(&e), describe(&e));
        let mut stream = TcpStream::connect(addr).map_err(fail)?;
        stream.set_nodelay(true).map_err(fail)?;
        self.poll.registry().register(&mut stream, Token(i), Interest::READABLE | Interest::WRITABLE).map_err(fail)?;
        Ok(stream)
    }

    /// Move slot `i`'s exchange on as far as its socket allows.
    fn advance(&mut self, i: usize) -> Step {
        let (request, scratch, mode) = (&self.request, &mut self.scratch, self.mode);
        let Some(x) = self.slots[i].exchange.as_mut() else { return Step::Pending };
        match x.advance(request, scratch, mode) {
            Ok(step) => step,
            Err(e) if x.reused && x.head_len == 0 && is_closed(&e) => Step::Retry,
            Err(e) => Step::Failed(io_kind(&e), describe(&e)),
        }
    }
}

/// Room for more head bytes after the first `len` of `bytes`: the buffer grows, up to [`MAX_HEAD`], when the
/// head so far fills it.
fn head_room(bytes: &mut Vec<u8>, len: usize) -> io::Result<&mut [u8]> {
    if len == bytes.len() {
        if len >= MAX_HEAD {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "a response head of more than 64 KiB"));
        }
        bytes.resize((len * 2).clamp(1024, MAX_HEAD), 0);
    }
    Ok(&mut bytes[len..])
}

/// Whether `e` says the peer had closed the connection (a kept connection's normal end).
fn is_closed(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::UnexpectedEof | io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe)
}

impl Exchange {
    /// Connect, write, read, until the socket would block or the response is whole.
    fn advance(&mut self, request: &[u8], scratch: &mut [u8], mode: Mode) -> io::Result<Step> {
        if self.connected.is_none() {
            if let Some(e) = self.stream.take_error()? {
                return Err(e);
            }
            match self.stream.peer_addr() {
                Ok(_) => self.connected = Some(Instant::now()),
                Err(e) if e.kind() == io::ErrorKind::NotConnected => return Ok(Step::Pending),
                Err(e) => return Err(e),
            }
        }
        while self.written < request.len() {
            match self.stream.write(&request[self.written..]) {
                Ok(n) => self.written += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(Step::Pending),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        loop {
            let buf = match self.head {
                Some(_) => &mut scratch[..],
                None => head_room(&mut self.head_bytes, self.head_len)?,
            };
            let n = match self.stream.read(buf) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(Step::Pending),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if let Some(step) = self.took(n, mode)? {
                return Ok(step);
            }
        }
    }

    /// `n` bytes were read (into the head, or the scratch once the head is whole): the step they end in, if any.
    fn took(&mut self, n: usize, mode: Mode) -> io::Result<Option<Step>> {
        match &self.head {
            None if n == 0 => {
                let kind = if self.head_len == 0 { io::ErrorKind::UnexpectedEof } else { io::ErrorKind::InvalidData };
                return Err(io::Error::new(kind, "the server closed the connection before a whole response head"));
            }
            None => {
                self.first_byte.get_or_insert_with(Instant::now);
                self.head_len += n;
                match parse_head(&self.head_bytes[..self.head_len]) {
                    Ok(Some((end, mut head))) => {
                        head.buffered_body = self.head_len - end;
                        self.got = head.buffered_body as u64;
                        self.head = Some(head);
                    }
                    Ok(None) => return Ok(None),
                    Err(()) => return Ok(Some(Step::Failed(ErrorKind::Protocol, "not an HTTP/1.x response".into()))),
                }
            }
            // Without a length the body ends with the connection.
            Some(head) if n == 0 && head.content_length.is_none() => return Ok(Some(self.done(mode))),
            Some(_) if n == 0 => return Ok(Some(Step::Failed(ErrorKind::Truncated, "the body ended early".into()))),
            Some(_) => self.got += n as u64,
        }
        let head = self.head.as_ref().expect("the head is whole");
        let whole = head.bodiless() || head.content_length.is_some_and(|len| self.got >= len);
        Ok(whole.then(|| self.done(mode)))
    }

    /// The response is whole: its outcome and phases, and whether its connection may serve the next request.
    fn done(&self, mode: Mode) -> Step {
        let head = self.head.as_ref().expect("the head is whole");
        let body = if head.bodiless() { 0 } else { head.content_length.map_or(self.got, |len| len.min(self.got)) };
        let outcome = Outcome::response(head.status, body).over(head.http11.then_some(HttpVersion::Http11));
        let connected = self.connected.unwrap_or(self.started);
        let phases = PhaseTimes {
            connect: if self.reused { Duration::ZERO } else { connected - self.started },
            tls: None,
            ttfb: self.first_byte.map_or(Duration::ZERO, |t| t - self.started),
        };
        let keep = mode == Mode::Reuse && !head.close && head.content_length.is_some();
        Step::Done(outcome, Some(phases), keep)
    }
}

impl Pool for RawPool {
    fn run(&mut self, round: Round<'_>, record: &mut dyn Record) -> RoundEnd {
        self.round(round.budget, round.stop, &mut |s| record.sample(s));
        RoundEnd::default()
    }
}

impl RawPool {
    /// The round in the epoll loop.
    fn round(&mut self, budget: RoundBudget, stop: &AtomicBool, record: &mut dyn FnMut(Sample)) {
        let tickets = Tickets::new(budget);
        let mut described: Vec<ErrorKind> = Vec::new();
        let mut sample = |s: Sample, described: &mut Vec<ErrorKind>| {
            let first = s.outcome.error.filter(|k| !described.contains(k));
            described.extend(first);
            record(Sample { reason: s.reason.filter(|_| first.is_some()), ..s });
        };
        let mut active = 0;
        for i in 0..self.slots.len() {
            active += usize::from(self.next(i, &tickets, stop, &mut |s| sample(s, &mut described)));
        }
        let mut events = Events::with_capacity(self.slots.len().max(16));
        while active > 0 {
            if let Err(e) = self.poll.poll(&mut events, Some(WAIT)) {
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                // The poller itself broke: end what is in flight as failed, so the round still ends.
                for i in 0..self.slots.len() {
                    if let Some(x) = self.slots[i].exchange.take() {
                        sample(failed(ErrorKind::Other, x.started, describe(&e)), &mut described);
                    }
                }
                return;
            }
            let mut woken: Vec<usize> = events.iter().map(|e| e.token().0).collect();
            // A request past its deadline ends as a timeout, woken or not.
            let now = Instant::now();
            woken.extend(
                (0..self.slots.len()).filter(|&i| self.slots[i].exchange.as_ref().is_some_and(|x| now >= x.deadline)),
            );
            for i in woken {
                if self.finish(i, &mut |s| sample(s, &mut described)) {
                    active -= 1;
                    active += usize::from(self.next(i, &tickets, stop, &mut |s| sample(s, &mut described)));
                }
            }
        }
    }
}

impl RawPool {
    /// Start slot `i`'s next request if the round wants one: true when one is in flight. A request that fails
    /// to start (no connection) is recorded, and the next one tried, while tickets last.
    fn next(&mut self, i: usize, tickets: &Tickets, stop: &AtomicBool, record: &mut dyn FnMut(Sample)) -> bool {
        while !stop.load(Ordering::Relaxed) && tickets.take() {
            let started = Instant::now();
            match self.start(i, started) {
                Ok(()) => {
                    if !self.finish(i, record) {
                        return true;
                    }
                }
                Err((kind, reason)) => record(failed(kind, started, reason)),
            }
        }
        false
    }

    /// Advance slot `i`; if its request ended, record it and say so (true). A retry reconnects and goes on.
    fn finish(&mut self, i: usize, record: &mut dyn FnMut(Sample)) -> bool {
        let Some(x) = self.slots[i].exchange.as_ref() else { return false };
        let (started, deadline) = (x.started, x.deadline);
        let step = match self.advance(i) {
            Step::Pending if Instant::now() >= deadline => {
                Step::Failed(ErrorKind::Timeout, format!("no whole response within {:?}", self.timeout))
            }
            step => step,
        };
        let x = match step {
            Step::Pending => return false,
            _ => self.slots[i].exchange.take().expect("an exchange in flight"),
        };
        let latency = started.elapsed();
        match step {
            Step::Pending => unreachable!("returned above"),
            Step::Done(outcome, phases, keep) => {
                let ok = outcome.failure().is_none();
                if keep {
                    self.slots[i].kept = Some(x.stream);
                }
                record(Sample { outcome, latency, phases: phases.filter(|_| ok), reason: None });
            }
            Step::Failed(kind, reason) => {
                record(Sample { reason: Some(reason), ..failed(kind, started, String::new()) })
            }
            Step::Retry => match self.connect(i) {
                Ok(stream) => {
                    let connected = None;
                    let again = Exchange { stream, reused: false, connected, written: 0, head_len: 0, ..x };
                    self.slots[i].exchange = Some(again);
                    return self.finish(i, record);
                }
                Err((kind, reason)) => record(failed(kind, started, reason)),
            },
        }
        true
    }
}

/// A failed request that began at `started`, with why.
fn failed(kind: ErrorKind, started: Instant, reason: String) -> Sample {
    Sample { outcome: Outcome::failed(kind, None), latency: started.elapsed(), phases: None, reason: Some(reason) }
}

#[cfg(test)]
mod tests;
