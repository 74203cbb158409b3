# httpbench's adapter for Python clients: the standard library's http.client ("urllib"), requests, and
# aioquic (HTTP/3), chosen by the first argument. It speaks httpbench's command-client protocol (README,
# "Command clients"): read a count n per line on stdin, make n sequential GETs of $HTTPBENCH_URL, print
# "<ns> <status> <body_bytes>" or "<ns> 0 0 <kind> <reason>" per request, then "end". fresh = a new connection
# object (or requests call, or QUIC connection) per request; reuse = one kept-alive connection (one
# requests.Session, one QUIC connection).
import asyncio
import os
import signal
import socket
import sys
import time
import urllib.parse

URL = os.environ["HTTPBENCH_URL"]
REUSE = os.environ.get("HTTPBENCH_MODE", "fresh") == "reuse"
TIMEOUT = float(os.environ.get("HTTPBENCH_TIMEOUT", "10"))
# Over https: the CA file to trust (verification stays on), when httpbench was given one.
CACERT = os.environ.get("HTTPBENCH_CACERT")


# No compression for any client (requests asks for gzip by default).
IDENTITY = {"Accept-Encoding": "identity"}
# Lines are written in bunches, at least every FLUSH_SECS: httpbench wants each line within --timeout + 2 s.
FLUSH_SECS = 0.2


class Deadline(Exception):
    """--timeout passed for the whole request (the libraries' own timeouts are per socket operation)."""


class TlsFailure(Exception):
    """A TLS handshake that failed: a certificate refused, or an alert from the peer."""


def on_alarm(_signum, _frame):
    raise Deadline()


def reason_of(e):
    """An exception as the one-line reason after the kind: what the library said, control characters out."""
    text = " ".join(f"{type(e).__name__}: {e}".split())
    return "".join(c for c in text if c.isprintable())[:300]


def kind_of(e):
    """An exception's kind, in httpbench's names."""
    text = f"{type(e).__name__} {e}".lower()
    if isinstance(e, Deadline) or "timeout" in text or "timed out" in text:
        return "timeout"
    if isinstance(e, TlsFailure):
        return "tls"
    # Before the others: a refused certificate is worded as a failed connection by some libraries.
    if "ssl" in text or "certificate" in text:
        return "tls"
    if isinstance(e, socket.gaierror) or "resolve" in text or "name or service" in text:
        return "dns"
    if isinstance(e, ConnectionRefusedError) or "refused" in text or "connecterror" in text:
        return "connect"
    if "incomplete" in text or "truncat" in text:
        return "truncated"
    if isinstance(e, (ConnectionResetError, BrokenPipeError)) or "reset" in text or "remotedisconnected" in text:
        return "reset"
    if "badstatusline" in text or "protocol" in text:
        return "protocol"
    return "other"


class Urllib:
    """http.client, the standard library's HTTP/1.1 client (what urllib.request runs on), TCP_NODELAY on."""

    def __init__(self):
        import http.client

        u = urllib.parse.urlsplit(URL)
        self.target = (u.path or "/") + (f"?{u.query}" if u.query else "")
        if u.scheme == "https":
            import ssl

            # One context, as a program would keep one; sessions are not reused across connections.
            context = ssl.create_default_context(cafile=CACERT)
            self.new = lambda: http.client.HTTPSConnection(u.hostname, u.port, timeout=TIMEOUT, context=context)
        else:
            self.new = lambda: http.client.HTTPConnection(u.hostname, u.port, timeout=TIMEOUT)
        self.conn = None
        self.version = f"http.client (Python {sys.version.split()[0]})"

    def get(self):
        try:
            if self.conn is None:
                self.conn = self.new()
                self.conn.connect()
                self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.conn.request("GET", self.target, headers={} if REUSE else {"Connection": "close"})
            r = self.conn.getresponse()
            body = r.read()
        except BaseException:
            if self.conn is not None:
                self.conn.close()
            self.conn = None
            raise
        if not REUSE or r.will_close:
            self.conn.close()
            self.conn = None
        return r.status, len(body)


class Requests:
    """requests, when it is installed; fresh calls requests.get (a new Session each time) as most code does."""

    def __init__(self):
        import requests

        self.requests = requests
        self.session = requests.Session() if REUSE else None
        self.version = f"requests {requests.__version__} (urllib3 {requests.packages.urllib3.__version__}, Python {sys.version.split()[0]})"

    def get(self):
        get = self.session.get if self.session else self.requests.get
        proxies = {"http": None, "https": None}
        verify = CACERT or True
        r = get(URL, timeout=TIMEOUT, allow_redirects=False, proxies=proxies, headers=IDENTITY, verify=verify)
        return r.status_code, len(r.content)


