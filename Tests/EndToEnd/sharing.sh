#!/usr/bin/env bash
# Lists you share with friends, under tmux, in one of three modes (sharing.sh MODE):
#   embedded  everyone on the machine shares one data directory (a user is LOCALCLOUD_USER);
#   server    one `localcloud serve` on a data directory, alice, bob and carol each on their own
#             data directory, signed in with `foodpin login` (bob through a proxy he can lose);
#   postgres  the same, the server on a private PostgreSQL cluster.
# sharing_server.sh and sharing_postgres.sh run the two server modes, so CI runs all three.
# 1. alice saves three restaurants to "Friday" and shares it with bob, read-write (the URL printed);
# 2. bob accepts the URL: `foodpin lists` shows it; his screen shows the list with thumbnails; he
#    adds one entry with `s` on Discover;
# 3. alice's screen, open on Friday, shows a live banner for bob's entry with no key pressed, and
#    `r` shows the entry;
# 4. alice shares it with carol read-only: carol reads it, her write is refused (one line, exit 1),
#    and `d` on her screen is refused in one line;
# 5. alice removes bob: his next refresh shows the list gone, and his write to it is refused. On a
#    server, bob first loses his network and saves to Friday (queued); alice removes him; back
#    online, the queued write is refused with a clear message that `foodpin save` and his screen
#    show, and it stays in his outbox, marked, never dropped in silence; his cached lists showed
#    while he was offline.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"
MODE="${1:-embedded}"
case "$MODE" in embedded|server|postgres) ;; *) echo "usage: sharing.sh [embedded|server|postgres]" >&2; exit 2 ;; esac
ensure_binary

source "$HERE/support/proxy.sh"
if [ "$MODE" = embedded ]; then
  export LOCALCLOUD_HOME="$E2E_TMP/data"
  # user_env USER: the environment foodpin runs in as USER.
  user_env() { USER_ENV=("LOCALCLOUD_USER=$1"); }
  RAMEN="sample-ramen-ichiban"   # a sample, by its record name
  SHARE_URL_PREFIX="localcloud://share/"
  # Everyone's account is their user name; `localcloud users add --email` on the shared data
  # directory registers an email address that finds it (carol is shared with by hers).
  source "$HERE/support/serve.sh"
  ensure_localcloud
  printf '%s' "carol-secret" | "$LOCALCLOUD_BIN" users add carol --password-stdin --email carol@example.com >/dev/null \
    || fail "localcloud users add carol --email on the embedded data directory"
  CAROL="Carol@Example.com"   # found by her email address (the data directory's accounts)
else
  source "$HERE/support/serve.sh"
  ensure_localcloud
  [ "$MODE" = postgres ] && source "$HERE/support/postgres.sh"
  trap 'proxy_stop; serve_kill; [ "$MODE" != postgres ] || pg_stop >/dev/null 2>&1 || true; e2e_cleanup' EXIT
  show_log() { [ -z "${SERVE_LOG:-}" ] || { echo "--- server log" >&2; tail -20 "$SERVE_LOG" >&2; }; }
  trap show_log ERR
  SERVER_ARGS=(--data-dir "$E2E_TMP/server")
  if [ "$MODE" = postgres ]; then
    pg_start || fail "could not start PostgreSQL"
    SERVER_ARGS=(--database "$PG_URL")
  fi
  lc() { "$LOCALCLOUD_BIN" "${SERVER_ARGS[@]}" "$@"; }
  lc schema import "$E2E_ROOT/Assets/FoodPin.ckdb" >/dev/null || fail "schema import"
  for u in alice bob carol; do printf '%s' "$u-secret" | lc users add "$u" --password-stdin --email "$u@example.com" >/dev/null; done
  status=0; printf 'x' | lc users add dave --password-stdin --email "not an address" >/dev/null 2>"$E2E_TMP/err" || status=$?
  [ "$status" != 0 ] && grep -q "Invalid email address" "$E2E_TMP/err" || fail "a bad --email: status $status, $(cat "$E2E_TMP/err")"
  lc users list --json | python3 -c 'import json,sys; d={u["name"]: u.get("email") for u in json.load(sys.stdin)}; assert d == {"alice": "alice@example.com", "bob": "bob@example.com", "carol": "carol@example.com"}, d' \
    || fail "users list: $(lc users list)"
  TOKEN="$(lc tokens create)"
  if [ "$MODE" = postgres ]; then serve_start "$E2E_TMP/server" --database "$PG_URL"; else serve_start "$E2E_TMP/server"; fi
  PORT="${SERVE_URL##*:}"
  # Bob reaches the server through a proxy: killing it is his network going down.
  proxy_start
  user_env() { USER_ENV=("LOCALCLOUD_HOME=$E2E_TMP/$1/data" "XDG_CONFIG_HOME=$E2E_TMP/$1/config"); }
  for u in alice bob carol; do
    mkdir -p "$E2E_TMP/$u/config"
    url="$SERVE_URL"; [ "$u" = bob ] && url="http://127.0.0.1:$PROXY_PORT"
    user_env "$u"
    printf '%s\n' "$u-secret" | env -u LOCALCLOUD_USER "${USER_ENV[@]}" "$E2E_BIN" login "$url" --api-token "$TOKEN" \
      --user "$u" --password-stdin >/dev/null 2>"$E2E_TMP/login.err" || fail "$u's foodpin login: $(cat "$E2E_TMP/login.err")"
  done
  RAMEN="拉麵 一番"
  SHARE_URL_PREFIX="$SERVE_URL/share/"
  CAROL="Carol@Example.com"   # found by her email address (users/lookup/email)
  # The restaurants the script uses, with their photos, added by alice through the server.
  python3 - "$E2E_ROOT/Assets/Restaurants/restaurants.json" >"$E2E_TMP/samples.tsv" <<'PY'
