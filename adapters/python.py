# httpbench's adapter for Python clients: the standard library's http.client ("urllib"), requests, httpx and
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
# The largest response header section read (each field's name and value plus 32 bytes, RFC 9114 4.2.2): the
# in-process clients' bound, handed over by httpbench (aioquic keeps none of its own).
MAX_FIELD_SECTION = int(os.environ.get("HTTPBENCH_MAX_FIELD_SECTION", "16384"))
# The HTTP version asked of the client (1.1, 2 or 3): the case's.
HTTP = os.environ.get("HTTPBENCH_HTTP", "1.1")


# No compression for any client (requests asks for gzip by default).
IDENTITY = {"Accept-Encoding": "identity"}
# Lines are written in bunches, at least every FLUSH_SECS: httpbench wants each line within --timeout + 2 s.
FLUSH_SECS = 0.2


class Deadline(Exception):
    """--timeout passed for the whole request (the libraries' own timeouts are per socket operation)."""


class TlsFailure(Exception):
    """A TLS handshake that failed: a certificate refused, or an alert from the peer."""


class ProtocolFailure(Exception):
    """Bytes that break QUIC or HTTP/3: a header section over the bound, a body past its Content-Length, no
    QUIC version in common."""


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
    if isinstance(e, ProtocolFailure):
        return "protocol"
    # Before the others: a refused certificate is worded as a failed connection by some libraries.
    if "ssl" in text or "certificate" in text:
        return "tls"
    if isinstance(e, socket.gaierror) or "resolve" in text or "name or service" in text:
        return "dns"
    if isinstance(e, ConnectionRefusedError) or "refused" in text or "connecterror" in text:
        return "connect"
    if "incomplete" in text or "truncat" in text or "without sending complete message body" in text:
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


class Httpx:
    """httpx, when it is installed (HTTP/2 through its h2 extra): fresh = a new httpx.Client per request, closed
    after it (a new pool); reuse = one Client. Each client speaks the one version asked (HTTP/2 alone by ALPN,
    or HTTP/1.1 alone), a response over another is a protocol failure; no proxy (trust_env off: no proxy or
    .netrc from the environment), no redirect, no compression asked."""

    def __init__(self):
        import httpcore
        import httpx

        self.httpx = httpx
        if HTTP == "2":
            import h2  # noqa: F401 - httpx needs it for HTTP/2; its absence is "unavailable", not a failure per request
        self.want = "HTTP/2" if HTTP == "2" else "HTTP/1.1"
        self.client = self.new() if REUSE else None
        self.version = f"httpx {httpx.__version__} (httpcore {httpcore.__version__}, Python {sys.version.split()[0]})"

    def new(self):
        h2 = HTTP == "2"
        return self.httpx.Client(
            http1=not h2, http2=h2, verify=CACERT or True, trust_env=False, follow_redirects=False, timeout=TIMEOUT
        )

    def get(self):
        client = self.client or self.new()
        try:
            r = client.get(URL, headers=IDENTITY)
        finally:
            if self.client is None:
                client.close()
        if r.http_version != self.want:
            raise ProtocolFailure(f"the response came over {r.http_version}, not the {self.want} asked for")
        return r.status_code, len(r.content)


