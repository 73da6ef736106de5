#!/usr/bin/env bash
# FoodPin on a server from a machine whose clock is off, for real: alice's foodpin processes run
# with their wall clock moved (support/clock_offset.c through LD_PRELOAD: every clock_gettime,
# gettimeofday and time of the process; her screen 5 h ahead, her `foodpin add` 3 h behind);
# the server and bob keep the right time.
# - alice's status line names the server and says "clock 5 h ahead"; nothing else changes;
# - bob's add raises alice's banner within 2 s, and `r` shows it "added just now" (the server's time);
# - with the server killed, alice's `foodpin add` (3 h behind) queues; when the server is back her
#   open screen uploads it once, and it shows at the top, "just now", for bob and for her.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/support/serve.sh"
ensure_binary
ensure_localcloud

CLOCK_SHIM="$E2E_TMP/clock_offset.so"
cc -shared -fPIC -o "$CLOCK_SHIM" "$E2E_ROOT/Tests/EndToEnd/support/clock_offset.c" -ldl || fail "could not build the clock shim"

SERVER="$E2E_TMP/server"
ALICE="$E2E_TMP/alice"
BOB="$E2E_TMP/bob"
mkdir -p "$SERVER" "$ALICE/config" "$BOB/config"
trap 'serve_kill; e2e_cleanup' EXIT

as_alice() { env LOCALCLOUD_HOME="$ALICE/data" XDG_CONFIG_HOME="$ALICE/config" "$@"; }
as_bob() { env LOCALCLOUD_HOME="$BOB/data" XDG_CONFIG_HOME="$BOB/config" "$@"; }
# Alice's processes with her wall clock moved by $1 seconds.
alice_at() { local offset="$1"; shift; as_alice env LD_PRELOAD="$CLOCK_SHIM" E2E_CLOCK_OFFSET="$offset" "$@"; }
AHEAD=$((5 * 3600))
BEHIND=$((-3 * 3600))

echo "=== remote, a clock that is off"
[ "$(alice_at $AHEAD date -u +%H)" != "$(date -u +%H)" ] || fail "the shim did not move the clock"
serve_foodpin "$SERVER"
echo "alice-secret" | alice_at $AHEAD "$E2E_BIN" login "$SERVE_URL" --api-token "$TOKEN" --user alice --password-stdin 2>/dev/null \
  || fail "alice could not sign in with her clock 5 h ahead"
echo "bob-secret" | as_bob "$E2E_BIN" login "$SERVE_URL" --api-token "$TOKEN" --user bob --password-stdin 2>/dev/null
pass "foodpin login works with the clock 5 h ahead"

as_bob "$E2E_BIN" add --name "Bob's Early" --type Cafe --location Lyon >/dev/null
e2e_start --env LOCALCLOUD_HOME="$ALICE/data" --env XDG_CONFIG_HOME="$ALICE/config" \
  --env LD_PRELOAD="$CLOCK_SHIM" --env E2E_CLOCK_OFFSET=$AHEAD -- --images none
wait_for "Bob's Early" 30
wait_for_line "127\.0\.0\.1 · clock 5 h ahead *$" 10
screen_has "added just now by bob" || fail "bob's restaurant does not read 'just now' on alice's screen"
pass "alice's status line says 'clock 5 h ahead'; bob's restaurant reads 'added just now' (the server's time)"

added=$(date +%s%N)
as_bob "$E2E_BIN" add --name "Bob's Live" --type Cafe --location Lyon >/dev/null
wait_for "1 new restaurant — press r" 10
elapsed_ms=$(( ($(date +%s%N) - added) / 1000000 ))
[ "$elapsed_ms" -le 2000 ] || fail "the banner took ${elapsed_ms} ms (at most 2000)"
send r
wait_for "Bob's Live" 10
pass "live updates are not slowed by the clock: the banner ${elapsed_ms} ms after bob's add starts"

serve_kill
send r
wait_for "offline · 2 cached" 20
status=0
alice_at $BEHIND "$E2E_BIN" add --name "Alice Skewed" --type Bistro --location Nantes >/dev/null 2>"$E2E_TMP/queued.err" || status=$?
[ "$status" = 0 ] || fail "alice's offline add with her clock 3 h behind exited $status: $(cat "$E2E_TMP/queued.err")"
grep -q "^queued: Alice Skewed" "$E2E_TMP/queued.err" || fail "unexpected output: $(cat "$E2E_TMP/queued.err")"
pass "offline, with the clock 3 h behind, foodpin add queues (exit 0)"

serve_start "$SERVER" --port "$PORT"
send r
wait_gone "offline" 20
bob_has_it() { as_bob "$E2E_BIN" list --json >"$E2E_TMP/bob.json" 2>/dev/null && grep -q "Alice Skewed" "$E2E_TMP/bob.json"; }
poll_until 30 "alice's queued add did not upload" bob_has_it
python3 - "$E2E_TMP/bob.json" <<'PY' || fail "alice's add is not on bob's list once, newest first"
import json, sys
rows = json.load(open(sys.argv[1]))
names = [r["name"] for r in rows]
assert names.count("Alice Skewed") == 1, names
assert names[0] == "Alice Skewed", names
PY
send r
wait_for "Alice Skewed" 10
wait_gone "waiting to upload" 10
capture | grep -A2 "Alice Skewed" | grep -q "added just now by alice" || fail "alice's uploaded add does not read 'just now'"
pass "the queued add uploads once when the server is back, newest first, 'added just now' on alice's screen"

send q
expect_exit 0
serve_stop
