#!/usr/bin/env bash
# A loop of adds is killed with SIGKILL at random moments, KILLS times. Afterwards the database
# passes integrity_check, every acknowledged add is present, no record points at a missing asset,
# and garbage collection finds only true orphans.
#
#   scripts/reliability/crash.sh [KILLS=30]
#   RELIABILITY_WRITER=stress scripts/reliability/crash.sh 30
set -euo pipefail
KILLS="${1:-30}"
source "$(dirname "$0")/common.sh"
check_writer
ACKS="$WORK/acks"
: >"$ACKS"

# One writer: adds until killed; the record name is appended to $ACKS only after the add is acknowledged.
start_writer() {
  local round=$1
  if [ "$WRITER" = foodpin ]; then
    setsid bash -c '
      i=0
      while :; do
        name=$(LOCALCLOUD_USER=crasher "$0" add --name "crash $1 $i" --type Crash --location Here --image "$2") && echo "$name" >>"$3"
        i=$((i + 1))
      done' "$BIN_DIR/foodpin" "$round" "$IMAGE" "$ACKS" >/dev/null 2>>"$WORK/errors" &
  else
    setsid "$BIN_DIR/localcloud-stress" --data-dir "$LOCALCLOUD_HOME" --container "$CONTAINER_ID" --user crasher \
      --prefix "r$round" --count 0 --asset-bytes 200000 --ack-file "$ACKS" >/dev/null 2>>"$WORK/errors" &
  fi
  WRITER_PID=$!
}

echo "crash: $KILLS SIGKILLs at random moments ($WRITER) into $LOCALCLOUD_HOME"
for round in $(seq 1 "$KILLS"); do
  start_writer "$round"
  # 0.3-1.5 s: long enough for some acknowledged adds, random enough to land anywhere in a save.
  sleep "$(printf '0.%03d' $((RANDOM % 1000)))"; sleep 0.3
  kill -KILL -- "-$WRITER_PID" 2>/dev/null || kill -KILL "$WRITER_PID" 2>/dev/null || true
  wait "$WRITER_PID" 2>/dev/null || true
done

integrity=$(sql "PRAGMA integrity_check;")
[ "$integrity" = ok ] || fail "integrity_check: $integrity"
sort -u "$ACKS" | grep -v '^$' > "$WORK/acked.txt" || true
sql "SELECT record_name FROM records WHERE scope = 1;" | sort -u > "$WORK/present.txt"
acked=$(wc -l <"$WORK/acked.txt")
present=$(wc -l <"$WORK/present.txt")
lost=$(comm -23 "$WORK/acked.txt" "$WORK/present.txt" | wc -l)
[ "$lost" = 0 ] || fail "$lost acknowledged adds are missing: $(comm -23 "$WORK/acked.txt" "$WORK/present.txt" | head -3 | tr '\n' ' ')"
[ "$acked" -gt 0 ] || fail "no add was acknowledged in $KILLS rounds"
missing=$(missing_assets)
[ "$missing" = 0 ] || fail "$missing records point at missing asset files"
no_asset=$(sql "SELECT COUNT(*) FROM records r WHERE scope = 1 AND NOT EXISTS (SELECT 1 FROM record_assets a WHERE a.record_id = r.id);")
[ "$no_asset" = 0 ] || fail "$no_asset records have no asset row"
files=$(find "$ASSETS" -mindepth 2 -maxdepth 2 -type f -not -path "$ASSETS/tmp/*" | wc -l)
referenced=$(sql "SELECT COUNT(DISTINCT digest) FROM record_assets;")
partials=$(find "$ASSETS/tmp" -type f 2>/dev/null | wc -l)
# The store still takes writes after all that.
if [ "$WRITER" = stress ]; then
  "$BIN_DIR/localcloud-stress" --data-dir "$LOCALCLOUD_HOME" --container "$CONTAINER_ID" --user after \
    --prefix after --count 3 >/dev/null || fail "a writer after the crashes failed"
else
  LOCALCLOUD_USER=after "$BIN_DIR/foodpin" add --name after --type Crash --location Here >/dev/null || fail "an add after the crashes failed"
fi

log "$acked acknowledged adds, $present records present, $lost lost, $missing missing assets, integrity $integrity"
log "$files asset files for $referenced referenced digests: $((files - referenced)) orphans and $partials partial copies left for gc"

# Garbage collection removes exactly the orphans: afterwards every file is referenced and every reference has its file.
[ -x "$BIN_DIR/localcloud" ] || fail "missing $BIN_DIR/localcloud: run \`swift build\` first"
"$BIN_DIR/localcloud" --data-dir "$LOCALCLOUD_HOME" --container "$CONTAINER_ID" gc --grace-seconds 0 >"$WORK/gc.txt" \
  || fail "localcloud gc failed: $(cat "$WORK/gc.txt")"
log "$(cat "$WORK/gc.txt")"
files=$(find "$ASSETS" -mindepth 2 -maxdepth 2 -type f -not -path "$ASSETS/tmp/*" | wc -l)
referenced=$(sql "SELECT COUNT(DISTINCT digest) FROM record_assets;")
partials=$(find "$ASSETS/tmp" -type f 2>/dev/null | wc -l)
[ "$files" = "$referenced" ] || fail "after gc: $files asset files but $referenced referenced digests"
[ "$partials" = 0 ] || fail "after gc: $partials partial copies remain"
missing=$(missing_assets)
[ "$missing" = 0 ] || fail "after gc: $missing records point at missing asset files"
log "after gc: $files asset files, all referenced; no partial copies; no missing assets"
finish
