#!/usr/bin/env bash
# End-to-end: the web console on PostgreSQL, two `localcloud serve` nodes behind the shipped nginx
# configuration (node 2 marked `backup`, so the browser's requests reach node 1 through nginx).
# The whole browser run of console_web.py goes through nginx, and then node 2, reached directly
# with the same session cookie, shows the schema change and the edit made on node 1; signing out
# on node 1 ends the session on node 2. Admins live in the database (`admins add --database`). The
# request log is the cluster's: a request made straight to node 2 shows in node 1's live log
# (through nginx) within 2 s, with the node that served it.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/support/serve.sh"
source "$HERE/support/postgres.sh"
source "$HERE/support/nginx.sh"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-console-pg.XXXXXX")"
NODE1_PID=""; NODE2_PID=""; NGINX_PID=""
cleanup() {
  [ -n "$NGINX_PID" ] && { kill -TERM "$NGINX_PID" 2>/dev/null; wait "$NGINX_PID" 2>/dev/null; } || true
  for pid in "$NODE1_PID" "$NODE2_PID"; do [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pg_stop >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT
fail() {
  printf 'FAIL: %s\n' "$*" >&2
  for log in "$TMP"/node*.log "$TMP"/nginx/error.log; do [ -f "$log" ] && { echo "--- $log" >&2; tail -15 "$log" >&2; }; done
  exit 1
}
pass() { printf 'ok - %s\n' "$*"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_until() {
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05  # poll interval
  done
}

command -v "${CHROMIUM:-/usr/bin/chromium}" >/dev/null || fail "chromium is not installed (apt-get install chromium)"
python3 -c 'import playwright' 2>/dev/null || python3 -m pip install -q playwright || fail "cannot install playwright (pip)"
command -v nginx >/dev/null || fail "nginx is not installed"
ensure_localcloud
pg_start || fail "could not start PostgreSQL"
C=iCloud.FoodPin
lc() { "$LOCALCLOUD_BIN" --database "$PG_URL" --container "$C" --data-dir "$TMP/cli" "$@"; }
lc schema import "$SERVE_ROOT/Assets/FoodPin.ckdb" >/dev/null || fail "schema import"
TOKEN="$(lc tokens create --name console-pg)"
printf 'alice-secret' | lc users add alice --password-stdin >/dev/null
printf 'bob-secret' | lc users add bob --password-stdin >/dev/null
ALICE="$(lc users token alice)"
BOB="$(lc users token bob)"
ADMIN_PASSWORD="console-$RANDOM$RANDOM"
printf '%s' "$ADMIN_PASSWORD" | lc admins add root --password-stdin >/dev/null
lc admins list | grep -q '^root ' || fail "admins list (PostgreSQL) does not show root"
[ ! -e "$TMP/cli/console.sqlite" ] || fail "admins add --database wrote console.sqlite instead of PostgreSQL"
pass "admins add/list on PostgreSQL"

PORT1="$(free_port)"; PORT2="$(free_port)"; PORT_LB="$(free_port)"
# start_node N PORT: node N on the shared database (support/serve.sh).
start_node() { serve_node "$TMP" "$1" "$2" "$PG_URL" || fail "node $1 did not start"; }
start_node 1 "$PORT1"
start_node 2 "$PORT2"
NODE1="http://127.0.0.1:$PORT1"; NODE2="http://127.0.0.1:$PORT2"; LB="http://127.0.0.1:$PORT_LB"
mkdir -p "$TMP/nginx"
sed -e "s/127.0.0.1:8080/127.0.0.1:$PORT_LB/" -e "s/127.0.0.1:8081/127.0.0.1:$PORT1/" \
  -e "s/127.0.0.1:8082 max_fails=1 fail_timeout=5s;/127.0.0.1:$PORT2 max_fails=1 fail_timeout=5s backup;/" \
  "$SERVE_ROOT/deploy/nginx/localcloud.conf" > "$TMP/nginx/localcloud.conf"
grep -q "$PORT2 max_fails=1 fail_timeout=5s backup;" "$TMP/nginx/localcloud.conf" || fail "could not mark node 2 as backup"
nginx_prefix "$TMP/nginx" 1 off
nginx -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -g 'daemon off;' 2>"$TMP/nginx/start.log" &
NGINX_PID=$!
signin_page() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$LB/console/signin")" = 200 ]; }
wait_until 30 signin_page || fail "nginx does not answer /console/signin"
pass "two nodes on one PostgreSQL database behind nginx: $LB → $NODE1 (node 2 backup at $NODE2)"

python3 "$SERVE_ROOT/Tests/EndToEnd/support/console_seed.py" "$LB" "$C" "$TOKEN" "$ALICE" || fail "seeding"
CONSOLE_URL="$LB" OTHER_URL="$NODE2" TOKEN="$TOKEN" ALICE="$ALICE" BOB="$BOB" ADMIN=root ADMIN_PASSWORD="$ADMIN_PASSWORD" \
  CONTAINER="$C" timeout 600 python3 "$SERVE_ROOT/Tests/EndToEnd/console_web.py" || fail "console_web.py through nginx"
pass "the browser run on PostgreSQL through nginx; node 2 saw node 1's changes and its sign-out"
