#!/usr/bin/env bash
# End-to-end: `localcloud serve` on a free port, driven by curl as any CloudKit Web Services client would.
# Tokens and two users come from the console commands; JSON shapes are checked against the reference.
set -euo pipefail
source "$(dirname "$0")/support/serve.sh"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-server-e2e.XXXXXX")"
trap 'serve_kill; rm -rf "$TMP"' EXIT
fail() { printf 'FAIL: %s\n' "$*" >&2; [ -n "${SERVE_LOG:-}" ] && { echo "--- server log ---" >&2; tail -20 "$SERVE_LOG" >&2; }; exit 1; }
pass() { printf 'ok - %s\n' "$*"; }

ensure_localcloud
DATA="$TMP/data"
C=iCloud.FoodPin
lc() { "$LOCALCLOUD_BIN" --data-dir "$DATA" --container "$C" "$@"; }

# Schema with the indexes the Discover query needs.
lc schema import "$SERVE_ROOT/Assets/FoodPin.ckdb" >/dev/null

API="$(lc tokens create --name e2e)"
[[ "$API" =~ ^[0-9a-f]{64}$ ]] || fail "tokens create printed '$API', not 64 hex characters"
pass "tokens create prints only a 64-hex API token"
printf 'alice-secret\n' | lc users add alice --password-stdin >/dev/null
printf 'bob-secret\n' | lc users add bob --password-stdin >/dev/null
ALICE="$(lc users token alice)"
[[ "$ALICE" =~ ^[A-Za-z0-9_-]{100,}$ ]] || fail "users token printed '$ALICE', not ≥100 URL-safe base64 characters"
pass "two users; users token prints only a web auth token"

serve_start "$DATA"
pass "serve printed: listening on $SERVE_URL"

DB="$SERVE_URL/database/1/$C/development/public"
# call METHOD ENDPOINT BODY [TOKEN] → body in $TMP/body, status echoed
call() {
  local method="$1" endpoint="$2" body="$3" user="${4:-}"
  local url="$DB/$endpoint?ckAPIToken=$API"
  [ -n "$user" ] && url="$url&ckWebAuthToken=$user"
  curl -sS -o "$TMP/body" -w '%{http_code}' -X "$method" -H 'Content-Type: application/json' --data-binary "$body" "$url"
}
# check PYTHON-EXPRESSION: evaluated with `b` bound to the last response's JSON.
check() { python3 -c "import json,sys; b=json.load(open('$TMP/body')); sys.exit(0 if ($1) else 1)" || fail "$2: $(head -c 400 "$TMP/body")"; }

# Sign-in endpoint for interactive clients.
status="$(curl -sS -o "$TMP/body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  --data '{"user":"bob","password":"bob-secret"}' "$SERVE_URL/auth/1/$C/signin")"
[ "$status" = 200 ] || fail "signin: HTTP $status"
check "len(b['ckWebAuthToken']) >= 100" "signin returns ckWebAuthToken"
BOB="$(python3 -c "import json; print(json.load(open('$TMP/body'))['ckWebAuthToken'])")"
status="$(curl -sS -o "$TMP/body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  --data '{"user":"bob","password":"wrong"}' "$SERVE_URL/auth/1/$C/signin")"
[ "$status" = 401 ] || fail "signin with a wrong password: HTTP $status, want 401"
pass "signin: bob gets a web auth token; a wrong password gets 401"

# Bad and missing credentials.
status="$(curl -sS -o "$TMP/body" -w '%{http_code}' -X POST --data '{}' "$DB/records/query?ckAPIToken=$(printf '0%.0s' {1..64})")"
[ "$status" = 401 ] || fail "unknown API token: HTTP $status, want 401"
check "b['serverErrorCode'] == 'AUTHENTICATION_FAILED' and set(b) >= {'uuid','serverErrorCode','reason'}" "401 body"
status="$(call POST records/modify '{"operations":[{"operationType":"create","record":{"recordType":"Restaurant","fields":{}}}]}')"
[ "$status" = 421 ] || fail "write without a user: HTTP $status, want 421"
check "b['serverErrorCode'] == 'AUTHENTICATION_REQUIRED' and b['redirectURL'].endswith('/auth/1/$C/signin')" "421 body"
pass "unknown token → 401 AUTHENTICATION_FAILED; write without a user → 421 with redirectURL"

