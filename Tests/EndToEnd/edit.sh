#!/usr/bin/env bash
# Editing a restaurant, end to end, on one `localcloud serve` with three "machines" (data
# directories): alice's screen (through a TCP proxy, so her network can go down alone), alice's
# laptop (the same account elsewhere) and bob.
# - alice fixes a typo through the screen (tmux: `e`, Ctrl-S): the same record name and creation
#   date, shown in place;
# - `foodpin edit NAME --phone … --image …` changes the phone and replaces the photo; the old photo's
#   asset is collected by `localcloud gc` on the server, the new one is kept;
# - bob may not edit alice's restaurant: `foodpin edit` exits 1 with one line, `e` on his screen
#   refuses on the status line and opens no form; alice's next edit raises "1 changed" on his
#   screen, and `r` shows it in place;
# - a change from alice's laptop while her form is open is shown ("theirs: …"), never overwritten
#   silently: `k` keeps theirs, and, the second time, `o` overwrites it with hers;
# - `--no-image` removes the photo;
# - alice's network goes down (the proxy is killed): her edit waits ("waiting to upload", in place)
#   and uploads once, on its own, when the network is back;
# - an offline edit refused at upload (the laptop changed it meanwhile) shows on its row, and `e`
#   there opens the form with both versions: `o` overwrites with hers, and, the second time, `k`
#   keeps theirs and drops her edit for good.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/support/serve.sh"
ensure_binary
ensure_localcloud

SERVER="$E2E_TMP/server"
ALICE="$E2E_TMP/alice"
LAPTOP="$E2E_TMP/laptop"
BOB="$E2E_TMP/bob"
mkdir -p "$SERVER" "$ALICE/config" "$LAPTOP/config" "$BOB/config"
source "$(dirname "$0")/support/proxy.sh"
trap 'proxy_stop; serve_kill; e2e_cleanup' EXIT
PHOTO_A="$E2E_ROOT/Assets/Restaurants/addis-injera.jpg"
PHOTO_B="$(ls "$E2E_ROOT"/Assets/Restaurants/*.jpg | grep -v addis-injera | head -1)"

lc() { "$LOCALCLOUD_BIN" --data-dir "$SERVER" "$@"; }
as_alice() { env LOCALCLOUD_HOME="$ALICE/data" XDG_CONFIG_HOME="$ALICE/config" "$@"; }
as_laptop() { env LOCALCLOUD_HOME="$LAPTOP/data" XDG_CONFIG_HOME="$LAPTOP/config" "$@"; }
as_bob() { env LOCALCLOUD_HOME="$BOB/data" XDG_CONFIG_HOME="$BOB/config" "$@"; }
# One restaurant of bob's `foodpin list --json`, by record name: FIELD's value.
field_of() {
  as_bob "$E2E_BIN" list --json >"$E2E_TMP/bob.json" 2>/dev/null
  python3 -c 'import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["recordName"] == sys.argv[2]]
assert len(rows) == 1, rows
print(rows[0][sys.argv[3]])' "$E2E_TMP/bob.json" "$1" "$2"
}
has_field() { [ "$(field_of "$1" "$2")" = "$3" ]; }

serve_foodpin "$SERVER"
proxy_start
echo "alice-secret" | as_alice "$E2E_BIN" login "http://127.0.0.1:$PROXY_PORT" --api-token "$TOKEN" --user alice --password-stdin 2>/dev/null
echo "alice-secret" | as_laptop "$E2E_BIN" login "$SERVE_URL" --api-token "$TOKEN" --user alice --password-stdin 2>/dev/null
echo "bob-secret" | as_bob "$E2E_BIN" login "$SERVE_URL" --api-token "$TOKEN" --user bob --password-stdin 2>/dev/null

ID="$(as_laptop "$E2E_BIN" add --name "Cafe Tpyo" --type Cafe --location Lyon --phone "04 78" --image "$PHOTO_A")"
CREATED="$(field_of "$ID" createdAt)"
OLD_DIGEST="$(basename "$(field_of "$ID" imageFile)")"
find "$SERVER" -type f -name "$OLD_DIGEST" | grep -q . || fail "the first photo is not in the server's assets"

