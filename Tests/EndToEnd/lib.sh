# Helpers for terminal end-to-end tests: run foodpin in a detached tmux session and
# poll its screen. Source from a test script that uses `set -euo pipefail`.
#
#   source "$(dirname "$0")/lib.sh"
#   e2e_start -- --data-dir "$E2E_TMP/data"   # foodpin in a 100x30 pane, TERM=xterm-256color
#   wait_for "24 restaurants"   # polls capture-pane every 0.1 s, fails after a timeout
#   send j
#   expect_exit 0               # after the app quits
#
# Every wait polls with a timeout; nothing sleeps a fixed time to "let things settle".

E2E_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
E2E_BIN="${FOODPIN_BIN:-$E2E_ROOT/.build/debug/foodpin}"
E2E_TMP="$(mktemp -d "${TMPDIR:-/tmp}/foodpin-e2e.XXXXXX")"
E2E_SOCKET="foodpin-e2e-$$-$RANDOM"
E2E_SESSION="e2e"
E2E_TIMEOUT="${E2E_TIMEOUT:-30}"  # generous: only a failing wait reaches it, and CI machines are loaded
E2E_FAILED=0
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TMUX TMUX_PANE

e2e_tmux() { tmux -L "$E2E_SOCKET" -f /dev/null "$@"; }

e2e_cleanup() {
  e2e_tmux kill-server >/dev/null 2>&1 || true
  rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$E2E_SOCKET"
  # E2E_KEEP=1 leaves the run's files (logs, data) for a look after a failure.
  if [ -n "${E2E_KEEP:-}" ]; then echo "kept: $E2E_TMP" >&2; else rm -rf "$E2E_TMP"; fi
}
trap e2e_cleanup EXIT
# A command that fails outside `fail` still says where.
trap 'e2e_status=$?; [[ $- != *e* ]] || printf "FAIL: line %s: %s (status %s)\n" "$LINENO" "$BASH_COMMAND" "$e2e_status" >&2' ERR
set -o errtrace

log() { printf '  %s\n' "$*"; }

# Prints the failure, the current screen, and exits non-zero.
fail() {
  printf 'FAIL: %s\n' "$*" >&2
  if e2e_tmux has-session -t "$E2E_SESSION" 2>/dev/null; then
    printf -- '--- screen ---\n' >&2
    e2e_tmux capture-pane -p -t "$E2E_SESSION" >&2 || true
    printf -- '--------------\n' >&2
  fi
  # A script's own diagnostics (server log, a user's outbox), if it defines them.
  if declare -F e2e_on_fail >/dev/null; then e2e_on_fail >&2 || true; fi
  e2e_print_core >&2 || true
  e2e_print_hang >&2 || true
  exit 1
}

# After a failed wait: what the server last answered, the test proxy's connections, and where
# foodpin and the server are stuck, if they are (a wait that times out with nothing on screen
# otherwise leaves no trace of which side stopped).
e2e_print_hang() {
  if [ -n "${SERVE_LOG:-}" ] && [ -f "$SERVE_LOG" ]; then
    printf -- '--- the server'"'"'s last log lines (%s) ---\n' "$(date +%H:%M:%S)"
    tail -15 "$SERVE_LOG" | cut -c1-200
  fi
  [ ! -f "$E2E_TMP/proxy.out" ] || { printf -- '--- the test proxy ---\n'; tail -10 "$E2E_TMP/proxy.out"; }
  command -v gdb >/dev/null || return 0
  local pid pane
  pane="$(e2e_tmux display -p -t "$E2E_SESSION" '#{pane_pid}' 2>/dev/null || true)"
  for pid in $pane $(pgrep -P "${pane:-0}" 2>/dev/null) ${SERVE_PID:-}; do
    [ -r "/proc/$pid/exe" ] || continue
    case "$(readlink "/proc/$pid/exe")" in *foodpin|*localcloud) ;; *) continue ;; esac
    printf -- '--- %s (pid %s): the top of each thread'"'"'s stack ---\n' "$(readlink "/proc/$pid/exe")" "$pid"
    timeout 60 gdb -batch -nx -p "$pid" -ex "thread apply all bt 6" 2>&1 | grep -E '^(Thread|#)' | cut -c1-180 | head -150 || true
  done
}

