// httpbench's `js-fetch` client: one round of sequential GETs written in plain JavaScript, timed with
// performance.now() exactly as the wasm clients are timed, so the gap between them is the cost of going
// through WebAssembly. Same rules: cache "no-store", a timeout signal, every body read with arrayBuffer().
// Statuses: the HTTP status, or -1 no response (connect), -2 timeout, -3 body cut short (truncated).
export async function jsFetchRound(url, n, timeoutMs, control) {
  const durations = new Float64Array(n);
  const statuses = new Int32Array(n);
  const bytes = new Float64Array(n);
  let done = 0;
  const start = performance.now();
  while (done < n && !control.stop) {
    const t0 = performance.now();
    let status = -1;
    let length = 0;
    try {
      const response = await fetch(url, { cache: "no-store", signal: AbortSignal.timeout(timeoutMs) });
      status = response.status;
      try {
        length = (await response.arrayBuffer()).byteLength;
      } catch (e) {
        status = e.name === "TimeoutError" || e.name === "AbortError" ? -2 : -3;
      }
    } catch (e) {
      status = e.name === "TimeoutError" || e.name === "AbortError" ? -2 : -1;
    }
    durations[done] = performance.now() - t0;
    statuses[done] = status;
    bytes[done] = length;
    done += 1;
  }
  return { done, durations, statuses, bytes, wallMs: performance.now() - start };
}
