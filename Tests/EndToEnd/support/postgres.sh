# A private PostgreSQL cluster for shell scripts (end-to-end tests, benchmarks):
# initdb + pg_ctl in a temporary directory on a free loopback port, as the `postgres` OS user
# when run as root (PostgreSQL refuses to run as root).
#
#   source Tests/EndToEnd/support/postgres.sh
#   pg_start                      # sets PG_URL (postgresql://localcloud@127.0.0.1:PORT/localcloud), PG_DIR, PG_PORT
#   localcloud serve --database "$PG_URL" …
#   pg_stop                       # immediate stop, removes the directory
#
# The password is in PGPASSWORD (exported), so it stays out of URLs and process listings.
# Fails with a clear message when PostgreSQL is not installed.

PG_BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"
PG_DIR=""
PG_PORT=""
PG_URL=""

pg_as() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# pg_start: initdb, start on a free port, create the `localcloud` role and database.
pg_start() {
  [ -x "$PG_BIN/initdb" ] || { echo "FAIL: PostgreSQL is not installed (apt-get install postgresql postgresql-contrib)" >&2; return 1; }
  PG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-pg.XXXXXX")"
  export PGPASSWORD="pw-$RANDOM$RANDOM"
  printf '%s' "$PGPASSWORD" > "$PG_DIR/pwfile"
  [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$PG_DIR"
  pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U localcloud --pwfile "$PG_DIR/pwfile" -E UTF8 --locale=C \
    --auth-local=trust --auth-host=scram-sha-256 >"$PG_DIR/initdb.log" 2>&1 \
    || { cat "$PG_DIR/initdb.log" >&2; return 1; }
  local attempt
  for attempt in 1 2 3 4 5; do
    PG_PORT="$(pg_free_port)"
    if pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
         -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null; then
      pg_as "$PG_BIN/psql" -X -q -h "$PG_DIR" -p "$PG_PORT" -U localcloud -d postgres -c "CREATE DATABASE localcloud" >/dev/null
      PG_URL="postgresql://localcloud@127.0.0.1:$PG_PORT/localcloud"
      return 0
    fi
  done
  echo "FAIL: PostgreSQL did not start:" >&2; cat "$PG_DIR/server.log" >&2
  return 1
}

# pg_psql SQL: runs SQL in the `localcloud` database over the cluster's socket.
pg_psql() {
  pg_as "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -U localcloud -d localcloud -c "$1"
}

# pg_halt: a fast stop (sessions are terminated, the data stays); pg_resume starts it again on
# the same port; pg_restart does both, as an operator's restart.
pg_halt() {
  pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w -t 60 stop >/dev/null
}
pg_resume() {
  pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null
}
pg_restart() { pg_halt && pg_resume; }

pg_stop() {
  [ -n "$PG_DIR" ] || return 0
  pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w -t 60 stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
  PG_DIR=""
}
