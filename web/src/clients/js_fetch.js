// httpbench's `js-fetch` client: one round of GETs, sequential or inFlight at a time, in plain JavaScript, timed with
// performance.now() exactly as the wasm clients are timed, so the gap between them is the cost of going
// through WebAssembly. Same rules: cache "no-store", a timeout signal, every body read with arrayBuffer().
// Statuses: the HTTP status, or -1 no response (connect), -2 timeout, -3 body cut short (truncated).
// The first failure of each kind is kept as its reason ("TypeError: Failed to fetch"), keyed by its status.
// The loop hands back after the request that ends maxMs of wall time (Infinity: never), so the page can report
// progress on the same cadence as for the wasm clients; control.stop ends it early. It makes at least one
// request (unless n is 0 or it is stopped), even with maxMs 0, as a timed round of the wasm clients does: the
// page hands a timed round's last stretch whatever time is left, which may be none.
export async function jsFetchRound(url, n, timeoutMs, control, maxMs, inFlight) {
  // Sized for what one stretch usually makes, doubled when full (between two requests, never inside one).
  let cap = Math.min(n, 1024);
  let durations = new Float64Array(cap);
  let statuses = new Int32Array(cap);
  let bytes = new Float64Array(cap);
  let taken = 0;
  const reasons = {};
  const start = performance.now();
  // inFlight chains share the requests (a promise pool); each writes its request's figures at the index it
  // took, into the arrays as they are when it ends (another chain may have grown them meanwhile).
  const chain = async () => {
    while (taken < n && !control.stop && (taken === 0 || performance.now() - start < maxMs)) {
      const i = taken++;
      if (i === cap) {
        cap = Math.min(n, cap * 2);
        durations = grown(durations, cap);
        statuses = grown(statuses, cap);
        bytes = grown(bytes, cap);
      }
      const t0 = performance.now();
      let status = -1;
      let length = 0;
      try {
        const response = await fetch(url, { cache: "no-store", signal: AbortSignal.timeout(timeoutMs) });
        status = response.status;
        try {
          length = (await response.arrayBuffer()).byteLength;
        } catch (e) {
          status = isTimeout(e) ? -2 : -3;
          reasons[status] ??= `${e.name}: ${e.message}`;
        }
      } catch (e) {
        status = isTimeout(e) ? -2 : -1;
        reasons[status] ??= `${e.name}: ${e.message}`;
      }
      durations[i] = performance.now() - t0;
      statuses[i] = status;
      bytes[i] = length;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, inFlight | 0) }, chain));
  return { done: taken, durations, statuses, bytes, reasons };
}

// The timeout signal's error (AbortSignal.timeout rejects with a TimeoutError; older engines say AbortError).
function isTimeout(error) {
  return error.name === "TimeoutError" || error.name === "AbortError";
}

function grown(array, cap) {
  const bigger = new array.constructor(cap);
  bigger.set(array);
  return bigger;
}

// The body of a GET of url as text, or "" for anything else (no answer within timeoutMs, a status other than
// 2xx): the page reads the embedded server's per-case connection counts with it, outside any timing.
export async function textOf(url, timeoutMs) {
  try {
    const response = await fetch(url, { cache: "no-store", signal: AbortSignal.timeout(timeoutMs) });
    return response.ok ? await response.text() : "";
  } catch (e) {
    return "";
  }
}
