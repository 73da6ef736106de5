#!/usr/bin/env bash
# Scale-out benchmark (issue 12): the server on SQLite and on PostgreSQL, one node and two.
#
#   scripts/bench/multinode.sh [--records 100000] [--duration 10] [--growth "10000 100000 1000000"] [--seed-limit 100000] [--growth-only] [--bin DIR]
#
# --bin: the directory holding release `localcloud` and `localcloud-bench` (default: builds them
# here with `swift build -c release`), so two builds can be compared in one session.
#
# In one run, on this machine, with release builds:
#   - wrk on the Discover page (records/query, 50 rows; as repeated, which the server's response
#     cache answers between commits, and uncached, every request a query) and on saves (records/modify create), 32
#     connections, against: one node on SQLite; one node on PostgreSQL; two nodes on PostgreSQL
#     behind nginx (deploy/nginx/localcloud.conf). --records restaurants in each store.
#   - each node's CPU time during the runs and its peak memory (VmHWM);
#   - commit on node 1 → SSE delivery on node 2 (scripts/bench/sse_latency.py, 200 saves);
#   - time per Discover page (first page and a page 5,000 rows deep by continuation marker) as
#     PostgreSQL grows through --growth restaurants: flat if the keyset index does its job. Rows
#     past --seed-limit are SQL copies of the seeded ones (the store's path runs ~1,000 saves/s here).
# Prints Markdown tables for docs/PERFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS=100000
DURATION=10
GROWTH="10000 100000 1000000"
SEED_LIMIT=100000
GROWTH_ONLY=""
BIN=""
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --growth) GROWTH="$2"; shift 2 ;;
    --seed-limit) SEED_LIMIT="$2"; shift 2 ;;
    --growth-only) GROWTH_ONLY=1; shift ;;
    --bin) BIN="$2"; shift 2 ;;
    *) echo "usage: $0 [--records N] [--duration SECONDS] [--growth \"N1 N2 …\"] [--seed-limit N] [--growth-only] [--bin DIR]" >&2; exit 2 ;;
  esac
done
for tool in wrk nginx python3; do command -v "$tool" >/dev/null || { echo "$tool is missing" >&2; exit 1; }; done

if [ -z "$BIN" ]; then
  swift build -c release --product localcloud >&2
  swift build -c release --product localcloud-bench >&2
  BIN="$(swift build -c release --show-bin-path)"
fi
export LOCALCLOUD_BIN="$BIN/localcloud"
source Tests/EndToEnd/support/serve.sh
source scripts/bench/support/wrk.sh
source scripts/bench/support/process.sh
source Tests/EndToEnd/support/postgres.sh
source Tests/EndToEnd/support/nginx.sh

TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-multinode-bench.XXXXXX")"
PIDS=()
NGINX_PID=""
cleanup() {
  [ -n "$NGINX_PID" ] && { kill -TERM "$NGINX_PID" 2>/dev/null; wait "$NGINX_PID" 2>/dev/null; } || true
  for pid in "${PIDS[@]+"${PIDS[@]}"}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pg_stop >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT

C=iCloud.FoodPin
pg_start >&2
DB="$PG_URL"
SQLITE="$TMP/sqlite"

# credentials STORE-ARGS… → API and USER_TOKEN for that store
credentials() {
  API="$("$LOCALCLOUD_BIN" "$@" --container "$C" tokens create --name bench)"
  printf 'bench-password\n' | "$LOCALCLOUD_BIN" "$@" --container "$C" users add bencher --password-stdin >/dev/null
  USER_TOKEN="$("$LOCALCLOUD_BIN" "$@" --container "$C" users token bencher)"
}
# start_node NAME PORT STORE-ARGS… → the node's pid appended to PIDS, NODE_URL
start_node() {
  local name="$1" port="$2"; shift 2
  : >"$TMP/$name.out"  # emptied before the fork: a restarted node's old line must not count
  LOCALCLOUD_LOG_LEVEL=warning "$LOCALCLOUD_BIN" serve "$@" --data-dir "$TMP/$name" --host 127.0.0.1 --port "$port" \
    >"$TMP/$name.out" 2>"$TMP/$name.log" &
  PIDS+=($!)
  wait_for 60 grep -q '^listening on' "$TMP/$name.out" || { cat "$TMP/$name.log" >&2; exit 1; }
  NODE_URL="http://127.0.0.1:$port"
}
wrk_scripts "$TMP"
measure() { wrk -t2 -c32 -d"${DURATION}s" --latency -s "$1" "$2" | wrk_result; }

# bench_setup LABEL BASE-URL NODE-PIDS…: wrk on Discover and saves, CPU seconds and peak memory per node.
bench_setup() {
  local label="$1" base="$2"; shift 2
  local -a before=()
  for pid in "$@"; do before+=("$(cpu_ticks "$pid")"); done
  read -r rps p50 p99 errors < <(measure "$TMP/post.lua" "$base/database/1/$C/development/public/records/query?ckAPIToken=$API")
  echo "| $label | Discover page | $rps | $p50 | $p99 | $errors |"
  read -r rps p50 p99 errors < <(measure "$TMP/fresh.lua" "$base/database/1/$C/development/public/records/query?ckAPIToken=$API")
  echo "| $label | Discover page, uncached | $rps | $p50 | $p99 | $errors |"
  read -r rps p50 p99 errors < <(measure "$TMP/save.lua" "$base/database/1/$C/development/public/records/modify?ckAPIToken=$API&ckWebAuthToken=$USER_TOKEN")
  echo "| $label | Saves | $rps | $p50 | $p99 | $errors |"
  local i=0 hz; hz="$(getconf CLK_TCK)"
  for pid in "$@"; do
    NODE_NOTES+=("$label, node $((i + 1)): $(python3 -c "print(f'{($(cpu_ticks "$pid") - ${before[$i]}) / $hz:.1f}')") CPU s over $((3 * DURATION)) s of load, peak memory $(awk '/VmHWM/ {print $2, $3}' "/proc/$pid/status")")
    i=$((i + 1))
  done
}
NODE_NOTES=()

if [ -z "$GROWTH_ONLY" ]; then
"$BIN/localcloud-bench" seed --data-dir "$SQLITE" --records "$RECORDS" --container "$C" >&2
"$BIN/localcloud-bench" seed --database "$DB" --records "$RECORDS" --container "$C" >&2
# The steady state, not the seed's aftermath: autovacuum and a checkpoint would otherwise land
# in whichever measurement runs next (the SQLite node's included: the cluster shares the cores).
pg_psql "VACUUM ANALYZE" >&2
pg_psql "CHECKPOINT" >&2
echo "| Setup | Measure (32 connections) | Requests/s | p50 ms | p99 ms | Errors |"
echo "|---|---|---:|---:|---:|---:|"
credentials --data-dir "$SQLITE"
start_node sqlite "$(free_port)" --data-dir "$SQLITE"
bench_setup "1 node, SQLite" "$NODE_URL" "${PIDS[-1]}"
kill -TERM "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true; unset 'PIDS[-1]'

credentials --database "$DB"
PORT1="$(free_port)"; PORT2="$(free_port)"; PORT_LB="$(free_port)"
start_node pg1 "$PORT1" --database "$DB"; NODE1="$NODE_URL"; PID1="${PIDS[-1]}"
bench_setup "1 node, PostgreSQL" "$NODE1" "$PID1"
start_node pg2 "$PORT2" --database "$DB"; NODE2="$NODE_URL"; PID2="${PIDS[-1]}"
mkdir -p "$TMP/nginx"
sed -e "s/127.0.0.1:8080/127.0.0.1:$PORT_LB/" -e "s/127.0.0.1:8081/127.0.0.1:$PORT1/" -e "s/127.0.0.1:8082/127.0.0.1:$PORT2/" \
  deploy/nginx/localcloud.conf > "$TMP/nginx/localcloud.conf"
nginx_prefix "$TMP/nginx" 2 off
nginx -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -g 'daemon off;' &
NGINX_PID=$!
wait_for 30 curl -sf -o /dev/null -X POST --data "$DISCOVER" "http://127.0.0.1:$PORT_LB/database/1/$C/development/public/records/query?ckAPIToken=$API"
bench_setup "2 nodes, PostgreSQL, nginx" "http://127.0.0.1:$PORT_LB" "$PID1" "$PID2"
echo
for note in "${NODE_NOTES[@]}"; do echo "- $note"; done
echo
read -r p50 p99 max count < <(python3 scripts/bench/sse_latency.py --writer "$NODE1" --reader "$NODE2" --container "$C" \
  --api-token "$API" --user-token="$USER_TOKEN" --saves 200)
echo "Commit on node 1 → SSE event on node 2 ($count saves): p50 $p50 ms, p99 $p99 ms, max $max ms"
echo
fi

# Page time as PostgreSQL grows (the Discover query's first page and a page 5,000 rows deep).
echo "| Restaurants in PostgreSQL | First page p50 ms (HTTP, node, PostgreSQL) | Page at row 5,000 p50 ms | First page inside PostgreSQL (EXPLAIN ANALYZE, median of 30) | Plan |"
echo "|---:|---:|---:|---:|---|"
# A database of its own, grown in steps, behind one node.
pg_psql "CREATE DATABASE growth" >/dev/null
GROW_DB="${DB%/*}/growth"
credentials --database "$GROW_DB"
start_node grow "$(free_port)" --database "$GROW_DB"; GROW_NODE="$NODE_URL"
count() { "$LOCALCLOUD_BIN" --database "$GROW_DB" --container "$C" --json status | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])'; }
have="$(count)"
grow_psql() { pg_as "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -U localcloud -d growth -c "$1"; }
# capture_discover_sql: the Discover query's SQL as the store sends it (from the statement log
# while the node answers one page), for PostgreSQL's own execution time at each size.
capture_discover_sql() {
  grow_psql "ALTER SYSTEM SET log_min_duration_statement = 0" >/dev/null
  grow_psql "SELECT pg_reload_conf()" >/dev/null
  curl -sf -o /dev/null -X POST --data "$DISCOVER" "$GROW_NODE/database/1/$C/development/public/records/query?ckAPIToken=$API"
  grow_psql "ALTER SYSTEM RESET log_min_duration_statement" >/dev/null
  grow_psql "SELECT pg_reload_conf()" >/dev/null
  python3 scripts/bench/support/discover_sql.py "$PG_DIR/server.log" > "$TMP/discover.sql"
}
# execution_ms: the median of PostgreSQL's "Execution Time" over 30 EXPLAIN ANALYZE runs.
execution_ms() {
  local i
  for i in $(seq 30); do
    grow_psql "EXPLAIN (ANALYZE, FORMAT JSON) $(cat "$TMP/discover.sql")" \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Execution Time"])'
  done | python3 -c 'import statistics,sys; print(f"{statistics.median(float(x) for x in sys.stdin):.3f}")'
}
# top_scan: the plan's first scan node and its index.
top_scan() {
  grow_psql "EXPLAIN (FORMAT JSON) $(cat "$TMP/discover.sql")" | python3 -c '
import json, sys
node = json.load(sys.stdin)[0]["Plan"]
while "Index Name" not in node and node.get("Plans"): node = node["Plans"][0]
print(node["Node Type"] + (" on " + node["Index Name"] if "Index Name" in node else ""))'
}
for target in $GROWTH; do
  # Through the store's save path up to --seed-limit; past it, copies of those rows made in SQL
  # (new names, older creation times, so they sort after them), which is minutes, not hours.
  seed_to=$(( target < SEED_LIMIT ? target : SEED_LIMIT ))
  if [ "$seed_to" -gt "$have" ]; then
    "$BIN/localcloud-bench" seed --database "$GROW_DB" --records "$((seed_to - have))" --container "$C" >&2
    have="$(count)"
  fi
  if [ "$target" -gt "$have" ]; then
    schema="$(grow_psql "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'lc\_icloud\_foodpin\_deve\_%'")"
    grow_psql "INSERT INTO $schema.records (scope, owner, zone, record_name, record_type, created_at, modified_at,
                 created_by, modified_by, change_tag, fields, search)
               SELECT scope, owner, zone, record_name || '-copy-' || g || '-$target', record_type, created_at - g * 86400 * 365,
                 modified_at, created_by, modified_by, change_tag, fields, search
               FROM (SELECT * FROM $schema.records WHERE record_name NOT LIKE '%-copy-%' ORDER BY id LIMIT $SEED_LIMIT) r,
                 generate_series(1, $(( (target - have + SEED_LIMIT - 1) / SEED_LIMIT ))) g
               LIMIT $((target - have))" >&2
  fi
  # Every size measured in the same state: statistics fresh, no autovacuum or checkpoint still
  # busy with the rows just added.
  schema="$(grow_psql "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'lc\_icloud\_foodpin\_deve\_%'")"
  grow_psql "VACUUM ANALYZE $schema.records" >&2
  grow_psql "CHECKPOINT" >&2
  [ -s "$TMP/discover.sql" ] || capture_discover_sql
  have="$(count)"
  python3 - "$GROW_NODE" "$C" "$API" "$have" <<'PY'
import json, statistics, sys, time, urllib.request
base, container, api, target = sys.argv[1:]
url = f"{base}/database/1/{container}/development/public/records/query?ckAPIToken={api}"
query = {"recordType": "Restaurant", "sortBy": [{"fieldName": "___createTime", "ascending": False}]}
calls = 0
def page(marker=None):
    global calls
    calls += 1
    # `bench` differs per call (the server ignores it), so the response cache never answers.
    body = {"query": query, "resultsLimit": 50, "desiredKeys": ["name", "type", "location"], "bench": calls}
    if marker: body["continuationMarker"] = marker
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    with urllib.request.urlopen(request) as response:
        result = json.loads(response.read())
    return (time.perf_counter() - start) * 1000, result.get("continuationMarker")
for _ in range(200):   # warm-up: a node's new pool connections (fresh PostgreSQL backends) answer slower at first
    page()
first = [page()[0] for _ in range(50)]
marker = None
for _ in range(100):   # 100 pages of 50: row 5,000
    _, marker = page(marker)
deep = [page(marker)[0] for _ in range(50)]
print(f"| {int(target):,} | {statistics.median(first):.2f} | {statistics.median(deep):.2f} ", end="")
PY
  echo "| $(execution_ms) ms | $(top_scan) |"
done