echo "=== edit: through the screen"
e2e_start --env LOCALCLOUD_HOME="$ALICE/data" --env XDG_CONFIG_HOME="$ALICE/config" -- --no-images
wait_for "Cafe Tpyo" 30
wait_for_line "127\.0\.0\.1 *$" 10
send e
wait_for "FoodPin · Edit Restaurant" 10
screen_has "empty keeps the photo" || fail "the image field does not say that empty keeps the photo"
send C-u
send_text "Cafe Typo Fixed"
send C-s
wait_for "Cafe Typo Fixed" 20
wait_gone "Edit Restaurant" 10
screen_has "added" || fail "the row lost its 'added … by alice' line"
poll_until 20 "the screen's edit did not reach the server" has_field "$ID" name "Cafe Typo Fixed"
[ "$(field_of "$ID" createdAt)" = "$CREATED" ] || fail "the creation date changed: $(field_of "$ID" createdAt), was $CREATED"
[ "$(field_of "$ID" phone)" = "04 78" ] || fail "the phone changed"
[ "$(basename "$(field_of "$ID" imageFile)")" = "$OLD_DIGEST" ] || fail "an edit that kept the photo changed it"
pass "alice fixes the name through the screen: same record name, creation date and photo"

echo "=== edit: from the command line"
out="$(as_laptop "$E2E_BIN" edit "Cafe Typo Fixed" --phone "+33 4 78 00" --image "$PHOTO_B" 2>"$E2E_TMP/edit.err")"
[ "$out" = "$ID" ] || fail "foodpin edit printed '$out', not the record name $ID ($(cat "$E2E_TMP/edit.err"))"
[ "$(field_of "$ID" phone)" = "+33 4 78 00" ] || fail "the phone did not change"
[ "$(field_of "$ID" createdAt)" = "$CREATED" ] || fail "the creation date changed on a command-line edit"
NEW_DIGEST="$(basename "$(field_of "$ID" imageFile)")"
[ "$NEW_DIGEST" != "$OLD_DIGEST" ] || fail "the photo was not replaced"
lc gc --grace-seconds 0 --json >"$E2E_TMP/gc.json"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["removedAssets"] >= 1, r' "$E2E_TMP/gc.json" \
  || fail "gc removed nothing: $(cat "$E2E_TMP/gc.json")"
find "$SERVER" -type f -name "$OLD_DIGEST" | grep -q . && fail "the replaced photo's asset is still on the server"
find "$SERVER" -type f -name "$NEW_DIGEST" | grep -q . || fail "the new photo's asset went too"
pass "foodpin edit changes the phone and replaces the photo; the old asset is collected, the new one kept"
send r
wait_for "Cafe Typo Fixed" 10

echo "=== edit: only the creator"
status=0
as_bob "$E2E_BIN" edit "$ID" --name "Bob Was Here" >/dev/null 2>"$E2E_TMP/bob.err" || status=$?
[ "$status" = 1 ] || fail "bob's edit of alice's restaurant exited $status, not 1"
[ "$(wc -l <"$E2E_TMP/bob.err")" = 1 ] || fail "the refusal is not one line: $(cat "$E2E_TMP/bob.err")"
grep -q "only they can edit it" "$E2E_TMP/bob.err" || fail "unexpected refusal: $(cat "$E2E_TMP/bob.err")"
[ "$(field_of "$ID" name)" = "Cafe Typo Fixed" ] || fail "bob's edit changed the restaurant"
send q
expect_exit 0
e2e_start --env LOCALCLOUD_HOME="$BOB/data" --env XDG_CONFIG_HOME="$BOB/config" -- --no-images
wait_for "Cafe Typo Fixed" 30
send e
wait_for "was added by alice; only they can edit it" 10
screen_has "Edit Restaurant" && fail "a form opened for bob"
pass "bob may not edit alice's restaurant: foodpin edit exits 1 with one line; e refuses on one line"
send Escape
as_laptop "$E2E_BIN" edit "$ID" --name "Renamed For Bob" >/dev/null 2>&1
wait_for "1 changed — press r" 10
send r
wait_for "Renamed For Bob" 10
screen_has "Cafe Typo Fixed" && fail "bob's screen shows the old name beside the new one"
wait_for "1 restaurant" 5
pass "bob's screen: the edit raises '1 changed', and r shows it in place"
send q
expect_exit 0

echo "=== edit: a change from another machine meanwhile"
e2e_start --env LOCALCLOUD_HOME="$ALICE/data" --env XDG_CONFIG_HOME="$ALICE/config" -- --no-images
wait_for "Renamed For Bob" 30
send e
wait_for "Edit Restaurant" 10
as_laptop "$E2E_BIN" edit "$ID" --name "From The Laptop" >/dev/null 2>&1
send C-u
send_text "From The Screen"
send C-s
wait_for "k keeps theirs, o overwrites with mine" 20
wait_for "theirs: From The Laptop" 5
screen_has "From The Screen" || fail "the form lost alice's input"
[ "$(field_of "$ID" name)" = "From The Laptop" ] || fail "the laptop's change was overwritten before alice chose"
send k
wait_gone "Edit Restaurant" 10
wait_for "From The Laptop" 10
screen_has "From The Screen" && fail "alice's discarded value is on the list"
[ "$(field_of "$ID" name)" = "From The Laptop" ] || fail "keeping theirs changed the server"
pass "a change from alice's laptop is shown in the form; k keeps theirs"

