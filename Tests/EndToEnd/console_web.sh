#!/usr/bin/env bash
# End-to-end: the web console at /console in a real browser. `localcloud serve` (SQLite) on a free
# port, an administrator from `localcloud admins add`, data seeded through CloudKit Web Services,
# then Tests/EndToEnd/console_web.py drives Debian's chromium (headless) with Playwright for
# Python: sign-in, every section, schema edits then an API sort, filter + paging, edit + conflict,
# act as alice/bob, tokens, the live log, deploy, hostile record text, CSRF, sign-out.
# Also checks `admins list|remove` and `--no-console`.
#
# Needs: chromium (apt) and playwright (pip); never `playwright install`. CONSOLE_SCREENSHOTS=DIR
# writes one PNG per section there (docs/console/ was made that way).
set -euo pipefail
source "$(dirname "$0")/support/serve.sh"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-console-web.XXXXXX")"
trap 'serve_kill; rm -rf "$TMP"' EXIT
fail() { printf 'FAIL: %s\n' "$*" >&2; [ -n "${SERVE_LOG:-}" ] && { echo "--- server log ---" >&2; tail -20 "$SERVE_LOG" >&2; }; exit 1; }
pass() { printf 'ok - %s\n' "$*"; }

command -v "${CHROMIUM:-/usr/bin/chromium}" >/dev/null || fail "chromium is not installed (apt-get install chromium)"
python3 -c 'import playwright' 2>/dev/null || python3 -m pip install -q playwright || fail "cannot install playwright (pip)"
ensure_localcloud
DATA="$TMP/data"
C=iCloud.FoodPin
lc() { "$LOCALCLOUD_BIN" --data-dir "$DATA" --container "$C" "$@"; }

lc schema import "$SERVE_ROOT/Assets/FoodPin.ckdb" >/dev/null
TOKEN="$(lc tokens create --name console-e2e)"
printf 'alice-secret' | lc users add alice --password-stdin >/dev/null
printf 'bob-secret' | lc users add bob --password-stdin >/dev/null
ALICE="$(lc users token alice)"
BOB="$(lc users token bob)"
ADMIN_PASSWORD="console-$RANDOM$RANDOM"
printf '%s\n' "$ADMIN_PASSWORD" | lc admins add root --password-stdin >/dev/null
printf 'x\n' | lc admins add other --password-stdin >/dev/null
lc admins list | grep -q '^root ' || fail "admins list does not show root"
lc admins remove other >/dev/null
! lc admins list | grep -q '^other ' || fail "admins remove left 'other'"
! printf 'y' | lc admins add root --password-stdin 2>/dev/null || fail "a second 'root' was accepted"
pass "admins add (password from stdin), list, remove; a taken name is refused"

# A record with a photo, for the record page's image preview.
lc --user alice records create Restaurant name="With a photo" type=Photo --name with-photo \
  --asset image="$SERVE_ROOT/Assets/Restaurants/athena.jpg" >/dev/null || fail "records create with a photo"