import json, sys
# Oldest first: Discover shows the newest first, so the list's first three lead and bob's `s` takes
# the fourth, Trattoria Bella Vista.
wanted = ["Addis Injera", "Pizzeria Napoli", "Green Bowl", "Trattoria Bella Vista", "Sushi Kaze", "拉麵 一番", "Café Déjà Vu"]
samples = {r["name"]: r for r in json.load(open(sys.argv[1]))}
for name in wanted:
    r = samples[name]
    print("\t".join([r["name"], r["type"], r["location"], r["image"]]))
PY
  user_env alice
  while IFS=$'\t' read -r name type location image; do
    env -u LOCALCLOUD_USER "${USER_ENV[@]}" "$E2E_BIN" add --name "$name" --type "$type" --location "$location" \
      --image "$E2E_ROOT/Assets/Restaurants/$image" >/dev/null || fail "alice could not add $name"
  done <"$E2E_TMP/samples.tsv"
  pass "$MODE: one server at $SERVE_URL; alice, bob (through a proxy) and carol signed in on their own data directories"
fi
as() { local user="$1"; shift; user_env "$user"; env -u LOCALCLOUD_USER "${USER_ENV[@]}" "$E2E_BIN" "$@"; }
if [ "$MODE" != embedded ]; then
  # On a failure: the server's log and what bob's outbox holds.
  e2e_on_fail() {
    show_log
    echo "--- bob: foodpin lists"
    user_env bob
    timeout 20 env -u LOCALCLOUD_USER "${USER_ENV[@]}" "$E2E_BIN" lists 2>&1 | tail -8
  }
fi
# start_as USER: foodpin's screen as USER.
start_as() {
  user_env "$1"
  local -a envs=()
  for e in "${USER_ENV[@]}"; do envs+=(--env "$e"); done
  e2e_start "${envs[@]}" -- --images symbols
}