# Create.
status="$(call POST records/modify '{"operations":[{"operationType":"create","record":{"recordName":"golden-dragon","recordType":"Restaurant","fields":{"name":{"value":"Golden Dragon"},"type":{"value":"Chinese"},"location":{"value":"Hong Kong"}}}}]}' "$ALICE")"
[ "$status" = 200 ] || fail "create: HTTP $status"
python3 - "$TMP/body" <<'PY' || fail "create response shape"
import json, sys
r = json.load(open(sys.argv[1]))['records'][0]
assert r['recordName'] == 'golden-dragon' and r['recordType'] == 'Restaurant'
assert isinstance(r['recordChangeTag'], str)
assert r['fields']['name'] == {'value': 'Golden Dragon', 'type': 'STRING'}
assert isinstance(r['created']['timestamp'], int) and r['created']['userRecordName'] == '_alice'
assert isinstance(r['modified']['timestamp'], int)
PY
TAG="$(python3 -c "import json; print(json.load(open('$TMP/body'))['records'][0]['recordChangeTag'])")"
pass "create: record dictionary with recordChangeTag, fields {value,type}, created/modified"

# Query (Discover: newest first, desiredKeys).
status="$(call POST records/query '{"query":{"recordType":"Restaurant","sortBy":[{"fieldName":"___createTime","ascending":false}]},"resultsLimit":50,"desiredKeys":["name","type","location"]}')"
[ "$status" = 200 ] || fail "query: HTTP $status"
check "b['records'][0]['recordName']=='golden-dragon' and set(b['records'][0]['fields'])=={'name','type','location'}" "query result"
status="$(call POST records/query '{"query":{"recordType":"Restaurant","filterBy":[{"comparator":"CONTAINS_ALL_TOKENS","fieldName":"name","fieldValue":{"value":"golden"}}]}}')"
[ "$status" = 200 ] || fail "token query: HTTP $status"
check "[r['recordName'] for r in b['records']]==['golden-dragon']" "CONTAINS_ALL_TOKENS"
pass "query: sortBy ___createTime, desiredKeys, CONTAINS_ALL_TOKENS"

# Conflict: bob updates with alice's stale tag after alice changed it.
status="$(call POST records/modify "{\"operations\":[{\"operationType\":\"update\",\"record\":{\"recordName\":\"golden-dragon\",\"recordType\":\"Restaurant\",\"recordChangeTag\":\"$TAG\",\"fields\":{\"phone\":{\"value\":\"232-923423\"}}}}]}" "$ALICE")"
[ "$status" = 200 ] || fail "update: HTTP $status"
status="$(call POST records/modify "{\"operations\":[{\"operationType\":\"update\",\"record\":{\"recordName\":\"golden-dragon\",\"recordType\":\"Restaurant\",\"recordChangeTag\":\"$TAG\",\"fields\":{\"phone\":{\"value\":\"000\"}}}}]}" "$ALICE")"
[ "$status" = 200 ] || fail "stale update: HTTP $status"
check "b['records'][0]['serverErrorCode']=='CONFLICT' and b['records'][0]['recordName']=='golden-dragon' and 'reason' in b['records'][0]" "stale update → per-record CONFLICT"
status="$(call POST records/modify '{"operations":[{"operationType":"forceDelete","record":{"recordName":"golden-dragon"}}]}' "$BOB")"
check "b['records'][0]['serverErrorCode']=='ACCESS_DENIED'" "bob deleting alice's record → ACCESS_DENIED"
pass "conflict: stale recordChangeTag → CONFLICT; another user's delete → ACCESS_DENIED"

