#!/usr/bin/env bash
# The Discover screen on a real LocalCloud container under tmux: first-run seeding behind a
# spinner (800 ms simulated latency), rows newest first, another user's restaurant arriving
# with `r`, coloured thumbnails, the detail view and back, a resize, and `q`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

DATA="$E2E_TMP/data"
ensure_binary

# The screen's row lines: a restaurant's name line, with the selection marker if selected.
selected_line() { capture | grep -m1 '^▌' || true; }
row_name_at() { capture | sed -n "${1}p" | sed -E 's/^(▌| ) [^ ]* +//; s/^ *//'; }

echo "=== discover: first run, LOCALCLOUD_LATENCY_MS=800"
e2e_start --env LOCALCLOUD_USER=alice --env LOCALCLOUD_LATENCY_MS=800 -- --data-dir "$DATA"
wait_for_line '^ [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Loading restaurants…' 30
pass "the spinner shows while the first page loads (and the samples are seeded)"
wait_for "24 restaurants" 40
wait_gone "Loading restaurants…" 30
pass "the 24 sample restaurants arrive"

# Newest first: bob adds two restaurants one after the other from another process. The
# selection is on the first row, so the viewport is at the top: after `r` the new rows must be
# on screen above it at once (before issue 13 they were inserted above the viewport, unseen).
wait_for_line '^▌ .*Café Déjà Vu'
LOCALCLOUD_USER=bob "$E2E_BIN" add --data-dir "$DATA" --name "Bob's Older Diner" --type Diner --location Lyon >/dev/null
LOCALCLOUD_USER=bob "$E2E_BIN" add --data-dir "$DATA" --name "Bob's Newest Bistro" --type Bistro --location Paris >/dev/null
send r
wait_for "26 restaurants" 30
wait_gone "Refreshing"
grep -q 'Café Déjà Vu' <<<"$(selected_line)" || fail "the selection moved on refresh: $(selected_line)"
[ "$(row_name_at 3)" = "Bob's Newest Bistro" ] || fail "the newest restaurant is not on screen at the top after r: $(row_name_at 3)"
[ "$(row_name_at 6)" = "Bob's Older Diner" ] || fail "the second newest is not second: $(row_name_at 6)"
[ "$(row_name_at 9)" = "Café Déjà Vu" ] || fail "the selected sample is not third: $(row_name_at 9)"
if screen_has "new ·" || screen_matches '↑ [0-9]+ new'; then fail "nothing new is hidden above, yet the title says so"; fi
wait_for "added just now by bob"
send j
wait_for_line '^▌ .*拉麵 一番'
pass "bob's restaurants (added by another process) show at the top after r, newest first; the selection stays"

# Thumbnails: the cells left of a name carry 256-colour SGR codes once loaded.
thumb_colors() {
  capture_colors | grep -m1 -- "$1" | NAME="$1" perl -CSD -Mutf8 -ne 'my $n = $ENV{NAME}; utf8::decode($n);
    my $i = index($_, $n); $_ = substr($_, 0, $i) if $i > 0;   # only the cells left of the name
    my %c; while (/\e\[([0-9;]*)m/g) { my $p = $1; while ($p =~ /(?:38|48);5;(\d+)/g) { $c{$1} = 1 } }
    delete @c{214, 237, 245};   # the theme: selection marker, selection background, dim text
    print scalar(keys %c), "\n"'
}
deadline=$(( $(date +%s%N) + 20 * 1000000000 ))
while :; do
  count="$(thumb_colors "Café Déjà Vu")"
  [ "${count:-0}" -ge 2 ] && [ "$(thumb_colors "拉麵 一番")" -ge 2 ] && [ "$(thumb_colors "Bella Vista")" -ge 2 ] && break
  [ "$(date +%s%N)" -lt "$deadline" ] || fail "thumbnails did not draw as coloured cells (colours: $count)"
  sleep 0.1
done
pass "thumbnails draw as 256-colour cells (38;5 / 48;5)"

send Enter
wait_for "Location: Tokyo, Japan"
wait_for "Phone:"
wait_for "Esc back"
pass "Enter opens the detail view"
send Escape
wait_for_line '^▌ .*拉麵 一番'
pass "Esc returns to the list with the same selection"

resize_to 40 12
wait_for_line '^ FoodPin' 30
[ "$(capture | wc -L)" -le 40 ] || fail "lines wider than 40 columns after resize"
resize_to 100 30
wait_for "26 restaurants"
wait_for_line '^▌ .*拉麵 一番'
pass "resize to 40×12 and back redraws, selection kept"

send q
expect_exit 0
pass "q exits 0 and restores the terminal"
