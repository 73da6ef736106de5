#!/usr/bin/env bash
# Proves the terminal runtime with `foodpin --demo` under tmux: background messages,
# keys, wide characters, colours per terminal, resizing, too-small, exit codes, signals,
# and that the terminal is restored afterwards.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# SGR colour parameters (30–37, 40–47, 90–97, 100–107, 38;…, 48;…) in a colour capture.
color_codes() {
  local screen
  screen="$(capture_colors)"
  perl -ne 'while (/\e\[([0-9;]*)m/g) { my @p = split /;/, $1;
    while (@p) { my $c = shift @p;
      if ($c == 38 || $c == 48) { my $kind = shift @p; my $v = $kind == 5 ? shift @p : join(",", splice(@p, 0, 3));
        print "$c;$kind;$v\n" }
      elsif (($c >= 30 && $c <= 37) || ($c >= 40 && $c <= 47) || ($c >= 90 && $c <= 97) || ($c >= 100 && $c <= 107)) { print "$c\n" } } }' \
    <<<"$screen" | sort -u
}

echo "=== runtime demo, TERM=xterm-256color"
e2e_start -- --demo

wait_for_line '^ [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Loading restaurants…' 30
first_frame="$(grep -m1 -o '^ [^ ] Loading' <<<"$(capture)")"
deadline=$(( $(date +%s%N) + 2000000000 ))
while [ "$(grep -m1 -o '^ [^ ] Loading' <<<"$(capture)" || true)" = "$first_frame" ]; do
  [ "$(date +%s%N)" -lt "$deadline" ] || fail "the spinner does not animate"
  sleep 0.02
done
pass "spinner shows and animates (ticks) while loading"
wait_for "> 001  Golden Dragon 1" 30
pass "rows arrive from a background message, with no keypress"

# Idle means asleep in poll(): no ticks once loaded, so the UI thread does not wake at all.
pid="$(app_pid)"
switches() { sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "/proc/$pid/status"; }
before="$(switches)"
sleep 0.5  # a measuring window, not a wait for readiness
after="$(switches)"
[ $(( after - before )) -le 1 ] || fail "the idle UI thread woke $(( after - before )) times in 0.5 s"
pass "idle loop sleeps (no busy polling)"

send j;        wait_for "> 002  Noodle Bar 2"
send Down;     wait_for "> 003  東京ラーメン屋"
send k;        wait_for "> 002"
send G;        wait_for "> 200"
send g;        wait_for "> 001"
send End;      wait_for "> 200"
send Home;     wait_for "> 001"
send PageDown; wait_for "> 028"
send PageUp;   wait_for "> 001"
pass "j/k, arrows, g/G, Home/End and PgUp/PgDn move the selection"
send_wheel down; wait_for "> 004"
send_wheel up;   wait_for "> 001"
pass "the mouse wheel scrolls"

for pair in "Enter:key:enter" "Tab:key:tab" "BTab:key:backTab" "BSpace:key:backspace" "DC:key:delete" \
            "Escape:key:escape" "F5:key:function(5)" 'C-a:key:control("a")' 'C-s:key:control("s")'; do
  send "${pair%%:*}"
  wait_for "${pair#*:}"
done
send_text "é"; wait_for 'key:character("é")'
send_text "東"; wait_for 'key:character("東")'
pass "Enter, Tab, Shift-Tab, Backspace, Delete, Esc, F-keys, Ctrl-letters and UTF-8 decode"

for row in "Golden Dragon 1" "東京ラーメン屋" "Pho & " "Escape test"; do
  column="$(display_column "$row" "|")"
  [ "$column" = 32 ] || fail "the column after \"$row\" starts at $column, expected 32"
done
pass "CJK and emoji rows keep their width: the next column lines up"

wait_for "Escape test ?[31mX"
if grep -q $'\e\\[31mX' <<<"$(capture_colors)"; then fail "a raw ESC from a cell reached the terminal"; fi
pass "a control character in a cell is drawn as ?"

codes="$(color_codes)"
for code in "48;5;196" "48;5;208" "48;5;205" "48;5;235"; do
  grep -qx -- "$code" <<<"$codes" || fail "no $code in the colour capture: $(echo $codes)"
done
pass "256-colour cells (indexed and rgb→xterm-256) show with capture-pane -e"

resize_to 40 12
wait_for "FoodPin demo          40x12"
wait_for "> 001  Golden Dragon 1"
wait_for_line '^j/k move  g/G ends  q quit'
[ "$(capture | wc -l)" -eq 12 ] || fail "expected 12 rows at 40x12"
pass "a resize to 40x12 re-lays out"
resize_to 29 12
wait_for "Terminal too small"
wait_for "need 30x8, have 29x12"
resize_to 40 7
wait_for "need 30x8, have 40x7"
pass "a terminal below 30x8 gets a message"
resize_to 100 30
wait_for "100x30"
wait_for "> 001  Golden Dragon 1"
wait_for "  028  Pizza Planet 28"
wait_gone "Terminal too small"
pass "resizing back redraws everything"

