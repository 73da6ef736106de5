#!/usr/bin/env bash
# End-to-end: sign-out ends push on every node. Two `localcloud serve` nodes on one PostgreSQL
# database; alice holds SSE streams on both nodes and a push token made on node 1, bob a stream on
# node 2. All of them deliver a save; then:
#   - `localcloud users signout alice`: both of alice's streams close within 2 s with
#     `event: signedOut`, her push token's webcourier poll on node 2 answers 401, and a new stream
#     with her old token is refused; bob's stream stays open and gets the next save, hers do not;
#   - `foodpin logout` (after `foodpin login` on node 1) closes the stream on node 2 opened with
#     that login's token within 2 s;
#   - `localcloud tokens revoke` of the API token bob's stream was opened with closes it within 2 s.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"
source "$HERE/support/serve.sh"
source "$HERE/support/postgres.sh"

TMP="$E2E_TMP"
NODE1_PID=""; NODE2_PID=""; STREAMS=()
cleanup() {
  for pid in "${STREAMS[@]+"${STREAMS[@]}"}" "$NODE1_PID" "$NODE2_PID"; do
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  pg_stop >/dev/null 2>&1 || true
  e2e_cleanup
}
trap cleanup EXIT
show_logs() { for log in "$TMP"/node*.log; do [ -f "$log" ] && { echo "--- $log" >&2; tail -15 "$log" >&2; }; done; }
trap show_logs ERR
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

ensure_localcloud
ensure_binary
pg_start "$TMP/pg" || fail "could not start PostgreSQL"
DB_URL="$PG_URL"
C=iCloud.FoodPin
lc() { "$LOCALCLOUD_BIN" --database "$DB_URL" --container "$C" "$@"; }
lc schema import "$SERVE_ROOT/Assets/FoodPin.ckdb" >/dev/null || fail "schema import"
API="$(lc tokens create --name alice-app)"
BOB_API="$(lc tokens create --name bob-app)"
printf 'alice-secret\n' | lc users add alice --password-stdin >/dev/null
printf 'bob-secret\n' | lc users add bob --password-stdin >/dev/null
ALICE="$(lc users token alice)"
BOB="$(lc users token bob)"

PORT1="$(free_port)"; PORT2="$(free_port)"
# start_node N PORT: node N on the shared database (support/serve.sh).
start_node() { serve_node "$TMP" "$1" "$2" "$DB_URL" || fail "node $1 did not start"; }
start_node 1 "$PORT1"
start_node 2 "$PORT2"
NODE1="http://127.0.0.1:$PORT1"; NODE2="http://127.0.0.1:$PORT2"
pass "two nodes on one PostgreSQL database: $NODE1 and $NODE2"

SUBSCRIBE='{"operations":[{"operationType":"create","subscription":{"subscriptionID":"restaurants","subscriptionType":"query","query":{"recordType":"Restaurant"},"firesOn":["create"]}}]}'
curl -sS -f -o /dev/null -X POST --data "$SUBSCRIBE" "$NODE1/database/1/$C/development/public/subscriptions/modify?ckAPIToken=$API&ckWebAuthToken=$ALICE" || fail "alice's subscription"
curl -sS -f -o /dev/null -X POST --data "$SUBSCRIBE" "$NODE2/database/1/$C/development/public/subscriptions/modify?ckAPIToken=$BOB_API&ckWebAuthToken=$BOB" || fail "bob's subscription"
# stream NAME BASE API WEBAUTH: an SSE stream into $TMP/NAME.sse; its curl's PID in STREAM_PID.
stream() {
  curl -sS -N "$2/database/1/$C/development/notifications?ckAPIToken=$3&ckWebAuthToken=$4" > "$TMP/$1.sse" 2>/dev/null &
  STREAM_PID=$!
  STREAMS+=("$STREAM_PID")
}
stream alice1 "$NODE1" "$API" "$ALICE"; ALICE1_PID=$STREAM_PID
stream alice2 "$NODE2" "$API" "$ALICE"; ALICE2_PID=$STREAM_PID
stream bob2 "$NODE2" "$BOB_API" "$BOB"; BOB2_PID=$STREAM_PID
streams_open() { for s in alice1 alice2 bob2; do grep -q ': connected' "$TMP/$s.sse" || return 1; done; }
wait_until 30 streams_open || fail "the SSE streams did not open"
COURIER="$(curl -sS -f -X POST --data '{}' "$NODE1/device/1/$C/development/tokens/create?ckAPIToken=$API&ckWebAuthToken=$ALICE" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["webcourierURL"])')" || fail "tokens/create"
COURIER2="${COURIER/$NODE1/$NODE2}"
[ "$COURIER2" != "$COURIER" ] || fail "could not point the webcourier URL at node 2"

