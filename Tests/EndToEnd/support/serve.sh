# Start and stop `localcloud serve` from shell scripts (end-to-end tests, fuzzing, benchmarks).
#
#   source Tests/EndToEnd/support/serve.sh
#   serve_start "$DATA_DIR" [more serve options]   # sets SERVE_URL, SERVE_PID, SERVE_LOG
#   curl "$SERVE_URL/…"
#   serve_stop                                     # SIGTERM; fails unless it exits 0
#
# Polls with a deadline; never sleeps a fixed time.

SERVE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
LOCALCLOUD_BIN="${LOCALCLOUD_BIN:-$SERVE_ROOT/.build/debug/localcloud}"
SERVE_TIMEOUT="${SERVE_TIMEOUT:-60}"
SERVE_PID=""

ensure_localcloud() {
  if [ ! -x "$LOCALCLOUD_BIN" ]; then
    (cd "$SERVE_ROOT" && swift build --product localcloud >&2)
  fi
  [ -x "$LOCALCLOUD_BIN" ] || { echo "FAIL: no localcloud binary at $LOCALCLOUD_BIN" >&2; return 1; }
}

# serve_start DATA_DIR [options…]: on a free port; waits for the `listening on` line.
serve_start() {
  local data="$1"; shift
  SERVE_LOG="$(mktemp "${TMPDIR:-/tmp}/localcloud-serve.XXXXXX")"
  SERVE_OUT="$SERVE_LOG.out"
  : > "$SERVE_OUT"  # exists before the child opens it, so the first poll can read it
  "$LOCALCLOUD_BIN" serve --data-dir "$data" --port 0 "$@" >"$SERVE_OUT" 2>"$SERVE_LOG" &
  SERVE_PID=$!
  local deadline=$((SECONDS + SERVE_TIMEOUT))
  SERVE_URL=""
  while [ "$SECONDS" -lt "$deadline" ]; do
    SERVE_URL="$(sed -n 's/^listening on \(https\{0,1\}:\/\/[^ ]*\)$/\1/p' "$SERVE_OUT" | head -1 || true)"
    [ -n "$SERVE_URL" ] && return 0
    kill -0 "$SERVE_PID" 2>/dev/null || { echo "FAIL: localcloud serve exited early:" >&2; cat "$SERVE_LOG" >&2; return 1; }
    sleep 0.05  # poll interval
  done
  echo "FAIL: no 'listening on' line within ${SERVE_TIMEOUT}s" >&2
  return 1
}

# serve_stop [signal]: stops the server and checks it exits 0 within the deadline.
serve_stop() {
  local signal="${1:-TERM}"
  [ -n "$SERVE_PID" ] || return 0
  kill "-$signal" "$SERVE_PID" 2>/dev/null || true
  local deadline=$((SECONDS + SERVE_TIMEOUT))
  while kill -0 "$SERVE_PID" 2>/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "FAIL: serve did not stop on SIG$signal" >&2; kill -KILL "$SERVE_PID"; return 1; }
    sleep 0.05  # poll interval
  done
  local status=0
  wait "$SERVE_PID" || status=$?
  SERVE_PID=""
  return "$status"
}

serve_kill() {
  [ -n "$SERVE_PID" ] || return 0
  kill -KILL "$SERVE_PID" 2>/dev/null || true
  wait "$SERVE_PID" 2>/dev/null || true
  SERVE_PID=""
}

# serve_foodpin DATA_DIR: FoodPin's schema, accounts alice (password alice-secret) and bob
# (bob-secret) and an API token (in $TOKEN), then serve_start; $PORT is the port it got.
serve_foodpin() {
  local data="$1"
  "$LOCALCLOUD_BIN" --data-dir "$data" schema import "$SERVE_ROOT/Assets/FoodPin.ckdb" >/dev/null
  printf '%s' "alice-secret" | "$LOCALCLOUD_BIN" --data-dir "$data" users add alice --password-stdin >/dev/null
  printf '%s' "bob-secret" | "$LOCALCLOUD_BIN" --data-dir "$data" users add bob --password-stdin >/dev/null
  TOKEN="$("$LOCALCLOUD_BIN" --data-dir "$data" tokens create)"
  serve_start "$data"
  PORT="${SERVE_URL##*:}"
}

# serve_node DIR N PORT DATABASE_URL: node N of several `localcloud serve` processes on one
# PostgreSQL database, on 127.0.0.1:PORT, its scratch files in DIR/nodeN and its output in
# DIR/nodeN.out and DIR/nodeN.log. Sets NODEN_PID; returns 1 if it does not listen within
# SERVE_TIMEOUT. A node killed earlier may be started again the same way.
serve_node() {
  local dir="$1" n="$2" port="$3" url="$4"
  local out="$dir/node$n.out"
  # Emptied here, not by the child's redirect (which runs after the fork): on a restart the poll
  # below would otherwise find the killed node's line and go on before this node listens.
  : >"$out"
  "$LOCALCLOUD_BIN" serve --database "$url" --data-dir "$dir/node$n" --host 127.0.0.1 --port "$port" \
    >"$out" 2>"$dir/node$n.log" &
  eval "NODE${n}_PID=$!"
  local deadline=$((SECONDS + SERVE_TIMEOUT))
  until grep -q '^listening on' "$out"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05  # poll interval
  done
}