# Asset: upload URL, POST the bytes, save the record with the receipt, download byte for byte.
head -c 300000 /dev/urandom > "$TMP/photo.bin"
status="$(call POST assets/upload '{"tokens":[{"recordName":"golden-dragon","recordType":"Restaurant","fieldName":"image"}]}' "$ALICE")"
[ "$status" = 200 ] || fail "assets/upload: HTTP $status"
check "b['tokens'][0]['fieldName']=='image' and b['tokens'][0]['url'].startswith('http')" "upload token"
UPLOAD="$(python3 -c "import json; print(json.load(open('$TMP/body'))['tokens'][0]['url'])")"
status="$(curl -sS -o "$TMP/body" -w '%{http_code}' -X POST --data-binary @"$TMP/photo.bin" "$UPLOAD")"
[ "$status" = 200 ] || fail "upload bytes: HTTP $status"
check "b['singleFile']['size']==300000 and 'receipt' in b['singleFile'] and 'fileChecksum' in b['singleFile']" "upload response"
ASSET="$(python3 -c "import json; print(json.dumps(json.load(open('$TMP/body'))['singleFile']))")"
status="$(call POST records/modify "{\"operations\":[{\"operationType\":\"forceUpdate\",\"record\":{\"recordName\":\"golden-dragon\",\"recordType\":\"Restaurant\",\"fields\":{\"image\":{\"value\":$ASSET,\"type\":\"ASSETID\"}}}}]}" "$ALICE")"
[ "$status" = 200 ] || fail "save with asset: HTTP $status"
check "b['records'][0]['fields']['image']['type']=='ASSETID' and b['records'][0]['fields']['image']['value']['downloadURL'].startswith('http')" "asset field"
DOWNLOAD="$(python3 -c "import json; print(json.load(open('$TMP/body'))['records'][0]['fields']['image']['value']['downloadURL'])")"
curl -sS -f -o "$TMP/download.bin" "$DOWNLOAD" || fail "download failed"
cmp -s "$TMP/photo.bin" "$TMP/download.bin" || fail "downloaded bytes differ from the upload"
pass "asset: upload → receipt → ASSETID field → downloadURL returns the same 300,000 bytes"

# Malformed requests get 4xx, never 5xx.
for body in '{nope' '[]' '{"query":{"recordType":5}}' '{"query":{"recordType":"Restaurant","filterBy":[{"comparator":"LIKE","fieldName":"name","fieldValue":{"value":"x"}}]}}' '{"query":{"recordType":"Restaurant"},"resultsLimit":-1}'; do
  status="$(call POST records/query "$body")"
  [[ "$status" =~ ^4 ]] || fail "malformed body '$body': HTTP $status"
done
pass "malformed bodies → 4xx"

# SIGTERM: graceful, exit 0; the log has one line per request and no token.
serve_stop TERM || fail "serve did not exit 0 on SIGTERM"
grep -q "POST /database/1/$C/development/public/records/query 200" "$SERVE_LOG" || fail "request log lacks the query line"
for secret in "$API" "$ALICE" "$BOB" alice-secret bob-secret; do
  if grep -qF -- "$secret" "$SERVE_LOG"; then fail "a token or password appears in the server log"; fi
done
pass "SIGTERM → exit 0; request log has method, path, status, ms and no secrets"

# HTTPS: the same server with --tls-certificate/--tls-key prints an https URL and serves over TLS.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "/CN=127.0.0.1" \
  -keyout "$TMP/key.pem" -out "$TMP/cert.pem" >/dev/null 2>&1 || fail "openssl could not make a test certificate"
serve_start "$DATA" --tls-certificate "$TMP/cert.pem" --tls-key "$TMP/key.pem"
[[ "$SERVE_URL" == https://* ]] || fail "TLS server printed '$SERVE_URL', not an https URL"
status="$(curl -sS --cacert "$TMP/cert.pem" -o "$TMP/body" -w '%{http_code}' -X POST --data '{"query":{"recordType":"Restaurant"}}' \
  "$SERVE_URL/database/1/$C/development/public/records/query?ckAPIToken=$API")"
[ "$status" = 200 ] || fail "query over HTTPS: HTTP $status"
check "b['records'][0]['recordName']=='golden-dragon'" "query over HTTPS"
if curl -sS -o /dev/null "http://${SERVE_URL#https://}/database/1/$C/development/public/records/query" 2>/dev/null; then
  fail "the TLS server answered plain HTTP"
fi
serve_stop TERM || fail "TLS serve did not exit 0 on SIGTERM"
pass "HTTPS with --tls-certificate/--tls-key: listening on https://…, verified with the certificate, plain HTTP refused"
