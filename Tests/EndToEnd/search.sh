#!/usr/bin/env bash
# The `/` search under tmux on a real LocalCloud container: "cafe" finds "Café Déjà Vu" as
# you type (accents ignored), the title shows the query and count, Enter moves to the results
# where Enter opens one, a word that matches nothing says so, hostile text stays data, and Esc
# brings back the full list with its selection. Also `foodpin list --search`.
# Search as you type: every letter of "cafe" narrows to Café Déjà Vu, a part of a CJK name finds
# it; then the same on a `localcloud serve` on SQLite and on PostgreSQL (screen and CLI), and
# from the offline cache once the server is gone.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/support/serve.sh"
source "$(dirname "$0")/support/postgres.sh"
trap 'serve_kill; pg_stop >/dev/null 2>&1 || true; e2e_cleanup' EXIT

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

# Search as you type: each letter narrows, the word being typed matches as a prefix.
send /
wait_for_line '^ /'
for prefix in c ca caf cafe; do
  send_text "${prefix: -1}"
  wait_for "Discover · \"$prefix\" · "
  wait_for_line '^▌ .*Café Déjà Vu'
done
wait_for 'Discover · "cafe" · 1 found'
send_text " dej"
wait_for 'Discover · "cafe dej" · 1 found'
wait_for_line '^▌ .*Café Déjà Vu'
pass "c, ca, caf, cafe, cafe dej: every letter narrows, Café Déjà Vu is found at each"

send C-u
send_text "tok"
wait_for 'Discover · "tok" · 1 found'
wait_for_line '^▌ .*拉麵 一番'
send C-u
send_text "麵"
wait_for 'Discover · "麵" · 1 found'
wait_for_line '^▌ .*拉麵 一番'
send C-u
send_text "番 ram"
wait_for 'Discover · "番 ram" · 1 found'
wait_for_line '^▌ .*拉麵 一番'
pass "tok finds Tokyo's ramen; CJK by substring (麵 in 拉麵), mixed with a Latin prefix"

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
[ "$("$E2E_BIN" list --data-dir "$DATA" --search "caf" | grep -c 'Café Déjà Vu')" = 1 ] || fail "list --search caf did not find the café"
[ "$("$E2E_BIN" list --data-dir "$DATA" --search "一" | grep -c '拉麵 一番')" = 1 ] || fail "list --search 一 did not find 拉麵 一番"
pass "foodpin list --search finds as typed too: caf, 一"

# The same on a server: SQLite, then PostgreSQL behind it. Alice signs in and adds three
# restaurants (the issue's 一蘭拉麵 among them); the screen and the CLI search through the server.
ensure_localcloud
server_search() {
  local label="$1"
  local server="$E2E_TMP/server-$label" client="$E2E_TMP/client-$label"
  mkdir -p "$server" "$client/config"
  serve_foodpin "$server"
  as_alice() { env LOCALCLOUD_HOME="$client/data" XDG_CONFIG_HOME="$client/config" LOCALCLOUD_DATABASE_URL= "$@"; }
  echo "alice-secret" | as_alice "$E2E_BIN" login "$SERVE_URL" --api-token "$TOKEN" --user alice --password-stdin 2>/dev/null
  as_alice "$E2E_BIN" add --name "Café Déjà Vu" --type Bistro --location "Montréal" >/dev/null
  as_alice "$E2E_BIN" add --name "一蘭拉麵" --type Ramen --location "Tokyo" >/dev/null
  as_alice "$E2E_BIN" add --name "Cabbage Patch" --type Vegan --location "Lyon" >/dev/null
  found() { as_alice "$E2E_BIN" list --search "$1" | grep -o -e 'Café Déjà Vu' -e '一蘭拉麵' -e 'Cabbage Patch' | sort | tr '\n' '|'; }
  local text
  for text in c ca; do
    [ "$(found "$text")" = "Cabbage Patch|Café Déjà Vu|" ] || fail "$label: list --search $text found $(found "$text")"
  done
  for text in caf cafe "cafe d" "cafe de" "CAFÉ DÉJ"; do
    [ "$(found "$text")" = "Café Déjà Vu|" ] || fail "$label: list --search '$text' found $(found "$text")"
  done
  for text in 拉麵 一蘭 蘭拉 麵 "ram" "tok" "拉麵 tok"; do
    [ "$(found "$text")" = "一蘭拉麵|" ] || fail "$label: list --search '$text' found $(found "$text")"
  done
  [ -z "$(found "caf ")" ] || fail "$label: a finished word matched as a prefix"
  pass "$label server: list --search narrows on every letter of cafe; 拉麵, 一蘭 and 蘭拉 find 一蘭拉麵"

  e2e_start --env LOCALCLOUD_HOME="$client/data" --env XDG_CONFIG_HOME="$client/config" -- --images none
  wait_for "3 restaurants" 30
  send /
  wait_for_line '^ /'
  send_text "caf"
  wait_for 'Discover · "caf" · 1 found'
  wait_for_line '^▌ .*Café Déjà Vu'
  send C-u
  send_text "拉麵"
  wait_for 'Discover · "拉麵" · 1 found'
  wait_for_line '^▌ .*一蘭拉麵'
  send Escape
  wait_for "3 restaurants"
  send q
  expect_exit 0
  pass "$label server: / caf and / 拉麵 on the screen"

  # The server gone: the cache answers searches it never saw from the pages it read.
  serve_kill
  [ "$(found "cafe de")" = "Café Déjà Vu|" ] || fail "$label offline: list --search 'cafe de' found $(found "cafe de")"
  [ "$(found "蘭")" = "一蘭拉麵|" ] || fail "$label offline: list --search 蘭 found $(found "蘭")"
  pass "$label server gone: searches as you type answer from the offline cache"
}

echo "=== search on a server (SQLite)"
server_search SQLite

echo "=== search on a server (PostgreSQL)"
pg_start
export LOCALCLOUD_DATABASE_URL="$PG_URL"
server_search PostgreSQL
unset LOCALCLOUD_DATABASE_URL
pg_stop