# Colours in the cells left of a row's name: a thumbnail drawn as symbols has several.
thumb_colors() {
  capture_colors | grep -m1 -- "$1" | NAME="$1" perl -CSD -Mutf8 -ne 'my $n = $ENV{NAME}; utf8::decode($n);
    my $i = index($_, $n); $_ = substr($_, 0, $i) if $i > 0;
    my %c; while (/\e\[([0-9;]*)m/g) { my $p = $1; while ($p =~ /(?:38|48);5;(\d+)/g) { $c{$1} = 1 } }
    delete @c{214, 237, 245};
    print scalar(keys %c), "\n"'
}
has_thumbnail() { [ "$(thumb_colors "$1")" -ge 2 ]; }

echo "=== sharing: alice saves and shares"
as alice list --limit 1 >/dev/null   # seeds the samples
for r in "Café Déjà Vu" "$RAMEN" "Sushi Kaze"; do
  as alice save "$r" --to Friday >/dev/null
done
as alice lists --json >"$E2E_TMP/alice.json"
python3 - "$E2E_TMP/alice.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d == {"mine": [{"name": "Friday", "count": 3, "sharedWith": []}], "sharedWithMe": []}, d
PY
URL="$(as alice share Friday --with bob)"
[[ "$URL" == "$SHARE_URL_PREFIX"* ]] || fail "share printed no URL: $URL"
as alice lists | grep -qx "Friday · 3 restaurants · shared with bob" || fail "alice's lists: $(as alice lists)"
pass "alice saved three restaurants to Friday and shared it with bob: $URL"

echo "=== sharing: bob accepts"
status=0; as bob accept "${SHARE_URL_PREFIX}AAAAAAAAAAAAAAAAAAAAAA" 2>"$E2E_TMP/err" || status=$?
[ "$status" = 1 ] && [ "$(wc -l <"$E2E_TMP/err")" = 1 ] && grep -q "^foodpin accept: ." "$E2E_TMP/err" \
  || fail "an unknown share URL: status $status, $(cat "$E2E_TMP/err")"
[ "$(as bob accept "$URL")" = "accepted Friday" ] || fail "bob could not accept"
as bob lists --json >"$E2E_TMP/bob.json"
python3 - "$E2E_TMP/bob.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d == {"mine": [], "sharedWithMe": [{"name": "Friday", "owner": "alice", "count": 3, "permission": "read-write"}]}, d
PY
pass "an unknown URL is refused in one line; bob accepted: Friday by alice, 3, read-write"

start_as bob
wait_for "restaurants"
send l
wait_for "Shared with me"
wait_for_line "Friday +by alice · 3 restaurants · read-write"
send Enter
wait_for "FoodPin · Friday · by alice · read-write"
wait_for "Sushi Kaze"
poll_until 20 "the entries' thumbnails did not draw" has_thumbnail "Café Déjà Vu"
poll_until 20 "the entries' thumbnails did not draw" has_thumbnail "Sushi Kaze"
pass "bob's screen shows Friday under Shared with me, and its entries with thumbnails"
send Escape; wait_for "Shared with me"
send Escape; wait_for "FoodPin · Discover"
# The fourth row: the first three are on the list already.
FOURTH="$(as bob list --limit 4 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[3]["name"])')"
send g; send j; send j; send j; send s
wait_for "to:"
wait_for "Friday"
send Enter
wait_for "Saved to “Friday”"
as alice lists | grep -qx "Friday · 4 restaurants · shared with bob" || fail "alice's lists: $(as alice lists)"
send q; expect_exit 0
pass "bob saved “$FOURTH” to alice's Friday with s"

echo "=== sharing: alice's screen learns of bob's changes"
as bob save "Green Bowl" --to Friday >/dev/null
start_as alice
wait_for "restaurants"
send l
wait_for_line "Friday +5 restaurants · shared with bob"
send Enter
wait_for "Green Bowl"
wait_for "saved"
as bob save "Pizzeria Napoli" --to Friday >/dev/null
wait_for "1 change by others — press r"
screen_lacks "Pizzeria Napoli" || fail "the entry showed before r"
send r
wait_for "Pizzeria Napoli"
screen_has "by bob" || fail "bob's entry does not say who saved it"
pass "alice's open list raised the live banner for bob's entry with no key, and r shows it"
send q; send q; wait_for "FoodPin · Discover"; send q; expect_exit 0

echo "=== sharing: carol reads, read-only"
status=0; as alice share Friday --with nobody@example.com >/dev/null 2>"$E2E_TMP/err" || status=$?
[ "$status" = 1 ] && [ "$(wc -l <"$E2E_TMP/err")" = 1 ] && grep -q "^foodpin share: .*nobody@example.com" "$E2E_TMP/err" \
  || fail "an unknown email address: status $status, $(cat "$E2E_TMP/err")"
CAROL_URL="$(as alice share Friday --with "$CAROL" --read-only)"
as carol accept "$CAROL_URL" >/dev/null
as carol lists | grep -qx "Friday · by alice · 6 restaurants · read-only" || fail "carol's lists: $(as carol lists)"
status=0; as carol save "Addis Injera" --to Friday >/dev/null 2>"$E2E_TMP/err" || status=$?
[ "$status" = 1 ] && [ "$(wc -l <"$E2E_TMP/err")" = 1 ] && grep -q "^foodpin save: Permission Failure" "$E2E_TMP/err" \
  || fail "carol's write: status $status, $(cat "$E2E_TMP/err")"
start_as carol
wait_for "restaurants"
send l; wait_for "read-only"
send Enter; wait_for "Pizzeria Napoli"
send d
wait_for "Read-only: alice shared “Friday” with you read-only"
send q; send q; send q; expect_exit 0
[ "$(as alice lists --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["mine"][0]["count"])')" = 6 ] \
  || fail "carol's refused writes changed the list"
pass "an unknown address is refused in one line; shared with $CAROL, carol reads Friday read-only; her save is refused in one line (exit 1), d on her screen too"

echo "=== sharing: alice removes bob"
if [ "$MODE" = embedded ]; then
  # The global --user (who acts) and unshare's --user (who is removed) in one command line.
  as alice share Friday --with dave >/dev/null
  out="$(env -u LOCALCLOUD_USER "$E2E_BIN" --user alice unshare Friday --user dave 2>&1)" || fail "foodpin --user alice unshare: $out"
  [ "$out" = "Friday is no longer shared with dave" ] || fail "foodpin --user alice unshare Friday --user dave said: $out"
  as alice lists | grep -qx "Friday · 6 restaurants · shared with bob, carol (read-only)" || fail "alice's lists: $(as alice lists)"
  pass "foodpin --user alice unshare Friday --user dave: alice acts, dave is removed"
fi
if [ "$MODE" != embedded ]; then
  as bob list >/dev/null   # bob browsed Discover and his lists: both are in his cache
  as bob lists >/dev/null
  proxy_stop
  as bob lists >"$E2E_TMP/out" 2>"$E2E_TMP/err" || fail "bob's lists offline: $(cat "$E2E_TMP/err")"
  grep -qx "Friday · by alice · 6 restaurants · read-write" "$E2E_TMP/out" && grep -qx "offline: the lists as last read from the server" "$E2E_TMP/err" \
    || fail "bob's cached lists offline: $(cat "$E2E_TMP/out" "$E2E_TMP/err")"
  start_as bob
  wait_for "restaurants"
  send l
  wait_for_line "Friday +by alice · 6 restaurants · read-write"
  wait_for "offline · cached lists"
  send q; send q; expect_exit 0
  status=0; as bob save "Addis Injera" --to Friday >"$E2E_TMP/out" 2>"$E2E_TMP/err" || status=$?
  [ "$status" = 0 ] && grep -qx "saved to Friday (7 restaurants)" "$E2E_TMP/out" \
    && grep -qx "queued: uploads when the server is reachable" "$E2E_TMP/err" \
    || fail "bob's offline save: status $status, $(cat "$E2E_TMP/out" "$E2E_TMP/err")"
  pass "bob's network is down: his cached lists show (foodpin lists and his screen say offline), his save to Friday is queued"
fi
[ "$(as alice unshare Friday --user bob)" = "Friday is no longer shared with bob" ] || fail "unshare failed"
if [ "$MODE" != embedded ]; then
  proxy_start
  REFUSED="“Addis Injera” was not saved to alice's list: the server refused it ("
  start_as bob
  wait_for "restaurants"
  send l
  wait_for "Nothing shared with you yet"
  wait_for "$REFUSED"
  # The message wraps: read the screen as one line.
  capture | tr -s '\n ' '  ' | grep -qF "it stays in the outbox" || fail "bob's screen does not say the refused change is kept"
  send q; send q; expect_exit 0
  for run in 1 2; do   # said again on every read: it stays in the outbox until resolved
    as bob lists >"$E2E_TMP/out" 2>"$E2E_TMP/err" || fail "bob's lists back online: $(cat "$E2E_TMP/err")"
    grep -qF "refused: $REFUSED" "$E2E_TMP/err" || fail "bob's lists did not report the refused write: $(cat "$E2E_TMP/out" "$E2E_TMP/err")"
    grep -q "offline\|queued" "$E2E_TMP/err" && fail "bob's lists online still say offline or queued: $(cat "$E2E_TMP/err")"
  done
  [ "$(as alice lists --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["mine"][0]["count"])')" = 6 ] \
    || fail "bob's refused write reached alice's list"
  pass "back online, bob's queued write is refused: his screen and foodpin lists say what and why, and it stays in his outbox"
fi
start_as bob
wait_for "restaurants"
send l
wait_for "Nothing shared with you yet"
send q; send q; expect_exit 0
status=0; as bob save "Addis Injera" --to Friday >"$E2E_TMP/out" 2>"$E2E_TMP/err" || status=$?
grep -q "saved to Friday (1 restaurant)" "$E2E_TMP/out" || fail "bob's save after removal: $(cat "$E2E_TMP/out" "$E2E_TMP/err")"
as alice lists | grep -qx "Friday · 6 restaurants · shared with carol (read-only)" || fail "alice's lists: $(as alice lists)"
pass "removed, bob sees no shared list; his save makes his own Friday, alice's list is untouched"
