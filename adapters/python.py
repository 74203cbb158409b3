# httpbench's adapter for Python clients: the standard library's http.client ("urllib") and requests, chosen
# by the first argument. It speaks httpbench's command-client protocol (README, "Command clients"): read a
# count n per line on stdin, make n sequential GETs of $HTTPBENCH_URL, print "<ns> <status> <body_bytes>" or
# "<ns> 0 0 <kind> <reason>" per request, then "end". fresh = a new connection object (or requests call) per request;
# reuse = one kept-alive connection (one requests.Session).
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


def main():
    kinds = {"urllib": Urllib, "requests": Requests}
    if len(sys.argv) < 2 or sys.argv[1] not in kinds:
        sys.exit("usage: python.py urllib|requests")
    try:
        client = kinds[sys.argv[1]]()
    except ImportError as e:
        print(f"unavailable: Python module {e.name} is not installed", file=sys.stderr)
        sys.exit(3)
    signal.signal(signal.SIGALRM, on_alarm)
    head = f"version {client.version}\n"
    for line in sys.stdin:
        out = [head]
        head = ""
        flushed = time.perf_counter_ns()
        for _ in range(int(line)):
            if time.perf_counter_ns() - flushed > FLUSH_SECS * 1e9:
                sys.stdout.write("".join(out))
                sys.stdout.flush()
                out, flushed = [], time.perf_counter_ns()
            t0 = time.perf_counter_ns()
            try:
                signal.setitimer(signal.ITIMER_REAL, TIMEOUT)
                status, size = client.get()
                signal.setitimer(signal.ITIMER_REAL, 0)
                out.append(f"{time.perf_counter_ns() - t0} {status} {size}\n")
            except BaseException as e:  # noqa: BLE001 - every failure is a line of the protocol
                signal.setitimer(signal.ITIMER_REAL, 0)
                if isinstance(e, KeyboardInterrupt):
                    raise
                out.append(f"{time.perf_counter_ns() - t0} 0 0 {kind_of(e)} {reason_of(e)}\n")
        out.append("end\n")
        sys.stdout.write("".join(out))
        sys.stdout.flush()


main()
