#!/usr/bin/env bash
# Links in the detail view, under a pty that plays the terminal (tmux strips or rewrites OSC 8):
# the phone is a tel: link and the location an OpenStreetMap search, percent-encoded; a record
# whose text carries escape sequences gets encoded targets and visible text; --no-links writes
# none; o opens the map with xdg-open, or shows its URL where there is none. See links_pty.py.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/support/serve.sh"
ensure_binary
ensure_localcloud
command -v python3 >/dev/null || fail "python3 is needed for the pty terminal"

DATA="$E2E_TMP/data"
"$E2E_BIN" list --data-dir "$DATA" --limit 1 >/dev/null   # the 24 samples
"$LOCALCLOUD_BIN" --data-dir "$DATA" --user alice records create Restaurant name="Evil Diner" type=Bistro \
  location=$'Rue \e]8;;http://evil\e\\X "&" 東京' phone=$'+1 514\e[2J 555' >/dev/null

# A fake xdg-open: it writes the URL it was given.
BIN="$E2E_TMP/bin"
mkdir -p "$BIN" "$BIN-empty"
printf '#!/bin/sh\nprintf "%%s\\n" "$1" > %q\n' "$E2E_TMP/opened" > "$BIN/xdg-open"
chmod +x "$BIN/xdg-open"

for mode in links nolinks noopener; do
  echo "=== links: $mode"
  python3 "$(dirname "$0")/links_pty.py" "$E2E_BIN" "$DATA" "$mode" "$BIN" "$E2E_TMP/opened" || fail "the $mode run failed"
done
