#!/usr/bin/env bash
# Real photos, under a pty that plays the terminal (tmux cannot show pixels): a kitty-capable
# terminal gets kitty graphics commands sized to the cell box; a sixel one (DA1 with 4) gets
# sixel; one that answers nothing gets symbols. See images_pty.py.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_binary
command -v python3 >/dev/null || fail "python3 is needed for the pty terminal"

for mode in kitty sixel silent; do
  echo "=== images: $mode terminal"
  python3 "$(dirname "$0")/images_pty.py" "$E2E_BIN" "$E2E_TMP/data" "$mode" || fail "the $mode terminal run failed"
done

# A TERM with no terminfo entry here (kitty's xterm-kitty over SSH is the classic case) falls
# back to xterm-256color with a one-line notice instead of failing to start. Inside tmux, auto
# uses symbols.
echo "=== images: unknown TERM"
infocmp xterm-kitty >/dev/null 2>&1 && unknown=xterm-foodpin-unknown || unknown=xterm-kitty
e2e_start --term "$unknown" --env LOCALCLOUD_USER=alice -- --data-dir "$E2E_TMP/data"
wait_for "24 restaurants" 30
pass "TERM=$unknown starts the screen"
send q
expect_exit 0
wait_for "TERM=$unknown has no terminfo entry here; using xterm-256color"
pass "with a one-line notice"
