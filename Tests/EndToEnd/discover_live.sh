#!/usr/bin/env bash
# Live changes under tmux: alice's Discover screen is open; bob adds restaurants from another
# process; a banner appears with no keypress, `r` brings them in at the top, on screen, with
# alice's selection (on the fourth row) unchanged; scrolled down, `r` keeps alice's place and
# the title says "↑ 1 new", `g` goes to it; alice's own saves raise no banner; alice cannot delete bob's restaurant.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

DATA="$E2E_TMP/data"
ensure_binary
bob_add() { LOCALCLOUD_USER=bob "$E2E_BIN" add --data-dir "$DATA" --name "$1" --type Bistro --location Paris >/dev/null; }

echo "=== discover: live changes"
e2e_start --env LOCALCLOUD_USER=alice -- --data-dir "$DATA"
wait_for "24 restaurants" 30
send j j j
wait_for_line '^▌ .*El Fogón de Marta'

bob_add "Bob's First Bistro"
wait_for "1 new restaurant — press r" 30
bob_add "Bob's Second Bistro"
wait_for "2 new restaurants — press r" 30
grep -q '^▌ .*El Fogón de Marta' <<<"$(capture)" || fail "the banner moved the selection"
pass "bob's saves raise a banner within seconds, with no keypress; the selection stays"

# The selection is on the fourth row and the viewport at the top: the new rows show at once.
send r
wait_for "26 restaurants" 30
wait_gone "new restaurant"
grep -q '^▌ .*El Fogón de Marta' <<<"$(capture)" || fail "r moved the selection"
[ "$(capture | sed -n 3p | grep -c "Bob's Second Bistro")" = 1 ] || fail "bob's newest restaurant is not on screen at the top after r"
[ "$(capture | sed -n 6p | grep -c "Bob's First Bistro")" = 1 ] || fail "bob's first restaurant is not second"
[ "$(capture | sed -n 9p | grep -c "Café Déjà Vu")" = 1 ] || fail "the newest sample is not third"
pass "r brings bob's restaurants in at the top, on screen, newest first, selection kept"

# Scrolled down, the reader keeps their place and the title counts what is new above.
# The rows' text right of the thumbnails (which may still be drawing), without the "added … ago"
# lines, whose ages may tick over between two captures; the selection marker is kept.
list_rows() { capture | sed -n '3,29p' | grep -v 'added ' | perl -CSD -ne 'print substr($_, 0, 1), substr($_, 10)'; }
send G
wait_for_line "^▌ .*Gelateria Dolce Vita"
scrolled_rows="$(list_rows)"
bob_add "Bob's Scrolled Bistro"
wait_for "1 new restaurant — press r" 30
send r
wait_for "27 restaurants" 30
wait_for "↑ 1 new"
[ "$(list_rows)" = "$scrolled_rows" ] || fail "r moved the rows of a scrolled list"
send g
wait_for_line "^▌ .*Bob's Scrolled Bistro"
wait_gone "↑ 1 new"
pass "scrolled down, r keeps the place, the title says ↑ 1 new, g goes to it"

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
wait_for_line "^▌ .*Bob's Scrolled Bistro"
send d
wait_for "Permission Failure"
send r
wait_for "Bob's Scrolled Bistro"
[ "$("$E2E_BIN" list --data-dir "$DATA" | grep -c "Bob's Scrolled Bistro")" = 1 ] || fail "bob's restaurant was deleted"
pass "alice cannot delete bob's restaurant: a permission banner, nothing deleted"

send q
expect_exit 0
pass "q exits 0"
