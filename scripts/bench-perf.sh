#!/usr/bin/env bash
# The performance suite (figures, not tests): everything measured as ratios inside one run, rounds
# interleaved, because these machines are shared and noisy. Clients run on CPU 0 and servers on CPU 1
# (taskset) wherever two programs are compared, so placement is the same for both sides.
#   1. harness overhead: httpbench `raw` vs an independent C loop (bench/rawloop.c), both modes (goal >= 0.95)
#   2. the embedded server vs nginx, wrk -c16 -t2 and wrk -c1 -t1 (goals >= 1.0 and >= 0.95)
#   3. every native client, both modes, next to the Perl seed script's clients (goal: every Rust client in
#      fresh mode beats Perl's fastest, WWW::Curl, by wall rate)
#   4. memory: peak RSS of -n 10000 vs -n 1000000 (goal <= 1.2x)
#   5. start to answer: wall time of a bare `httpbench` (goal <= 15 s)
#   6. the page, when it is built: gzip size of wasm + JS + CSS (goal <= 200 KB)
# Usage: scripts/bench-perf.sh [ROUNDS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
HTTPBENCH_EXTRA_APT="nginx-light wrk gcc" bash scripts/setup.sh
cargo build --release -p httpbench --quiet
BIN=$PWD/target/release/httpbench
SEED=$(cd .. && pwd)/shared/www_bench.pl
work=$(mktemp -d)
chmod 755 "$work"
gcc -O2 -Wall -o "$work/rawloop" bench/rawloop.c
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
C0="taskset -c 0"
C1="taskset -c $(( $(nproc) > 1 ? 1 : 0 ))"

# Servers: httpbench's own (one thread, as `httpbench run` uses) and nginx (one worker), same 612-byte page.
$C1 "$BIN" serve --port 0 --threads 1 --quiet >"$work/serve.out" &
pids+=($!)
for _ in $(seq 50); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
EMB=$(sed -n 's/^listening on //p' "$work/serve.out")
EMB_PORT=$(echo "$EMB" | sed 's|.*:\([0-9]*\)/|\1|')
NGX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/www" "$work/nginx"
cp cli/src/server/index.html "$work/www/index.html"
chmod -R a+rX "$work/www"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 10000000;
  client_body_temp_path $work/nginx; proxy_temp_path $work/nginx; fastcgi_temp_path $work/nginx;
  uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx;
  server { listen 127.0.0.1:$NGX_PORT; root $work/www; }
}
CONF
$C1 "$(command -v nginx || echo /usr/sbin/nginx)" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
pids+=($!)
NGX="http://127.0.0.1:$NGX_PORT/"
for _ in $(seq 50); do curl -sf "$NGX" >/dev/null 2>&1 && break; sleep 0.1; done
echo "embedded server $EMB, nginx $NGX, $ROUNDS rounds; clients on CPU 0, servers on CPU 1"

raw_rate() { # MODE N -> httpbench raw wall rate against the embedded server
  $C0 "$BIN" run "$EMB" --clients raw --mode "$1" -n "$2" --rounds 1 --warmup 200 --pin none --format csv \
    --no-progress 2>/dev/null | awk -F, 'NR == 2 { print $9 }'
}

echo; echo "== 1. harness overhead: httpbench raw vs bench/rawloop.c (independent C loop)"
for r in $(seq "$ROUNDS"); do
  lr=$($C0 "$work/rawloop" 127.0.0.1 "$EMB_PORT" / reuse 20000 | awk '{ print $3 }')
  hr=$(raw_rate reuse 20000)
  lf=$($C0 "$work/rawloop" 127.0.0.1 "$EMB_PORT" / fresh 5000 | awk '{ print $3 }')
  hf=$(raw_rate fresh 5000)
  echo "$lr $hr $lf $hf"
done | awk '{ lr += $1; hr += $2; lf += $3; hf += $4; printf "round %d: reuse raw %.0f vs loop %.0f (%.3f)  fresh raw %.0f vs loop %.0f (%.3f)\n", NR, $2, $1, $2/$1, $4, $3, $4/$3 }
  END { printf "mean: reuse %.3f, fresh %.3f  (goal >= 0.95)\n", hr/lr, hf/lf }'

echo; echo "== 2. embedded server vs nginx (wrk, 5 s per run)"
wrk_rate() { $C0 wrk "$@" | awk '/Requests\/sec/ { print $2 }'; }
for r in $(seq "$ROUNDS"); do
  echo "$(wrk_rate -c16 -t2 -d5s "$EMB") $(wrk_rate -c16 -t2 -d5s "$NGX") $(wrk_rate -c1 -t1 -d5s "$EMB") $(wrk_rate -c1 -t1 -d5s "$NGX")"