def h3_protocol():
    """The asyncio protocol of one HTTP/3 connection on aioquic (imported here: only python-aioquic needs it).
    Each GET is a request stream; its answer is (status, body bytes) once the stream ends."""
    from aioquic.asyncio.protocol import QuicConnectionProtocol
    from aioquic.h3.connection import H3Connection
    from aioquic.h3.events import DataReceived, HeadersReceived
    from aioquic.quic.events import ConnectionTerminated, StreamDataReceived, StreamReset

    class H3Protocol(QuicConnectionProtocol):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.h3 = H3Connection(self._quic)
            # stream id -> [future, status, body bytes, Content-Length, bytes before the head]
            self.pending = {}
            # Why the connection ended, once it has (aioquic's own error for a failed handshake says nothing).
            self.ended = None

        async def get(self, authority, target):
            stream_id = self._quic.get_next_available_stream_id()
            headers = [(b":method", b"GET"), (b":scheme", b"https"), (b":authority", authority), (b":path", target)]
            headers.append((b"accept-encoding", b"identity"))
            self.h3.send_headers(stream_id, headers, end_stream=True)
            done = self._loop.create_future()
            self.pending[stream_id] = [done, 0, 0, None, 0]
            self.transmit()
            return await done

        def fail(self, stream_ids, error):
            for stream_id in stream_ids:
                done = self.pending.pop(stream_id)[0]
                if not done.done():
                    done.set_exception(error)

        def refuse(self, stream_id, why):
            """Give up a request whose response breaks HTTP/3: its stream is stopped, and what the server
            still sends on it is dropped rather than buffered."""
            self._quic.stop_stream(stream_id, 0x10C)  # H3_REQUEST_CANCELLED
            self.fail([stream_id], ProtocolFailure(why))

        def datagram_received(self, data, addr):
            # aioquic ignores a stateless reset (RFC 9000 10.3): a datagram whose last 16 bytes are a reset
            # token the server gave. Without this check the request waited out its timeout.
            if len(data) >= 21 and not data[0] & 0x80 and data[-16:] in self.reset_tokens():
                return self.fail(list(self.pending), ConnectionResetError("the server sent a stateless reset"))
            super().datagram_received(data, addr)

        def reset_tokens(self):
            cids = [self._quic._peer_cid, *self._quic._peer_cid_available]
            return {c.stateless_reset_token for c in cids if c.stateless_reset_token}

        def quic_event_received(self, event):
            if isinstance(event, StreamReset) and event.stream_id in self.pending:
                reset = ConnectionResetError(f"the server reset the request stream (error code {event.error_code})")
                return self.fail([event.stream_id], reset)
            if isinstance(event, ConnectionTerminated):
                return self.terminated(event)
            if isinstance(event, StreamDataReceived):
                if event.stream_id not in self.pending and event.stream_id % 4 == 0:
                    return  # a refused request's stream: what still comes is dropped
                self.h3_events(event)
                request = self.pending.get(event.stream_id)
                if request is not None and not request[1]:
                    request[4] += len(event.data)
                    if request[4] > MAX_FIELD_SECTION:
                        self.refuse(event.stream_id, f"no response head within {request[4]} bytes, over the "
                                                     f"header bound of {MAX_FIELD_SECTION}")
                return
            self.h3_events(event)

        def terminated(self, event):
            if self.ended is not None:
                return  # closed by this side, and said so already (h3_events)
            why = f"the QUIC connection was closed (error code {event.error_code:#x}: {event.reason_phrase})"
            if event.reason_phrase == "Could not find a common protocol version":
                # aioquic's words for a version negotiation that left no version to use.
                self.ended = ProtocolFailure(why)
            elif event.frame_type is not None and 0x100 <= event.error_code < 0x200:
                # 0x100 to 0x1ff carry a TLS alert (RFC 9001 4.8) in a transport close only: HTTP/3's own
                # codes share that range in an application close, which has no frame type.
                self.ended = TlsFailure(why)
            else:
                self.ended = ConnectionResetError(why)
            self.fail(list(self.pending), self.ended)

        def h3_events(self, event):
            open_before = self._quic._close_event is None
            h3_events = self.h3.handle_event(event)
            close = self._quic._close_event
            if open_before and close is not None:
                # aioquic's HTTP/3 layer closed the connection itself: the server broke HTTP/3 (a body that
                # does not match its Content-Length, a frame where none may be).
                why = f"the response broke HTTP/3 (error code {close.error_code:#x}: {close.reason_phrase})"
                self.ended = ProtocolFailure(why)
                return self.fail(list(self.pending), self.ended)
            for h3_event in h3_events:
                request = self.pending.get(h3_event.stream_id)
                if request is None:
                    continue
                if isinstance(h3_event, HeadersReceived):
                    size = sum(len(name) + len(value) + 32 for name, value in h3_event.headers)
                    if size > MAX_FIELD_SECTION:
                        self.refuse(h3_event.stream_id, f"a response header section of {size} bytes "
                                                        f"({len(h3_event.headers)} fields), over the bound of "
                                                        f"{MAX_FIELD_SECTION}")
                        continue
                    head = dict(h3_event.headers)
                    request[1] = int(head[b":status"])
                    request[3] = int(head[b"content-length"]) if b"content-length" in head else None
                elif isinstance(h3_event, DataReceived):
                    request[2] += len(h3_event.data)
                    if request[3] is not None and request[2] > request[3]:
                        self.refuse(h3_event.stream_id, f"the body ran past its Content-Length of {request[3]} "
                                                        f"bytes (at least {request[2]}): a malformed response")
                        continue
                if h3_event.stream_ended:
                    done, status, size, expected, _ = self.pending.pop(h3_event.stream_id)
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
    kinds = {"urllib": Urllib, "requests": Requests, "httpx": Httpx, "aioquic": Aioquic}
    if len(sys.argv) < 2 or sys.argv[1] not in kinds:
        sys.exit("usage: python.py urllib|requests|httpx|aioquic")
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
