//! Where a browser request's time goes, per page client, read from a Chromium trace (figure 6 of bench-perf).
//
// The wall rates of `fetch` (wasm) and `js-fetch` (plain JavaScript) move 5-10% between runs on a shared
// machine, more than the difference being looked for. A trace splits each request cycle instead, from the
// renderer's own resource events: sent -> response head, head -> finished (both Chromium's network stack and
// loader), and finished -> the next request sent (the page's own code: the client, JavaScript or wasm, and the
// loop around it). That last part is the cost of the client itself.
//
// usage: node --experimental-websocket bench/page-trace.mjs SERVER_URL [REQUESTS] [RUNS]
//   SERVER_URL: an `httpbench serve` with the built page under /app/; it is also the target.
//   REQUESTS per case (default 2000, a multiple of 10), RUNS page runs (default 1).
//   Starts headless Chromium ($CHROMIUM, else chromium) on a free port; pin it by pinning this script (taskset).
//   TRACE_OUT=trace.json keeps each run's trace as trace-N.json; TRACE_CATEGORIES=a,b traces more categories;
//   PAGE_CLIENTS=fetch,xhr,js-fetch measures other wasm clients too (default fetch,js-fetch).
// Each run is one autorun of the page as figure 6 runs it (the clients, both modes, 10 interleaved
// rounds), traced with `devtools.timeline`; requests are told apart by their URL (mode) and their place in
// the schedule (a warm-up block per client, then per round a block per client). Medians per request.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let chromium = null, profile = null;

const [server, requestsArg = '2000', runsArg = '1'] = process.argv.slice(2);
const requests = Number(requestsArg), runs = Number(runsArg), ROUNDS = 10;
if (!server || !/^http:\/\/127\.0\.0\.1:\d+\/$/.test(server)) fail(`SERVER_URL '${server ?? ''}' must look like http://127.0.0.1:PORT/ (an httpbench serve)`);
if (!(requests >= 100 && requests <= 100000 && requests % ROUNDS === 0)) fail(`REQUESTS '${requestsArg}' must be a multiple of ${ROUNDS} from 100 to 100000`);
if (!(runs >= 1 && runs <= 50)) fail(`RUNS '${runsArg}' must be a whole number from 1 to 50`);
const WARMUP = 50, MODES = ['fresh', 'reuse'];
// PAGE_CLIENTS=fetch,xhr,js-fetch compares more wasm clients, each with js-fetch (which must be in the list).
// The page runs its cases in its report order (web/src/settings.rs CLIENTS), whatever order the URL names.
const PAGE_ORDER = ['fetch', 'gloo-net', 'xhr', 'reqwest', 'js-fetch'];
const CLIENTS = (process.env.PAGE_CLIENTS ?? 'fetch,js-fetch').split(',').filter(Boolean)
  .sort((a, b) => PAGE_ORDER.indexOf(a) - PAGE_ORDER.indexOf(b));
if (CLIENTS.some(c => !PAGE_ORDER.includes(c))) fail(`PAGE_CLIENTS '${CLIENTS}' may name only ${PAGE_ORDER.join(', ')}`);
if (!CLIENTS.includes('js-fetch') || CLIENTS.length < 2) fail(`PAGE_CLIENTS '${CLIENTS}' must name js-fetch and at least one other page client`);