save() {
  curl -sS -f -o /dev/null -X POST \
    --data '{"operations":[{"operationType":"create","record":{"recordName":"'"$1"'","recordType":"Restaurant","fields":{"name":{"value":"'"$1"'"}}}}]}' \
    "$NODE2/database/1/$C/development/public/records/modify?ckAPIToken=$BOB_API&ckWebAuthToken=$BOB" || fail "the save of $1"
}
save before
all_got_before() { for s in alice1 alice2 bob2; do grep -q '"before"' "$TMP/$s.sse" || return 1; done; }
wait_until 10 all_got_before || fail "not every stream got the save"
status="$(curl -sS -o "$TMP/poll1.json" -w '%{http_code}' "$COURIER2&timeout=10")"
[ "$status" = 200 ] || fail "alice's push token on node 2 answered $status before the sign-out"
pass "alice's streams on both nodes, bob's on node 2 and alice's push token (made on node 1, polled on node 2) all deliver"

lc users signout alice >/dev/null || fail "localcloud users signout alice"
start_ms=$(date +%s%3N)
exited() { ! kill -0 "$1" 2>/dev/null; }
alice_streams_closed() { exited "$ALICE1_PID" && exited "$ALICE2_PID"; }
wait_until 2 alice_streams_closed || fail "alice's streams were still open 2 s after the sign-out"
closed_ms=$(( $(date +%s%3N) - start_ms ))
for s in alice1 alice2; do grep -q '^event: signedOut' "$TMP/$s.sse" || fail "$s closed without event: signedOut"; done
status="$(curl -sS -o "$TMP/poll2.json" -w '%{http_code}' "$COURIER2&timeout=0")"
[ "$status" = 401 ] || fail "alice's push token answered $status on node 2 after the sign-out (want 401)"
grep -q AUTHENTICATION_FAILED "$TMP/poll2.json" || fail "the refused poll did not say AUTHENTICATION_FAILED: $(cat "$TMP/poll2.json")"
status="$(curl -sS -o /dev/null -w '%{http_code}' --max-time 5 "$NODE1/database/1/$C/development/notifications?ckAPIToken=$API&ckWebAuthToken=$ALICE" || true)"
[ "$status" = 401 ] || fail "a new stream with alice's old token answered $status (want 401)"
pass "localcloud users signout alice: her streams on both nodes closed in $closed_ms ms with event: signedOut; her push token answers 401 on node 2"

save after
wait_until 10 grep -q '"after"' "$TMP/bob2.sse" || fail "bob's stream missed the save after alice's sign-out"
exited "$BOB2_PID" && fail "bob's stream closed when alice signed out"
for s in alice1 alice2; do grep -q '"after"' "$TMP/$s.sse" && fail "$s got a notification after the sign-out"; done
pass "bob's stream stayed open and got the next save; alice's got nothing after her sign-out"

# foodpin logout tells the server: the sign-in's stream on the other node closes.
as_alice=(env XDG_CONFIG_HOME="$TMP/alice/config" LOCALCLOUD_HOME="$TMP/alice/data" LOCALCLOUD_USER=alice)
printf 'alice-secret\n' | "${as_alice[@]}" "$E2E_BIN" login "$NODE1" --api-token "$API" --user alice --password-stdin >/dev/null 2>&1 || fail "alice's foodpin login"
LOGIN_TOKEN="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["credentials"][0]["webAuthToken"])' "$TMP/alice/config/localcloud/credentials.json")"
stream alice3 "$NODE2" "$API" "$LOGIN_TOKEN"; ALICE3_PID=$STREAM_PID
wait_until 30 grep -q ': connected' "$TMP/alice3.sse" || fail "the stream with foodpin's sign-in did not open"
"${as_alice[@]}" "$E2E_BIN" logout 2>"$TMP/logout.err" || fail "foodpin logout: $(cat "$TMP/logout.err")"
start_ms=$(date +%s%3N)
grep -q '^signed out$' "$TMP/logout.err" || fail "foodpin logout said: $(cat "$TMP/logout.err")"
wait_until 2 exited "$ALICE3_PID" || fail "foodpin logout left its sign-in's stream on node 2 open for 2 s"
grep -q '^event: signedOut' "$TMP/alice3.sse" || fail "the stream closed without event: signedOut"
pass "foodpin logout (signed in on node 1) closed that sign-in's stream on node 2 within $(( $(date +%s%3N) - start_ms )) ms"

lc tokens revoke "$BOB_API" >/dev/null || fail "localcloud tokens revoke"
start_ms=$(date +%s%3N)
wait_until 2 exited "$BOB2_PID" || fail "bob's stream was still open 2 s after its API token was revoked"
pass "revoking the API token closed bob's stream on node 2 in $(( $(date +%s%3N) - start_ms )) ms"
echo "signout_push: all checks passed"
