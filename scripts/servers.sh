# Sourced by the bench scripts: the embedded target server and nginx serving the same 612-byte page, both on
# 127.0.0.1. Each start appends its pid to the caller's `pids` array, which the caller's exit trap kills.
# An optional launcher (e.g. `taskset -c 1`) is put in front of the server's command.

# start_embedded WORK [LAUNCHER...]: `$BIN serve` with one worker thread (what `httpbench run` uses).
# Sets EMB (its URL, ending in /) and EMB_PORT.
start_embedded() {
  local work=$1
  shift
  # It also serves the built page (dist/) under /app/; what a page run posts back lands in WORK, not the repo.
  "$@" "$BIN" serve --port 0 --threads 1 --quiet --results-dir "$work/results" >"$work/serve.out" &
  pids+=($!)
  for _ in $(seq 50); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
  EMB=$(sed -n 's/^listening on //p' "$work/serve.out")
  EMB_PORT=$(echo "$EMB" | sed 's|.*:\([0-9]*\)/|\1|')
}

# start_nginx WORK [LAUNCHER...]: nginx (Debian's, installed by setup.sh with HTTPBENCH_EXTRA_APT=nginx-light),
# one worker, no logging, keep-alive without a practical limit. Sets NGX (its URL, ending in /) and NGX_PORT.
start_nginx() {
  local work=$1
  shift
  NGX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  mkdir -p "$work/www" "$work/nginx"
  cp cli/src/server/index.html "$work/www/index.html"
  chmod 755 "$work" # nginx workers run as www-data
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
  "$@" "$(command -v nginx || echo /usr/sbin/nginx)" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
  pids+=($!)
  NGX="http://127.0.0.1:$NGX_PORT/"
  for _ in $(seq 50); do curl -sf "$NGX" >/dev/null 2>&1 && break; sleep 0.1; done
}
