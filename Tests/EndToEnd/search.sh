#!/usr/bin/env bash
# The `/` search under tmux on a real LocalCloud container: "cafe" finds "Café Déjà Vu" as
# you type (accents ignored), the title shows the query and count, Enter moves to the results
# where Enter opens one, a word that matches nothing says so, hostile text stays data, and Esc
# brings back the full list with its selection. Also `foodpin list --search`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

DATA="$E2E_TMP/data"
ensure_binary

echo "=== search"
e2e_start --env LOCALCLOUD_USER=alice -- --data-dir "$DATA"
wait_for "24 restaurants" 30
send j j j
wait_for_line '^▌ .*El Fogón de Marta'
# The list's text right of the thumbnails (which may still be drawing), without the ages.
list_text() { capture | sed -n '3,29p' | grep -v 'added ' | perl -CSD -ne 'print substr($_, 10)'; }
full_rows="$(list_text)"

send /
wait_for_line '^ /'
send_text "cafe"
wait_for 'Discover · "cafe" · 1 found'
wait_for_line '^▌ .*Café Déjà Vu'
screen_lacks "拉麵 一番" || fail "a restaurant that does not match is still listed"
pass "/ cafe finds Café Déjà Vu as you type; the title shows the query and the count"

send_text " xyz"
wait_for "No restaurants match 'cafe xyz'"
wait_for 'Discover · "cafe xyz" · 0 found'
send BSpace BSpace BSpace BSpace
wait_for 'Discover · "cafe" · 1 found'
pass "every word must match; no match says so; Backspace widens again"

send Enter
wait_for "edit search"
send Enter
wait_for "Location: Montréal, Canada"
send Escape
wait_for 'Discover · "cafe" · 1 found'
wait_for_line '^▌ .*Café Déjà Vu'
pass "Enter moves to the results, Enter opens one, Esc comes back to the results"

send Escape
wait_for "24 restaurants"
wait_for_line '^▌ .*El Fogón de Marta'
[ "$(list_text)" = "$full_rows" ] || fail "the full list did not come back as it was"
pass "Esc clears the search and restores the full list and its selection"

# Hostile text: quotes, %@, OR, backslashes and an escape sequence are searched for as data.
send /
wait_for_line '^ /'
send_text "\"%@ OR \\"
wait_for "No restaurants match '\"%@ OR \\'"
send C-u
send_text "tokyo ramen"
wait_for 'Discover · "tokyo ramen" · 1 found'
wait_for_line '^▌ .*拉麵 一番'
# A raw escape sequence typed (or pasted) into the search line: its ESC is the Esc key (it
# closes the search) and the rest is no key; nothing reaches the terminal, the screen stays whole.
send_text $'\e[2J'
wait_for "24 restaurants"
[ "$(capture | sed -n 1p | grep -c 'FoodPin · Discover')" = 1 ] || fail "the title is gone after an escape sequence"
wait_for_line '^▌ .*El Fogón de Marta'
pass "quotes, %@, OR and backslashes are data; an escape sequence never reaches the screen"

send /
wait_for_line '^ /'
send Escape
wait_for "24 restaurants"
send q
expect_exit 0
pass "q exits 0"

# Without a screen.
[ "$("$E2E_BIN" list --data-dir "$DATA" --search "cafe deja" | grep -c 'Café Déjà Vu')" = 1 ] || fail "list --search did not find the café"
[ "$("$E2E_BIN" list --data-dir "$DATA" --search "拉麵" --json | grep -c '"name" : "拉麵 一番"')" = 1 ] || fail "list --search --json did not find 拉麵 一番"
[ -z "$("$E2E_BIN" list --data-dir "$DATA" --search '%@ OR "')" ] || fail "punctuation matched something"
pass "foodpin list --search TEXT [--json]"
