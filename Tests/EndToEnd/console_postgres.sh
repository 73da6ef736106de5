#!/usr/bin/env bash
# End-to-end: the whole console test (console.sh: schema, index, roles, records, export/import,
# reset, deploy, zones, status, tokens) on a private PostgreSQL database instead of the SQLite
# file, through LOCALCLOUD_DATABASE_URL, so every command that works on a store works on both.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/support/postgres.sh"
trap 'pg_stop >/dev/null 2>&1 || true' EXIT
pg_start
CONSOLE_ON_POSTGRES=1 LOCALCLOUD_DATABASE_URL="$PG_URL" bash "$HERE/console.sh"
