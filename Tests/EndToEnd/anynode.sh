#!/usr/bin/env bash
# End-to-end: two `localcloud serve` nodes on one PostgreSQL database, and what a client carries
# from one to the other (support/anynode.py): continuation markers, SSE Last-Event-IDs, upload and
# download URLs and web auth tokens work on either node.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"
source "$HERE/support/serve.sh"
source "$HERE/support/postgres.sh"
NODE_PIDS=()
cleanup() {
  for pid in "${NODE_PIDS[@]+"${NODE_PIDS[@]}"}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pg_stop >/dev/null 2>&1 || true
  e2e_cleanup
}
trap cleanup EXIT

ensure_localcloud
pg_start || fail "could not start a private PostgreSQL cluster"
C=iCloud.FoodPin
lc() { "$LOCALCLOUD_BIN" --database "$PG_URL" --container "$C" "$@"; }
lc schema import "$SERVE_ROOT/Assets/FoodPin.ckdb" >/dev/null
API="$(lc tokens create --name anynode)"
printf 'alice-secret\n' | lc users add alice --password-stdin >/dev/null
ALICE="$(lc users token alice)"
URLS=()
for n in 1 2; do
  serve_start "$E2E_TMP/node$n" --database "$PG_URL" || fail "node $n did not start"
  NODE_PIDS+=("$SERVE_PID"); URLS+=("$SERVE_URL")
done
SERVE_PID=""
pass "two nodes on one database: ${URLS[0]} and ${URLS[1]}"
python3 "$HERE/support/anynode.py" "${URLS[0]}" "${URLS[1]}" "$C" "$API" "$ALICE" || fail "a client's state did not carry across nodes"
