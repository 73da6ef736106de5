#!/usr/bin/env bash
# Issue 24, "an error with no message", in the scenario where it was seen: two PostgreSQL-backed
# `localcloud serve` nodes behind the shipped nginx configuration (least_conn,
# `proxy_next_upstream error timeout …`), node 1 SIGKILLed while 8 writers add through nginx, then
# `foodpin list --json --limit 100000` through nginx right after the writers finish. It once printed
# `foodpin list: ` with nothing after it (exit 1). It must list every acknowledged add, or print a
# non-empty error line; never an empty one. (empty_error.sh is the same rule against a refused
# connection, the cause that was found.)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"
source "$HERE/support/serve.sh"
source "$HERE/support/postgres.sh"
source "$HERE/support/nginx.sh"

TMP="$E2E_TMP"
NODE1_PID=""; NODE2_PID=""; NGINX_PID=""; WRITERS=()
cleanup() {
  # nginx's master stops its workers on TERM (a KILLed master would leave them holding the port).
  [ -n "$NGINX_PID" ] && { kill -TERM "$NGINX_PID" 2>/dev/null; wait "$NGINX_PID" 2>/dev/null; } || true
  for pid in "${WRITERS[@]+"${WRITERS[@]}"}" "$NODE1_PID" "$NODE2_PID"; do
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  pg_stop >/dev/null 2>&1 || true
  e2e_cleanup
}
trap cleanup EXIT
show_logs() { for log in "$TMP"/node*.log "$TMP"/nginx/error.log "$TMP"/writer-*.log; do [ -f "$log" ] && { echo "--- $log" >&2; tail -15 "$log" >&2; }; done; }
trap show_logs ERR
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

ensure_localcloud
ensure_binary
command -v nginx >/dev/null || fail "nginx is not installed (.ci/run installs it)"
pg_start "$TMP/pg" || fail "could not start PostgreSQL"
DB_URL="$PG_URL"
C=iCloud.FoodPin
lc() { "$LOCALCLOUD_BIN" --database "$DB_URL" --container "$C" "$@"; }
lc schema import "$SERVE_ROOT/Assets/FoodPin.ckdb" >/dev/null || fail "schema import"
API="$(lc tokens create --name empty-error)"
printf 'alice-secret\n' | lc users add alice --password-stdin >/dev/null
ALICE="$(lc users token alice)"

PORT1="$(free_port)"; PORT2="$(free_port)"; PORT_LB="$(free_port)"
# start_node N PORT: node N on the shared database (support/serve.sh).
start_node() { serve_node "$TMP" "$1" "$2" "$DB_URL" || fail "node $1 did not start"; }
start_node 1 "$PORT1"
start_node 2 "$PORT2"
LB="http://127.0.0.1:$PORT_LB"

# The shipped configuration as it is (least_conn over both nodes), with this run's ports.
mkdir -p "$TMP/nginx"
sed -e "s/127.0.0.1:8080/127.0.0.1:$PORT_LB/" -e "s/127.0.0.1:8081/127.0.0.1:$PORT1/" -e "s/127.0.0.1:8082/127.0.0.1:$PORT2/" \
  "$SERVE_ROOT/deploy/nginx/localcloud.conf" > "$TMP/nginx/localcloud.conf"
