#!/usr/bin/env bash
# A PostgreSQL streaming replica for reads (docs/SCALING.md), measured on this machine:
#
#   scripts/bench/replica.sh [--records 100000] [--duration 10] [--writes 20000]
#
# - a private primary with --records restaurants (the same store `localcloud serve --database` uses),
#   and a streaming replica made with `pg_basebackup -R`;
# - the Discover page's own SQL, captured from the primary's statement log while a real
#   `localcloud serve` node answers one records/query, replayed with pgbench (8 clients) on the
#   primary and on the replica;
# - the replica under the same read load while the primary takes --writes saves through the store's
#   save path (`localcloud-bench seed`): the saves' rate, the replica's Discover rate, and the replay
#   lag PostgreSQL reports in pg_stat_replication (sampled every 100 ms) and in bytes.
# Prints Markdown for docs/SCALING.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS=100000
DURATION=10
WRITES=20000
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --writes) WRITES="$2"; shift 2 ;;
    *) echo "usage: $0 [--records N] [--duration SECONDS] [--writes N]" >&2; exit 2 ;;
  esac
done
for tool in python3 curl; do command -v "$tool" >/dev/null || { echo "$tool is missing" >&2; exit 1; }; done

swift build -c release --product localcloud >&2
swift build -c release --product localcloud-bench >&2
BIN="$(swift build -c release --show-bin-path)"
export LOCALCLOUD_BIN="$BIN/localcloud"
source Tests/EndToEnd/support/serve.sh
source Tests/EndToEnd/support/postgres.sh
source scripts/bench/support/process.sh

