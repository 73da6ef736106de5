#!/usr/bin/env bash
# The outbox across real crashes: bob queues adds (`foodpin add`) and deletes (the screen's `d`)
# with the server down; then `foodpin` processes that upload them are killed (SIGKILL) the moment
# the server logs an upload, so after its commit, and before or after the outbox's removal of it.
# Every add lands exactly once, every delete lands, nothing queued is lost or left refused.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/support/serve.sh"
ensure_binary
ensure_localcloud

SERVER="$E2E_TMP/server"
BOB="$E2E_TMP/bob"
mkdir -p "$SERVER" "$BOB/config"
UPLOADER_PID=""
uploader_kill() { [ -z "$UPLOADER_PID" ] || { kill -KILL "$UPLOADER_PID" 2>/dev/null || true; wait "$UPLOADER_PID" 2>/dev/null || true; UPLOADER_PID=""; }; }
trap 'uploader_kill; serve_kill; e2e_cleanup' EXIT
as_bob() { env LOCALCLOUD_HOME="$BOB/data" XDG_CONFIG_HOME="$BOB/config" "$@"; }
ADDS=12

echo "=== remote: crashes mid-upload"
serve_foodpin "$SERVER"
echo "bob-secret" | as_bob "$E2E_BIN" login "$SERVE_URL" --api-token "$TOKEN" --user bob --password-stdin 2>/dev/null
for name in "Doomed One" "Doomed Two"; do as_bob "$E2E_BIN" add --name "$name" --type Cafe --location Lyon >/dev/null 2>&1; done

# Bob's screen once online: its first page is in his cache for the offline screen below.
e2e_start --env LOCALCLOUD_HOME="$BOB/data" --env XDG_CONFIG_HOME="$BOB/config" -- --images none
wait_for "Doomed One" 20
send q
expect_exit 0
serve_kill
for i in $(seq 1 "$ADDS"); do
  as_bob "$E2E_BIN" add --name "Crash $i" --type Cafe --location Lyon >/dev/null 2>"$E2E_TMP/add.err" || fail "queueing add $i failed: $(cat "$E2E_TMP/add.err")"
done
# Two deletes queued offline through the screen: the oldest rows, at the end of the list.
e2e_start --env LOCALCLOUD_HOME="$BOB/data" --env XDG_CONFIG_HOME="$BOB/config" -- --images none
wait_for "offline ·" 20
for name in "Doomed One" "Doomed Two"; do
  send G
  wait_for "$name" 10
  send d
  wait_for "y deletes it" 10
  send y
  wait_gone "$name" 10
done
send q
expect_exit 0
[ "$(sqlite3 "$(find "$BOB/data" -name outbox.sqlite | head -1)" "SELECT count(*) FROM outbox")" = $((ADDS + 2)) ] \
  || fail "not every change was queued"
pass "$ADDS adds and 2 deletes queued with the server down"

serve_start "$SERVER" --port "$PORT"
modifies() { grep -c "records/modify" "$SERVE_LOG" || true; }
OUTBOX="$(find "$BOB/data" -name outbox.sqlite | head -1)"
waiting() { sqlite3 "$OUTBOX" "SELECT count(*) FROM outbox WHERE failure IS NULL"; }
kills=0
for attempt in $(seq 1 60); do
  seen="$(modifies)"
  # Any foodpin process uploads the outbox as it opens the store; `list` is the shortest.
  as_bob "$E2E_BIN" list --json >/dev/null 2>&1 &
  UPLOADER_PID=$!
  # Polled without pause: the kill must come while the answer to the upload is on its way.
  deadline=$((SECONDS + 30))
  while [ "$(modifies)" -le "$seen" ] && kill -0 "$UPLOADER_PID" 2>/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] || fail "no upload reached the server"
  done
  if kill -KILL "$UPLOADER_PID" 2>/dev/null; then kills=$((kills + 1)); fi
  uploader_kill
  [ "$(waiting)" = 0 ] && break
done
outbox_empty() { as_bob "$E2E_BIN" list --json >"$E2E_TMP/after.json" 2>/dev/null && [ "$(waiting)" = 0 ]; }
poll_until 30 "the outbox did not drain" outbox_empty
[ "$kills" -ge 3 ] || fail "only $kills uploading processes were killed mid-way"
python3 - "$E2E_TMP/after.json" "$ADDS" <<'PY' || fail "not every add landed exactly once, or a delete was lost"
import json, sys
rows = json.load(open(sys.argv[1]))
names = [r["name"] for r in rows]
for i in range(1, int(sys.argv[2]) + 1):
    assert names.count("Crash %d" % i) == 1, ("Crash %d" % i, names.count("Crash %d" % i))
assert not any(n.startswith("Doomed") for n in names), names
PY
[ "$(sqlite3 "$OUTBOX" "SELECT count(*) FROM outbox")" = 0 ] \
  || fail "changes were kept as refused: $(sqlite3 "$OUTBOX" "SELECT kind, recordName, failure FROM outbox")"
pass "$kills uploading processes killed mid-upload: each of the $ADDS adds landed once, both deletes landed, the outbox is empty"
serve_stop
