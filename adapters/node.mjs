// httpbench's adapter for Node's clients: fetch (undici, built in) and node:http, chosen by the first
// argument. It speaks httpbench's command-client protocol (README, "Command clients"): read a count n per line
// on stdin, make n sequential GETs of $HTTPBENCH_URL, print "<ns> <status> <body_bytes>" or
// "<ns> 0 0 <kind> <reason>" per request, then "end". reuse = keep-alive (fetch's own pool; an http.Agent with keepAlive); fresh = a new
// client per request (for fetch a new undici Agent, reached through the global dispatcher; node:http uses no
// agent).
import http from 'node:http';
import https from 'node:https';
import readline from 'node:readline';

const url = process.env.HTTPBENCH_URL;
const reuse = process.env.HTTPBENCH_MODE === 'reuse';
const timeoutMs = Number(process.env.HTTPBENCH_TIMEOUT || '10') * 1000;

// An error's kind, in httpbench's names.
function kindOf(e) {
  const code = (e && (e.code || (e.cause && e.cause.code))) || '';
  const text = `${e && e.name} ${e && e.message} ${code}`.toLowerCase();
  if (/timeout/.test(text)) return 'timeout';
  // Before the others: OpenSSL's verification codes (UNABLE_TO_VERIFY_LEAF_SIGNATURE, ...) name no "tls".
  if (/cert|ssl|tls|unable_to_verify|self_signed|altname|issuer|eproto/.test(text)) return 'tls';
  if (/enotfound|eai_again/.test(text)) return 'dns';
  if (/econnrefused|ehostunreach|enetunreach/.test(text)) return 'connect';
  if (/econnreset|epipe|socket hang up|other side closed/.test(text)) return 'reset';
  if (/premature close|terminated|incomplete/.test(text)) return 'truncated';
  if (/hpe_|parse error|invalid/.test(text)) return 'protocol';
  return 'other';
}

// An error as the one-line reason after the kind: fetch's "fetch failed" says why only in its cause.
function reasonOf(e) {
  const cause = e && e.cause ? `: ${e.cause.message || ''} ${e.cause.code || ''}` : '';
  return `${e && e.name}: ${e && e.message}${cause}`.replace(/[\x00-\x1f\x7f\s]+/g, ' ').trim().slice(0, 300);
}

// Node's fetch runs on its bundled undici, whose global dispatcher (an undici Agent, made by the first fetch)
// sits under this symbol: the one way to reach the Agent class, which Node does not export.
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

async function fetchGet() {
  // No compression (fetch asks for gzip by default).
  const headers = { 'accept-encoding': 'identity' };
  const init = { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs), headers };
  // Fresh: a new Agent per request, as a new client would be, without a TLS session cache (a shared one
  // lets every new connection resume: the embedded server counted 6 of 6 resumed). The first request, before
  // the global dispatcher exists, asks the server to close instead.
  const Agent = reuse ? undefined : globalThis[GLOBAL_DISPATCHER]?.constructor;
  const own = Agent ? new Agent({ connect: { maxCachedSessions: 0 } }) : undefined;
  if (own) init.dispatcher = own;
  else if (!reuse) headers.connection = 'close';
  try {
    const r = await fetch(url, init);
    const body = await r.arrayBuffer();
    return [r.status, body.byteLength];
  } finally {
    own?.destroy().catch(() => {});
  }
}

const lib = url.startsWith('https:') ? https : http;
const agent = reuse ? new lib.Agent({ keepAlive: true, maxSockets: 1 }) : false;

function httpGet() {
  return new Promise((resolve, reject) => {
    const req = lib.get(url, { agent, timeout: timeoutMs }, (res) => {
      let size = 0;
      res.on('data', (chunk) => { size += chunk.length; });
      res.on('end', () => (res.complete ? resolve([res.statusCode, size]) : reject(new Error('incomplete'))));
      // The connection ended mid-body (node says "aborted"): a short body.
      res.on('error', () => reject(new Error('incomplete')));
    });
    req.setNoDelay(true);
    // A deadline for the whole request: node's own timeout is for an idle socket.
    const deadline = setTimeout(() => req.destroy(new Error('timeout')), timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

const clients = {
  fetch: [fetchGet, `fetch (undici ${process.versions.undici}, Node ${process.version}${reuse ? '' : ', an Agent per request'})`],
  http: [httpGet, `node:http (Node ${process.version}${reuse ? ', keep-alive agent' : ', no agent'})`],
};
// The last argument: `node adapter.mjs fetch` and `node -e SOURCE fetch` both end with it.
const chosen = clients[process.argv.at(-1)];
if (!chosen) {
  process.stderr.write('usage: node.mjs fetch|http\n');
  process.exit(2);
}
if (typeof fetch !== 'function') {
  process.stderr.write(`unavailable: Node ${process.version} has no fetch (it came in Node 18)\n`);
  process.exit(3);
}
const [get, version] = chosen;
// Lines are written in bunches, at least every 0.2 s: httpbench wants each line within --timeout + 2 s.
const FLUSH_NS = 200_000_000n;
let head = `version ${version}\n`;
for await (const line of readline.createInterface({ input: process.stdin })) {
  let out = [head];
  head = '';
  let flushed = process.hrtime.bigint();
  for (let i = Number(line); i > 0; i--) {
    if (process.hrtime.bigint() - flushed > FLUSH_NS) {
      process.stdout.write(out.join(''));
      [out, flushed] = [[], process.hrtime.bigint()];
    }
    const t0 = process.hrtime.bigint();
    try {
      const [status, size] = await get();
      out.push(`${process.hrtime.bigint() - t0} ${status} ${size}\n`);
    } catch (e) {
      out.push(`${process.hrtime.bigint() - t0} 0 0 ${kindOf(e)} ${reasonOf(e)}\n`);
    }
  }
  out.push('end\n');
  process.stdout.write(out.join(''));
}
