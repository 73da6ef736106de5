#!/usr/bin/env bash
# Console benchmark (issue 22): every web console page at 100,000 restaurants, 100 loads each,
# and the records page against the API query of the same page.
#
#   scripts/bench/console.sh [--records 100000] [--loads 100] [--debug] [--no-build] [--scratch-path DIR]
#
# Builds `localcloud` and `localcloud-bench` in release (debug with --debug), seeds the restaurants
# (`localcloud-bench seed`), adds an administrator, and runs scripts/bench/console_pages.py
# against one server. Prints Markdown tables for docs/PERFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS=100000
LOADS=100
CONFIG=release
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS="$2"; shift 2 ;;
    --loads) LOADS="$2"; shift 2 ;;
    --debug) CONFIG=debug; shift ;;
    --no-build) BUILD=no; shift ;;
    --scratch-path) SCRATCH=(--scratch-path "$2"); shift 2 ;;
    *) echo "usage: $0 [--records N] [--loads N] [--debug] [--no-build] [--scratch-path DIR]" >&2; exit 2 ;;
  esac
done
SCRATCH=("${SCRATCH[@]:-}")
[ -n "${SCRATCH[0]}" ] || SCRATCH=()
if [ "${BUILD:-yes}" = yes ]; then
  swift build -c "$CONFIG" "${SCRATCH[@]}" --product localcloud >&2
  swift build -c "$CONFIG" "${SCRATCH[@]}" --product localcloud-bench >&2
fi
BIN="$(swift build -c "$CONFIG" "${SCRATCH[@]}" --show-bin-path)"
export LOCALCLOUD_BIN="$BIN/localcloud"
source Tests/EndToEnd/support/serve.sh

TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-console-bench.XXXXXX")"
trap 'serve_kill; rm -rf "$TMP"' EXIT
DATA="$TMP/data"
C=iCloud.FoodPin
"$BIN/localcloud-bench" seed --data-dir "$DATA" --records "$RECORDS" --container "$C" >&2
lc() { "$LOCALCLOUD_BIN" --data-dir "$DATA" --container "$C" "$@"; }
API="$(lc tokens create --name bench)"
printf 'bench-admin-password\n' | lc admins add bench --password-stdin >/dev/null
LOCALCLOUD_LOG_LEVEL=warning serve_start "$DATA"
echo "$CONFIG build, $RECORDS restaurants, load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 scripts/bench/console_pages.py "$SERVE_URL" "$C" "$API" bench bench-admin-password "$LOADS"
serve_stop
