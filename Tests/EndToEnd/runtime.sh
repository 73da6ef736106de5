#!/usr/bin/env bash
# The terminal runtime, proved on the real app (`foodpin` on a temp store seeded with the samples)
# under tmux: a spinner that animates while the first page loads and rows that arrive with no
# keypress; an idle loop that sleeps; keys (navigation, the mouse wheel, and in the add form Enter,
# Tab, Shift-Tab, Backspace, Delete, Home/End, Esc, an F-key, Ctrl-letters and UTF-8); wide
# characters; control characters; colours per terminal; resizing and too small; exit codes,
# signals and a fatal signal; an unknown TERM; no terminal; and the terminal restored afterwards.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

DATA="$E2E_TMP/data"
ensure_binary

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
# Whether the colour capture turns on reverse video (SGR 7) anywhere.
has_reverse() { capture_colors | perl -ne '$f = 1 if /\e\[(?:[0-9]*;)*7(?:;[0-9]*)*m/; END { exit !$f }'; }

# The selected restaurant's name: the first row line marked ▌, after its 10 columns of thumbnail.
selected_name() { capture | grep -m1 '^▌' | perl -CSD -ne 'chomp; print substr($_, 10), "\n"' || true; }
selected_is() { [ "$(selected_name)" = "$1" ]; }
wait_selected() { poll_until "$E2E_TIMEOUT" "expected \"$1\" selected, got \"$(selected_name)\"" selected_is "$1"; }
# A form field's text: the line labelled $1 (after the focus marker), without the label.
field() { capture | grep -m1 -E "^.$1 " | perl -CSD -ne 'chomp; s/^.\S+ +//; s/ +$//; print "$_\n"' || true; }
field_is() { [ "$(field "$1")" = "$2" ]; }
wait_field() { poll_until "$E2E_TIMEOUT" "expected $1 \"$2\", got \"$(field "$1")\"" field_is "$1" "$2"; }

echo "=== first run: the spinner while the samples are seeded (LOCALCLOUD_LATENCY_MS=800)"
e2e_start --env LOCALCLOUD_USER=alice --env LOCALCLOUD_LATENCY_MS=800 -- --data-dir "$DATA"
wait_for_line '^ [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Loading restaurants…' 30
first_frame="$(grep -m1 -o '^ [^ ] Loading' <<<"$(capture)" || true)"
deadline=$(( $(date +%s%N) + 2000000000 ))
while [ "$(grep -m1 -o '^ [^ ] Loading' <<<"$(capture)" || true)" = "$first_frame" ]; do
  [ "$(date +%s%N)" -lt "$deadline" ] || fail "the spinner does not animate"
  sleep 0.02
done
pass "the spinner shows and animates (ticks) while loading"
wait_for "24 restaurants" 40
pass "rows arrive from a background message, with no keypress"
send q
expect_exit 0

