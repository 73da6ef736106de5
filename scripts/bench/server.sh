#!/usr/bin/env bash
# Server benchmark (issue 10): wrk against `localcloud serve` on 100,000 restaurants.
#
#   scripts/bench/server.sh [--records 100000] [--duration 10]
#
# In one run, against one release server:
#   - the Discover page (records/query, 50 rows, desiredKeys name/type/location, ___createTime
#     descending) at 1, 32 and 128 connections, and the same response bytes served from memory
#     at POST /bench/static (the HTTP limit);
#   - saves (records/modify create, one record per request, unique names) from 32 connections;
#   - the server's peak memory (VmHWM).
# Prints a Markdown table for docs/PERFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS=100000
DURATION=10
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    *) echo "usage: $0 [--records N] [--duration SECONDS]" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }

swift build -c release --product localcloud >&2
swift build -c release --product localcloud-bench >&2
BIN="$(swift build -c release --show-bin-path)"
export LOCALCLOUD_BIN="$BIN/localcloud"
source Tests/EndToEnd/support/serve.sh
source scripts/bench/support/wrk.sh

TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-bench.XXXXXX")"
trap 'serve_kill; rm -rf "$TMP"' EXIT
DATA="$TMP/data"
C=iCloud.FoodPin
"$BIN/localcloud-bench" seed --data-dir "$DATA" --records "$RECORDS" --container "$C" >&2
lc() { "$LOCALCLOUD_BIN" --data-dir "$DATA" --container "$C" "$@"; }
API="$(lc tokens create --name bench)"
printf 'bench-password\n' | lc users add bencher --password-stdin >/dev/null
USER_TOKEN="$(lc users token bencher)"

QUERY_PATH="/database/1/$C/development/public/records/query?ckAPIToken=$API"
MODIFY_PATH="/database/1/$C/development/public/records/modify?ckAPIToken=$API&ckWebAuthToken=$USER_TOKEN"

# The static route returns exactly the Discover page's bytes.
LOCALCLOUD_LOG_LEVEL=warning serve_start "$DATA"
curl -sS -f -X POST --data "$DISCOVER" "$SERVE_URL$QUERY_PATH" -o "$TMP/page.json"
serve_stop
echo "Discover page: $(wc -c < "$TMP/page.json") bytes, $(python3 -c "import json; print(len(json.load(open('$TMP/page.json'))['records']))") records" >&2
LOCALCLOUD_LOG_LEVEL=warning serve_start "$DATA" --bench-static-response "$TMP/page.json"

wrk_scripts "$TMP"

measure() { # measure CONNECTIONS SCRIPT PATH → "rps p50 p99 errors"
  local threads=$(( $1 < 2 ? 1 : 2 ))
  wrk -t"$threads" -c"$1" -d"${DURATION}s" --latency -s "$2" "$SERVE_URL$3" | wrk_result
}

echo "| Measure | Connections | Requests/s | p50 ms | p99 ms | Errors |"
echo "|---|---:|---:|---:|---:|---:|"
for c in ${BENCH_CONNECTIONS:-1 32 128}; do
  read -r rps p50 p99 errors < <(measure "$c" "$TMP/post.lua" "$QUERY_PATH")
  echo "| Discover page (records/query, 50 rows) | $c | $rps | $p50 | $p99 | $errors |"
  read -r srps sp50 sp99 serrors < <(measure "$c" "$TMP/post.lua" "/bench/static")
  echo "| Same bytes from memory (/bench/static) | $c | $srps | $sp50 | $sp99 | $serrors |"
  echo "| → Discover / limit | $c | $(python3 -c "print(f'{$rps/$srps:.0%}')") | | | |"
done
read -r rps p50 p99 errors < <(measure 32 "$TMP/save.lua" "$MODIFY_PATH")
echo "| Saves (records/modify create, 1 record/request) | 32 | $rps | $p50 | $p99 | $errors |"
echo
echo "Server peak memory (VmHWM): $(awk '/VmHWM/ {print $2, $3}' "/proc/$SERVE_PID/status")"
serve_stop
