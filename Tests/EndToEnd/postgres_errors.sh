#!/usr/bin/env bash
# End-to-end: a PostgreSQL database that cannot be used is one clear line and a non-zero exit,
# from the console and from `localcloud serve`, and never prints the password:
#   - a malformed URL; nothing listening on the port; a wrong password; a database that does
#     not exist;
#   - a database whose schema is newer than this binary: refused, and left as it was.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"
source "$HERE/support/serve.sh"
source "$HERE/support/postgres.sh"
trap 'serve_kill; pg_stop >/dev/null 2>&1 || true; e2e_cleanup' EXIT

ensure_localcloud
TMP="$E2E_TMP"
C=iCloud.FoodPin
pg_start || fail "could not start a private PostgreSQL cluster"
"$LOCALCLOUD_BIN" --database "$PG_URL" --container "$C" schema import "$HERE/../../Assets/FoodPin.ckdb" >/dev/null
"$LOCALCLOUD_BIN" --database "$PG_URL" --container "$C" tokens create --name e2e >/dev/null
pass "a private PostgreSQL cluster with the FoodPin schema"

# refused LABEL URL PATTERN [serve]: the command fails with exit ≠ 0 and exactly one line on stderr
# that matches PATTERN (a usage error, exit 64, may add ArgumentParser's usage lines after it),
# within the deadline, without the secret.
refused() {
  local label="$1" url="$2" pattern="$3" mode="${4:-console}" status=0 start=$SECONDS
  if [ "$mode" = serve ]; then
    timeout 60 "$LOCALCLOUD_BIN" serve --data-dir "$TMP/serve" --port 0 --database "$url" >"$TMP/out" 2>"$TMP/err" || status=$?
  else
    timeout 60 "$LOCALCLOUD_BIN" --database "$url" --container "$C" status >"$TMP/out" 2>"$TMP/err" || status=$?
  fi
  [ "$status" -ne 0 ] || fail "$label: exit 0"
  [ "$status" -ne 124 ] || fail "$label: still running after 60 s"
  if [ "$status" -eq 64 ]; then
    # A value the option refuses (ArgumentParser's usage error): its first line says why.
    head -1 "$TMP/err" | grep -q '^Error: --database' || { cat "$TMP/err" >&2; fail "$label: no 'Error: --database' line"; }
    sed -i '1!d' "$TMP/err"
  fi
  [ "$(wc -l < "$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "$label: stderr is not one line"; }
  grep -qiE -- "$pattern" "$TMP/err" || { cat "$TMP/err" >&2; fail "$label: the line does not say /$pattern/"; }
  ! grep -qF -- "$SECRET" "$TMP/err" "$TMP/out" || fail "$label: the password was printed"
  pass "$label ($mode): exit $status in $((SECONDS - start)) s: $(cat "$TMP/err")"
}
SECRET="not-$PGPASSWORD"
HOSTPORT="127.0.0.1:$PG_PORT"
refused "a malformed URL" "postgresql//localcloud@$HOSTPORT" "URL"
refused "a malformed URL" "postgresql://localcloud@$HOSTPORT/localcloud?connect_timeout=soon" "connect_timeout" serve
DEAD_PORT="$(pg_free_port)"
refused "nothing listening" "postgresql://localcloud:$SECRET@127.0.0.1:$DEAD_PORT/localcloud" "connect|reach|refused|unavailable"
refused "nothing listening" "postgresql://localcloud:$SECRET@127.0.0.1:$DEAD_PORT/localcloud" "connect|reach|refused|unavailable" serve
refused "a wrong password" "postgresql://localcloud:$SECRET@$HOSTPORT/localcloud" "password|authentication"
refused "a wrong password" "postgresql://localcloud:$SECRET@$HOSTPORT/localcloud" "password|authentication" serve
refused "a database that does not exist" "postgresql://localcloud@$HOSTPORT/nowhere" "nowhere|does not exist"

# A newer schema: this binary's store schema gains a version it has never heard of.
SCHEMA="$(pg_psql "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'lc\_icloud\_foodpin\_deve\_%'")"
[ -n "$SCHEMA" ] || fail "no store schema in the database"
pg_psql "INSERT INTO $SCHEMA.schema_migrations (version, name) VALUES (999, 'from a later localcloud')"
before="$(pg_psql "SELECT count(*) FROM $SCHEMA.schema_migrations")"
refused "a database schema newer than this binary" "$PG_URL" "newer"
# serve opens its stores when a request names the container; the identity schema is checked at start.
IDENTITY="$(pg_psql "SELECT nspname FROM pg_namespace WHERE nspname = 'localcloud_identity'")"
[ -n "$IDENTITY" ] || fail "no identity schema"
pg_psql "INSERT INTO localcloud_identity.schema_migrations (version, name) VALUES (999, 'from a later localcloud')"
refused "a database schema newer than this binary" "$PG_URL" "newer" serve
[ "$(pg_psql "SELECT count(*) FROM $SCHEMA.schema_migrations")" = "$before" ] || fail "the refused start changed the schema"
pass "the newer database was left as it was"