done | awk '{ a += $1; b += $2; c += $3; d += $4; printf "round %d: c16 %.0f vs nginx %.0f (%.2f)  c1 %.0f vs nginx %.0f (%.2f)\n", NR, $1, $2, $1/$2, $3, $4, $3/$4 }
  END { printf "mean: c16 %.2fx nginx (goal >= 1.0), c1 %.2fx nginx (goal >= 0.95)\n", a/b, c/d }'

echo; echo "== 3. native clients vs the Perl seed script (wall rates, same server)"
N3=2000
for r in $(seq "$ROUNDS"); do
  $C0 "$BIN" run "$EMB" --clients all --mode both -n "$N3" --rounds 1 --warmup 100 --pin none --format csv \
    --no-progress 2>/dev/null | awk -F, 'NR > 1 { print $1, $9 }'
  if perl -MLWP::UserAgent -MHTTP::Lite -MWWW::Curl::Easy -e 1 2>/dev/null; then
    NO_PROXY='*' $C0 perl "$SEED" "$N3" "$EMB" | awk -v n="$N3" '$2 == "wallclock" || $3 == "wallclock" {
      name = $1; sub(":", "", name); w = ($2 == "wallclock") ? $1 : $2; print "perl/" name, n / w }'
  fi
done | awk '{ s[$1] += $2; c[$1]++; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
  END { best = 0; for (i = 1; i <= k; i++) { x = order[i]; m = s[x] / c[x]; printf "%-22s %10.0f req/s\n", x, m;
          if (x ~ /^perl\//) { if (m > best) { best = m; bn = x } } else if (x ~ /\/fresh$/) { f[x] = m } }
        if (best > 0) { printf "Perl fastest: %s %.0f req/s\n", bn, best;
          for (x in f) printf "  %-20s %s Perl fastest (%.2fx)\n", x, (f[x] > best ? "beats" : "DOES NOT beat"), f[x] / best } }'

echo; echo "== 4. memory: peak RSS, -n 10000 vs -n 1000000 (raw, reuse)"
python3 - "$BIN" "$EMB" <<'PY'
import resource, subprocess, sys
bin, url = sys.argv[1], sys.argv[2]
peaks = []
for n in (10000, 1000000):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(["taskset", "-c", "0", bin, "run", url, "--clients", "raw", "--mode", "reuse", "-n", str(n),
                    "--pin", "none", "--format", "csv", "--no-progress"], stdout=subprocess.DEVNULL, check=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the largest child so far, in KiB
    peaks.append(max(peak, before))
    print(f"-n {n:>8}: peak RSS {peaks[-1] / 1024:.1f} MiB")
print(f"ratio {peaks[1] / peaks[0]:.2f} (goal <= 1.2)")
PY

echo; echo "== 5. start to answer: a bare \`httpbench\` (default run, embedded server, progress off)"
python3 - "$BIN" <<'PY'
import subprocess, sys, time
t = time.monotonic()
subprocess.run([sys.argv[1], "--no-progress"], stdout=subprocess.DEVNULL, check=True)
print(f"{time.monotonic() - t:.1f} s (goal <= 15 s)")
PY

echo; echo "== 6. the page"
if [ -d dist ] && ls dist/*.wasm >/dev/null 2>&1; then
  total=0
  for f in dist/*.wasm dist/*.js dist/*.css; do
    [ -f "$f" ] || continue
    g=$(gzip -9 -c "$f" | wc -c); total=$((total + g))
    printf "%-40s %8d bytes, %8d gzip\n" "$f" "$(wc -c <"$f")" "$g"
  done
  echo "total gzip: $((total / 1024)) KB (goal <= 200 KB)"
  if command -v chromium >/dev/null; then
    echo "fetch (wasm) vs js-fetch (plain JavaScript) in headless Chromium, one interleaved run:"
    "$BIN" run --browser --clients raw --mode both -n 1000 --warmup 50 --browser-clients fetch,js-fetch \
      --page-dir dist --format csv --no-progress 2>/dev/null |
      awk -F, '$2 == "browser" { r[$3 "/" $4] = $9 } END {
        for (m in r) if (m ~ /^fetch\//) { split(m, p, "/"); j = r["js-fetch/" p[2]];
          printf "  %s: fetch %.0f req/s, js-fetch %.0f req/s, ratio %.2f (goal >= 0.95)\n", p[2], r[m], j, r[m] / j } }'
  fi
else
  echo "dist/ is not built: run 'trunk build --release' (scripts/test.sh does) to include the page's size"
fi