def h3_protocol():
    """The asyncio protocol of one HTTP/3 connection on aioquic (imported here: only python-aioquic needs it).
    Each GET is a request stream; its answer is (status, body bytes) once the stream ends."""
    from aioquic.asyncio.protocol import QuicConnectionProtocol
    from aioquic.h3.connection import H3Connection
    from aioquic.h3.events import DataReceived, HeadersReceived
    from aioquic.quic.events import ConnectionTerminated, StreamReset

    class H3Protocol(QuicConnectionProtocol):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.h3 = H3Connection(self._quic)
            # stream id -> [future, status, body bytes, Content-Length]
            self.pending = {}
            # Why the connection ended, once it has (aioquic's own error for a failed handshake says nothing).
            self.ended = None

        async def get(self, authority, target):
            stream_id = self._quic.get_next_available_stream_id()
            headers = [(b":method", b"GET"), (b":scheme", b"https"), (b":authority", authority), (b":path", target)]
            headers.append((b"accept-encoding", b"identity"))
            self.h3.send_headers(stream_id, headers, end_stream=True)
            done = self._loop.create_future()
            self.pending[stream_id] = [done, 0, 0, None]
            self.transmit()
            return await done

        def fail(self, stream_ids, error):
            for stream_id in stream_ids:
                done = self.pending.pop(stream_id)[0]
                if not done.done():
                    done.set_exception(error)

        def quic_event_received(self, event):
            if isinstance(event, StreamReset) and event.stream_id in self.pending:
                reset = ConnectionResetError(f"the server reset the request stream (error code {event.error_code})")
                return self.fail([event.stream_id], reset)
            if isinstance(event, ConnectionTerminated):
                why = f"the QUIC connection was closed (error code {event.error_code:#x}: {event.reason_phrase})"
                # 0x100 to 0x1ff carry a TLS alert (RFC 9001 4.8).
                self.ended = TlsFailure(why) if 0x100 <= event.error_code < 0x200 else ConnectionResetError(why)
                return self.fail(list(self.pending), self.ended)
            for h3_event in self.h3.handle_event(event):
                request = self.pending.get(h3_event.stream_id)
                if request is None:
                    continue
                if isinstance(h3_event, HeadersReceived):
                    head = dict(h3_event.headers)
                    request[1] = int(head[b":status"])
                    request[3] = int(head[b"content-length"]) if b"content-length" in head else None
                elif isinstance(h3_event, DataReceived):
                    request[2] += len(h3_event.data)
                if h3_event.stream_ended:
                    done, status, size, expected = self.pending.pop(h3_event.stream_id)
                    if expected is not None and expected != size:
                        done.set_exception(EOFError(f"incomplete body: {size} of {expected} bytes"))
                    elif not done.done():
                        done.set_result((status, size))

    return H3Protocol


class Aioquic:
    """aioquic's HTTP/3: a QUIC stack of its own (Python, asyncio), independent of quinn. fresh = a new QUIC
    connection with a full handshake per request (no session ticket is kept, so nothing resumes), closed once
    its answer is in without waiting out QUIC's closing period; reuse = one connection, a stream per request,
    made anew after a failure. Its event loop runs the whole time, between batches too (see serve_async)."""

    def __init__(self):
        import aioquic
        from aioquic.asyncio.client import connect
        from aioquic.h3.connection import H3_ALPN
        from aioquic.quic.configuration import QuicConfiguration

        u = urllib.parse.urlsplit(URL)
        if u.scheme != "https":
            print("unavailable: HTTP/3 needs an https URL (run with --tls, or an https target)", file=sys.stderr)
            sys.exit(3)
        self.authority = u.netloc.encode()
        self.target = ((u.path or "/") + (f"?{u.query}" if u.query else "")).encode()
        self.loop = asyncio.new_event_loop()
        self.configuration = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, server_name=u.hostname)
        if CACERT:
            self.configuration.load_verify_locations(CACERT)
        self.protocol = h3_protocol()
        self.address = (u.hostname, u.port or 443)
        self.quic_connect = connect
        self.kept = None  # reuse: (connection context, connection)
        self.closing = set()  # fresh: connections waiting out their closing period, in the background
        self.version = f"aioquic {aioquic.__version__} (Python {sys.version.split()[0]})"

    async def open(self):
        """A new connection, handshake done: (its context, its protocol). A failed handshake raises what the
        protocol saw end it (aioquic raises a bare ConnectionError)."""
        made = []

        def create_protocol(*args, **kwargs):
            made.append(self.protocol(*args, **kwargs))
            return made[-1]

        context = self.quic_connect(*self.address, configuration=self.configuration, wait_connected=True,
                                    create_protocol=create_protocol)
        try:
            return context, await context.__aenter__()
        except ConnectionError as e:
            if made and made[-1].ended:
                raise made[-1].ended from None
            raise e

    def close(self, kept):
        """Close a connection now (CONNECTION_CLOSE is sent) and let it wait out its closing period as a task."""
        context, connection = kept
        connection.close()
        task = asyncio.get_running_loop().create_task(context.__aexit__(None, None, None))
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)

    async def request(self):
        kept = self.kept or await self.open()
        try:
            answer = await kept[1].get(self.authority, self.target)
        except BaseException:
            self.kept = None
            self.close(kept)
            raise
        if REUSE:
            self.kept = kept
        else:
            self.close(kept)
        return answer


