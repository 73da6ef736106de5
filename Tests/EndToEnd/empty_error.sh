#!/usr/bin/env bash
# Issue 24, "an error with no message": `foodpin list --json --limit 100000` once printed
# `foodpin list: ` and nothing after it (exit 1). The cause: a server that cannot be reached
# (a refused connection: curl's COULDNT_CONNECT, LocalCloud's networkUnavailable) was mapped to an
# "offline" error with an empty message, which the screen's banner shows as "offline · N cached"
# but the CLI printed as nothing. Every failure line must say what happened.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_binary

# A loopback port nobody listens on (bound and released: connecting to it is refused).
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
remote() {
  LOCALCLOUD_HOME="$E2E_TMP/home" LOCALCLOUD_URL="http://127.0.0.1:$PORT" LOCALCLOUD_API_TOKEN=e2e-token \
    LOCALCLOUD_USER= "$E2E_BIN" "$@" </dev/null
}
says_something() {  # says_something PREFIX FILE: one line "PREFIX: <text>" with text after the prefix
  local line
  line="$(head -1 "$2")"
  [[ "$line" == "$1: "* ]] || fail "expected '$1: …' on stderr, got: $(cat "$2")"
  [ -n "$(tr -d '[:space:]' <<<"${line#"$1: "}")" ] || fail "'$1' printed an empty error: '$line'"
  log "$line"
}

echo "=== foodpin list against a server that refuses the connection"
status=0
remote list --json --limit 100000 >"$E2E_TMP/out" 2>"$E2E_TMP/err" || status=$?
[ "$status" = 1 ] || fail "list exited $status, not 1"
says_something "foodpin list" "$E2E_TMP/err"
grep -q "Cannot reach 127.0.0.1:$PORT" "$E2E_TMP/err" || fail "the error does not name the server: $(cat "$E2E_TMP/err")"
pass "foodpin list --json --limit 100000 says it cannot reach the server"

status=0
remote list --limit 50 >"$E2E_TMP/out" 2>"$E2E_TMP/err" || status=$?
[ "$status" = 1 ] || fail "list --limit 50 exited $status, not 1"
says_something "foodpin list" "$E2E_TMP/err"
pass "and so does --limit 50"

echo "=== foodpin add --no-queue against the same server"
status=0
LOCALCLOUD_WEB_AUTH_TOKEN=e2e remote add --no-queue --name "Nowhere" --type Test --location Here >"$E2E_TMP/out" 2>"$E2E_TMP/err" || status=$?
[ "$status" != 0 ] || fail "add --no-queue succeeded without a server"
says_something "foodpin add" "$E2E_TMP/err"
pass "foodpin add --no-queue says why it failed"
