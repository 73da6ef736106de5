#!/usr/bin/env bash
# End-to-end: sign-out ends push on one node over the SQLite data directory, where
# `localcloud users signout` and `localcloud tokens revoke` run as other processes and only write
# the identity file: the server hears them through the file system (inotify), not by polling.
#   - alice holds two SSE streams, bob one; all deliver a save;
#   - `localcloud users signout alice` (another process): both of alice's streams close within 2 s
#     with `event: signedOut`; bob's stays open and gets the next save;
#   - `localcloud tokens revoke` of bob's API token: his stream closes within 2 s.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"
source "$HERE/support/serve.sh"

TMP="$E2E_TMP"
STREAMS=()
cleanup() {
  for pid in "${STREAMS[@]+"${STREAMS[@]}"}"; do kill -KILL "$pid" 2>/dev/null || true; done
  serve_kill >/dev/null 2>&1 || true
  wait 2>/dev/null || true
  e2e_cleanup
}
trap cleanup EXIT
exited() { ! kill -0 "$1" 2>/dev/null; }

ensure_localcloud
DATA="$TMP/data"
C=iCloud.FoodPin
lc() { "$LOCALCLOUD_BIN" --data-dir "$DATA" --container "$C" "$@"; }
lc schema import "$SERVE_ROOT/Assets/FoodPin.ckdb" >/dev/null || fail "schema import"
API="$(lc tokens create --name app)"
BOB_API="$(lc tokens create --name bob-app)"
printf 'alice-secret\n' | lc users add alice --password-stdin >/dev/null
printf 'bob-secret\n' | lc users add bob --password-stdin >/dev/null
ALICE="$(lc users token alice)"
BOB="$(lc users token bob)"
serve_start "$DATA" || fail "localcloud serve did not start"
NODE="$SERVE_URL"

SUBSCRIBE='{"operations":[{"operationType":"create","subscription":{"subscriptionID":"restaurants","subscriptionType":"query","query":{"recordType":"Restaurant"},"firesOn":["create"]}}]}'
curl -sS -f -o /dev/null -X POST --data "$SUBSCRIBE" "$NODE/database/1/$C/development/public/subscriptions/modify?ckAPIToken=$API&ckWebAuthToken=$ALICE" || fail "alice's subscription"
curl -sS -f -o /dev/null -X POST --data "$SUBSCRIBE" "$NODE/database/1/$C/development/public/subscriptions/modify?ckAPIToken=$BOB_API&ckWebAuthToken=$BOB" || fail "bob's subscription"
stream() {
  curl -sS -N "$NODE/database/1/$C/development/notifications?ckAPIToken=$2&ckWebAuthToken=$3" > "$TMP/$1.sse" 2>/dev/null &
  STREAM_PID=$!
  STREAMS+=("$STREAM_PID")
}
stream alice1 "$API" "$ALICE"; ALICE1_PID=$STREAM_PID
stream alice2 "$API" "$ALICE"; ALICE2_PID=$STREAM_PID
stream bob "$BOB_API" "$BOB"; BOB_PID=$STREAM_PID
streams_open() { for s in alice1 alice2 bob; do grep -q ': connected' "$TMP/$s.sse" || return 1; done; }
wait_until 30 streams_open || fail "the SSE streams did not open"
save() {
  curl -sS -f -o /dev/null -X POST \
    --data '{"operations":[{"operationType":"create","record":{"recordName":"'"$1"'","recordType":"Restaurant","fields":{"name":{"value":"'"$1"'"}}}}]}' \
    "$NODE/database/1/$C/development/public/records/modify?ckAPIToken=$BOB_API&ckWebAuthToken=$BOB" || fail "the save of $1"
}
save before
all_got_before() { for s in alice1 alice2 bob; do grep -q '"before"' "$TMP/$s.sse" || return 1; done; }
wait_until 10 all_got_before || fail "not every stream got the save"
pass "one node over SQLite: alice's two streams and bob's deliver"

lc users signout alice >/dev/null || fail "localcloud users signout alice"
start_ms=$(date +%s%3N)
alice_closed() { exited "$ALICE1_PID" && exited "$ALICE2_PID"; }
wait_until 2 alice_closed || fail "alice's streams were still open 2 s after localcloud users signout (another process)"
closed_ms=$(( $(date +%s%3N) - start_ms ))
for s in alice1 alice2; do grep -q '^event: signedOut' "$TMP/$s.sse" || fail "$s closed without event: signedOut"; done
save after
wait_until 10 grep -q '"after"' "$TMP/bob.sse" || fail "bob's stream missed the save after alice's sign-out"
exited "$BOB_PID" && fail "bob's stream closed when alice signed out"
pass "localcloud users signout alice (another process): her streams closed in $closed_ms ms with event: signedOut; bob's stays open"

lc tokens revoke "$BOB_API" >/dev/null || fail "localcloud tokens revoke"
start_ms=$(date +%s%3N)
wait_until 2 exited "$BOB_PID" || fail "bob's stream was still open 2 s after localcloud tokens revoke (another process)"
pass "localcloud tokens revoke (another process) closed bob's stream in $(( $(date +%s%3N) - start_ms )) ms"
echo "signout_push_local: all checks passed"
