#!/usr/bin/env bash
# Remote-container benchmark (issue 11): FoodPin against `localcloud serve` on loopback.
#
#   scripts/bench/remote.sh [--records 10000] [--pages 200] [--saves 200]
#
# In one run, with release builds, against a server holding --records restaurants:
#   - the Discover page through a remote container vs the embedded store on the same file;
#   - bob's save (one remote container) → alice's notification (another, with its own cache
#     directory): the commit-to-banner latency, p50 and p99;
# (localcloud-bench remote; see Benchmarks/LocalCloudBenchmark/RemoteBenchmark.swift).
# Prints Markdown rows for docs/PERFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS=10000
PAGES=200
SAVES=200
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS="$2"; shift 2 ;;
    --pages) PAGES="$2"; shift 2 ;;
    --saves) SAVES="$2"; shift 2 ;;
    *) echo "usage: $0 [--records N] [--pages N] [--saves N]" >&2; exit 2 ;;
  esac
done
swift build -c release --product localcloud >&2
swift build -c release --product localcloud-bench >&2
BIN="$(swift build -c release --show-bin-path)"
export LOCALCLOUD_BIN="$BIN/localcloud"
source Tests/EndToEnd/support/serve.sh
TMP="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-remote-bench.XXXXXX")"
trap 'serve_kill; rm -rf "$TMP"' EXIT
DATA="$TMP/server"
C=iCloud.FoodPin
"$BIN/localcloud-bench" seed --data-dir "$DATA" --records "$RECORDS" --container "$C" >&2
lc() { "$LOCALCLOUD_BIN" --data-dir "$DATA" --container "$C" "$@"; }
API="$(lc tokens create --name bench)"
printf 'alice-password\n' | lc users add alice --password-stdin >/dev/null
printf 'bob-password\n' | lc users add bob --password-stdin >/dev/null
LOCALCLOUD_LOG_LEVEL=warning serve_start "$DATA"
echo "| Measure ($RECORDS restaurants on the server) | p50 ms | p99 ms |"
echo "|---|---:|---:|"
"$BIN/localcloud-bench" remote --server "$SERVE_URL" --api-token "$API" \
  --alice-token "$(lc users token alice)" --bob-token "$(lc users token bob)" \
  --data-dir "$DATA" --container "$C" --pages "$PAGES" --saves "$SAVES"
serve_stop