# Rows that test drawing: wide characters, a raw ESC (sanitized to ␛) and a soft hyphen (a format
# character the renderer draws as ?). They are the three newest, above the 24 samples.
add() { LOCALCLOUD_USER=alice "$E2E_BIN" add --data-dir "$DATA" "$@" >/dev/null; }
add --name $'Escape \e[31mX' --type Bar --location Oslo
add --name "Wide Row" --type "🍜東京ラーメン" --location Kyoto
add --name $'Soft\u00adHyphen' --type Cafe --location Lima
# The names as the screen shows them, newest first.
mapfile -t names < <("$E2E_BIN" list --data-dir "$DATA" --json | python3 -c '
import json, sys
for r in json.load(sys.stdin): print(r["name"].replace("\u00ad", "?").replace("\x1b", "\u241b"))')
[ "${#names[@]}" = 27 ] || fail "expected 27 restaurants, found ${#names[@]}"

echo "=== the Discover screen, TERM=xterm-256color, 100x30"
e2e_start --env LOCALCLOUD_USER=alice -- --data-dir "$DATA"
wait_for "27 restaurants" 30
wait_selected "${names[0]}"

# Idle means asleep in poll(): once the thumbnails are in, the UI thread does not wake at all.
pid="$(app_pid)"
switches() { sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "/proc/$pid/status"; }
quiet_half_second() {
  local before after
  before="$(switches)"
  sleep 0.5  # a measuring window, not a wait for readiness
  after="$(switches)"
  [ $(( after - before )) -le 1 ]
}
poll_until 20 "the UI thread never stayed asleep for 0.5 s" quiet_half_second
pass "the idle loop sleeps (no busy polling, no ticks once loaded)"

send j;        wait_selected "${names[1]}"
send Down;     wait_selected "${names[2]}"
send k;        wait_selected "${names[1]}"
send G;        wait_selected "${names[26]}"
send g;        wait_selected "${names[0]}"
send End;      wait_selected "${names[26]}"
send Home;     wait_selected "${names[0]}"
send PageDown; wait_selected "${names[8]}"   # 9 rows fit: a page moves 8
send PageUp;   wait_selected "${names[0]}"
pass "j/k, arrows, g/G, Home/End and PgUp/PgDn move the selection"
send_wheel down; wait_selected "${names[1]}"
send_wheel up;   wait_selected "${names[0]}"
pass "the mouse wheel scrolls"

send Enter; wait_for "Location: Lima"
send Escape; wait_selected "${names[0]}"
pass "Enter opens the detail view and Esc returns to the list"

column="$(display_column "🍜東京ラーメン" "· Kyoto")"
[ "$column" = 25 ] || fail "after an emoji and six CJK characters (14 columns from column 10), \"· Kyoto\" starts at $column, expected 25"
wait_for "拉麵 一番"
pass "CJK and emoji keep their width: the text after them lines up"

wait_for "Escape ␛[31mX"
if grep -q $'\e\\[31mX' <<<"$(capture_colors)"; then fail "a raw ESC from a record reached the terminal"; fi
wait_for "Soft?Hyphen"
pass "a control character in a record is drawn as ␛; a character the terminal cannot draw as ?"

codes="$(color_codes)"
for code in "48;5;24" "38;5;214" "48;5;237" "38;5;245"; do  # title bar, selection marker and background, dim text
  grep -qx -- "$code" <<<"$codes" || fail "no $code in the colour capture: $(echo $codes)"
done
[ "$(grep -c '^[34]8;5;' <<<"$codes")" -ge 12 ] || fail "few 256-colour codes (thumbnails?): $(echo $codes)"
pass "256-colour cells (theme and thumbnails) show with capture-pane -e"

echo "=== keys in the add form"
send a; wait_for "New Restaurant"
send_text "é"; send_text "東"; wait_field Name "é東"
send BSpace;                      wait_field Name "é"
send_text "xyz"; send Left Left; send DC; wait_field Name "éxz"
send C-a; send_text "Z";          wait_field Name "Zéxz"
# An F-key that decoded wrongly would arrive as Esc (the discard prompt) and "[15~" typed.
send F5; send_text "!";           wait_field Name "Z!éxz"
send Tab; send_text "Thai";       wait_field Type "Thai"
send BTab; send End; send_text "?"; wait_field Name "Z!éxz?"
send Tab Enter; send_text "Lyon"; wait_field Location "Lyon"
send Escape; wait_for_line "(Discard|discard)"
send n; wait_gone "iscard"
wait_field Name "Z!éxz?"
send C-s
wait_for "28 restaurants" 30
wait_gone "New Restaurant"
wait_selected "Z!éxz?"
saved="$("$E2E_BIN" list --data-dir "$DATA" --json --limit 1 | python3 -c '
import json, sys; r = json.load(sys.stdin)[0]; print(r["name"], r["type"], r["location"], sep="|")')"
[ "$saved" = "Z!éxz?|Thai|Lyon" ] || fail "saved: $saved"
pass "Enter, Tab, Shift-Tab, Backspace, Delete, Home/End, Esc, F5, Ctrl-A, Ctrl-S and UTF-8 decode (the form saved what was typed)"

echo "=== resizing"
resize_to 40 12
wait_for_line '^ FoodPin' 30
[ "$(capture | wc -l)" -eq 12 ] || fail "expected 12 rows at 40x12"
[ "$(capture | wc -L)" -le 40 ] || fail "lines wider than 40 columns at 40x12"
wait_selected "Z!éxz?"
pass "a resize to 40x12 re-lays out"
resize_to 39 12
wait_for "Terminal too small (need 40×10)"
wait_for "now 39×12"
resize_to 40 9
wait_for "now 40×9"
pass "a terminal below 40x10 gets a message"
resize_to 100 30
wait_gone "Terminal too small"
wait_for "28 restaurants"
wait_selected "Z!éxz?"
wait_for "${names[7]}"
pass "resizing back redraws everything, the selection kept"

send q
expect_exit 0
if grep -q "Café Déjà Vu" <<<"$(capture)"; then fail "the screen is still showing after exit"; fi
pass "q exits 0 and restores the terminal"

echo "=== TERM=xterm-mono, NO_COLOR=1"
e2e_start --term xterm-mono --env NO_COLOR=1 --env LOCALCLOUD_USER=alice -- --data-dir "$DATA"
wait_for "28 restaurants" 30
send j; wait_selected "${names[0]}"
codes="$(color_codes)"
[ -z "$codes" ] || fail "colour codes under xterm-mono/NO_COLOR: $(echo $codes)"
has_reverse || fail "no reverse video (the title and selection) in mono"
column="$(display_column "🍜東京ラーメン" "· Kyoto")"
[ "$column" = 25 ] || fail "CJK row misaligned under xterm-mono ($column)"
send End; wait_selected "${names[26]}"
send Home; wait_selected "Z!éxz?"
send q
expect_exit 0
pass "mono: attributes only, no colour, keys work, exits 0"

echo "=== TERM=xterm-256color, NO_COLOR=1, then --color 256 overriding it"
e2e_start --env NO_COLOR=1 --env LOCALCLOUD_USER=alice -- --data-dir "$DATA"
wait_for "28 restaurants" 30
[ -z "$(color_codes)" ] || fail "NO_COLOR ignored: $(echo $(color_codes))"
send q; expect_exit 0
e2e_start --env NO_COLOR=1 --env LOCALCLOUD_USER=alice -- --data-dir "$DATA" --color 256
wait_for "28 restaurants" 30
grep -qx "48;5;237" <<<"$(color_codes)" || fail "--color 256 did not override NO_COLOR"
send q; expect_exit 0
pass "NO_COLOR is honoured and an explicit --color wins"

echo "=== TERM=xterm (8 colours)"
e2e_start --term xterm --env LOCALCLOUD_USER=alice -- --data-dir "$DATA"
wait_for "28 restaurants" 30
codes="$(color_codes)"
if grep -q ";5;" <<<"$codes"; then fail "256-colour codes under TERM=xterm: $(echo $codes)"; fi
grep -qx 44 <<<"$codes" || fail "the title bar (256-colour 24) is not basic blue 44 under TERM=xterm: $(echo $codes)"
[ "$(wc -l <<<"$codes")" -ge 4 ] || fail "few basic colours under TERM=xterm: $(echo $codes)"
send End; wait_selected "${names[26]}"
send q
expect_exit 0
pass "8 colours: nearest basic colours, exits 0"

echo "=== exit codes and signals"
for pair in "INT:130" "TERM:143" "HUP:129"; do
  e2e_start --env LOCALCLOUD_USER=alice -- --data-dir "$DATA"
  wait_for "28 restaurants" 30
  kill "-${pair%%:*}" "$(app_pid)"
  expect_exit "${pair#*:}"
done
pass "SIGINT, SIGTERM and SIGHUP quit with 130, 143 and 129 and restore the terminal"

# A fatal signal restores the terminal before the process dies of it.
e2e_start --env LOCALCLOUD_USER=alice --env SWIFT_BACKTRACE=interactive=no -- --data-dir "$DATA"
wait_for "28 restaurants" 30
kill -SEGV "$(app_pid)"
code="$(wait_exit 30)"
[ "$code" = 139 ] || fail "SIGSEGV exited $code, expected death by the signal (139)"
wait_for FOODPIN-EXITED
[ "$(pane_value alternate_on)" = 0 ] || fail "still on the alternate screen after SIGSEGV"
[ "$(pane_value cursor_flag)" = 1 ] || fail "cursor still hidden after SIGSEGV"
[ "$(pane_value mouse_any_flag)" = 0 ] || fail "mouse reporting still on after SIGSEGV"
pass "a fatal signal restores the terminal, and the process dies of it (exit $code)"

# Issue 13: a TERM with no terminfo entry falls back to xterm-256color with a one-line notice
# (kitty's xterm-kitty over SSH is the classic case), instead of failing to start.
e2e_start --term no-such-terminal --env LOCALCLOUD_USER=alice -- --data-dir "$DATA"
wait_for "28 restaurants" 30
send q
expect_exit 0
wait_for "foodpin: TERM=no-such-terminal has no terminfo entry here; using xterm-256color"
pass "an unknown TERM falls back to xterm-256color with a notice"

echo "=== without a terminal"
set +e
LOCALCLOUD_USER=alice "$E2E_BIN" --data-dir "$DATA" </dev/null >"$E2E_TMP/out" 2>"$E2E_TMP/err"
code=$?
set -e
[ "$code" = 1 ] || fail "no-tty run exited $code, expected 1"
grep -q "needs a terminal" "$E2E_TMP/err" || fail "no-tty run gave no message"
[ ! -s "$E2E_TMP/out" ] || fail "no-tty run wrote to stdout"
pass "without a terminal: a message on stderr, exit 1, nothing on stdout"

echo "runtime: all passed"
