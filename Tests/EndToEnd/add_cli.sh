#!/usr/bin/env bash
# `foodpin add --image` as a one-shot command (issue 14's fast path): a 12-megapixel JPEG is saved
# 1024 wide; libvips starts without its format modules and libchafa is never loaded for it; a HEIF
# photo loads the modules on demand; the scaled temporary file is gone afterwards; and the store,
# left open at exit, hands the record to the next process.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

DATA="$E2E_TMP/data"
ensure_binary
command -v convert >/dev/null || fail "ImageMagick convert is needed"
command -v vipsheader >/dev/null || fail "vipsheader is needed"
convert -size 4000x3000 plasma: -quality 92 "$E2E_TMP/photo.jpg"   # 12 MP
mkdir -p "$E2E_TMP/tmp"
add() { TMPDIR="$E2E_TMP/tmp" LOCALCLOUD_USER=alice "$E2E_BIN" add --data-dir "$DATA" --type Test --location Here "$@"; }
stored_width() {  # stored_width NAME: the width of NAME's stored image, from `foodpin list --json`
  local file
  file="$("$E2E_BIN" list --data-dir "$DATA" --json | python3 -c '
import json, sys
print(next(r["imageFile"] for r in json.load(sys.stdin) if r["name"] == sys.argv[1]))' "$1")"
  [ -f "$file" ] || fail "no stored image for $1: $file"
  vipsheader -f width "$file"
}

echo "=== foodpin add of a 12 MP JPEG"
LD_DEBUG=files add --name "Big Photo" --image "$E2E_TMP/photo.jpg" >"$E2E_TMP/out" 2>"$E2E_TMP/loaded"
grep -qE '^[0-9A-F-]{36}$' "$E2E_TMP/out" || fail "add printed no record name: $(cat "$E2E_TMP/out")"
[ "$(stored_width "Big Photo")" = 1024 ] || fail "the stored image is not 1024 wide"
pass "the photo is saved 1024 wide; the next process reads the record (the store was left open at exit)"
grep -q 'file=libvips.so.42' "$E2E_TMP/loaded" || fail "LD_DEBUG shows no libvips: is LD_DEBUG honoured here?"
if grep -q 'vips-modules' "$E2E_TMP/loaded"; then fail "a JPEG loaded libvips' format modules: $(grep -m3 vips-modules "$E2E_TMP/loaded")"; fi
if grep -q 'file=libchafa' "$E2E_TMP/loaded"; then fail "add loaded libchafa, which only draws thumbnails"; fi
pass "a JPEG loads neither libvips' format modules nor libchafa"
[ -z "$(ls -A "$E2E_TMP/tmp")" ] || fail "temporary files left behind: $(ls -A "$E2E_TMP/tmp")"
pass "the scaled temporary JPEG is removed"

echo "=== a HEIF photo loads the modules on demand"
if ls /usr/lib/*/vips-modules-*/vips-heif.so >/dev/null 2>&1 && vips copy "$E2E_TMP/photo.jpg[shrink=2]" "$E2E_TMP/photo.heic" 2>/dev/null; then
  LD_DEBUG=files add --name "HEIF Photo" --image "$E2E_TMP/photo.heic" >/dev/null 2>"$E2E_TMP/loaded"
  grep -q 'vips-modules-.*/vips-heif.so' "$E2E_TMP/loaded" || fail "the HEIF photo did not load the heif module"
  [ "$(stored_width "HEIF Photo")" = 1024 ] || fail "the HEIF photo is not stored 1024 wide"
  pass "a HEIF photo loads the heif module when first seen, and is saved 1024 wide"
else
  log "skipped: no vips-heif module"
fi

echo "=== an image error still saves nothing and leaves no file"
printf 'not an image' > "$E2E_TMP/notes.jpg"
set +e
add --name "Notes" --image "$E2E_TMP/notes.jpg" 2>"$E2E_TMP/err"; code=$?
set -e
[ "$code" = 2 ] || fail "not an image: exit $code, expected 2"
grep -q 'notes.jpg is not an image' "$E2E_TMP/err" || fail "unexpected message: $(cat "$E2E_TMP/err")"
[ -z "$(ls -A "$E2E_TMP/tmp")" ] || fail "temporary files left behind: $(ls -A "$E2E_TMP/tmp")"
[ "$("$E2E_BIN" list --data-dir "$DATA" | grep -c 'Notes')" = 0 ] || fail "a restaurant was saved with a bad image"
pass "a file that is not an image exits 2, saves nothing, leaves nothing"

echo "add_cli: all passed"