grep -q 'least_conn;' "$TMP/nginx/localcloud.conf" || fail "the shipped nginx configuration is no longer least_conn"
grep -q 'proxy_next_upstream error timeout' "$TMP/nginx/localcloud.conf" || fail "the shipped nginx configuration no longer retries on error and timeout"
nginx_prefix "$TMP/nginx" 1 off
nginx -t -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" 2>"$TMP/nginx/test.log" || { cat "$TMP/nginx/test.log" >&2; fail "nginx -t"; }
nginx -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -g 'daemon off;' &
NGINX_PID=$!
QUERY='{"query":{"recordType":"Restaurant"},"resultsLimit":5}'
query_ok() { [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST --data "$QUERY" "$1/database/1/$C/development/public/records/query?ckAPIToken=$API")" = 200 ]; }
wait_until 30 query_ok "$LB" || fail "nginx does not answer a query"
as_alice=(env XDG_CONFIG_HOME="$TMP/alice/config" LOCALCLOUD_HOME="$TMP/alice/data" LOCALCLOUD_USER=alice)
printf 'alice-secret\n' | "${as_alice[@]}" "$E2E_BIN" login "$LB" --api-token "$API" --user alice --password-stdin >/dev/null \
  || fail "alice's login through nginx"
pass "two PostgreSQL-backed nodes behind nginx (least_conn, proxy_next_upstream error timeout); alice signed in through nginx"

# 8 writers through nginx; node 1 is SIGKILLed while they write.
PER_WRITER=60
for w in $(seq 1 8); do
  python3 "$HERE/support/ckws_writer.py" --bases "$LB" --container "$C" --api-token "$API" \
    --user-token="$ALICE" --writer "$w" --count "$PER_WRITER" --out "$TMP/acked-$w.txt" 2>"$TMP/writer-$w.log" &
  WRITERS+=($!)
done
acked() { cat "$TMP"/acked-*.txt 2>/dev/null | wc -l; }
some_acked() { [ "$(acked)" -ge 80 ]; }
wait_until 120 some_acked || fail "the writers made no progress: $(acked) adds acknowledged"
before_kill="$(acked)"
kill -KILL "$NODE1_PID"; wait "$NODE1_PID" 2>/dev/null || true; NODE1_PID=""
for pid in "${WRITERS[@]}"; do wait "$pid" || fail "a writer failed after node 1 was killed: $(cat "$TMP"/writer-*.log)"; done
WRITERS=()
total="$(acked)"
[ "$total" = $((8 * PER_WRITER)) ] || fail "$total of $((8 * PER_WRITER)) adds acknowledged"
pass "node 1 SIGKILLed after $before_kill of $total acknowledged adds; the writers finished through nginx"

# Right after the writers: the list through nginx lists, or says why. Never `foodpin list: `.
# says_listed_or_why LIMIT MINIMUM: runs the list; passes when it listed at least MINIMUM
# restaurants, fails with the line when it printed a clear error, and fails loudly on an empty one.
says_listed_or_why() {
  local status=0 line listed
  "${as_alice[@]}" "$E2E_BIN" list --json --limit "$1" </dev/null >"$TMP/list.json" 2>"$TMP/list.err" || status=$?
  if [ "$status" != 0 ]; then
    line="$(head -1 "$TMP/list.err")"
    [[ "$line" == "foodpin list: "* ]] || fail "foodpin list exited $status with an unexpected line: '$line'"
    [ -n "$(tr -d '[:space:]' <<<"${line#foodpin list:}")" ] || fail "foodpin list --limit $1 printed an empty error: '$line' (issue 24)"
    fail "foodpin list --json --limit $1 through nginx failed (it said why): $line"
  fi
  listed="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$TMP/list.json")" \
    || fail "foodpin list --json --limit $1 printed no JSON array: $(head -c 200 "$TMP/list.json")"
  [ "$listed" -ge "$2" ] || fail "foodpin list --json --limit $1 listed $listed restaurants, expected at least $2"
  echo "$listed"
}
listed="$(says_listed_or_why 100000 "$total")"
pass "foodpin list --json --limit 100000 through nginx, right after the writers: $listed restaurants (every acknowledged add)"
listed="$(says_listed_or_why 50 50)"
pass "and --limit 50: $listed restaurants"

# The same with node 1's port refusing and nginx's memory of the failure expired (fail_timeout=5s):
# the least-conn choice lands on the dead node first and nginx must pass the request on.
for i in $(seq 1 5); do says_listed_or_why 100000 "$total" >/dev/null; done
pass "5 more lists through nginx with node 1 down: each listed every restaurant"
echo "empty_error_multinode: all checks passed"
