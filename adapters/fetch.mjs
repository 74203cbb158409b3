// httpbench's adapter for the fetch of Bun and of Deno (the runtime running it decides which; Node's fetch has
// adapters/node.mjs). It speaks httpbench's command-client protocol (README, "Command clients"): read a count n
// per line on stdin, make n sequential GETs of $HTTPBENCH_URL, print "<ns> <status> <body_bytes>" or
// "<ns> 0 0 <kind> <reason>" per request, then "end".
// - Deno: reuse = one Deno.HttpClient for every request (its own pool, keep-alive); fresh = a new HttpClient
//   per request, closed after it (a new pool, so a new connection and a full TLS handshake). The client is
//   built for the one HTTP version asked ($HTTPBENCH_HTTP: http1 or http2 alone, so nothing falls back) and
//   trusts $HTTPBENCH_CACERT alone when given.
// - Bun: reuse = fetch's own keep-alive pool; fresh = `keepalive: false`, Bun's switch for a connection of the
//   request's own, closed after it. Bun's fetch speaks HTTP/1.1 only; it trusts $NODE_EXTRA_CA_CERTS, which
//   httpbench sets with $HTTPBENCH_CACERT.
// Both: no compression asked (fetch asks for gzip by default), no redirect followed, no proxy (neither reads a
// proxy unless one is set in the environment, and httpbench's clients run without one), the whole request
// bounded by an abort signal at $HTTPBENCH_TIMEOUT.
import readline from 'node:readline';

const env = (name) => (globalThis.Deno ? Deno.env.get(name) : process.env[name]);
const url = env('HTTPBENCH_URL');
const reuse = env('HTTPBENCH_MODE') === 'reuse';
const timeoutMs = Number(env('HTTPBENCH_TIMEOUT') || '10') * 1000;
const http = env('HTTPBENCH_HTTP') || '1.1';

// An error's kind, in httpbench's names, from the words of either runtime (Deno's come from hyper and rustls,
// Bun's are errno-like codes).
function kindOf(e) {
  const code = (e && (e.code || (e.cause && e.cause.code))) || '';
  const cause = e && e.cause ? `${e.cause.name} ${e.cause.message}` : '';
  const text = `${e && e.name} ${e && e.message} ${code} ${cause}`.toLowerCase();
  if (/timeout|timed out|aborterror/.test(text)) return 'timeout';
  if (/cert|ssl|tls|unable_to_verify|self_signed|altname|issuer|eproto|handshake|fatal alert/.test(text)) return 'tls';
  if (/enotfound|eai_again|dns|failed to lookup|name or service/.test(text)) return 'dns';
  if (/econnrefused|connection refused|ehostunreach|enetunreach|connectionrefused/.test(text)) return 'connect';
  // Deno says "error reading a body from connection" for a body cut short, by a FIN or a reset alike.
  if (/unexpected end|incomplete|premature|truncat|end of file before message length|error reading a body/.test(text)) {
    return 'truncated';
  }
  if (/econnreset|connection reset|connectionclosed|socket closed|broken pipe|epipe|closed unexpectedly/.test(text)) {
    return 'reset';
  }
  if (/parse|invalid|malformed|protocol|header|frame|too large/.test(text)) return 'protocol';
  return 'other';
}

// An error as the one-line reason after the kind: fetch's "fetch failed" says why only in its cause.
function reasonOf(e) {
  const cause = e && e.cause ? `: ${e.cause.message || ''} ${e.cause.code || ''}` : '';
  return `${e && e.name}: ${e && e.message}${cause}`.replace(/[\x00-\x1f\x7f\s]+/g, ' ').trim().slice(0, 300);
}

const headers = { 'accept-encoding': 'identity' };
const init = () => ({ redirect: 'manual', signal: AbortSignal.timeout(timeoutMs), headers });

// A GET by fetch with `extra` options; [status, body bytes].
async function get(extra) {
  const r = await fetch(url, { ...init(), ...extra });
  const body = await r.arrayBuffer();
  return [r.status, body.byteLength];
}

function denoClient() {
  const cacert = env('HTTPBENCH_CACERT');
  const caCerts = cacert ? [Deno.readTextFileSync(cacert)] : undefined;
  const client = () => Deno.createHttpClient({ caCerts, http1: http === '1.1', http2: http === '2' });
  const shared = reuse ? client() : undefined;
  const version = `fetch (Deno ${Deno.version.deno}, V8 ${Deno.version.v8}${reuse ? '' : ', an HttpClient per request'})`;
  const fresh = async () => {
    const own = client();
    try {
      return await get({ client: own });
    } finally {
      own.close();
    }
  };
  return [reuse ? () => get({ client: shared }) : fresh, version];
}

function bunClient() {
  const version = `fetch (Bun ${Bun.version}${reuse ? '' : ', keepalive: false'})`;
  return [reuse ? () => get({}) : () => get({ keepalive: false }), version];
}

function chosen() {
  const runtime = process.argv.at(-1);
  if (runtime === 'deno' && globalThis.Deno) return denoClient();
  if (runtime === 'bun' && globalThis.Bun) return bunClient();
  process.stderr.write(`usage: fetch.mjs bun|deno, run by that runtime (got '${runtime}')\n`);
  process.exit(2);
}

if (http !== '1.1' && !(http === '2' && globalThis.Deno)) {
  process.stderr.write(`unavailable: this fetch does not speak HTTP/${http}\n`);
  process.exit(3);
}
const [request, version] = chosen();
// Lines are written in bunches, at least every 0.2 s: httpbench wants each line within --timeout + 2 s.
const FLUSH_NS = 200_000_000n;
const now = () => process.hrtime.bigint();
let head = `version ${version}\n`;
for await (const line of readline.createInterface({ input: process.stdin })) {
  let out = [head];
  head = '';
  let flushed = now();
  for (let i = Number(line); i > 0; i--) {
    if (now() - flushed > FLUSH_NS) {
      process.stdout.write(out.join(''));
      [out, flushed] = [[], now()];
    }
    const t0 = now();
    try {
      const [status, size] = await request();
      out.push(`${now() - t0} ${status} ${size}\n`);
    } catch (e) {
      out.push(`${now() - t0} 0 0 ${kindOf(e)} ${reasonOf(e)}\n`);
    }
  }
  out.push('end\n');
  process.stdout.write(out.join(''));
}
