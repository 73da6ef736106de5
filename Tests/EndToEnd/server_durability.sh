#!/usr/bin/env bash
# Durability: SIGKILL `localcloud serve` while 8 clients are saving. Every save acknowledged with
# a 200 survives the restart, and clients that retry with the same record names create nothing twice.
set -euo pipefail
source "$(dirname "$0")/support/serve.sh"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-durability.XXXXXX")"
trap 'touch "$TMP/stop"; serve_kill; wait 2>/dev/null || true; rm -rf "$TMP"' EXIT
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
pass() { printf 'ok - %s\n' "$*"; }

ensure_localcloud
DATA="$TMP/data"
C=iCloud.FoodPin
lc() { "$LOCALCLOUD_BIN" --data-dir "$DATA" --container "$C" "$@"; }
lc schema import "$SERVE_ROOT/Assets/FoodPin.ckdb" >/dev/null
API="$(lc tokens create)"
printf 'pw\n' | lc users add writer --password-stdin >/dev/null
TOKEN="$(lc users token writer)"

serve_start "$DATA"
MODIFY="records/modify?ckAPIToken=$API&ckWebAuthToken=$TOKEN"

# writer ID: saves w<ID>-<n> one by one until told to stop; records each name acknowledged with a 200.
writer() {
  local id="$1" n=0
  while [ ! -e "$TMP/stop" ]; do
    n=$((n + 1))
    local name="w$id-$n"
    echo "$name" >> "$TMP/attempted.$id"
    local body="{\"operations\":[{\"operationType\":\"create\",\"record\":{\"recordName\":\"$name\",\"recordType\":\"Restaurant\",\"fields\":{\"name\":{\"value\":\"$name\"}}}}]}"
    local url; url="$(cat "$TMP/url")"
    if out="$(curl -sS -m 10 -w '\n%{http_code}' -X POST -H 'Content-Type: application/json' --data "$body" "$url/database/1/$C/development/public/$MODIFY" 2>/dev/null)"; then
      if [ "$(tail -n1 <<<"$out")" = 200 ] && grep -q '"recordChangeTag"' <<<"$out"; then echo "$name" >> "$TMP/acked.$id"; fi
    fi
  done
}
echo "$SERVE_URL" > "$TMP/url"
for id in 1 2 3 4 5 6 7 8; do : > "$TMP/acked.$id"; writer "$id" & done

acked() { cat "$TMP"/acked.* 2>/dev/null | wc -l; }
deadline=$((SECONDS + 120))
until [ "$(acked)" -ge 300 ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "only $(acked) saves acknowledged in 120 s"
  sleep 0.05  # poll interval
done
serve_kill   # SIGKILL mid-save
ACKED="$(acked)"
touch "$TMP/stop"; wait $(jobs -p | grep -v "^$SERVE_PID$") 2>/dev/null || true
cat "$TMP"/acked.* | sort -u > "$TMP/acked.all"
cat "$TMP"/attempted.* | sort -u > "$TMP/attempted.all"
pass "SIGKILL after $(wc -l < "$TMP/acked.all") acknowledged saves from 8 writers"

serve_start "$DATA"
Q="$SERVE_URL/database/1/$C/development/public"
lookup_missing() { # names on stdin → names not found
  python3 - "$Q/records/lookup?ckAPIToken=$API" <<'PY'
import json, sys, urllib.request
names = [l.strip() for l in sys.stdin if l.strip()]
missing = []
for i in range(0, len(names), 200):
    chunk = names[i:i+200]
    req = urllib.request.Request(sys.argv[1], data=json.dumps({"records": [{"recordName": n} for n in chunk], "desiredKeys": []}).encode(), method="POST")
    for r in json.load(urllib.request.urlopen(req))["records"]:
        if r.get("serverErrorCode"):
            missing.append(r["recordName"])
print("\n".join(missing))
PY
}
missing="$(lookup_missing < "$TMP/acked.all")"
[ -z "$missing" ] || fail "acknowledged saves lost after SIGKILL: $(echo "$missing" | head -5 | tr '\n' ' ')"
pass "every acknowledged save is there after the restart"

# Retry every attempted name (acknowledged or not): nothing is created twice.
python3 - "$Q/records/modify?ckAPIToken=$API&ckWebAuthToken=$TOKEN" "$TMP/attempted.all" <<'PY' || fail "retry pass failed"
import json, sys, urllib.request
names = [l.strip() for l in open(sys.argv[2]) if l.strip()]
for i in range(0, len(names), 200):
    ops = [{"operationType": "create", "record": {"recordName": n, "recordType": "Restaurant", "fields": {"name": {"value": n}}}} for n in names[i:i+200]]
    req = urllib.request.Request(sys.argv[1], data=json.dumps({"operations": ops, "atomic": False}).encode(), method="POST")
    for r in json.load(urllib.request.urlopen(req))["records"]:
        assert r.get("serverErrorCode") in (None, "EXISTS"), r
PY
count="$(python3 - "$Q/records/query?ckAPIToken=$API" <<'PY'
import json, sys, urllib.request
seen, marker = [], None
while True:
    body = {"continuationMarker": marker} if marker else {"query": {"recordType": "Restaurant"}, "resultsLimit": 200, "desiredKeys": []}
    if marker: body["resultsLimit"] = 200
    page = json.load(urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=json.dumps(body).encode(), method="POST")))
    seen += [r["recordName"] for r in page["records"]]
    marker = page.get("continuationMarker")
    if not marker: break
assert len(seen) == len(set(seen)), "duplicate records"
print(len(seen))
PY
)"
want="$(wc -l < "$TMP/attempted.all")"
[ "$count" = "$want" ] || fail "$count records after retries, want $want (one per attempted name)"
serve_stop || fail "serve did not exit 0"
pass "retrying all $want names leaves exactly $want records"
