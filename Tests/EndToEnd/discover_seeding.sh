#!/usr/bin/env bash
# First-run seeding across real processes: several `foodpin list`s starting at once on a fresh
# data directory make exactly one copy of the samples; 8 concurrent `foodpin add`s on a fresh
# directory all succeed and add exactly 8 (add sets up the schema but does not seed).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_binary

samples="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$E2E_ROOT/Assets/Restaurants/restaurants.json")"
[ "$samples" -ge 20 ] || fail "only $samples samples"

echo "=== seeding: two foodpin list at once on a fresh directory"
DATA="$E2E_TMP/two"
pids=()
for user in alice bob; do
  LOCALCLOUD_USER=$user "$E2E_BIN" list --data-dir "$DATA" > "$E2E_TMP/list-$user.txt" & pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || fail "a foodpin list failed"; done
n="$("$E2E_BIN" list --data-dir "$DATA" | wc -l)"
[ "$n" = "$samples" ] || fail "$n restaurants after two concurrent first runs, expected $samples"
[ "$(wc -l < "$E2E_TMP/list-alice.txt")" = "$samples" ] || fail "alice's first run listed $(wc -l < "$E2E_TMP/list-alice.txt")"
[ "$(wc -l < "$E2E_TMP/list-bob.txt")" = "$samples" ] || fail "bob's first run listed $(wc -l < "$E2E_TMP/list-bob.txt")"
pass "two concurrent first runs: exactly $samples restaurants, both listed all of them"

echo "=== seeding: 8 first runs at once on a fresh directory"
DATA="$E2E_TMP/eight"
pids=()
for i in 1 2 3 4 5 6 7 8; do
  LOCALCLOUD_USER="user$i" "$E2E_BIN" list --data-dir "$DATA" --limit 1 > "$E2E_TMP/first-$i.txt" 2>&1 & pids+=($!)
done
for i in "${!pids[@]}"; do wait "${pids[$i]}" || fail "foodpin list $((i + 1)) failed: $(cat "$E2E_TMP/first-$((i + 1)).txt")"; done
[ "$("$E2E_BIN" list --data-dir "$DATA" | grep -c '· sample-')" = "$samples" ] || fail "the samples are not there exactly once"
pass "8 concurrent first runs: exactly one copy of the $samples samples"

echo "=== foodpin add: 8 at once on a fresh directory add exactly 8 (add does not seed)"
pids=()
for i in 1 2 3 4 5 6 7 8; do
  LOCALCLOUD_USER="user$i" "$E2E_BIN" add --data-dir "$E2E_TMP/adds" --name "Concurrent $i" --type Test --location Here \
    > "$E2E_TMP/add-$i.txt" 2>&1 & pids+=($!)
done
for i in "${!pids[@]}"; do wait "${pids[$i]}" || fail "foodpin add $((i + 1)) failed: $(cat "$E2E_TMP/add-$((i + 1)).txt")"; done
n="$("$E2E_BIN" list --data-dir "$E2E_TMP/adds" | wc -l)"
[ "$n" = 8 ] || fail "$n restaurants after 8 adds on a fresh directory, expected 8"
pass "8 concurrent adds on a fresh directory: all succeed, exactly 8 restaurants (the schema import races safely)"

echo "=== seeding: already seeded is cheap and changes nothing"
"$E2E_BIN" list --data-dir "$DATA" --limit 1 >/dev/null
LOCALCLOUD_USER=carol "$E2E_BIN" add --data-dir "$DATA" --name "Later" --type T --location L >/dev/null
[ "$("$E2E_BIN" list --data-dir "$DATA" | wc -l)" = $((samples + 1)) ] || fail "a later run changed the count"
pass "a later run seeds nothing"

echo "=== foodpin add: exit codes"
set +e
"$E2E_BIN" add --data-dir "$DATA" --name " " --type T --location L 2> "$E2E_TMP/err.txt"; code=$?
set -e
[ "$code" = 2 ] || fail "blank name: exit $code, expected 2"
[ "$(wc -l < "$E2E_TMP/err.txt")" = 1 ] || fail "expected a one-line message: $(cat "$E2E_TMP/err.txt")"
printf 'not an image' > "$E2E_TMP/notes.jpg"
set +e
"$E2E_BIN" add --data-dir "$DATA" --name N --type T --location L --image "$E2E_TMP/notes.jpg" 2> "$E2E_TMP/err.txt"; code=$?
set -e
[ "$code" = 2 ] || fail "not an image: exit $code, expected 2"
set +e
LOCALCLOUD_USER= "$E2E_BIN" add --data-dir "$DATA" --name N --type T --location L 2> "$E2E_TMP/err.txt"; code=$?
set -e
[ "$code" = 1 ] || fail "no account (a cloud error): exit $code, expected 1: $(cat "$E2E_TMP/err.txt")"
[ "$(wc -l < "$E2E_TMP/err.txt")" = 1 ] || fail "expected a one-line message: $(cat "$E2E_TMP/err.txt")"
# The screen's words for the same CloudError (DiscoverError(_:while:), the one mapping).
grep -q '^foodpin add: Not signed in: ' "$E2E_TMP/err.txt" || fail "no account: not the screen's words: $(cat "$E2E_TMP/err.txt")"
pass "add exits 2 on invalid input and 1 on a cloud error, with one-line messages"

echo "=== foodpin: the shared options before and after the subcommand"
before_sub="$(LOCALCLOUD_USER=carol "$E2E_BIN" --data-dir "$DATA" --user carol list --json --limit 3)"
after_sub="$(LOCALCLOUD_USER=nobody "$E2E_BIN" list --json --limit 3 --user carol --data-dir "$DATA")"
[ "$before_sub" = "$after_sub" ] || fail "foodpin list differs with the options after the subcommand"
[ "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)))' <<<"$before_sub")" = 3 ] || fail "foodpin list --limit 3: $before_sub"
pass "foodpin's --data-dir and --user work before and after the subcommand"
