#!/usr/bin/env bash
# An installed foodpin seeds the sample restaurants: scripts/install.sh into a temp prefix, then the
# installed binary, run from / with an empty HOME (so the default data directory), lists the samples
# with their photos. A trimmed installed copy proves the samples come from the prefix, not from this
# checkout (which the build could otherwise find).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_binary

PREFIX="$E2E_TMP/prefix"
"$E2E_ROOT/scripts/install.sh" --binary "$E2E_BIN" "$PREFIX" >/dev/null
[ -x "$PREFIX/bin/foodpin" ] || fail "no $PREFIX/bin/foodpin"
[ -f "$PREFIX/share/foodpin/Assets/Restaurants/restaurants.json" ] || fail "no samples in $PREFIX/share/foodpin/Assets"
[ -f "$PREFIX/share/foodpin/Assets/FoodPin.ckdb" ] || fail "no schema in $PREFIX/share/foodpin/Assets"
pass "scripts/install.sh puts foodpin in PREFIX/bin and the samples in PREFIX/share/foodpin/Assets"

samples() { python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$1/share/foodpin/Assets/Restaurants/restaurants.json"; }
# run_installed BINARY HOME ARGS...: the installed binary as a new user would run it: from /, with
# only HOME (empty) to find the default data directory, and no FOODPIN_ASSETS or LOCALCLOUD_HOME.
run_installed() {
  local binary="$1" home="$2"
  shift 2
  mkdir -p "$home"
  (cd / && env -u FOODPIN_ASSETS -u LOCALCLOUD_HOME -u XDG_DATA_HOME HOME="$home" LOCALCLOUD_USER=alice "$binary" "$@")
}
# check_listing JSON COUNT: COUNT restaurants, each with its photo stored as a JPEG.
check_listing() {
  python3 - "$1" "$2" <<'PY' || fail "$(cat "$1" | head -c 400)"
import json, sys
restaurants = json.load(open(sys.argv[1]))
expected = int(sys.argv[2])
assert len(restaurants) == expected, f"{len(restaurants)} restaurants, expected {expected}"
for r in restaurants:
    path = r.get("imageFile")
    assert path, f"{r['name']} has no image"
    assert open(path, "rb").read(2) == b"\xff\xd8", f"{r['name']}'s image is not a JPEG: {path}"
PY
}

echo "=== the installed binary seeds the samples on first run"
run_installed "$PREFIX/bin/foodpin" "$E2E_TMP/home" list --json >"$E2E_TMP/list.json"
check_listing "$E2E_TMP/list.json" "$(samples "$PREFIX")"
[ -f "$E2E_TMP/home/.local/share/localcloud/iCloud.FoodPin/development.sqlite" ] \
  || fail "the data did not go to ~/.local/share/localcloud"
pass "$(samples "$PREFIX") sample restaurants, each with a JPEG photo, in ~/.local/share/localcloud"

echo "=== the samples come from the prefix"
TRIMMED="$E2E_TMP/trimmed"
cp -R "$PREFIX" "$TRIMMED"
python3 - "$TRIMMED/share/foodpin/Assets/Restaurants/restaurants.json" <<'PY'
import json, sys
samples = json.load(open(sys.argv[1]))
json.dump(samples[:3], open(sys.argv[1], "w"), ensure_ascii=False)
PY
run_installed "$TRIMMED/bin/foodpin" "$E2E_TMP/home-trimmed" list --json >"$E2E_TMP/trimmed.json"
check_listing "$E2E_TMP/trimmed.json" 3
mkdir -p "$E2E_TMP/links"
ln -s "$TRIMMED/bin/foodpin" "$E2E_TMP/links/foodpin"
run_installed "$E2E_TMP/links/foodpin" "$E2E_TMP/home-link" list --json >"$E2E_TMP/link.json"
check_listing "$E2E_TMP/link.json" 3
pass "an installed copy with 3 samples seeds those 3, also through a symlink elsewhere"

echo "install: all passed"
