#!/usr/bin/env bash
# Issue 24, "a full disk": the data directory on a 20 MB tmpfs (a private mount namespace, so
# nothing outlives the script) fills up during `foodpin add`, during the add form (tmux), and
# during a server's saves and asset uploads. Each failure says the disk is full, in one message:
# `foodpin add: The disk is full: …` (exit 1), the form keeps what was typed, and the server answers
# QUOTA_EXCEEDED (HTTP 413) without a 500 or a crash. What was saved before stays, SQLite's
# integrity check passes, and once space is freed the next save works without a restart.
# Needs root (CI runs as root) for `unshare -m` and the tmpfs mount.
set -euo pipefail
if [ -z "${DISK_FULL_NAMESPACE:-}" ]; then
  [ "$(id -u)" = 0 ] || { echo "FAIL: disk_full.sh needs root for its tmpfs (unshare -m)" >&2; exit 1; }
  DISK_FULL_NAMESPACE=1 exec unshare -m --propagation private bash "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/support/serve.sh"
trap 'serve_kill; [ -z "${DISK:-}" ] || umount "$DISK" 2>/dev/null; e2e_cleanup' EXIT
ensure_binary
ensure_localcloud

DISK="$E2E_TMP/disk"
mkdir -p "$DISK"
mount -t tmpfs -o size=20m tmpfs "$DISK"

# fill: leaves about 8 KB free (a filler file); free: removes it.
fill() { fallocate -l $(( $(df --output=avail -B1 "$DISK" | tail -1) - 8192 )) "$DISK/filler.$1"; }
free_space() { rm -f "$DISK"/filler.*; }
integrity() {  # integrity DIR: PRAGMA integrity_check on every SQLite file under DIR
  local db found=0
  while IFS= read -r db; do
    found=1
    python3 - "$db" <<'PY' || fail "integrity_check failed on $db"
import sqlite3, sys
result = sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchone()[0]
sys.exit(0 if result == "ok" else print(result) or 1)
PY
  done < <(find "$1" -name '*.sqlite' -o -name '*.db' | grep -v -- '-wal$')
  [ "$found" = 1 ] || fail "no SQLite file under $1"
}
convert -size 800x600 plasma: -quality 90 "$E2E_TMP/photo.jpg"

echo "=== foodpin add on a full disk (embedded store)"
DATA="$DISK/data"
export LOCALCLOUD_USER=alice
add() { "$E2E_BIN" add --data-dir "$DATA" --type Thai --location Here "$@" </dev/null; }
add --name "Before" >/dev/null
fill add
for args in '--name Full' "--name Photo --image $E2E_TMP/photo.jpg"; do
  status=0
  # shellcheck disable=SC2086
  add $args >"$E2E_TMP/out" 2>"$E2E_TMP/err" || status=$?
  [ "$status" = 1 ] || fail "add $args on a full disk exited $status: $(cat "$E2E_TMP/err")"
  grep -q '^foodpin add: The disk is full: ' "$E2E_TMP/err" || fail "add $args did not say the disk is full: $(cat "$E2E_TMP/err")"
  [ "$(wc -l <"$E2E_TMP/err")" = 1 ] || fail "more than one line: $(cat "$E2E_TMP/err")"
done
log "$(cat "$E2E_TMP/err")"
pass "foodpin add says the disk is full (a record, and one with an image), exit 1"
"$E2E_BIN" list --data-dir "$DATA" | grep -q "^Before " || fail "the restaurant saved before is gone"
integrity "$DATA"
pass "what was saved before stays; PRAGMA integrity_check is ok"
free_space
add --name "After" >/dev/null || fail "add after freeing space failed"
[ "$("$E2E_BIN" list --data-dir "$DATA" | grep -c '^\(Before\|After\) ')" = 2 ] || fail "list after freeing space"
integrity "$DATA"
pass "after space is freed the next add works"