/** Say what is wrong, stop Chromium if it runs, exit 2. */
function fail(message) {
  console.error(`error: ${message}`);
  chromium?.kill('SIGKILL');
  // Best effort: Chromium's helpers may still write into the profile for a moment after a kill.
  try { if (profile) rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }); } catch { /* left in tmp */ }
  process.exit(2);
}
const median = xs => { if (!xs.length) return NaN; const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const sleep = ms => new Promise(r => setTimeout(r, ms));

// Chromium with the CLI's flags (cli/src/browser/chromium.rs CHROMIUM_FLAGS; a test keeps web/webdriver.json, read here,
// equal to them), the CLI's window, and a DevTools port of its choosing.
const FLAGS = JSON.parse(readFileSync(new URL('../web/webdriver.json', import.meta.url)))['goog:chromeOptions'].args;
profile = mkdtempSync(join(tmpdir(), 'httpbench-trace-'));
chromium = spawn(process.env.CHROMIUM || 'chromium', [...FLAGS, '--disable-extensions', '--window-size=1280,2000',
  `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
const exited = new Promise(r => chromium.on('exit', r));
/** Stop Chromium, wait for it (and its helpers) to go, remove its profile, exit with `code`. */
async function finish(code) {
  chromium.kill('SIGTERM');
  const timer = setTimeout(() => chromium.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
  for (let i = 0; i < 20; i++) {
    try { rmSync(profile, { recursive: true, force: true }); break; } catch { await sleep(250); }
  }
  process.exit(code);
}
const endpoint = await new Promise((resolve, reject) => {
  let err = '';
  const timer = setTimeout(() => reject(new Error(`Chromium gave no DevTools address in 30 s:\n${err}`)), 30000);
  chromium.stderr.on('data', d => { err += d; const m = /DevTools listening on (ws:\S+)/.exec(err); if (m) { clearTimeout(timer); resolve(m[1]); } });
  chromium.on('exit', code => reject(new Error(`Chromium exited (${code}):\n${err}`)));
}).catch(e => fail(e.message));

// One DevTools session on the page target.
const port = new URL(endpoint).port;
const page = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()).find(t => t.type === 'page');
const ws = new WebSocket(page.webSocketDebuggerUrl);
let nextId = 0, events = [], traced;
const pending = new Map();
const send = (method, params = {}) => new Promise(resolve => {
  const id = ++nextId; pending.set(id, resolve); ws.send(JSON.stringify({ id, method, params }));
});
ws.onmessage = e => {
  const m = JSON.parse(e.data);
  if (m.id && pending.has(m.id)) { pending.get(m.id)(m.result ?? m.error); pending.delete(m.id); }
  else if (m.method === 'Tracing.dataCollected') events.push(...m.params.value);
  else if (m.method === 'Tracing.tracingComplete') traced();
};
await new Promise(r => { ws.onopen = r; });
await send('Page.enable');

/** Trace one autorun of the page: the clients, both modes, interleaved rounds, as bench-perf figure 6 runs. */
async function traceRun() {
  const url = `${server}app/?target=${encodeURIComponent(server)}&n=${requests}&warmup=${WARMUP}&rounds=${ROUNDS}` +
    `&clients=${CLIENTS.join(',')}&mode=both&autorun=1`;
  events = [];
  await send('Page.navigate', { url: 'about:blank' });
  await send('Tracing.start', { traceConfig: { includedCategories: ['devtools.timeline', ...(process.env.TRACE_CATEGORIES ?? '').split(',').filter(Boolean)] }, transferMode: 'ReportEvents' });
  await send('Page.navigate', { url });
  const deadline = Date.now() + 120000 + requests * CLIENTS.length * MODES.length * 50;
  let state = '';
  while (Date.now() < deadline && !['done', 'cancelled', 'failed'].includes(state)) {
    await sleep(500);
    const r = await send('Runtime.evaluate', { expression: "document.querySelector('[data-testid=status]')?.dataset.state ?? ''" });
    state = r?.result?.value ?? '';
  }
  const complete = new Promise(r => { traced = r; });
  await send('Tracing.end');
  await complete;
  if (state !== 'done') fail(`the page ended in state '${state}' (see ${url})`);
  return events;
}

/**
 * The requests of one mode (its URL), in the page's order: a warm-up block per client, then per round one
 * block per client. Each request inside a block gives its cycle (sent -> the block's next request sent), split
 * into sent -> head, head -> finished and finished -> next sent; the last request of a block has no next.
 */
function split(events, target) {
  const sent = new Map(), head = new Map(), finished = new Map();
  for (const e of events) {
    const d = e.args?.data;
    // gloo-net re-appends an empty query (`?close=1&`): the server reads it the same, so it counts as the target.
    // The page tags each case's requests (`conns=TAG`, for the server's connection count): not part of the target.
    const url = d?.url?.replace(/([?&])conns=[^&]*&?/, '$1').replace(/[?&]$/, '');
    if (e.name === 'ResourceSendRequest' && url === target) sent.set(d.requestId, e.ts);
    else if (e.name === 'ResourceReceiveResponse' && d?.requestId) head.set(d.requestId, e.ts);
    else if (e.name === 'ResourceFinish' && d?.requestId) finished.set(d.requestId, e.ts);
  }
  const order = [...sent.entries()].sort((a, b) => a[1] - b[1]);
  const perRound = requests / ROUNDS;
  if (order.length !== CLIENTS.length * (WARMUP + requests)) {
    fail(`the trace holds ${order.length} requests to ${target}, not ${CLIENTS.length * (WARMUP + requests)}`);
  }
  const out = Object.fromEntries(CLIENTS.map(c => [c, { cycle: [], head: [], body: [], page: [] }]));
  let at = CLIENTS.length * WARMUP;
  for (let round = 0; round < ROUNDS; round++) {
    for (const client of CLIENTS) {
      const block = order.slice(at, at + perRound);
      at += perRound;
      for (let i = 0; i + 1 < block.length; i++) {
        const [id, t0] = block[i], th = head.get(id), t1 = finished.get(id), next = block[i + 1][1];
        out[client].cycle.push(next - t0);
        if (th === undefined) continue;
        out[client].head.push(th - t0);
        // XMLHttpRequest sends the next request from the load event, before the finish mark of this one.
        if (t1 === undefined || t1 > next) continue;
        out[client].body.push(t1 - th);
        out[client].page.push(next - t1);
      }
    }
  }
  return out;
}

for (let run = 1; run <= runs; run++) {
  const events = await traceRun();
  // TRACE_OUT=file keeps the trace (one JSON array of events, readable by chrome://tracing and Perfetto).
  if (process.env.TRACE_OUT) writeFileSync(process.env.TRACE_OUT.replace(/(\.json)?$/, `-${run}.json`), JSON.stringify(events));
  for (const mode of MODES) {
    const parts = split(events, mode === 'fresh' ? `${server}?close=1` : server);
    const m = c => Object.fromEntries(['cycle', 'head', 'body', 'page'].map(k => [k, median(parts[c][k])]));
    const j = m('js-fetch'), us = x => (Number.isNaN(x) ? 'n/a' : `${x.toFixed(0)} us`);
    for (const client of CLIENTS.filter(c => c !== 'js-fetch')) {
      const f = m(client), extra = f.page - j.page;
      const own = Number.isNaN(extra) ? '(no finish mark before the next request: the split stops at the head)'
        : `(the page's own code: wasm adds ${us(extra)}, ${(100 * extra / j.cycle).toFixed(1)}% of js-fetch's cycle)`;
      console.log(`run ${run} ${mode}, medians per request, ${client} vs js-fetch: cycle ${us(f.cycle)} vs ${us(j.cycle)}; ` +
        `sent->head ${us(f.head)} vs ${us(j.head)}, head->finished ${us(f.body)} vs ${us(j.body)}, ` +
        `finished->next sent ${us(f.page)} vs ${us(j.page)} ${own}`);
    }
  }
}
await finish(0);
