#!/usr/bin/env bash
# End-to-end: two `localcloud serve` nodes on one PostgreSQL database, behind the shipped nginx
# configuration (deploy/nginx/localcloud.conf, its ports changed and node 2 marked `backup`, the
# active/standby form the file describes, so alice's requests go to node 1 until it fails).
#   - two foodpin users: alice through nginx (so on node 1), bob on node 2 directly; bob's add
#     raises alice's banner within 2 s; a save through node 2 reaches an SSE stream on node 1;
#   - node 1 is SIGKILLed: nginx sends alice to node 2; she keeps browsing and bob's next add
#     reaches her there; queries through nginx keep succeeding;
#   - node 1 back: 12 SSE streams over both nodes all get the next save, and PostgreSQL has one
#     LISTEN backend per node; a page node 1 cached shows a save through node 2 within 2 s;
#   - 8 writers × 100 adds (each with a photo) spread over both nodes and nginx: every
#     acknowledged record is present exactly once and every photo's bytes are intact;
#   - PostgreSQL stopped and started under load from 8 threads on both nodes: every answer is a
#     2xx or a prompt 503 TRY_AGAIN_LATER with retryAfter (no 500, no hang), requests succeed
#     again once it is back, and every acknowledged add is there with its photo.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"
source "$HERE/support/serve.sh"
source "$HERE/support/postgres.sh"
source "$HERE/support/nginx.sh"