# The stacks of every thread of an app that crashed under this script (its core file), then the core
# goes: a crash that happens once in many runs must explain itself the first time.
e2e_print_core() {
  local dir core
  dir="$(cat "$E2E_TMP/cwd" 2>/dev/null)" || return 0
  for core in "$dir"/core "$dir"/core.[0-9]*; do
    [ -f "$core" ] || continue
    printf -- '--- %s crashed: the stacks of its threads ---\n' "$E2E_BIN"
    if command -v gdb >/dev/null; then
      timeout 120 gdb -batch -nx -ex "thread apply all bt 40" "$E2E_BIN" "$core" 2>&1 | grep -v '^\[New LWP' || true
    else
      echo "(gdb is not installed: the core was $(du -h "$core" | cut -f1))"
    fi
    rm -f "$core"
  done
}

pass() { printf 'ok - %s\n' "$*"; }

# Builds foodpin if the binary is missing (CI runs `swift build` first).
ensure_binary() {
  if [ ! -x "$E2E_BIN" ]; then
    (cd "$E2E_ROOT" && swift build --product foodpin >&2)
  fi
  [ -x "$E2E_BIN" ] || fail "no foodpin binary at $E2E_BIN"
}

# e2e_start [--term TERM] [--size WxH] [--env NAME=VALUE]... -- foodpin arguments...
# Starts foodpin in a fresh detached session. After foodpin exits, its exit code goes to
# $E2E_TMP/exit and the pane prints "FOODPIN-EXITED" on the restored screen.
e2e_start() {
  local term="xterm-256color" width=100 height=30
  local -a envs=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --term) term="$2"; shift 2 ;;
      --size) width="${2%x*}"; height="${2#*x}"; shift 2 ;;
      --env) envs+=("$2"); shift 2 ;;
      --) shift; break ;;
      *) break ;;
    esac
  done
  ensure_binary
  # A fresh server per run: killing the last session makes the server exit on its own, and a
  # new-session racing that exit fails with "server exited unexpectedly". So stop it and wait.
  local server_pid
  server_pid="$(e2e_tmux display-message -p '#{pid}' 2>/dev/null || true)"
  if [ -n "$server_pid" ]; then
    e2e_tmux kill-server >/dev/null 2>&1 || true
    local deadline=$((SECONDS + 10))
    while kill -0 "$server_pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.02; done  # poll interval
  fi
  rm -f "$E2E_TMP/exit"
  local args="" a
  for a in "$@"; do args+=" $(printf '%q' "$a")"; done
  # A crash must not wait 20 s at the backtracer's "Press space to interact" prompt.
  local envline="TERM=$term LANG=C.UTF-8 LC_ALL=C.UTF-8 SWIFT_BACKTRACE=enable=yes,interactive=no"
  for a in "${envs[@]+"${envs[@]}"}"; do envline+=" $(printf '%q' "$a")"; done
  # The pane then idles (a dead pane may lose its last output) until cleanup kills the server.
  # A crash leaves a core file where the app ran, for `fail` to print its threads' stacks: Swift's
  # own backtracer cannot unwind past libc's abort().
  printf '#!/bin/sh\nulimit -c unlimited 2>/dev/null\npwd > %q\n%s %q%s\necho "EXIT=$?" > %q\necho FOODPIN-EXITED\nexec sleep 3600\n' \
    "$E2E_TMP/cwd" "$envline" "$E2E_BIN" "$args" "$E2E_TMP/exit" > "$E2E_TMP/run.sh"
  # env -u: the app must not see the CI's or the caller's colour/terminal settings.
  # One tmux command list, so remain-on-exit is set before the pane can possibly exit.
  e2e_tmux new-session -d -s "$E2E_SESSION" -x "$width" -y "$height" \
    "env -u NO_COLOR -u COLORTERM -u COLUMNS -u LINES sh $E2E_TMP/run.sh" \; \
    set-option -t "$E2E_SESSION" remain-on-exit on \; \
    set-option -t "$E2E_SESSION" window-size manual </dev/null >/dev/null
}

# The pane's text, one line per row.
capture() { e2e_tmux capture-pane -p -t "$E2E_SESSION"; }

# The pane's text with SGR escape sequences for colours and attributes.
capture_colors() { e2e_tmux capture-pane -e -p -t "$E2E_SESSION"; }

# A tmux format value of the pane, e.g. pane_width, cursor_flag, alternate_on.
pane_value() { e2e_tmux display-message -p -t "$E2E_SESSION" "#{$1}"; }

# wait_until TIMEOUT COMMAND...: runs COMMAND (its output discarded) every 0.05 s until it
# succeeds; returns 1 after TIMEOUT seconds (whole seconds, timed in milliseconds).
wait_until() {
  local deadline_ms=$(( $(date +%s%3N) + $1 * 1000 )); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s%3N)" -lt "$deadline_ms" ] || return 1
    sleep 0.05  # poll interval
  done
}

