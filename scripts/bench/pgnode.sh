#!/usr/bin/env bash
# One PostgreSQL node, builds compared on the same seeded database (issue 20).
#
#   scripts/bench/pgnode.sh [--records 20000] [--duration 10] [--rounds 2] [--bodies "fresh save"] DIR…
#
# Each DIR holds a release `localcloud` (the first DIR's `localcloud-bench` seeds). One private
# PostgreSQL cluster is seeded once; then, round after round, each build in turn serves it as one
# node while wrk (2 threads, 32 connections) sends the uncached Discover page (`fresh`) and creates
# (`save`), the bodies of scripts/bench/multinode.sh. Alternating builds on one database keeps
# seeding, autovacuum and the machine's drift out of the comparison.
#
# Prints, per round, build and body: requests/s, p50 and p99 ms, errors, and the CPU time per
# request of the node and of PostgreSQL's processes (from /proc, over the measured run only).
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS=20000
DURATION=10
ROUNDS=2
BODIES="fresh save"
BINS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --bodies) BODIES="$2"; shift 2 ;;
    -*) echo "usage: $0 [--records N] [--duration SECONDS] [--rounds N] [--bodies \"fresh save\"] DIR…" >&2; exit 2 ;;
    *) BINS+=("$1"); shift ;;
  esac
done
[ ${#BINS[@]} -gt 0 ] || { echo "usage: $0 [--records N] [--duration SECONDS] [--rounds N] [--bodies \"fresh save\"] DIR…" >&2; exit 2; }
for tool in wrk python3 curl; do command -v "$tool" >/dev/null || { echo "$tool is missing" >&2; exit 1; }; done
source Tests/EndToEnd/support/postgres.sh
source scripts/bench/support/wrk.sh
source scripts/bench/support/process.sh

TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-pgnode-bench.XXXXXX")"
NODE=""
cleanup() {
  [ -n "$NODE" ] && kill -TERM "$NODE" 2>/dev/null || true
  wait 2>/dev/null || true
  pg_stop >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT
postgres_ticks() { local total=0 pid; for pid in $(pgrep -u postgres -x postgres); do total=$((total + $(cpu_ticks "$pid"))); done; echo "$total"; }

C=iCloud.FoodPin
FIRST="${BINS[0]}"
pg_start >&2
"$FIRST/localcloud-bench" seed --database "$PG_URL" --records "$RECORDS" --container "$C" >&2
API="$("$FIRST/localcloud" --database "$PG_URL" --container "$C" tokens create --name bench)"
printf 'bench-password\n' | "$FIRST/localcloud" --database "$PG_URL" --container "$C" users add bencher --password-stdin >/dev/null
USER_TOKEN="$("$FIRST/localcloud" --database "$PG_URL" --container "$C" users token bencher)"
pg_psql "ANALYZE" >/dev/null
wrk_scripts "$TMP"
HZ="$(getconf CLK_TCK)"

echo "| Round | Build | Body | Requests/s | p50 ms | p99 ms | Errors | Node CPU ms/request | PostgreSQL CPU ms/request |"
echo "|---:|---|---|---:|---:|---:|---:|---:|---:|"
for round in $(seq 1 "$ROUNDS"); do
  for bin in "${BINS[@]}"; do
    port="$(free_port)"
    LOCALCLOUD_LOG_LEVEL=warning "$bin/localcloud" serve --database "$PG_URL" --data-dir "$TMP/node" --host 127.0.0.1 --port "$port" \
      >"$TMP/node.log" 2>&1 &
    NODE=$!
    wait_for 60 curl -s -o /dev/null "http://127.0.0.1:$port/" || { cat "$TMP/node.log" >&2; exit 1; }
    for body in $BODIES; do
      url="http://127.0.0.1:$port/database/1/$C/development/public/records/query?ckAPIToken=$API"
      [ "$body" = save ] && url="http://127.0.0.1:$port/database/1/$C/development/public/records/modify?ckAPIToken=$API&ckWebAuthToken=$USER_TOKEN"
      # Warm-up: the pool's connections and PostgreSQL's backends are new.
      wrk -t2 -c32 -d2s -s "$TMP/$body.lua" "$url" >/dev/null
      node0="$(cpu_ticks "$NODE")"; pg0="$(postgres_ticks)"
      read -r rps p50 p99 errors < <(wrk -t2 -c32 -d"${DURATION}s" --latency -s "$TMP/$body.lua" "$url" | wrk_result)
      node1="$(cpu_ticks "$NODE")"; pg1="$(postgres_ticks)"
      per() { python3 -c "print(f'{($2 - $1) / $HZ * 1000 / max(1, $rps * $DURATION):.3f}')"; }
      echo "| $round | $(basename "$bin") | $body | $rps | $p50 | $p99 | $errors | $(per "$node0" "$node1") | $(per "$pg0" "$pg1") |"
    done
    kill -TERM "$NODE"; wait "$NODE" 2>/dev/null || true; NODE=""
  done
done
