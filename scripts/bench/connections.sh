#!/usr/bin/env bash
# PostgreSQL connections a `localcloud serve` node holds (docs/SCALING.md, connection pooling):
#
#   scripts/bench/connections.sh [--streams 100] [--load-seconds 5]
#
# One release node on a private PostgreSQL cluster. Counts the node's backends in
# pg_stat_activity (and those waiting in LISTEN) when idle, with --streams SSE clients open on the
# notifications endpoint, and at the end of --load-seconds of wrk saves and uncached Discover pages
# at 32 connections. Prints Markdown.
set -euo pipefail
cd "$(dirname "$0")/../.."
STREAMS=100
LOAD=5
while [ $# -gt 0 ]; do
  case "$1" in
    --streams) STREAMS="$2"; shift 2 ;;
    --load-seconds) LOAD="$2"; shift 2 ;;
    *) echo "usage: $0 [--streams N] [--load-seconds N]" >&2; exit 2 ;;
  esac
done
for tool in wrk curl python3; do command -v "$tool" >/dev/null || { echo "$tool is missing" >&2; exit 1; }; done

swift build -c release --product localcloud >&2
BIN="$(swift build -c release --show-bin-path)"
export LOCALCLOUD_BIN="$BIN/localcloud"
source Tests/EndToEnd/support/serve.sh
source Tests/EndToEnd/support/postgres.sh
source scripts/bench/support/wrk.sh

TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-connections.XXXXXX")"
CURLS=()
cleanup() {
  for pid in "${CURLS[@]+"${CURLS[@]}"}"; do kill "$pid" 2>/dev/null || true; done
  serve_kill >/dev/null 2>&1 || true
  pg_stop >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT

C=iCloud.FoodPin
pg_start >&2
"$LOCALCLOUD_BIN" --database "$PG_URL" --container "$C" schema import Assets/FoodPin.ckdb >/dev/null
API="$("$LOCALCLOUD_BIN" --database "$PG_URL" --container "$C" tokens create --name bench)"
printf 'bench-password\n' | "$LOCALCLOUD_BIN" --database "$PG_URL" --container "$C" users add bencher --password-stdin >/dev/null
USER_TOKEN="$("$LOCALCLOUD_BIN" --database "$PG_URL" --container "$C" users token bencher)"
LOCALCLOUD_LOG_LEVEL=warning serve_start "$TMP/node" --database "$PG_URL"

# backends → "all listening": the node's connections (everything but this psql) and those in LISTEN.
backends() {
  pg_psql "SELECT count(*), count(*) FILTER (WHERE query ILIKE 'LISTEN%') FROM pg_stat_activity
           WHERE datname = 'localcloud' AND pid <> pg_backend_pid() AND backend_type = 'client backend'" | tr '|' ' '
}
row() { read -r all listening < <(backends); echo "| $1 | $all | $listening |"; }

echo "| Node state | PostgreSQL connections | of which in LISTEN |"
echo "|---|---:|---:|"
row "idle, after start-up"
for _ in $(seq "$STREAMS"); do
  curl -sN "$SERVE_URL/database/1/$C/development/notifications?ckAPIToken=$API&ckWebAuthToken=$USER_TOKEN" \
    >/dev/null 2>&1 &
  CURLS+=($!)
done
# Every stream is open once the node has answered them all (their first bytes are on the wire).
deadline=$((SECONDS + 60))
until [ "$(ss -Htn state established "( dport = :${SERVE_URL##*:} )" | wc -l)" -ge "$STREAMS" ]; do
  [ "$SECONDS" -lt "$deadline" ] || { echo "the SSE streams did not open" >&2; exit 1; }
  sleep 0.05
done
row "$STREAMS SSE streams open"
wrk_scripts "$TMP"
wrk -t2 -c32 -d"${LOAD}s" -s "$TMP/save.lua" \
  "$SERVE_URL/database/1/$C/development/public/records/modify?ckAPIToken=$API&ckWebAuthToken=$USER_TOKEN" >/dev/null &
WRK_SAVES=$!
wrk -t2 -c32 -d"${LOAD}s" -s "$TMP/fresh.lua" "$SERVE_URL/database/1/$C/development/public/records/query?ckAPIToken=$API" >/dev/null &
WRK_PAGES=$!
peak_all=0; peak_listen=0
while kill -0 "$WRK_SAVES" 2>/dev/null || kill -0 "$WRK_PAGES" 2>/dev/null; do
  read -r all listening < <(backends)
  [ "$all" -gt "$peak_all" ] && peak_all="$all"
  [ "$listening" -gt "$peak_listen" ] && peak_listen="$listening"
  sleep 0.2
done
wait "$WRK_SAVES" "$WRK_PAGES" || true
echo "| $STREAMS SSE streams, 64 wrk connections of saves and uncached pages (peak) | $peak_all | $peak_listen |"
