#!/usr/bin/env bash
# End-to-end: a slowloris client (header bytes trickled, one every 0.25 s) is disconnected by a real
# `localcloud serve` near its --read-timeout, long before it finishes, while others are served.
# (A separate server process: in the test process, 670 parallel tests shared the server's event loops
# and CPU with it, and the in-process version missed its bound in loaded runs.)
set -euo pipefail
source "$(dirname "$0")/support/serve.sh"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-slowloris-e2e.XXXXXX")"
trap 'serve_kill; rm -rf "$TMP"' EXIT
fail() { printf 'FAIL: %s\n' "$*" >&2; [ -n "${SERVE_LOG:-}" ] && { echo "--- server log ---" >&2; tail -20 "$SERVE_LOG" >&2; }; exit 1; }
pass() { printf 'ok - %s\n' "$*"; }

ensure_localcloud
DATA="$TMP/data"
serve_start "$DATA" --read-timeout 3
PORT="${SERVE_URL##*:}"

# The trickling client, in the background: prints the seconds until the server closed (or the limit).
python3 - "$PORT" >"$TMP/closed" <<'PY' &
import socket, sys, time, select
port = int(sys.argv[1])
s = socket.create_connection(("127.0.0.1", port), timeout=5)
start = time.monotonic()
s.sendall(b"POST /database/1/x/development/public/records/query HTTP/1.1\r\nHost: a\r\nX-Slow: ")
for _ in range(60):  # 60 bytes, one every 0.25 s: 15 s if never closed
    readable, _, _ = select.select([s], [], [], 0.25)
    if readable:
        try:
            if not s.recv(1):
                break
        except OSError:
            break
    try:
        s.send(b"a")
    except OSError:
        break
print(f"{time.monotonic() - start:.2f}")
PY
CLIENT=$!

# Others are served meanwhile.
status="$(curl -s -o /dev/null -w '%{http_code}' "$SERVE_URL/database/1/iCloud.FoodPin/development/public/records/query" -X POST -d '{}' || true)"
[ "$status" != "000" ] || fail "a normal request got no answer while the slow client trickled"
pass "a normal request is answered ($status) while the slow client trickles"

wait "$CLIENT" || fail "the slow client failed"
closed="$(cat "$TMP/closed")"
python3 -c "import sys; t=float('$closed'); sys.exit(0 if 2.5 <= t < 10 else 1)" \
  || fail "the slow client was closed after ${closed}s, not near the 3 s read timeout"
pass "the slow client was disconnected after ${closed}s (read timeout 3 s; trickling all 60 bytes takes 15 s)"