echo "=== the add form on a full disk (tmux)"
FORM="$DISK/form"
e2e_start --env LOCALCLOUD_USER=alice -- --data-dir "$FORM"
wait_for "24 restaurants" 60
fill form
send a
wait_for "New Restaurant"
send_text "Full Disk Diner"; send Tab
send_text "Fusion";          send Tab
send_text "Berlin";          send Tab
send_text "+49 30 555-0100"; send Tab
send_text "Open late."
send C-s
wait_for "The disk is full" 30
wait_for "New Restaurant"
screen_has "Full Disk Diner" || fail "the form lost its name field: $(capture)"
screen_has "Open late." || fail "the form lost its description: $(capture)"
pass "Ctrl-S on a full disk says the disk is full and keeps the form's content"
free_space
send C-s
wait_for "25 restaurants" 30
wait_gone "New Restaurant"
pass "after space is freed, Ctrl-S again saves (no restart)"
send q
expect_exit 0
"$E2E_BIN" list --data-dir "$FORM" | grep -q "^Full Disk Diner " || fail "the saved restaurant is not listed"
integrity "$FORM"
pass "the store passes integrity_check"

echo "=== localcloud serve on a full disk"
SERVER="$DISK/server"
C=iCloud.FoodPin
lc() { "$LOCALCLOUD_BIN" --data-dir "$SERVER" --container "$C" "$@"; }
lc schema import "$SERVE_ROOT/Assets/FoodPin.ckdb" >/dev/null
API="$(lc tokens create --name e2e)"
printf 'alice-secret\n' | lc users add alice --password-stdin >/dev/null
ALICE="$(lc users token alice)"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
serve_start "$SERVER" --port "$PORT"
DB="$SERVE_URL/database/1/$C/development/public"
call() {  # call ENDPOINT BODY → status; body in $E2E_TMP/body
  curl -sS -o "$E2E_TMP/body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary "$2" \
    "$DB/$1?ckAPIToken=$API&ckWebAuthToken=$ALICE"
}
save() {  # save NAME → status
  call records/modify "{\"operations\":[{\"operationType\":\"create\",\"record\":{\"recordType\":\"Restaurant\",\"recordName\":\"$1\",\"fields\":{\"name\":{\"value\":\"$1 $(head -c 1500 /dev/urandom | base64 -w0)\"},\"type\":{\"value\":\"Thai\"},\"location\":{\"value\":\"Here\"}}}}]}"
}
body_has() { python3 -c "import json,sys; b=json.load(open('$E2E_TMP/body')); sys.exit(0 if ($1) else 1)" || fail "$2: $(head -c 400 "$E2E_TMP/body")"; }
[ "$(save before)" = 200 ] || fail "save before the disk fills: $(cat "$E2E_TMP/body")"
body_has "'recordChangeTag' in b['records'][0]" "the first save"
fill server
status="$(save full)"
case "$status" in
  413) body_has "b['serverErrorCode'] == 'QUOTA_EXCEEDED' and b['reason'].startswith('The disk is full')" "the refused save" ;;
  200) body_has "b['records'][0].get('serverErrorCode') == 'QUOTA_EXCEEDED' and b['records'][0]['reason'].startswith('The disk is full')" "the refused save" ;;
  *) fail "a save on a full disk answered HTTP $status: $(head -c 400 "$E2E_TMP/body")" ;;
esac
log "save: HTTP $status $(head -c 200 "$E2E_TMP/body")"
pass "a save on a full disk answers QUOTA_EXCEEDED, not a 500"
[ "$(call assets/upload '{"tokens":[{"recordType":"Restaurant","fieldName":"image"}]}')" = 200 ] \
  || fail "assets/upload: $(cat "$E2E_TMP/body")"
