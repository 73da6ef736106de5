#!/usr/bin/env bash
# N processes each add M restaurants with images at once; then all N×M are present, no process
# saw an error, and every record's asset file exists.
#
#   scripts/reliability/concurrency.sh [PROCS=8] [PER_PROC=250]
#   RELIABILITY_WRITER=stress scripts/reliability/concurrency.sh 8 250   # through localcloud-stress
set -euo pipefail
PROCS="${1:-8}"
PER_PROC="${2:-250}"
source "$(dirname "$0")/common.sh"
check_writer

echo "concurrency: $PROCS processes x $PER_PROC adds ($WRITER) into $LOCALCLOUD_HOME"
start=$(date +%s.%N)
pids=()
for p in $(seq 0 $((PROCS - 1))); do
  if [ "$WRITER" = foodpin ]; then
    (
      for i in $(seq 0 $((PER_PROC - 1))); do
        if ! LOCALCLOUD_USER="user$p" "$BIN_DIR/foodpin" add --name "p$p restaurant $i" --type Stress \
             --location "Lane $p" --image "$IMAGE" >>"$WORK/acks.$p" 2>>"$WORK/errors.$p"; then
          echo "add $p/$i failed" >>"$WORK/errors.$p"
        fi
      done
    ) &
  else
    "$BIN_DIR/localcloud-stress" --data-dir "$LOCALCLOUD_HOME" --container "$CONTAINER_ID" --user "user$p" \
      --prefix "p$p" --count "$PER_PROC" --asset-bytes 30000 --ack-file "$WORK/acks.$p" \
      >/dev/null 2>>"$WORK/errors.$p" &
  fi
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid" || fail "writer $pid exited non-zero"
done
elapsed=$(echo "$(date +%s.%N) - $start" | bc)

errors=$(cat "$WORK"/errors.* 2>/dev/null | wc -l)
[ "$errors" = 0 ] || { fail "$errors error lines from writers:"; cat "$WORK"/errors.* | head -5 >&2; }
expected=$((PROCS * PER_PROC))
acked=$(cat "$WORK"/acks.* | sort -u | wc -l)
[ "$acked" = "$expected" ] || fail "$acked adds acknowledged, expected $expected"
present=$(sql "SELECT COUNT(*) FROM records WHERE scope = 1 AND record_type = 'Restaurant';")
[ "$present" = "$expected" ] || fail "$present restaurants in the store, expected $expected"
# Every acknowledged record name is in the store.
sort -u "$WORK"/acks.* > "$WORK/acked.txt"
sql "SELECT record_name FROM records WHERE scope = 1;" | sort -u > "$WORK/present.txt"
lost=$(comm -23 "$WORK/acked.txt" "$WORK/present.txt" | wc -l)
[ "$lost" = 0 ] || fail "$lost acknowledged records missing"
with_asset=$(sql "SELECT COUNT(DISTINCT record_id) FROM record_assets;")
[ "$with_asset" = "$expected" ] || fail "$with_asset records have an asset, expected $expected"
missing=$(missing_assets)
[ "$missing" = 0 ] || fail "$missing asset files missing"
integrity=$(sql "PRAGMA integrity_check;")
[ "$integrity" = ok ] || fail "integrity_check: $integrity"

printf '  %s adds in %.1f s (%.0f adds/s), %s present, %s with assets, %s missing asset files, integrity %s\n' \
  "$expected" "$elapsed" "$(echo "$expected / $elapsed" | bc -l)" "$present" "$with_asset" "$missing" "$integrity"
finish
