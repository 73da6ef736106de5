#!/usr/bin/env bash
# End-to-end: LocalCloud on PostgreSQL over TLS, with libpq's sslmode, sslrootcert, sslcert and
# sslkey in the database URL. A private cluster runs with ssl=on and a certificate from a CA this
# script makes (openssl), and pg_hba.conf takes only TLS connections (hostssl):
#   - verify-full to the certificate's host name succeeds, and the records go through;
#   - verify-ca checks the CA but not the name; require encrypts without checking;
#   - a wrong CA, and a host name the certificate does not name, fail with one line saying why;
#   - sslmode=disable is refused by the server, with a clear message;
#   - a user that pg_hba.conf admits only by client certificate gets in with sslcert/sslkey;
#   - `localcloud serve` on a verify-full URL serves, and refuses a wrong CA at start-up.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"
source "$HERE/support/serve.sh"
source "$HERE/support/postgres.sh"
trap 'serve_kill; pg_stop >/dev/null 2>&1 || true; e2e_cleanup' EXIT

command -v openssl >/dev/null || fail "openssl is not installed (apt-get install openssl)"
[ -x "$PG_BIN/initdb" ] || fail "PostgreSQL is not installed (apt-get install postgresql postgresql-contrib)"
ensure_localcloud
TMP="$E2E_TMP"
C=iCloud.FoodPin
# A home of its own: libpq's defaults (~/.postgresql/root.crt, postgresql.crt) must not come from the runner's.
export HOME="$TMP/home"
mkdir -p "$HOME"

# --- Certificates: a CA, the server's (for the name localhost only), a client's, and an unrelated CA.
CERTS="$TMP/certs"
mkdir -p "$CERTS"
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
make_ca() {  # make_ca NAME SUBJECT
  openssl req -x509 "${ec[@]}" -keyout "$CERTS/$1.key" -out "$CERTS/$1.crt" -days 2 -subj "$2" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}