TMP="$E2E_TMP"
NODE1_PID=""; NODE2_PID=""; NGINX_PID=""; SSE_PID=""; LOAD_PID=""; EXTRA_SSE=()
cleanup() {
  # nginx's master stops its workers on TERM (a KILLed master would leave them holding the port).
  [ -n "$NGINX_PID" ] && { kill -TERM "$NGINX_PID" 2>/dev/null; wait "$NGINX_PID" 2>/dev/null; } || true
  for pid in "$SSE_PID" "$LOAD_PID" "${EXTRA_SSE[@]+"${EXTRA_SSE[@]}"}" "$NODE1_PID" "$NODE2_PID"; do
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  pg_stop >/dev/null 2>&1 || true
  e2e_cleanup
}
trap cleanup EXIT
show_logs() { for log in "$TMP"/node*.log "$TMP"/nginx/error.log; do [ -f "$log" ] && { echo "--- $log" >&2; tail -15 "$log" >&2; }; done; }
trap show_logs ERR
# On a failed check: the nodes' logs, each extra stream's state, and where the nodes are stuck.
e2e_on_fail() {
  show_logs
  local i f
  for i in $(seq 1 12); do
    f="$TMP/sse-$i.txt"; [ -f "$f" ] || continue
    printf -- '--- stream %s (node %s): %s bytes: %s %s\n' "$i" "$(( 2 - i % 2 ))" "$(wc -c <"$f")" "$(head -c 120 "$f" | tr '\n' ' ')" "$(cat "$TMP/sse-$i.err" 2>/dev/null)"
  done
  for pid in "$NODE1_PID" "$NODE2_PID"; do
    [ -n "$pid" ] && [ -r "/proc/$pid/exe" ] && command -v gdb >/dev/null || continue
    printf -- '--- node pid %s: the top of each thread'"'"'s stack ---\n' "$pid"
    timeout 60 gdb -batch -nx -p "$pid" -ex "thread apply all bt 8" 2>&1 | grep -E '^(Thread|#)' | cut -c1-180 | head -120 || true
  done
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

ensure_localcloud
ensure_binary
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
# start_node N PORT: node N on the shared database (support/serve.sh).
start_node() { serve_node "$TMP" "$1" "$2" "$DB_URL" || fail "node $1 did not start"; }
start_node 1 "$PORT1"
start_node 2 "$PORT2"
NODE1="http://127.0.0.1:$PORT1"; NODE2="http://127.0.0.1:$PORT2"; LB="http://127.0.0.1:$PORT_LB"
pass "two nodes: $NODE1 and $NODE2"

# The shipped nginx configuration with this run's ports.
mkdir -p "$TMP/nginx"
sed -e "s/127.0.0.1:8080/127.0.0.1:$PORT_LB/" -e "s/127.0.0.1:8081/127.0.0.1:$PORT1/" \
  -e "s/127.0.0.1:8082 max_fails=1 fail_timeout=5s;/127.0.0.1:$PORT2 max_fails=1 fail_timeout=5s backup;/" \
  "$SERVE_ROOT/deploy/nginx/localcloud.conf" > "$TMP/nginx/localcloud.conf"
grep -q "$PORT2 max_fails=1 fail_timeout=5s backup;" "$TMP/nginx/localcloud.conf" || fail "could not mark node 2 as backup"
nginx_prefix "$TMP/nginx" 1 access.log
nginx -t -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" 2>"$TMP/nginx/test.log" || { cat "$TMP/nginx/test.log" >&2; fail "nginx -t rejected the shipped configuration"; }
nginx -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -g 'daemon off;' &
NGINX_PID=$!
QUERY='{"query":{"recordType":"Restaurant"},"resultsLimit":5}'
query_ok() { [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST --data "$QUERY" "$1/database/1/$C/development/public/records/query?ckAPIToken=$API")" = 200 ]; }
wait_until 30 query_ok "$LB" || fail "nginx does not answer a query"
pass "nginx (the shipped deploy/nginx/localcloud.conf) in front of the two nodes"

# Two foodpin users on two machines: alice through nginx (node 1), bob on node 2.
as_alice=(env XDG_CONFIG_HOME="$TMP/alice/config" LOCALCLOUD_HOME="$TMP/alice/data" LOCALCLOUD_USER=alice)
as_bob=(env XDG_CONFIG_HOME="$TMP/bob/config" LOCALCLOUD_HOME="$TMP/bob/data" LOCALCLOUD_USER=bob)
printf 'alice-secret\n' | "${as_alice[@]}" "$E2E_BIN" login "$LB" --api-token "$API" --user alice --password-stdin >/dev/null || fail "alice's login"
printf 'bob-secret\n' | "${as_bob[@]}" "$E2E_BIN" login "$NODE2" --api-token "$API" --user bob --password-stdin >/dev/null || fail "bob's login"
convert -size 800x600 plasma: -quality 85 "$TMP/photo.jpg"
bob_add() { "${as_bob[@]}" "$E2E_BIN" add --name "$1" --type Bistro --location Paris --image "$TMP/photo.jpg" >/dev/null || fail "bob's add of $1"; }
bob_add "Bob's First Bistro"
e2e_start --env "XDG_CONFIG_HOME=$TMP/alice/config" --env "LOCALCLOUD_HOME=$TMP/alice/data" --env LOCALCLOUD_USER=alice -- --images symbols
wait_for "Bob's First Bistro" 30
bob_add "Bob's Second Bistro"
start_ms=$(date +%s%3N)
wait_for "1 new restaurant — press r" 2
pass "bob's add on node 2 raised alice's banner (through nginx, node 1) in $(( $(date +%s%3N) - start_ms )) ms"
send r
wait_for "Bob's Second Bistro" 10

# Alice subscribes and holds an SSE stream on node 1, through nothing but node 1.
curl -sS -f -o /dev/null -X POST --data '{"operations":[{"operationType":"create","subscription":{"subscriptionID":"new-restaurants","subscriptionType":"query","query":{"recordType":"Restaurant"},"firesOn":["create"]}}]}' \
  "$NODE1/database/1/$C/development/public/subscriptions/modify?ckAPIToken=$API&ckWebAuthToken=$ALICE" || fail "subscribe"
curl -sS -N "$NODE1/database/1/$C/development/notifications?ckAPIToken=$API&ckWebAuthToken=$ALICE" > "$TMP/sse.txt" 2>/dev/null &
SSE_PID=$!
wait_until 30 grep -q ':' "$TMP/sse.txt" || true   # the stream's opening comment, when the server sends one
start_ms=$(date +%s%3N)
curl -sS -f -o /dev/null -X POST --data '{"operations":[{"operationType":"create","record":{"recordName":"bobs-cafe","recordType":"Restaurant","fields":{"name":{"value":"Bob'"'"'s Café"}}}}]}' \
  "$NODE2/database/1/$C/development/public/records/modify?ckAPIToken=$API&ckWebAuthToken=$BOB" || fail "bob's save on node 2"
wait_until 2 grep -q 'bobs-cafe' "$TMP/sse.txt" || fail "bob's save on node 2 did not reach alice's stream on node 1 within 2 s"
pass "bob's save on node 2 reached alice's SSE stream on node 1 in $(( $(date +%s%3N) - start_ms )) ms"
kill "$SSE_PID" 2>/dev/null || true; SSE_PID=""
# That save is a new restaurant on alice's screen too: take it in now, so the banner below counts
# only bob's next add (it had raced with the kill: "2 new restaurants" when both came together).
wait_for "1 new restaurant — press r" 10
send r
wait_for "Bob's Caf" 10

# Node 1 dies: nginx sends alice to node 2, where bob's next add reaches her.
kill -KILL "$NODE1_PID"; wait "$NODE1_PID" 2>/dev/null || true; NODE1_PID=""
for i in $(seq 1 20); do query_ok "$LB" || fail "query $i through nginx failed after node 1 was killed"; done
bob_add "Bob's Third Bistro"
wait_for "1 new restaurant — press r" 30
send r
wait_for "Bob's Third Bistro" 10
screen_lacks "offline" || fail "alice went offline when only node 1 died"
pass "node 1 SIGKILLed: nginx sent alice to node 2, she kept browsing and got bob's next add; 20 of 20 queries answered"
send q
expect_exit 0

# Node 1 comes back on its port.
start_node 1 "$PORT1"
# Many streams, one LISTEN connection per node for commits (readers share it) and one for
# credentials (sign-outs end push), however many streams. (After
# alice's session: these saves would be new restaurants on her screen.)
for i in $(seq 1 12); do
  node="$NODE1"; [ $((i % 2)) = 0 ] && node="$NODE2"
  curl -sS -N "$node/database/1/$C/development/notifications?ckAPIToken=$API&ckWebAuthToken=$ALICE" > "$TMP/sse-$i.txt" 2>"$TMP/sse-$i.err" &
  EXTRA_SSE+=($!)
done
listen_backends() { pg_psql "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = '${1:-localcloud listen}'"; }
streams_open() { for i in $(seq 1 12); do grep -q ': connected' "$TMP/sse-$i.txt" || return 1; done; }
wait_until 30 streams_open || fail "the extra SSE streams did not open"
curl -sS -f -o /dev/null -X POST --data '{"operations":[{"operationType":"create","record":{"recordName":"fan-out","recordType":"Restaurant","fields":{"name":{"value":"Fan-out"}}}}]}' \
  "$NODE2/database/1/$C/development/public/records/modify?ckAPIToken=$API&ckWebAuthToken=$BOB" || fail "the fan-out save"
all_streams_got() { for i in $(seq 1 12); do grep -q 'fan-out' "$TMP/sse-$i.txt" || return 1; done; }
wait_until 10 all_streams_got || fail "not every one of 12 SSE streams got the save"
backends="$(listen_backends)"
[ "$backends" = 2 ] || fail "$backends LISTEN backends for 2 nodes and 12 SSE streams (want 2)"
credentials_listening() { [ "$(listen_backends 'localcloud listen credentials')" = 2 ]; }
wait_until 10 credentials_listening || true
credential_backends="$(listen_backends 'localcloud listen credentials')"
[ "$credential_backends" = 2 ] || fail "$credential_backends credential LISTEN backends for 2 nodes and 12 SSE streams (want 2)"
pass "12 SSE streams over two nodes: every stream got the next save, and PostgreSQL has $backends LISTEN backends for commits and $credential_backends for credentials (one each per node)"
kill "${EXTRA_SSE[@]}" 2>/dev/null || true; EXTRA_SSE=()

# Node 1's response cache keys on its in-memory change stamp: a save through node 2 makes the
# page it cached stale as soon as the NOTIFY arrives.
NEWEST='{"query":{"recordType":"Restaurant","sortBy":[{"fieldName":"___createTime","ascending":false}]},"resultsLimit":3}'
newest_on_node1() { curl -sS -X POST --data "$NEWEST" "$NODE1/database/1/$C/development/public/records/query?ckAPIToken=$API"; }
newest_on_node1 >/dev/null && newest_on_node1 >/dev/null   # computed once, then served from the cache
curl -sS -f -o /dev/null -X POST --data '{"operations":[{"operationType":"create","record":{"recordName":"cache-probe","recordType":"Restaurant","fields":{"name":{"value":"Cache probe"}}}}]}' \
  "$NODE2/database/1/$C/development/public/records/modify?ckAPIToken=$API&ckWebAuthToken=$BOB" || fail "the cache probe save"
start_ms=$(date +%s%3N)
node1_sees_probe() { newest_on_node1 | grep -q 'cache-probe'; }
wait_until 2 node1_sees_probe || fail "node 1 kept serving a cached page 2 s after a save through node 2"
pass "a page cached on node 1 showed a save through node 2 after $(( $(date +%s%3N) - start_ms )) ms"

# 8 writers × 100 adds over node 1, node 2 and nginx.
pids=()
for w in $(seq 1 8); do
  python3 "$HERE/support/ckws_writer.py" --bases "$NODE1,$NODE2,$LB" --container "$C" --api-token "$API" \
    --user-token="$BOB" --writer "$w" --count 100 --out "$TMP/acked-$w.txt" 2>"$TMP/writer-$w.log" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || fail "a writer failed: $(cat "$TMP"/writer-*.log)"; done
summary="$(python3 "$HERE/support/ckws_verify.py" --base "$LB" --container "$C" --api-token "$API" --type Multinode "$TMP"/acked-*.txt)" \
  || fail "verification: $summary"
[[ "$summary" == "acknowledged 800, on the server 800, missing 0, duplicated 0, corrupt photos 0" ]] || fail "$summary"
pass "8 writers × 100 adds over both nodes: $summary"

# Issue 24: in this state (node 1 killed, the writers just finished) `foodpin list --json --limit
# 100000` through nginx once printed `foodpin list: ` and nothing else. It must list, or say why.
list_status=0
"${as_alice[@]}" "$E2E_BIN" list --json --limit 100000 </dev/null >"$TMP/list.json" 2>"$TMP/list.err" || list_status=$?
if [ "$list_status" != 0 ]; then
  line="$(head -1 "$TMP/list.err")"
  [ -n "$(tr -d '[:space:]' <<<"${line#foodpin list:}")" ] || fail "foodpin list printed an empty error: '$line'"
  fail "foodpin list --json --limit 100000 through nginx failed: $line"
fi
listed="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$TMP/list.json")"
[ "$listed" -ge 800 ] || fail "foodpin list through nginx listed $listed restaurants, expected at least 800"
pass "foodpin list --json --limit 100000 through nginx, right after the writers: $listed restaurants"

# PostgreSQL goes away under load and comes back.
python3 "$HERE/support/restart_load.py" --bases "$NODE1,$NODE2" --container "$C" --api-token "$API" --user-token="$BOB" \
  --threads 8 --status "$TMP/load.json" --stop "$TMP/load.stop" --out "$TMP/restart-acked.txt" \
  >"$TMP/load.out" 2>"$TMP/load.log" &
LOAD_PID=$!
# load_count KEY: a count from the load's status file (0 before the first write).
load_count() { python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$TMP/load.json" "$1" 2>/dev/null || echo 0; }
load_reached() { [ "$(load_count "$1")" -ge "$2" ]; }
wait_until 60 load_reached acked 20 || fail "the load made no progress before the restart: $(cat "$TMP/load.json" 2>/dev/null)"
pg_halt
halted_ms=$(date +%s%3N)
wait_until 60 load_reached retry 20 || fail "no TRY_AGAIN_LATER while PostgreSQL was down: $(cat "$TMP/load.json")"
first_retry_ms=$(( $(date +%s%3N) - halted_ms ))
pg_resume
acked_at_resume="$(load_count acked)"
start_ms=$(date +%s%3N)
wait_until 90 load_reached acked $((acked_at_resume + 20)) || fail "requests did not succeed again after PostgreSQL came back: $(cat "$TMP/load.json")"
recovered_ms=$(( $(date +%s%3N) - start_ms ))
touch "$TMP/load.stop"
load_status=0; wait "$LOAD_PID" || load_status=$?; LOAD_PID=""
[ "$load_status" = 0 ] || fail "bad answers during the restart: $(cat "$TMP/load.out") $(head -5 "$TMP/load.log")"
max_retry="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["max_retry_seconds"])' "$TMP/load.json")"
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 10 else 1)' "$max_retry" || fail "a TRY_AGAIN_LATER took ${max_retry} s"
summary="$(python3 "$HERE/support/ckws_verify.py" --base "$NODE2" --container "$C" --api-token "$API" --type Restart "$TMP/restart-acked.txt")" \
  || fail "verification after the restart: $summary"
pass "PostgreSQL stopped and started under load: $(cat "$TMP/load.out"); 20 TRY_AGAIN_LATERs within ${first_retry_ms} ms of the stop, the slowest answered in ${max_retry} s; succeeding again ${recovered_ms} ms after the start; $summary"
echo "multinode: all checks passed"
