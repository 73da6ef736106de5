#!/usr/bin/env bash
# End-to-end: two `localcloud serve` nodes on one PostgreSQL database, behind the shipped nginx
# configuration (deploy/nginx/localcloud.conf, only its ports changed).
#   - a save through node 2 reaches an SSE stream held on node 1 within 2 s;
#   - node 1 is SIGKILLed: requests through nginx keep succeeding on node 2;
#   - 8 writers × 100 adds (each with a photo) spread over both nodes and nginx: every
#     acknowledged record is present exactly once and every photo's bytes are intact.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/support/serve.sh"
source "$HERE/support/postgres.sh"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-multinode.XXXXXX")"
NODE1_PID=""; NODE2_PID=""; NGINX_PID=""; SSE_PID=""
cleanup() {
  # nginx's master stops its workers on TERM (a KILLed master would leave them holding the port).
  [ -n "$NGINX_PID" ] && { kill -TERM "$NGINX_PID" 2>/dev/null; wait "$NGINX_PID" 2>/dev/null; } || true
  for pid in "$SSE_PID" "$NODE1_PID" "$NODE2_PID"; do
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  pg_stop >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT
fail() { printf 'FAIL: %s\n' "$*" >&2; for log in "$TMP"/node*.log "$TMP"/nginx/error.log; do [ -f "$log" ] && { echo "--- $log" >&2; tail -15 "$log" >&2; }; done; exit 1; }
pass() { printf 'ok - %s\n' "$*"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# wait_for SECONDS COMMAND…: polls until COMMAND succeeds.
wait_for() {
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05  # poll interval
  done
}

ensure_localcloud
pg_start "$TMP/pg" || fail "could not start PostgreSQL"
DB_URL="$PG_URL"
C=iCloud.FoodPin
lc() { "$LOCALCLOUD_BIN" --database "$DB_URL" --container "$C" "$@"; }
lc schema import "$SERVE_ROOT/Assets/FoodPin.ckdb" >/dev/null || fail "schema import"
API="$(lc tokens create --name multinode)"
printf 'alice-secret\n' | lc users add alice --password-stdin >/dev/null
printf 'bob-secret\n' | lc users add bob --password-stdin >/dev/null
ALICE="$(lc users token alice)"
BOB="$(lc users token bob)"
pass "one PostgreSQL database: schema, API token, users alice and bob"

PORT1="$(free_port)"; PORT2="$(free_port)"; PORT_LB="$(free_port)"
# start_node N PORT: a node on the shared database; its data directory holds only local scratch files.
start_node() {
  "$LOCALCLOUD_BIN" serve --database "$DB_URL" --data-dir "$TMP/node$1" --host 127.0.0.1 --port "$2" \
    >"$TMP/node$1.out" 2>"$TMP/node$1.log" &
  eval "NODE$1_PID=$!"
  wait_for 60 grep -q '^listening on' "$TMP/node$1.out" || fail "node $1 did not start"
}
start_node 1 "$PORT1"
start_node 2 "$PORT2"
NODE1="http://127.0.0.1:$PORT1"; NODE2="http://127.0.0.1:$PORT2"; LB="http://127.0.0.1:$PORT_LB"
pass "two nodes: $NODE1 and $NODE2"

# The shipped nginx configuration with this run's ports.
mkdir -p "$TMP/nginx"
sed -e "s/127.0.0.1:8080/127.0.0.1:$PORT_LB/" -e "s/127.0.0.1:8081/127.0.0.1:$PORT1/" -e "s/127.0.0.1:8082/127.0.0.1:$PORT2/" \
  "$SERVE_ROOT/deploy/nginx/localcloud.conf" > "$TMP/nginx/localcloud.conf"
cat > "$TMP/nginx/nginx.conf" <<CONF
worker_processes 1;
pid $TMP/nginx/nginx.pid;
error_log $TMP/nginx/error.log warn;
events { worker_connections 512; }
http {
    access_log $TMP/nginx/access.log;
    client_body_temp_path $TMP/nginx/body;
    proxy_temp_path $TMP/nginx/proxy;
    fastcgi_temp_path $TMP/nginx/fastcgi;
    uwsgi_temp_path $TMP/nginx/uwsgi;
    scgi_temp_path $TMP/nginx/scgi;
    include $TMP/nginx/localcloud.conf;
}
CONF
nginx -t -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" 2>"$TMP/nginx/test.log" || { cat "$TMP/nginx/test.log" >&2; fail "nginx -t rejected the shipped configuration"; }
nginx -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -g 'daemon off;' &
NGINX_PID=$!
QUERY='{"query":{"recordType":"Restaurant"},"resultsLimit":5}'
query_ok() { [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST --data "$QUERY" "$1/database/1/$C/development/public/records/query?ckAPIToken=$API")" = 200 ]; }
wait_for 30 query_ok "$LB" || fail "nginx does not answer a query"
pass "nginx (the shipped deploy/nginx/localcloud.conf) balances the two nodes"

# Alice subscribes and holds an SSE stream on node 1, through nothing but node 1.
curl -sS -f -o /dev/null -X POST --data '{"operations":[{"operationType":"create","subscription":{"subscriptionID":"new-restaurants","subscriptionType":"query","query":{"recordType":"Restaurant"},"firesOn":["create"]}}]}' \
  "$NODE1/database/1/$C/development/public/subscriptions/modify?ckAPIToken=$API&ckWebAuthToken=$ALICE" || fail "subscribe"
curl -sS -N "$NODE1/database/1/$C/development/notifications?ckAPIToken=$API&ckWebAuthToken=$ALICE" > "$TMP/sse.txt" 2>/dev/null &
SSE_PID=$!
wait_for 30 grep -q ':' "$TMP/sse.txt" || true   # the stream's opening comment, when the server sends one
start_ms=$(date +%s%3N)
curl -sS -f -o /dev/null -X POST --data '{"operations":[{"operationType":"create","record":{"recordName":"bobs-cafe","recordType":"Restaurant","fields":{"name":{"value":"Bob'"'"'s Café"}}}}]}' \
  "$NODE2/database/1/$C/development/public/records/modify?ckAPIToken=$API&ckWebAuthToken=$BOB" || fail "bob's save on node 2"
wait_for 2 grep -q 'bobs-cafe' "$TMP/sse.txt" || fail "bob's save on node 2 did not reach alice's stream on node 1 within 2 s"
pass "bob's save on node 2 reached alice's SSE stream on node 1 in $(( $(date +%s%3N) - start_ms )) ms"
kill "$SSE_PID" 2>/dev/null || true; SSE_PID=""

# Node 1 dies: requests through nginx go on, on node 2.
kill -KILL "$NODE1_PID"; wait "$NODE1_PID" 2>/dev/null || true; NODE1_PID=""
for i in $(seq 1 20); do query_ok "$LB" || fail "query $i through nginx failed after node 1 was killed"; done
pass "node 1 SIGKILLed: 20 of 20 queries through nginx answered (by node 2)"

# Node 1 comes back on its port; 8 writers × 100 adds over node 1, node 2 and nginx.
start_node 1 "$PORT1"
pids=()
for w in $(seq 1 8); do
  python3 "$HERE/support/ckws_writer.py" --bases "$NODE1,$NODE2,$LB" --container "$C" --api-token "$API" \
    --user-token "$BOB" --writer "$w" --count 100 --out "$TMP/acked-$w.txt" 2>"$TMP/writer-$w.log" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || fail "a writer failed: $(cat "$TMP"/writer-*.log)"; done
summary="$(python3 "$HERE/support/ckws_verify.py" --base "$LB" --container "$C" --api-token "$API" --type Multinode "$TMP"/acked-*.txt)" \
  || fail "verification: $summary"
[[ "$summary" == "acknowledged 800, on the server 800, missing 0, duplicated 0, corrupt photos 0" ]] || fail "$summary"
pass "8 writers × 100 adds over both nodes: $summary"
echo "multinode: all checks passed"