class Batch:
    """One batch's lines on stdout: one per request, then `end`, written in bunches at least every FLUSH_SECS
    (httpbench wants each line within --timeout + 2 s). `head` (the version line) goes before the first."""

    def __init__(self, head):
        self.out = [head] if head else []
        self.flushed = time.perf_counter_ns()

    def add(self, line):
        self.out.append(line)
        if time.perf_counter_ns() - self.flushed > FLUSH_SECS * 1e9:
            self.write()

    def ok(self, t0, status, size):
        """A request started at t0 (perf_counter_ns) that got its answer."""
        self.add(f"{time.perf_counter_ns() - t0} {status} {size}\n")

    def failed(self, t0, e):
        """A request started at t0 that failed with e."""
        self.add(f"{time.perf_counter_ns() - t0} 0 0 {kind_of(e)} {reason_of(e)}\n")

    def write(self):
        sys.stdout.write("".join(self.out))
        sys.stdout.flush()
        self.out, self.flushed = [], time.perf_counter_ns()

    def end(self):
        self.out.append("end\n")
        self.write()


def serve(client):
    """The protocol for a blocking client: each request bounded by an alarm."""
    signal.signal(signal.SIGALRM, on_alarm)
    head = f"version {client.version}\n"
    for line in sys.stdin:
        batch, head = Batch(head), ""
        for _ in range(int(line)):
            t0 = time.perf_counter_ns()
            try:
                signal.setitimer(signal.ITIMER_REAL, TIMEOUT)
                status, size = client.get()
                signal.setitimer(signal.ITIMER_REAL, 0)
                batch.ok(t0, status, size)
            except BaseException as e:  # noqa: BLE001 - every failure is a line of the protocol
                signal.setitimer(signal.ITIMER_REAL, 0)
                if isinstance(e, KeyboardInterrupt):
                    raise
                batch.failed(t0, e)
        batch.end()


async def serve_async(client):
    """The protocol for a client on an event loop: stdin is read by the loop too, so the loop keeps running
    between batches. Stopped between them (a blocking read of stdin), the QUIC connection of reuse mode took
    the acknowledgements that had waited as round-trip samples of seconds, and paced its next requests by them
    (requests of up to 650 ms after a pause, measured). Each request is bounded by --timeout in the loop."""
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    head = f"version {client.version}\n"
    while line := await stdin.readline():
        batch, head = Batch(head), ""
        for _ in range(int(line)):
            t0 = time.perf_counter_ns()
            try:
                status, size = await asyncio.wait_for(client.request(), TIMEOUT)
                batch.ok(t0, status, size)
            except asyncio.TimeoutError:
                why = f"no whole response within {TIMEOUT} s (a QUIC server that never answers looks so)"
                batch.failed(t0, Deadline(why))
            except Exception as e:  # noqa: BLE001 - every failure is a line of the protocol
                batch.failed(t0, e)
        batch.end()
    # stdin closed: let the connections still closing end (bounded), so none is cut off with a warning.
    if client.closing:
        await asyncio.wait(set(client.closing), timeout=1)


def main():
    kinds = {"urllib": Urllib, "requests": Requests, "aioquic": Aioquic}
    if len(sys.argv) < 2 or sys.argv[1] not in kinds:
        sys.exit("usage: python.py urllib|requests|aioquic")
    try:
        client = kinds[sys.argv[1]]()
    except ImportError as e:
        print(f"unavailable: Python module {e.name} is not installed", file=sys.stderr)
        sys.exit(3)
    if isinstance(client, Aioquic):
        client.loop.run_until_complete(serve_async(client))
    else:
        serve(client)


main()
