#!/usr/bin/env bash
# Live changes under tmux: alice's Discover screen is open; bob adds restaurants from another
# process; a banner appears with no keypress, `r` brings them in at the top with alice's
# selection unchanged; alice's own saves raise no banner; alice cannot delete bob's restaurant.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

DATA="$E2E_TMP/data"
ensure_binary
bob_add() { LOCALCLOUD_USER=bob "$E2E_BIN" add --data-dir "$DATA" --name "$1" --type Bistro --location Paris >/dev/null; }

echo "=== discover: live changes"
e2e_start --env LOCALCLOUD_USER=alice -- --data-dir "$DATA"
wait_for "24 restaurants" 30
send j j
wait_for_line '^▌ .*Trattoria Bella Vista'

bob_add "Bob's First Bistro"
wait_for "1 new restaurant — press r" 30
bob_add "Bob's Second Bistro"
wait_for "2 new restaurants — press r" 30
grep -q '^▌ .*Trattoria Bella Vista' <<<"$(capture)" || fail "the banner moved the selection"
pass "bob's saves raise a banner within seconds, with no keypress; the selection stays"

send r
wait_for "26 restaurants" 30
wait_gone "new restaurant"
grep -q '^▌ .*Trattoria Bella Vista' <<<"$(capture)" || fail "r moved the selection"
send g
wait_for_line "^▌ .*Bob's Second Bistro"
[ "$(capture | sed -n 6p | grep -c "Bob's First Bistro")" = 1 ] || fail "bob's first restaurant is not second"
pass "r brings bob's restaurants in at the top, newest first, selection kept"

LOCALCLOUD_USER=alice "$E2E_BIN" add --data-dir "$DATA" --name "Alice's Own" --type Cafe --location Lyon >/dev/null
bob_add "Bob's Third Bistro"
wait_for "1 new restaurant — press r" 30
if grep -q "2 new restaurants" <<<"$(capture)"; then fail "alice's own save was counted"; fi
pass "alice's own save raises no banner (only bob's counts)"

send Escape
wait_gone "new restaurant"
pass "Esc dismisses the banner"

# The selection is on bob's newest restaurant (g above): alice may not delete it.
send g
wait_for_line "^▌ .*Bob's Second Bistro"
send d
wait_for "Permission Failure"
send r
wait_for "Bob's Second Bistro"
[ "$("$E2E_BIN" list --data-dir "$DATA" | grep -c "Bob's Second Bistro")" = 1 ] || fail "bob's restaurant was deleted"
pass "alice cannot delete bob's restaurant: a permission banner, nothing deleted"

send q
expect_exit 0
pass "q exits 0"