send q
expect_exit 0
if grep -q "Golden Dragon" <<<"$(capture)"; then fail "the demo's screen is still showing after exit"; fi
pass "q exits 0 and restores the terminal"

echo "=== TERM=xterm-mono, NO_COLOR=1"
e2e_start --term xterm-mono --env NO_COLOR=1 -- --demo
wait_for "> 001  Golden Dragon 1"
send j; wait_for "> 002"
codes="$(color_codes)"
[ -z "$codes" ] || fail "colour codes under xterm-mono/NO_COLOR: $(echo $codes)"
grep -q $'\e\\[7m' <<<"$(capture_colors)" || fail "no reverse video for the selection in mono"
column="$(display_column "東京ラーメン屋" "|")"
[ "$column" = 32 ] || fail "CJK row misaligned under xterm-mono ($column)"
send End; wait_for "> 200"
send Home; wait_for "> 001"
send q
expect_exit 0
pass "mono: attributes only, no colour, keys work, exits 0"

echo "=== TERM=xterm-256color, NO_COLOR=1, then --color 256 overriding it"
e2e_start --env NO_COLOR=1 -- --demo
wait_for "> 001  Golden Dragon 1"
[ -z "$(color_codes)" ] || fail "NO_COLOR ignored: $(echo $(color_codes))"
send q; expect_exit 0
e2e_start --env NO_COLOR=1 -- --demo --color 256
wait_for "> 001  Golden Dragon 1"
grep -qx "48;5;196" <<<"$(color_codes)" || fail "--color 256 did not override NO_COLOR"
send q; expect_exit 0
pass "NO_COLOR is honoured and an explicit --color wins"

echo "=== TERM=xterm (8 colours)"
e2e_start --term xterm -- --demo
wait_for "> 001  Golden Dragon 1"
codes="$(color_codes)"
if grep -q ";5;" <<<"$codes"; then fail "256-colour codes under TERM=xterm: $(echo $codes)"; fi
for code in 41 43 42; do  # 196 → red, 226 → yellow, 46 → green
  grep -qx "$code" <<<"$codes" || fail "no basic colour $code under TERM=xterm: $(echo $codes)"
done
send Home; send End; wait_for "> 200"
send q
expect_exit 0
pass "8 colours: nearest basic colours, exits 0"

echo "=== exit codes and signals"
e2e_start -- --demo
wait_for "> 001"
send X
expect_exit 3
pass "the app's exit code is the process's"

e2e_start -- --demo
wait_for "> 001"
send C-c
expect_exit 130
pass "Ctrl-C (ignored by the app) quits with 130 and restores the terminal"

e2e_start -- --demo
wait_for "> 001"
pid="$(app_pid)"
[ -n "$pid" ] || fail "cannot find foodpin's pid"
kill -TERM "$pid"
expect_exit 143
pass "SIGTERM quits with 143 and restores the terminal"

# A crash (a Swift trap) still restores the terminal, and the backtrace shows on the main screen.
e2e_start --env SWIFT_BACKTRACE=interactive=no -- --demo
wait_for "> 001"
send '!'
code="$(wait_exit 30)"
[ "$code" -ge 128 ] || fail "a crash exited $code, expected death by a signal"
wait_for FOODPIN-EXITED
[ "$(pane_value alternate_on)" = 0 ] || fail "still on the alternate screen after a crash"
[ "$(pane_value cursor_flag)" = 1 ] || fail "cursor still hidden after a crash"
[ "$(pane_value mouse_any_flag)" = 0 ] || fail "mouse reporting still on after a crash"
pass "a crash restores the terminal (exit $code)"

# Issue 13: a TERM with no terminfo entry falls back to xterm-256color with a one-line notice
# (kitty's xterm-kitty over SSH is the classic case), instead of failing to start.
e2e_start --term no-such-terminal -- --demo
wait_for_line '^j/k move  g/G ends  q quit'
send q
expect_exit 0
wait_for "foodpin: TERM=no-such-terminal has no terminfo entry here; using xterm-256color"
pass "an unknown TERM falls back to xterm-256color with a notice"

echo "=== without a terminal"
set +e
"$E2E_BIN" --demo </dev/null >"$E2E_TMP/out" 2>"$E2E_TMP/err"
code=$?
set -e
[ "$code" = 1 ] || fail "no-tty run exited $code, expected 1"
grep -q "needs a terminal" "$E2E_TMP/err" || fail "no-tty run gave no message"
[ ! -s "$E2E_TMP/out" ] || fail "no-tty run wrote to stdout"
pass "without a terminal: a message on stderr, exit 1, nothing on stdout"

echo "runtime_demo: all passed"
