#!/usr/bin/env bash
# The add form end to end under tmux: type every field (UTF-8 name), point at a large JPEG,
# Ctrl-S; the restaurant is at the top and selected; `foodpin list --json` shows a 1024-wide
# JPEG asset; a corrupt image then shows an inline error and saves nothing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

DATA="$E2E_TMP/data"
ensure_binary
command -v convert >/dev/null || fail "ImageMagick convert is needed"
command -v vipsheader >/dev/null || fail "vipsheader is needed"

convert -size 3000x2000 plasma: -quality 90 "$E2E_TMP/big.jpg"
head -c 20000 "$E2E_TMP/big.jpg" > "$E2E_TMP/corrupt.jpg"   # a JPEG cut short
count() { "$E2E_BIN" list --data-dir "$DATA" | wc -l; }
NAME="Café Ünïcode 東京 🍜"

echo "=== add form"
e2e_start --env LOCALCLOUD_USER=alice -- --data-dir "$DATA"
wait_for "24 restaurants" 30
before="$(count)"

send a
wait_for "New Restaurant"
send_text "$NAME";            send Tab
send_text "Fusion";           send Tab
send_text "Berlin, Germany";  send Tab
send_text "+49 30 555-0100";  send Tab
send_text "Noodles and coffee, open late."; send Tab
send_text "$E2E_TMP/big.jpg"
wait_for "$NAME"
send C-s
wait_for "25 restaurants" 40
wait_gone "New Restaurant"
wait_for_line "^▌ .*Café Ünïcode 東京 🍜"
[ "$(capture | sed -n 3p | grep -c 'Café Ünïcode')" = 1 ] || fail "the new restaurant is not the top row"
pass "Ctrl-S saves: the new restaurant is at the top and selected"

json="$("$E2E_BIN" list --data-dir "$DATA" --json --limit 1)"
image="$(python3 -c 'import json,sys; r=json.load(sys.stdin)[0]; print(r["name"]); print(r["imageFile"] or "")' <<<"$json")"
[ "$(sed -n 1p <<<"$image")" = "$NAME" ] || fail "list --json's first restaurant is not the new one: $json"
file="$(sed -n 2p <<<"$image")"
[ -f "$file" ] || fail "imageFile is not a file: $file"
[ "$(vipsheader -f width "$file")" = 1024 ] || fail "the stored image is $(vipsheader -f width "$file") wide, not 1024"
[ "$(vipsheader -f height "$file")" = 683 ] || fail "the stored image is $(vipsheader -f height "$file") high, not 683"
vipsheader -a "$file" | grep -q 'vips-loader: jpegload' || fail "the stored image is not a JPEG"
[ "$(count)" = $((before + 1)) ] || fail "expected $((before + 1)) restaurants"
pass "foodpin list --json: imageFile is a JPEG 1024 px wide"

send a
wait_for "New Restaurant"
send_text "Broken Picture"; send Tab
send_text "Thai";           send Tab
send_text "Bangkok";        send Tab Tab Tab
send_text "$E2E_TMP/corrupt.jpg"
send C-s
wait_for "corrupt.jpg is truncated or corrupt" 30
wait_for "New Restaurant"
wait_for "Broken Picture"
[ "$(count)" = $((before + 1)) ] || fail "a restaurant was saved with a corrupt image"
pass "a corrupt image shows an inline error, keeps the input, and saves nothing"

send Escape
wait_for_line "(Discard|discard)"
send y
wait_gone "New Restaurant"
send q
expect_exit 0
pass "q exits 0"