REPLICA_DIR=""
SERVE_PID=""
cleanup() {
  [ -n "$SERVE_PID" ] && { kill -TERM "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; } || true
  [ -n "$REPLICA_DIR" ] && pg_as "$PG_BIN/pg_ctl" -D "$REPLICA_DIR" -m immediate -w -t 60 stop >/dev/null 2>&1 || true
  pg_stop >/dev/null 2>&1 || true
}
trap cleanup EXIT

C=iCloud.FoodPin
pg_start >&2
"$BIN/localcloud-bench" seed --database "$PG_URL" --records "$RECORDS" --container "$C" >&2

# The replica: a base backup that streams WAL from the primary (-R writes primary_conninfo).
REPLICA_DIR="$PG_DIR/replica"
REPLICA_PORT="$(pg_free_port)"
pg_as env PGPASSWORD="$PGPASSWORD" "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PG_PORT" -U localcloud \
  -D "$REPLICA_DIR" -R -X stream -c fast >&2
pg_as "$PG_BIN/pg_ctl" -D "$REPLICA_DIR" -l "$PG_DIR/replica.log" -w -t 60 \
  -o "-p $REPLICA_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null
psql_at() { pg_as "$PG_BIN/psql" -X -q -At -h "$PG_DIR" -p "$1" -U localcloud -d localcloud -c "$2"; }
wait_for 60 test "$(psql_at "$PG_PORT" "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")" = 1 \
  || { echo "the replica did not start streaming" >&2; cat "$PG_DIR/replica.log" >&2; exit 1; }

# The Discover query exactly as the store sends it: log every statement while a node answers one page.
API="$("$LOCALCLOUD_BIN" --database "$PG_URL" --container "$C" tokens create --name bench)"
psql_at "$PG_PORT" "ALTER SYSTEM SET log_min_duration_statement = 0" >/dev/null
psql_at "$PG_PORT" "SELECT pg_reload_conf()" >/dev/null
serve_start "$PG_DIR/node" --database "$PG_URL"
DISCOVER='{"query":{"recordType":"Restaurant","sortBy":[{"fieldName":"___createTime","ascending":false}]},"resultsLimit":50,"desiredKeys":["name","type","location"]}'
curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' --data "$DISCOVER" \
  "$SERVE_URL/database/1/$C/development/public/records/query?ckAPIToken=$API"
psql_at "$PG_PORT" "ALTER SYSTEM RESET log_min_duration_statement" >/dev/null
psql_at "$PG_PORT" "SELECT pg_reload_conf()" >/dev/null
python3 scripts/bench/support/discover_sql.py "$PG_DIR/server.log" > "$PG_DIR/discover.sql"
test "$(psql_at "$REPLICA_PORT" "$(cat "$PG_DIR/discover.sql")" | wc -l)" -eq 51 \
  || { echo "the captured Discover query does not return 51 rows on the replica" >&2; exit 1; }

# pgbench PORT → transactions/s and mean latency in ms, 8 clients over 2 threads.
discover_rate() {
  pg_as "$PG_BIN/pgbench" -n -M prepared -f "$PG_DIR/discover.sql" -c 8 -j 2 -T "$DURATION" \
    -h "$PG_DIR" -p "$1" -U localcloud localcloud 2>/dev/null \
    | awk '/^latency average/ {lat = $4} /^tps/ {tps = $3} END {printf "%.0f %.2f\n", tps, lat}'
}
chmod 0644 "$PG_DIR/discover.sql"

echo "| Discover page (the store's own SQL), pgbench 8 clients, ${DURATION} s | Queries/s | Mean latency ms |"
echo "|---|---:|---:|"
read -r tps lat < <(discover_rate "$PG_PORT");    echo "| primary, no writes | $tps | $lat |"
read -r tps lat < <(discover_rate "$REPLICA_PORT"); echo "| replica, no writes | $tps | $lat |"

# Reads on the replica while the primary takes saves; replay lag sampled as PostgreSQL reports it.
: > "$PG_DIR/lag"
( while [ ! -e "$PG_DIR/writes.done" ]; do
    psql_at "$PG_PORT" "SELECT coalesce(extract(epoch FROM replay_lag) * 1000, 0), pg_wal_lsn_diff(sent_lsn, replay_lsn) FROM pg_stat_replication" >> "$PG_DIR/lag" || true
    sleep 0.1
  done ) &
SAMPLER=$!
start_ns="$(date +%s%N)"
( "$BIN/localcloud-bench" seed --database "$PG_URL" --records "$WRITES" --container "$C" >/dev/null 2>&1
  date +%s%N > "$PG_DIR/writes.end"; touch "$PG_DIR/writes.done" ) &
WRITER=$!
read -r tps lat < <(discover_rate "$REPLICA_PORT")
wait "$WRITER"
wait "$SAMPLER"
elapsed_ms=$(( ($(cat "$PG_DIR/writes.end") - start_ns) / 1000000 ))
echo "| replica, while the primary saves | $tps | $lat |"
echo
# Caught up: the replica has replayed everything the primary wrote.
wait_for 60 test "$(psql_at "$PG_PORT" "SELECT pg_wal_lsn_diff(sent_lsn, replay_lsn) FROM pg_stat_replication")" = 0
python3 - "$PG_DIR/lag" "$WRITES" "$elapsed_ms" <<'PY'
import statistics, sys
rows = [line.split("|") for line in open(sys.argv[1]) if "|" in line]
lag_ms = sorted(float(a) for a, _ in rows)
lag_bytes = sorted(float(b) for _, b in rows)
def pct(xs, p): return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]
writes, elapsed = int(sys.argv[2]), int(sys.argv[3]) / 1000
print(f"Saves on the primary meanwhile: {writes:,} in {elapsed:.1f} s ({writes / elapsed:,.0f}/s).")
print(f"Replay lag ({len(rows)} samples of pg_stat_replication.replay_lag): p50 {pct(lag_ms, 50):.1f} ms, "
      f"p99 {pct(lag_ms, 99):.1f} ms, max {lag_ms[-1]:.1f} ms; WAL not yet replayed: p50 {pct(lag_bytes, 50)/1024:.0f} KB, "
      f"max {lag_bytes[-1]/1024:.0f} KB.")
PY
SCHEMA="$(psql_at "$PG_PORT" "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'lc\_icloud\_foodpin\_deve\_%'")"
echo "Restaurants after catch-up: replica $(psql_at "$REPLICA_PORT" "SELECT count(*) FROM $SCHEMA.records"), primary $(psql_at "$PG_PORT" "SELECT count(*) FROM $SCHEMA.records")."
