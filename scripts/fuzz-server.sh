#!/usr/bin/env bash
# Fuzz a running `localcloud serve` with schemathesis against docs/openapi.yaml.
#
#   scripts/fuzz-server.sh [--max-examples 25]
#
# Starts a server on a free port over a fresh data directory (FoodPin schema, an API token, a user
# with a web auth token), runs every operation with generated valid and invalid bodies, and fails
# on any 5xx response or a crash. CI runs it with a bounded number of examples.
set -euo pipefail
cd "$(dirname "$0")/.."
EXAMPLES=25
while [ $# -gt 0 ]; do
  case "$1" in
    --max-examples) EXAMPLES="$2"; shift 2 ;;
    *) echo "usage: $0 [--max-examples N]" >&2; exit 2 ;;
  esac
done
command -v schemathesis >/dev/null || { echo "schemathesis is missing: pip install schemathesis" >&2; exit 1; }
source Tests/EndToEnd/support/serve.sh
ensure_localcloud

TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-fuzz.XXXXXX")"
trap 'serve_kill; rm -rf "$TMP"' EXIT
DATA="$TMP/data"
lc() { "$LOCALCLOUD_BIN" --data-dir "$DATA" --container iCloud.FoodPin "$@"; }
lc schema import Assets/FoodPin.ckdb >/dev/null
export LOCALCLOUD_FUZZ_API_TOKEN="$(lc tokens create --name fuzz)"
printf 'fuzz-password\n' | lc users add fuzzer --password-stdin >/dev/null
export LOCALCLOUD_FUZZ_WEB_AUTH_TOKEN="$(lc users token fuzzer)"
serve_start "$DATA"

cat > "$TMP/schemathesis.toml" <<'TOML'
[auth.openapi.ApiToken]
api_key = "${LOCALCLOUD_FUZZ_API_TOKEN}"
[auth.openapi.WebAuthToken]
api_key = "${LOCALCLOUD_FUZZ_WEB_AUTH_TOKEN}"
TOML

status=0
schemathesis --config-file "$TMP/schemathesis.toml" run docs/openapi.yaml --url "$SERVE_URL" \
  --checks not_a_server_error --max-examples "$EXAMPLES" --seed 20261123 --workers 1 --phases coverage,fuzzing \
  --request-timeout 30 --suppress-health-check all --warnings off \
  --exclude-path-regex "notifications|webcourier" || status=$?
kill -0 "$SERVE_PID" 2>/dev/null || { echo "FAIL: the server died during fuzzing" >&2; tail -20 "$SERVE_LOG" >&2; exit 1; }
fives="$(grep -cE ' 5[0-9]{2} [0-9.]+ms$' "$SERVE_LOG" || true)"
serve_stop
echo "fuzz: $(grep -cE ' [0-9]{3} [0-9.]+ms$' "$SERVE_LOG" || true) requests, $fives 5xx responses in the server log"
[ "$fives" = 0 ] || { grep -E ' 5[0-9]{2} [0-9.]+ms$' "$SERVE_LOG" | head >&2; exit 1; }
exit "$status"
