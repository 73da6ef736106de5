#!/usr/bin/env bash
# A SQLite node's Discover page under load (issue 20): the same query and seed as
# scripts/bench/multinode.sh's "1 node, SQLite" rows, without PostgreSQL and nginx, plus the
# "load more" page whose creation-time bound is new on every request.
#
#   scripts/bench/discover.sh [--records 100000] [--duration 10] [--bin DIR] [--perf FILE]
#
# --bin: the directory holding release `localcloud` and `localcloud-bench` (default: builds them
# here with `swift build -c release`), so two builds can be compared in one session.
# --perf: afterwards, `perf record -g` (DWARF call graphs, 6 s) of the node answering uncached
# pages, written to FILE; read it with `perf report -i FILE --children --sort sym -g none`.
# wrk, 32 connections, on:
#   - Discover page: the cached body (the server's response cache answers between commits);
#   - Discover page, uncached: a `bench` key unique per request, so every page runs the query;
#   - Load more: `___createTime < T` with T new on every request (a filter value that differs).
# Prints a Markdown table for docs/PERFORMANCE.md, with the node's CPU time per request (user +
# system from /proc over each measured run).
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS=100000
DURATION=10
BIN=""
PERF_OUT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --bin) BIN="$2"; shift 2 ;;
    --perf) PERF_OUT="$2"; shift 2 ;;
    *) echo "usage: $0 [--records N] [--duration SECONDS] [--bin DIR] [--perf FILE]" >&2; exit 2 ;;
  esac
done
for tool in wrk python3 ${PERF_OUT:+perf}; do command -v "$tool" >/dev/null || { echo "$tool is missing" >&2; exit 1; }; done
if [ -z "$BIN" ]; then
  swift build -c release --product localcloud >&2
  swift build -c release --product localcloud-bench >&2
  BIN="$(swift build -c release --show-bin-path)"
fi
export LOCALCLOUD_BIN="$BIN/localcloud"
source Tests/EndToEnd/support/serve.sh
source scripts/bench/support/wrk.sh
source scripts/bench/support/process.sh

TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-discover-bench.XXXXXX")"
cleanup() {
  [ -n "$SERVE_PID" ] && { kill -TERM "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; } || true
  rm -rf "$TMP"
}
trap cleanup EXIT

C=iCloud.FoodPin
DATA="$TMP/sqlite"
# FoodPin's schema with the creation time QUERYABLE as well, which a "load more" filter needs.
sed 's/"___createTime" TIMESTAMP SORTABLE,/"___createTime" TIMESTAMP QUERYABLE SORTABLE,/' Assets/FoodPin.ckdb > "$TMP/schema.ckdb"
"$BIN/localcloud-bench" seed --data-dir "$DATA" --records "$RECORDS" --container "$C" --schema "$TMP/schema.ckdb" >&2
API="$("$LOCALCLOUD_BIN" --data-dir "$DATA" --container "$C" tokens create --name bench)"
wrk_scripts "$TMP"
# Load more: newest first below a creation time (milliseconds) that moves on every request.
cat > "$TMP/more.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local counter = 0
local thread_id = 0
setup = function(thread) thread:set("tid", thread_id); thread_id = thread_id + 1 end
request = function()
  counter = counter + 1
  local bound = 4102444800000 - (tid * 1000000 + counter)
  local body = '{"query":{"recordType":"Restaurant","filterBy":[{"fieldName":"___createTime","comparator":"LESS_THAN","fieldValue":{"value":' ..
    bound .. ',"type":"TIMESTAMP"}}],"sortBy":[{"fieldName":"___createTime","ascending":false}]},"resultsLimit":50,"desiredKeys":["name","type","location"]}'
  return wrk.format(nil, nil, nil, body)
end
LUA
sed -n '/^done = function/,/^end$/p' "$TMP/post.lua" >> "$TMP/more.lua"

serve_start "$DATA"
URL="$SERVE_URL/database/1/$C/development/public/records/query?ckAPIToken=$API"
# Every script's body must answer 200 with 50 records before it is measured.
check() {
  python3 - "$URL" "$1" <<'PY'
import json, sys, urllib.error, urllib.request
url, body = sys.argv[1:]
try:
    with urllib.request.urlopen(urllib.request.Request(url, data=body.encode(), method="POST", headers={"Content-Type": "application/json"})) as r:
        records = json.loads(r.read())["records"]
except urllib.error.HTTPError as error:
    sys.exit(f"{body}: HTTP {error.code}: {error.read().decode()}")
if len(records) != 50:
    sys.exit(f"{body}: {len(records)} records, not 50")
PY
}
check "$DISCOVER"
check '{"query":{"recordType":"Restaurant","filterBy":[{"fieldName":"___createTime","comparator":"LESS_THAN","fieldValue":{"value":4102444800000,"type":"TIMESTAMP"}}],"sortBy":[{"fieldName":"___createTime","ascending":false}]},"resultsLimit":50,"desiredKeys":["name","type","location"]}'
# measure SCRIPT → "rps p50 p99 errors node-CPU-ms-per-request"
measure() {
  local before result
  before="$(cpu_ticks "$SERVE_PID")"
  result="$(wrk -t2 -c32 -d"${DURATION}s" --latency -s "$1" "$URL" | wrk_result)"
  read -r rps p50 p99 errors <<<"$result"
  python3 -c "print('$result', f'{($(cpu_ticks "$SERVE_PID") - $before) / $(getconf CLK_TCK) / max($rps * $DURATION, 1) * 1000:.3f}')"
}
echo "| Measure (1 node, SQLite, $RECORDS restaurants, 32 connections) | Requests/s | p50 ms | p99 ms | Errors | Node CPU ms/request |"
echo "|---|---:|---:|---:|---:|---:|"
read -r rps p50 p99 errors cpu < <(measure "$TMP/post.lua"); echo "| Discover page | $rps | $p50 | $p99 | $errors | $cpu |"
read -r rps p50 p99 errors cpu < <(measure "$TMP/fresh.lua"); echo "| Discover page, uncached | $rps | $p50 | $p99 | $errors | $cpu |"
read -r rps p50 p99 errors cpu < <(measure "$TMP/more.lua"); echo "| Load more (creation-time bound new per request) | $rps | $p50 | $p99 | $errors | $cpu |"
if [ -n "$PERF_OUT" ]; then
  wrk -t2 -c32 -d10s -s "$TMP/fresh.lua" "$URL" >/dev/null &
  wrk_pid=$!
  perf record -F 2000 -g --call-graph dwarf,16384 -p "$SERVE_PID" -o "$PERF_OUT" -- sleep 6 >/dev/null 2>&1 \
    || { kill "$wrk_pid" 2>/dev/null; echo "perf record failed" >&2; exit 1; }
  wait "$wrk_pid"
  echo "profile of the uncached page: $PERF_OUT" >&2
fi