send e
wait_for "Edit Restaurant" 10
as_laptop "$E2E_BIN" edit "$ID" --name "Laptop Again" >/dev/null 2>&1
send C-u
send_text "Screen Wins"
send C-s
wait_for "theirs: Laptop Again" 20
send o
wait_gone "Edit Restaurant" 20
wait_for "Screen Wins" 10
poll_until 20 "overwriting did not reach the server" has_field "$ID" name "Screen Wins"
[ "$(field_of "$ID" phone)" = "+33 4 78 00" ] || fail "overwriting lost the phone"
pass "the second time, o overwrites the laptop's change with alice's"

echo "=== edit: --no-image"
as_laptop "$E2E_BIN" edit "$ID" --no-image >/dev/null 2>&1
[ "$(field_of "$ID" imageFile)" = "None" ] || fail "the photo is still there: $(field_of "$ID" imageFile)"
pass "foodpin edit --no-image removes the photo"

echo "=== edit: offline"
send r
wait_for "Screen Wins" 10
proxy_stop
wait_for "offline ·" 10
send e
wait_for "Edit Restaurant" 10
send C-u
send_text "Edited Offline"
send C-s
wait_for "waiting to upload" 20
screen_has "Edited Offline" || fail "the offline edit is not on the list"
[ "$(capture | grep -c 'Edited Offline')" = 1 ] || fail "the offline edit shows more than once"
[ "$(field_of "$ID" name)" = "Screen Wins" ] || fail "the edit reached the server while alice was offline"
modifies() { grep -c "records/modify" "$SERVE_LOG" || true; }
before="$(modifies)"
proxy_start
wait_gone "waiting to upload" 20
wait_gone "offline" 10
poll_until 20 "the offline edit did not upload" has_field "$ID" name "Edited Offline"
[ "$(field_of "$ID" createdAt)" = "$CREATED" ] || fail "the creation date changed on the offline edit"
uploads=$(( $(modifies) - before ))
[ "$uploads" = 1 ] || fail "the offline edit was sent $uploads times, not once"
python3 -c 'import json, sys; rows = json.load(open(sys.argv[1])); assert sum(r["name"] == "Edited Offline" for r in rows) == 1' "$E2E_TMP/bob.json" \
  || fail "the offline edit is on bob's list more than once"
pass "offline, the edit waits in place and uploads once, on its own, when the network is back"

echo "=== edit: offline, refused at upload, resolved from the form"
# Alice edits offline while her laptop changes the same restaurant on the server: the upload
# meets the conflict, the row says so, and `e` on it opens the form with both versions.
proxy_stop
wait_for "offline ·" 10
send e
wait_for "Edit Restaurant" 10
send C-u
send_text "Offline Again"
send C-s
wait_for "waiting to upload" 20
as_laptop "$E2E_BIN" edit "$ID" --name "Laptop While Away" >/dev/null 2>&1
proxy_start
wait_gone "offline" 10
send r
wait_for "not uploaded: Conflict" 20
[ "$(field_of "$ID" name)" = "Laptop While Away" ] || fail "the refused edit overwrote the laptop's change"
send e
wait_for "Conflict: changed on the server by alice since it was read: k keeps theirs" 10
wait_for "theirs: Laptop While Away" 5
screen_has "Offline Again" || fail "the form does not hold the refused edit"
send o
wait_gone "Edit Restaurant" 20
poll_until 20 "overwriting the refused edit did not reach the server" has_field "$ID" name "Offline Again"
send r
wait_gone "not uploaded" 20
screen_has "Offline Again" || fail "the list lost the resolved edit"
pass "an offline edit refused at upload (a conflict) shows on its row; e opens the form with theirs, o overwrites"

proxy_stop
wait_for "offline ·" 10
send e
wait_for "Edit Restaurant" 10
send C-u
send_text "Mine Dropped"
send C-s
wait_for "waiting to upload" 20
as_laptop "$E2E_BIN" edit "$ID" --name "Laptop Kept" >/dev/null 2>&1
proxy_start
wait_gone "offline" 10
send r
wait_for "not uploaded: Conflict" 20
send e
wait_for "theirs: Laptop Kept" 10
send k
wait_gone "Edit Restaurant" 10
wait_for "Laptop Kept" 10
wait_gone "not uploaded" 10
send r
wait_for "Laptop Kept" 10
screen_has "Mine Dropped" && fail "the dropped edit came back after r"
screen_has "not uploaded" && fail "the refusal is still shown after keeping theirs"
[ "$(field_of "$ID" name)" = "Laptop Kept" ] || fail "keeping theirs changed the server"
pass "the same refused at upload, k keeps theirs: the edit is dropped from the outbox, for good"

send q
expect_exit 0
serve_stop