UPLOAD="$(python3 -c "import json; print(json.load(open('$E2E_TMP/body'))['tokens'][0]['url'])")"
status="$(curl -sS -o "$E2E_TMP/body" -w '%{http_code}' -X POST --data-binary "@$E2E_TMP/photo.jpg" "$UPLOAD")"
[ "$status" = 413 ] || fail "an upload on a full disk answered HTTP $status: $(head -c 400 "$E2E_TMP/body")"
body_has "b['serverErrorCode'] == 'QUOTA_EXCEEDED' and b['reason'].startswith('The disk is full')" "the refused upload"
log "upload: HTTP $status $(head -c 200 "$E2E_TMP/body")"
pass "an asset upload on a full disk answers QUOTA_EXCEEDED"
kill -0 "$SERVE_PID" || fail "the server died"
if grep -q '" 500 \| 500 ' "$SERVE_LOG"; then fail "the server answered 500: $(grep -m3 ' 500' "$SERVE_LOG")"; fi
free_space
[ "$(save after)" = 200 ] || fail "save after freeing space: $(cat "$E2E_TMP/body")"
body_has "'recordChangeTag' in b['records'][0]" "the save after freeing space"
[ "$(call records/lookup '{"records":[{"recordName":"before"},{"recordName":"after"}]}')" = 200 ] || fail "lookup"
body_has "all('recordChangeTag' in r for r in b['records'])" "both records are there"
pass "after space is freed the running server saves again; the record saved before stays"
serve_stop
integrity "$SERVER"
pass "the server's stores pass integrity_check"

echo "=== the outbox on a full disk (a remote container while its server is away)"
CLIENT="$DISK/client"
remote_add() {
  LOCALCLOUD_URL="$SERVE_URL" LOCALCLOUD_API_TOKEN="$API" LOCALCLOUD_WEB_AUTH_TOKEN="$ALICE" \
    "$E2E_BIN" add --data-dir "$CLIENT" --type Thai --location Here "$@" </dev/null
}
remote_add --name "Queued One" >"$E2E_TMP/out" 2>"$E2E_TMP/err" || fail "queueing with space left: $(cat "$E2E_TMP/err")"
grep -q '^queued: Queued One' "$E2E_TMP/err" || fail "the first add was not queued: $(cat "$E2E_TMP/err")"
fill outbox
status=0
remote_add --name "Queued Two" >"$E2E_TMP/out" 2>"$E2E_TMP/err" || status=$?
[ "$status" = 1 ] || fail "an add the outbox could not hold exited $status: $(cat "$E2E_TMP/err")"
grep -q '^foodpin add: The disk is full: could not write the outbox' "$E2E_TMP/err" || fail "no disk-full message: $(cat "$E2E_TMP/err")"
if grep -q '^queued:' "$E2E_TMP/err"; then fail "it said queued: $(cat "$E2E_TMP/err")"; fi
log "$(cat "$E2E_TMP/err")"
pass "an add the outbox cannot hold says the disk is full and that it was not queued (exit 1)"
free_space
serve_start "$SERVER" --port "$PORT"
# The queued add uploads once a process opens the container and the server answers.
deadline=$((SECONDS + 60))
until [ "$(call records/query '{"query":{"recordType":"Restaurant","filterBy":[{"fieldName":"name","comparator":"EQUALS","fieldValue":{"value":"Queued One"}}]}}')" = 200 ] \
    && python3 -c "import json,sys; sys.exit(0 if json.load(open('$E2E_TMP/body'))['records'] else 1)"; do
  [ "$SECONDS" -lt "$deadline" ] || fail "the queued add never reached the server"
  LOCALCLOUD_URL="$SERVE_URL" LOCALCLOUD_API_TOKEN="$API" LOCALCLOUD_WEB_AUTH_TOKEN="$ALICE" \
    "$E2E_BIN" list --data-dir "$CLIENT" </dev/null >/dev/null 2>&1 || true
done
[ "$(call records/query '{"query":{"recordType":"Restaurant","filterBy":[{"fieldName":"name","comparator":"EQUALS","fieldValue":{"value":"Queued Two"}}]}}')" = 200 ] || fail "query"
body_has "b['records'] == []" "the add that was refused must not appear later"
pass "the add queued before the disk filled survived it and uploaded; the refused one did not appear"
serve_stop
integrity "$CLIENT"
pass "the client's cache and outbox pass integrity_check"