# Under TLS the session cookie is Secure (and HttpOnly, SameSite=Strict), and sign-in is throttled.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMP/key.pem" -out "$TMP/cert.pem" -days 1 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1 || fail "openssl could not make a certificate"
serve_start "$DATA" --tls-certificate "$TMP/cert.pem" --tls-key "$TMP/key.pem"
[[ "$SERVE_URL" == https://* ]] || fail "TLS: serve printed $SERVE_URL"
# The sign-in form's CSRF token (login CSRF) belongs to the sign-in cookie: fetch the form first.
signin_post() {  # PASSWORD [curl options…]: POSTs the sign-in form with its token and cookie
  local password="$1" csrf; shift
  csrf="$(curl -sS --cacert "$TMP/cert.pem" -c "$TMP/jar" -b "$TMP/jar" "$SERVE_URL/console/signin" \
    | sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p')"
  [ -n "$csrf" ] || fail "the sign-in form has no CSRF token"
  curl -sS --cacert "$TMP/cert.pem" -b "$TMP/jar" "$@" --data-urlencode user=root --data-urlencode "password=$password" \
    --data-urlencode "csrf=$csrf" "$SERVE_URL/console/signin"
}
status="$(curl -sS --cacert "$TMP/cert.pem" -o /dev/null -w '%{http_code}' -b "$TMP/jar" \
  --data-urlencode user=root --data-urlencode "password=$ADMIN_PASSWORD" "$SERVE_URL/console/signin")"
[ "$status" = 403 ] || fail "login CSRF: a sign-in POST without the form's token answered $status, want 403"
status="$(curl -sS --cacert "$TMP/cert.pem" -o /dev/null -w '%{http_code}' -c "$TMP/jar" -b "$TMP/jar" \
  --data-urlencode user=root --data-urlencode "password=$ADMIN_PASSWORD" --data-urlencode "csrf=$(printf '0%.0s' {1..64})" \
  "$SERVE_URL/console/signin")"
[ "$status" = 403 ] || fail "login CSRF: a sign-in POST with a wrong token answered $status, want 403"
pass "login CSRF: a sign-in POST without (or with a wrong) form token is refused (403), even with the right password"
signin_post "$ADMIN_PASSWORD" -o /dev/null -D "$TMP/headers"
grep -i '^set-cookie: localcloud_console=' "$TMP/headers" > "$TMP/cookie" || fail "TLS: no session cookie"
for attribute in Secure HttpOnly "SameSite=Strict" "Path=/console"; do
  grep -qi "; *$attribute" "$TMP/cookie" || fail "TLS: the session cookie lacks $attribute: $(cat "$TMP/cookie")"
done
for attempt in 1 2 3 4 5; do
  status="$(signin_post wrong -o /dev/null -w '%{http_code}')"
  [ "$status" = 401 ] || fail "wrong password $attempt: HTTP $status, want 401"
done
status="$(signin_post "$ADMIN_PASSWORD" -o /dev/null -D "$TMP/throttled" -w '%{http_code}')"
[ "$status" = 429 ] && grep -qi '^retry-after: ' "$TMP/throttled" || fail "after 5 wrong passwords: HTTP $status, want 429 with Retry-After"
serve_stop
pass "TLS: the console's session cookie is Secure, HttpOnly, SameSite=Strict; 5 wrong passwords lock the name out (429, Retry-After)"

serve_start "$DATA" --no-console
status="$(curl -s -o /dev/null -w '%{http_code}' "$SERVE_URL/console/signin")"
[ "$status" = 404 ] || fail "--no-console: /console/signin answered $status, want 404"
serve_stop
pass "--no-console: no /console"

serve_start "$DATA"
python3 "$SERVE_ROOT/Tests/EndToEnd/support/console_seed.py" "$SERVE_URL" "$C" "$TOKEN" "$ALICE" || fail "seeding"
pass "seeded 28 records through the API (and one with a photo through localcloud records create)"

[ -n "${CONSOLE_SCREENSHOTS:-}" ] && mkdir -p "$CONSOLE_SCREENSHOTS"
CONSOLE_URL="$SERVE_URL" TOKEN="$TOKEN" ALICE="$ALICE" BOB="$BOB" ADMIN=root ADMIN_PASSWORD="$ADMIN_PASSWORD" \
  CONTAINER="$C" SCREENSHOTS="${CONSOLE_SCREENSHOTS:-}" PHOTO_RECORD=with-photo \
  timeout 600 python3 "$SERVE_ROOT/Tests/EndToEnd/console_web.py" || fail "console_web.py"

# The request log on stderr never has a token either.
! grep -qF "$TOKEN" "$SERVE_LOG" || fail "the API token reached the server log"
! grep -qF "$ADMIN_PASSWORD" "$SERVE_LOG" || fail "the admin password reached the server log"
serve_stop
pass "no token or password in the server log; serve stopped cleanly"