# poll_until TIMEOUT MESSAGE COMMAND...: runs COMMAND every 0.1 s until it succeeds; after
# TIMEOUT seconds, fails with MESSAGE.
poll_until() {
  local timeout="$1" message="$2"
  shift 2
  local deadline=$(( $(date +%s%N) + timeout * 1000000000 ))
  while [ "$(date +%s%N)" -lt "$deadline" ]; do
    if "$@"; then return 0; fi
    sleep 0.1
  done
  fail "$message"
}

screen_has() { grep -qF -- "$1" <<<"$(capture)"; }
screen_lacks() { ! screen_has "$1"; }
screen_matches() { grep -qE -- "$1" <<<"$(capture)"; }

# wait_for TEXT [timeout-seconds]: polls the screen until TEXT (fixed string) shows.
wait_for() {
  local timeout="${2:-$E2E_TIMEOUT}"
  poll_until "$timeout" "timed out after ${timeout}s waiting for: $1" screen_has "$1"
}

# wait_for_line REGEX [timeout]: like wait_for, with an extended regular expression.
wait_for_line() {
  local timeout="${2:-$E2E_TIMEOUT}"
  poll_until "$timeout" "timed out after ${timeout}s waiting for a line matching: $1" screen_matches "$1"
}

# wait_gone TEXT [timeout]: polls until TEXT is no longer on screen.
wait_gone() {
  local timeout="${2:-$E2E_TIMEOUT}"
  poll_until "$timeout" "timed out after ${timeout}s waiting for this to go away: $1" screen_lacks "$1"
}

# send KEY...: tmux key names (j, Down, Enter, C-c, PageDown, ...).
send() { e2e_tmux send-keys -t "$E2E_SESSION" "$@"; }

# send_text TEXT: types TEXT literally.
send_text() { e2e_tmux send-keys -t "$E2E_SESSION" -l -- "$1"; }

# send_wheel up|down [column row]: an SGR (1006) mouse wheel event, as xterm sends it.
send_wheel() {
  local button=64
  [ "$1" = down ] && button=65
  send_text $'\e'"[<${button};${2:-10};${3:-5}M"
}

# resize_to W H: resizes the detached window and waits until the pane has that size.
resize_to() {
  e2e_tmux resize-window -t "$E2E_SESSION" -x "$1" -y "$2"
  poll_until "$E2E_TIMEOUT" "the pane did not become $1x$2" pane_has_size "$1" "$2"
}
pane_has_size() { [ "$(pane_value pane_width)x$(pane_value pane_height)" = "$1x$2" ]; }

# wait_exit [timeout]: waits for foodpin to exit and prints its exit code.
wait_exit() {
  local timeout="${1:-$E2E_TIMEOUT}"
  poll_until "$timeout" "foodpin did not exit within ${timeout}s" test -s "$E2E_TMP/exit"
  sed -n 's/^EXIT=//p' "$E2E_TMP/exit"
}

# expect_exit CODE [timeout]: foodpin exits with CODE and leaves the terminal restored:
# main screen back, cursor visible, mouse reporting off, and the shell's marker printed.
expect_exit() {
  local code
  code="$(wait_exit "${2:-$E2E_TIMEOUT}")"
  [ "$code" = "$1" ] || fail "exit code $code, expected $1"
  wait_for FOODPIN-EXITED
  [ "$(pane_value alternate_on)" = 0 ] || fail "still on the alternate screen after exit"
  [ "$(pane_value cursor_flag)" = 1 ] || fail "cursor still hidden after exit"
  [ "$(pane_value mouse_any_flag)" = 0 ] || fail "mouse reporting still on after exit"
}

# The foodpin process in the pane (the child of the pane's shell), for signal tests.
app_pid() {
  local shell_pid
  shell_pid="$(pane_value pane_pid)"
  ps -o pid= --ppid "$shell_pid" | tr -d ' ' | head -n 1
}

# display_column LINE-PATTERN TEXT: the 0-based terminal column where TEXT starts on the
# first line matching LINE-PATTERN, counting East Asian wide characters as two columns.
display_column() {
  local screen
  screen="$(capture)"
  { grep -m1 -E -- "$1" <<<"$screen" || true; } | TEXT="$2" perl -CSD -Mutf8 -ne '
    END { print "-1\n" unless $. }
    my $text = $ENV{TEXT}; utf8::decode($text);
    my $i = index($_, $text); if ($i < 0) { print "-1\n"; exit }
    my $prefix = substr($_, 0, $i);
    my $wide = () = $prefix =~ /[\p{Ea=W}\p{Ea=F}]/g;
    print length($prefix) + $wide, "\n";'
}
