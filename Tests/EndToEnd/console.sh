#!/usr/bin/env bash
# End-to-end test of the `localcloud` console on a temp data directory (or, with
# LOCALCLOUD_DATABASE_URL set, on that PostgreSQL database: see console_postgres.sh):
# import the FoodPin schema, create records with an asset, query with a filter and a sort,
# export, reset, import, and show that nothing was lost. Exits non-zero on the first failure.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${LOCALCLOUD_BIN:-$ROOT/.build/debug/localcloud}"
[ -x "$BIN" ] || (cd "$ROOT" && swift build --product localcloud >/dev/null)
TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-e2e.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset LOCALCLOUD_HOME LOCALCLOUD_CONTAINER LOCALCLOUD_ENVIRONMENT LOCALCLOUD_LATENCY_MS
[ -n "${CONSOLE_ON_POSTGRES:-}" ] || unset LOCALCLOUD_DATABASE_URL

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
log() { printf '  %s\n' "$*"; }
lc() { "$BIN" --data-dir "$TMP/data" --user alice "$@"; }
# Runs a command that must fail; its stderr is kept in $TMP/err.
lc_fails() { if lc "$@" >"$TMP/out" 2>"$TMP/err"; then fail "expected failure: localcloud $*"; fi; }
contains() { grep -qF -- "$2" <<<"$1" || fail "expected '$2' in: $1"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

echo "=== console: schema"
lc schema import "$ROOT/Assets/FoodPin.ckdb" >/dev/null
schema="$(lc schema show)"
contains "$schema" "RECORD TYPE Restaurant"
contains "$schema" '"___recordID"   REFERENCE QUERYABLE'
lc schema export -o "$TMP/exported.ckdb"
lc --container iCloud.Other schema import "$TMP/exported.ckdb" >/dev/null
[ "$(lc --container iCloud.Other schema export)" = "$(cat "$TMP/exported.ckdb")" ] || fail "schema export/import is not a round trip"
log "FoodPin.ckdb imported, exported and re-imported unchanged"

echo "=== console: records with an asset"
python3 - "$TMP/photo.ppm" <<'PY'
import sys
w, h = 96, 64
with open(sys.argv[1], "wb") as f:
    f.write(b"P6 %d %d 255\n" % (w, h))
    f.write(bytes(v for y in range(h) for x in range(w) for v in (x * 2 % 256, y * 4 % 256, 128)))
PY
photo_sum="$(sha256sum "$TMP/photo.ppm" | cut -d' ' -f1)"
lc records create Restaurant --name r1 name="Cafe Deadend" type=Cafe location="Hong Kong" phone="232-923423" \
  description="Searching for great coffee" --asset image="$TMP/photo.ppm" >/dev/null
lc records create Restaurant --name r2 name="Homei" type=Tea location="Sydney" description="Tea and noodles" >/dev/null
lc records create Restaurant --name r3 name="Teakha" type=Tea location="Hong Kong" >/dev/null
rm "$TMP/photo.ppm"   # the store has its own copy now, as with FoodPin's temp file
image="$(lc --json records get r1 | json 'd["fields"]["image"]["file"]')"
[ "$(sha256sum "$image" | cut -d' ' -f1)" = "$photo_sum" ] || fail "asset bytes differ"
log "3 records created; the asset survives deleting the source file"

echo "=== console: query with a filter and a sort"
names="$(lc --json records query Restaurant --filter "type == 'Tea'" --sort name --desc | json '",".join(r["fields"]["name"]["value"] for r in d)')"
[ "$names" = "Teakha,Homei" ] || fail "filtered, sorted query gave '$names'"
newest="$(lc --json records query Restaurant --sort creationDate --desc --limit 1 --desired-keys name | json 'd[0]["fields"]')"
[ "$newest" = "{'name': {'type': 'STRING', 'value': 'Teakha'}}" ] || fail "newest-first with desired keys gave $newest"
lc_fails records query Restaurant --sort phone
contains "$(cat "$TMP/err")" "invalidArguments (12): Field 'phone' is not marked sortable"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "an error is one line"
lc_fails records query Restaurant --filter "name ENDSWITH 'x'"
contains "$(cat "$TMP/err")" "invalidArguments (12)"
log "filter + sort, newest first, and CloudKit's index errors"

echo "=== console: indexes and roles"
lc index add Restaurant phone sortable >/dev/null
[ "$(lc --json records query Restaurant --sort phone --limit 1 | json 'd[0]["recordName"]')" = "r2" ] || fail "index add did not enable the sort"
lc --user bob records get r1 >/dev/null
if lc --user bob records delete r1 2>"$TMP/err"; then fail "bob deleted alice's record"; fi
contains "$(cat "$TMP/err")" "permissionFailure (10): Permission Failure: WRITE operation not permitted on type 'Restaurant'"
if "$BIN" --data-dir "$TMP/data" --user "" records create Restaurant name=Anon 2>"$TMP/err"; then fail "saved with no account"; fi
contains "$(cat "$TMP/err")" "notAuthenticated (9)"
lc roles grant write --to _icloud --on Restaurant >/dev/null
contains "$(lc roles show)" "_icloud"
lc roles revoke write --to _icloud --on Restaurant >/dev/null
log "index add, _creator WRITE, no account, grant and revoke"

echo "=== console: export, reset, import"
before="$(lc --json records query Restaurant --sort name | json 'sorted((r["recordName"], r["fields"]["name"]["value"], r["fields"].get("phone", {}).get("value")) for r in d)')"
lc records export "$TMP/backup/restaurants.json" >/dev/null
[ -d "$TMP/backup/restaurants.json.assets" ] || fail "no assets directory beside the export"
lc_fails reset </dev/null
contains "$(cat "$TMP/err")" "refusing to reset without confirmation"
lc_fails --environment production reset --yes
lc reset --yes >/dev/null
[ "$(lc --json status | json 'd["records"]')" = "0" ] || fail "reset left records"
[ "$(lc --json status | json 'd["assets"]')" = "0" ] || fail "reset left assets"
lc schema import "$ROOT/Assets/FoodPin.ckdb" >/dev/null
lc index add Restaurant phone sortable >/dev/null
lc records import "$TMP/backup/restaurants.json" >/dev/null
after="$(lc --json records query Restaurant --sort name | json 'sorted((r["recordName"], r["fields"]["name"]["value"], r["fields"].get("phone", {}).get("value")) for r in d)')"
[ "$before" = "$after" ] || fail "records differ after export/reset/import: $before vs $after"
image="$(lc --json records get r1 | json 'd["fields"]["image"]["file"]')"
[ "$(sha256sum "$image" | cut -d' ' -f1)" = "$photo_sum" ] || fail "asset lost in export/reset/import"
log "export → reset → import: every record and the asset's bytes are back"

echo "=== console: every field type through an export file"
python3 - "$TMP/types.json" <<'PY'
import json, sys
fields = {
  "s": {"type": "STRING", "value": "Café \"q\" \\ a/b 🍜"}, "i": {"type": "INT64", "value": 9007199254740993},
  "b": {"type": "BOOL", "value": False}, "d": {"type": "DOUBLE", "value": 0.1}, "w": {"type": "DOUBLE", "value": 2.0},
  "t": {"type": "TIMESTAMP", "value": "2026-01-02T03:04:05.678Z"}, "y": {"type": "BYTES", "value": "AAEC/w=="},
  "l": {"type": "LOCATION", "value": {"latitude": 22.28, "longitude": 114.15}},
  "a": {"type": "LOCATION", "value": {"latitude": -33.8688, "longitude": 151.2093, "altitude": 58.5}},
  "r": {"type": "REFERENCE", "value": {"recordName": "r1", "zone": "_defaultZone", "action": "deleteSelf"}},
  "ls": {"type": "LIST<STRING>", "value": ["x", "y"]}, "li": {"type": "LIST<INT64>", "value": [1, 2]},
  "lt": {"type": "LIST<TIMESTAMP>", "value": ["2026-01-02T03:04:05.000Z"]},
  "ll": {"type": "LIST<LOCATION>", "value": [{"latitude": 1.5, "longitude": 2.5}]},
  "lr": {"type": "LIST<REFERENCE>", "value": [{"recordName": "r2", "zone": "_defaultZone", "action": "none"}]},
  "le": {"type": "LIST<STRING>", "value": []},
}
json.dump({"format": "localcloud-records", "version": 1, "records": [
  {"recordName": "types", "recordType": "Everything", "fields": fields}]}, open(sys.argv[1], "w"))
json.dump(fields, open(sys.argv[1] + ".fields", "w"))
PY
lc records import "$TMP/types.json" >/dev/null
lc --json records get types >"$TMP/types-get.json"
python3 - "$TMP/types-get.json" "$TMP/types.json.fields" <<'PY' || fail "records get --json: $(cat "$TMP/types-get.json")"
import json, sys
got, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert sorted(got) == ["changeTag", "createdAt", "createdBy", "fields", "modifiedAt", "modifiedBy", "recordName", "recordType", "zone"], sorted(got)
assert got["fields"] == want, {k: (got["fields"].get(k), v) for k, v in want.items() if got["fields"].get(k) != v}
PY
grep -q '"value" : 2$' "$TMP/types-get.json" || fail "the DOUBLE 2.0 is not written as 2"
lc records export "$TMP/types-1.json" --types Everything >/dev/null
lc reset --yes >/dev/null
lc records import "$TMP/types-1.json" >/dev/null
lc records export "$TMP/types-2.json" --types Everything >/dev/null
python3 -c 'import json, sys; a, b = (json.load(open(f))["records"][0] for f in sys.argv[1:]); assert a["fields"] == b["fields"], (a, b)' \
  "$TMP/types-1.json" "$TMP/types-2.json" || fail "export → import → export changed the fields"
lc tokens create >/dev/null
[ "$(lc --json tokens list | json '[sorted(t.items()) for t in d][0][3:5]')" = "[('name', None), ('revoked', None)]" ] \
  || fail "tokens list --json does not write null for an unnamed, unrevoked token: $(lc --json tokens list)"
lc reset --yes >/dev/null
lc schema import "$ROOT/Assets/FoodPin.ckdb" >/dev/null
lc records import "$TMP/backup/restaurants.json" >/dev/null
log "every field type's JSON (keys, nulls, numbers) and an export → import → export round trip"

echo "=== console: garbage collection"
head -c 50000 /dev/urandom > "$TMP/orphan.bin"
lc records create Restaurant --name gone name=Gone type=Cafe location=Nowhere --asset image="$TMP/orphan.bin" >/dev/null
assets_before="$(lc --json status | json 'd["assets"]')"
lc records delete gone >/dev/null
lc gc --grace-seconds 0 >/dev/null
assets_after="$(lc --json status | json 'd["assets"]')"
[ "$assets_after" -eq $((assets_before - 1)) ] || fail "gc left the deleted record's asset: $assets_before → $assets_after"
image="$(lc --json records get r1 | json 'd["fields"]["image"]["file"]')"
[ "$(sha256sum "$image" | cut -d' ' -f1)" = "$photo_sum" ] || fail "gc touched a referenced asset"
log "gc removes an unreferenced asset and keeps the referenced one"

echo "=== console: deploy, zones, status, help"
lc deploy >/dev/null
lc --environment production records create Restaurant name=Live type=Cafe location=Here >/dev/null
lc_fails --environment production records create Restaurant name=Live menu=noodles
contains "$(cat "$TMP/err")" "Cannot create new field 'menu' in production schema"
lc zones create Favourites >/dev/null
contains "$(lc zones list)" "Favourites"
lc records create Note --database private --zone Favourites text=hi >/dev/null
lc zones delete Favourites >/dev/null
status="$(lc status)"
contains "$status" "Schema version:"
# On PostgreSQL (console_postgres.sh sets LOCALCLOUD_DATABASE_URL), status names the database instead.
contains "$status" "${LOCALCLOUD_DATABASE_URL:-$TMP/data}"
for sub in "" schema "schema show" "schema import" "schema export" index "index add" "index remove" roles "roles show" \
           "roles grant" "roles revoke" records "records query" "records get" "records delete" "records create" \
           "records export" "records import" zones "zones list" "zones create" "zones delete" reset deploy status; do
  # shellcheck disable=SC2086
  "$BIN" $sub --help >/dev/null || fail "localcloud $sub --help"
done
log "deploy, production strictness, zones, status and --help on every subcommand"

# The shared options (LocalCloudCLI's CloudOptions) before, after and between subcommand names,
# with no argument rewriting; the JSON keys of status are the ones scripts read.
first="$("$BIN" --data-dir "$TMP/data" --user alice --json status)"
last="$("$BIN" status --json --user alice --data-dir "$TMP/data")"
# databaseBytes counts the -wal and -shm files, which come and go with checkpoints between runs.
same_status() { json '{k: v for k, v in d.items() if k != "databaseBytes"}' <<<"$1"; }
[ "$(same_status "$first")" = "$(same_status "$last")" ] || fail "status differs with the options after the subcommand: $first vs $last"
keys="$(json 'sorted(d.keys())' <<<"$first")"
[ "$keys" = "['assetBytes', 'assets', 'container', 'dataDirectory', 'databaseBytes', 'databaseFile', 'environment', 'recordCounts', 'records', 'schemaVersion', 'user', 'zones']" ] \
  || fail "status --json keys changed: $keys"
[ "$(json 'd["user"]' <<<"$first")" = alice ] || fail "status --json user: $first"
[ "$("$BIN" --data-dir "$TMP/data" --user "" status --json | json 'd["user"]')" = None ] || fail "no account is not null in status --json"
between="$("$BIN" records --data-dir "$TMP/data" query Restaurant --json --user alice --limit 1 | json 'len(d)')"
[ "$between" = 1 ] || fail "options between subcommand names: $between"
contains "$("$BIN" --version)" "0.1.0"
log "options before, after and between subcommands; status --json keys; --version"
echo "PASS: console"