make_leaf() {  # make_leaf NAME SUBJECT EXTENSIONS: signed by ca
  openssl req -new "${ec[@]}" -keyout "$CERTS/$1.key" -out "$CERTS/$1.csr" -subj "$2" 2>/dev/null
  printf '%b' "$3" > "$CERTS/$1.ext"
  openssl x509 -req -in "$CERTS/$1.csr" -CA "$CERTS/ca.crt" -CAkey "$CERTS/ca.key" -CAcreateserial \
    -out "$CERTS/$1.crt" -days 2 -extfile "$CERTS/$1.ext" 2>/dev/null
}
make_ca ca "/CN=LocalCloud test CA"
make_ca other-ca "/CN=Somebody else's CA"
make_leaf server "/CN=localhost" "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
make_leaf client "/CN=certuser" "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n"
chmod 600 "$CERTS"/*.key
openssl verify -CAfile "$CERTS/ca.crt" "$CERTS/server.crt" "$CERTS/client.crt" >/dev/null || fail "the test certificates do not verify"
pass "a CA, a server certificate for localhost, a client certificate for certuser, and a second CA (openssl)"

# --- A private cluster: ssl=on, TLS-only pg_hba.conf.
PG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-pg.XXXXXX")"
export PGPASSWORD="pw-$RANDOM$RANDOM"
printf '%s' "$PGPASSWORD" > "$PG_DIR/pwfile"
mkdir -p "$PG_DIR/tls"
cp "$CERTS/server.crt" "$CERTS/server.key" "$CERTS/ca.crt" "$PG_DIR/tls/"
[ "$(id -u)" = 0 ] && chown -R postgres:postgres "$PG_DIR"
pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U localcloud --pwfile "$PG_DIR/pwfile" -E UTF8 --locale=C \
  --auth-local=trust --auth-host=scram-sha-256 >"$PG_DIR/initdb.log" 2>&1 || { cat "$PG_DIR/initdb.log" >&2; fail "initdb"; }
# Only TLS over TCP; certuser only with a client certificate the CA signed (and no password).
pg_as tee "$PG_DIR/data/pg_hba.conf" >/dev/null <<'EOF'
local   all       all                   trust
hostssl all       certuser  127.0.0.1/32  cert
hostssl all       certuser  ::1/128       cert
hostssl all       all       127.0.0.1/32  scram-sha-256
hostssl all       all       ::1/128       scram-sha-256
EOF
PG_OPTIONS="-c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=$PG_DIR/tls/server.crt \
-c ssl_key_file=$PG_DIR/tls/server.key -c ssl_ca_file=$PG_DIR/tls/ca.crt -c log_connections=on"
started=""
for attempt in 1 2 3 4 5; do
  PG_PORT="$(pg_free_port)"
  if pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
       -o "-p $PG_PORT -k $PG_DIR $PG_OPTIONS" start >/dev/null; then
    started=1
    break
  fi
done
[ -n "$started" ] || { cat "$PG_DIR/server.log" >&2; fail "PostgreSQL did not start with ssl=on"; }
pg_as "$PG_BIN/psql" -X -q -h "$PG_DIR" -p "$PG_PORT" -U localcloud -d postgres \
  -c "CREATE DATABASE localcloud" -c "CREATE ROLE certuser LOGIN" -c "CREATE DATABASE certdb OWNER certuser" >/dev/null
[ "$(pg_psql "SHOW ssl")" = on ] || fail "the cluster does not have ssl=on"
pass "a private PostgreSQL cluster on port $PG_PORT with ssl=on and hostssl-only pg_hba.conf"

base="postgresql://localcloud@localhost:$PG_PORT/localcloud"
ip="postgresql://localcloud@127.0.0.1:$PG_PORT/localcloud"
CA="sslrootcert=$CERTS/ca.crt"

# refused LABEL URL PATTERN [serve]: exit ≠ 0 within the deadline, exactly one line on stderr
# matching PATTERN, and never the password.
refused() {
  local label="$1" url="$2" pattern="$3" mode="${4:-console}" status=0 start=$SECONDS
  if [ "$mode" = serve ]; then
    timeout 60 "$LOCALCLOUD_BIN" serve --data-dir "$TMP/serve" --port 0 --database "$url" >"$TMP/out" 2>"$TMP/err" || status=$?
  else
    timeout 60 "$LOCALCLOUD_BIN" --database "$url" --container "$C" status >"$TMP/out" 2>"$TMP/err" || status=$?
  fi
  [ "$status" -ne 0 ] || fail "$label: exit 0"
  [ "$status" -ne 124 ] || fail "$label: still running after 60 s"
  [ "$(wc -l < "$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "$label: stderr is not one line"; }
  grep -qiE -- "$pattern" "$TMP/err" || { cat "$TMP/err" >&2; fail "$label: the line does not say /$pattern/"; }
  ! grep -qF -- "$PGPASSWORD" "$TMP/err" "$TMP/out" || fail "$label: the password was printed"
  pass "$label ($mode): exit $status in $((SECONDS - start)) s: $(cat "$TMP/err")"
}

# ssl_connections USER: how many TLS sessions the server logged for USER so far.
ssl_connections() {
  grep -c "connection authorized: user=$1 .*SSL enabled" "$PG_DIR/server.log" || true
}

# --- verify-full: the CA signed it and it names localhost.
URL="$base?sslmode=verify-full&$CA"
before="$(ssl_connections localcloud)"
lc() { "$LOCALCLOUD_BIN" --database "$URL" --container "$C" "$@"; }
lc schema import "$HERE/../../Assets/FoodPin.ckdb" >/dev/null
lc records create Restaurant --name tls1 name="Cafe Deadend" type=Cafe location="Hong Kong" >/dev/null
lc records create Restaurant --name tls2 name="Teakha" type=Tea location="Hong Kong" >/dev/null
names="$(lc --json records query Restaurant --sort name | python3 -c 'import json,sys; print(",".join(r["fields"]["name"]["value"] for r in json.load(sys.stdin)))')"
[ "$names" = "Cafe Deadend,Teakha" ] || fail "verify-full: the query gave '$names'"
after="$(ssl_connections localcloud)"
[ "$after" -gt "$before" ] || { tail -5 "$PG_DIR/server.log" >&2; fail "verify-full: the server logged no TLS session"; }
pass "verify-full to localhost: schema import, two records saved and queried back over $((after - before)) TLS sessions"
log "$(grep "connection authorized: user=localcloud .*SSL enabled" "$PG_DIR/server.log" | tail -1 | sed 's/.*\(SSL enabled.*\)/\1/')"
records="$(pg_psql "SELECT count(*) FROM pg_namespace n JOIN pg_class c ON c.relnamespace = n.oid WHERE n.nspname LIKE 'lc\_icloud\_foodpin\_%' AND c.relname = 'records'")"
[ "$records" = 1 ] || fail "no store schema in the database"

# The same settings from libpq's environment variables instead of the URL.
PGSSLMODE=verify-full PGSSLROOTCERT="$CERTS/ca.crt" "$LOCALCLOUD_BIN" --database "$base" --container "$C" status >/dev/null \
  || fail "PGSSLMODE/PGSSLROOTCERT: status failed"
pass "verify-full from PGSSLMODE and PGSSLROOTCERT"

# --- verify-ca checks the chain only; require and prefer encrypt without a CA.
"$LOCALCLOUD_BIN" --database "$ip?sslmode=verify-ca&$CA" --container "$C" status >/dev/null || fail "verify-ca to 127.0.0.1 failed"
pass "verify-ca to 127.0.0.1 (a name the certificate does not have): the CA is enough"
"$LOCALCLOUD_BIN" --database "$ip?sslmode=require" --container "$C" status >/dev/null || fail "require failed"
"$LOCALCLOUD_BIN" --database "$ip" --container "$C" status >/dev/null || fail "the default (prefer) failed"
pass "require, and the default prefer, connect over TLS without a CA (as libpq: encrypted, not verified)"

# libpq's default CA file: ~/.postgresql/root.crt, used when the URL names none.
mkdir -p "$HOME/.postgresql" && cp "$CERTS/ca.crt" "$HOME/.postgresql/root.crt"
"$LOCALCLOUD_BIN" --database "$base?sslmode=verify-full" --container "$C" status >/dev/null || fail "verify-full with ~/.postgresql/root.crt failed"
refused "a host-name mismatch with ~/.postgresql/root.crt" "$ip?sslmode=verify-full" "certificate is not for host 127\.0\.0\.1"
rm -r "$HOME/.postgresql"
pass "verify-full with the CA in ~/.postgresql/root.crt, as libpq finds it"

# --- What must fail, with one line that says why.
refused "a wrong CA" "$base?sslmode=verify-full&sslrootcert=$CERTS/other-ca.crt" "certificate is not signed by the CA in sslrootcert"
refused "a wrong CA" "$base?sslmode=verify-full&sslrootcert=$CERTS/other-ca.crt" "certificate is not signed by the CA in sslrootcert" serve
refused "a wrong CA with verify-ca" "$ip?sslmode=verify-ca&sslrootcert=$CERTS/other-ca.crt" "certificate is not signed by the CA in sslrootcert"
refused "a host-name mismatch" "$ip?sslmode=verify-full&$CA" "certificate is not for host 127\.0\.0\.1"
refused "a CA file that is not there" "$base?sslmode=verify-full&sslrootcert=$TMP/nowhere.crt" "sslrootcert: .*nowhere.crt does not exist"
refused "verify-full with no CA anywhere" "$base?sslmode=verify-full" "root certificate file \"$HOME/.postgresql/root.crt\" does not exist"
refused "sslmode=disable" "$base?sslmode=disable" "no pg_hba.conf entry.*no encryption.*accepts only TLS"
refused "sslmode=disable" "$base?sslmode=disable" "no pg_hba.conf entry.*no encryption" serve

# --- A client certificate: certuser has no password; pg_hba.conf admits it by certificate only.
CERT_URL="postgresql://certuser@localhost:$PG_PORT/certdb?sslmode=verify-full&$CA"
before="$(ssl_connections certuser)"
env -u PGPASSWORD "$LOCALCLOUD_BIN" --database "$CERT_URL&sslcert=$CERTS/client.crt&sslkey=$CERTS/client.key" --container "$C" \
  schema import "$HERE/../../Assets/FoodPin.ckdb" >/dev/null || fail "certuser with its certificate was refused"
[ "$(ssl_connections certuser)" -gt "$before" ] || fail "no TLS session logged for certuser"
pass "certuser signs in with sslcert/sslkey alone (pg_hba.conf method cert)"
refused "no client certificate" "$CERT_URL" "certificate"
chmod 644 "$CERTS/client.key"
refused "a client key others can read" "$CERT_URL&sslcert=$CERTS/client.crt&sslkey=$CERTS/client.key" "sslkey: .* may be read by others"
chmod 600 "$CERTS/client.key"

# --- `localcloud serve` on a verify-full URL: it answers a query with the records saved above.
"$LOCALCLOUD_BIN" --database "$URL" --container "$C" tokens create --name e2e >"$TMP/token"
serve_start "$TMP/serve" --database "$URL"
body='{"query":{"recordType":"Restaurant","sortBy":[{"fieldName":"name","ascending":true}]},"resultsLimit":10}'
curl -fsS -X POST -d "$body" "$SERVE_URL/database/1/$C/development/public/records/query?ckAPIToken=$(cat "$TMP/token")" >"$TMP/query.json" \
  || { cat "$SERVE_LOG" >&2; fail "serve: the query failed"; }
served="$(python3 -c 'import json,sys; print(",".join(r["fields"]["name"]["value"] for r in json.load(open(sys.argv[1]))["records"]))' "$TMP/query.json")"
[ "$served" = "Cafe Deadend,Teakha" ] || fail "serve: the query gave '$served'"
! grep -qF -- "$PGPASSWORD" "$SERVE_LOG" || fail "serve logged the password"
serve_stop || fail "serve did not stop cleanly"
pass "localcloud serve on the verify-full URL answers a query with both records"
