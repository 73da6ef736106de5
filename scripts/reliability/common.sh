# Shared by concurrency.sh and crash.sh: binaries, the writer, and the checks on the store file.
#
#   RELIABILITY_WRITER=foodpin (default) adds through `foodpin add … --image PATH`, one process per add;
#   RELIABILITY_WRITER=stress uses `localcloud-stress`, one long-lived writer process with assets.
#   BIN_DIR defaults to .build/debug; LOCALCLOUD_HOME to a fresh temp directory (kept on failure).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN_DIR="${BIN_DIR:-$ROOT/.build/debug}"
WRITER="${RELIABILITY_WRITER:-foodpin}"
CONTAINER_ID="${LOCALCLOUD_CONTAINER:-iCloud.FoodPin}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/localcloud-reliability.XXXXXX")"
export LOCALCLOUD_HOME="${LOCALCLOUD_HOME:-$WORK/home}"
export LOCALCLOUD_CONTAINER="$CONTAINER_ID"
mkdir -p "$LOCALCLOUD_HOME"
DB="$LOCALCLOUD_HOME/$CONTAINER_ID/development.sqlite"
ASSETS="$LOCALCLOUD_HOME/$CONTAINER_ID/development-assets"
FAILED=0

log() { printf '  %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; FAILED=1; }

need() {
  [ -x "$1" ] || { echo "missing $1: run \`swift build\` first" >&2; exit 2; }
}

check_writer() {
  case "$WRITER" in
    foodpin) need "$BIN_DIR/foodpin"
             # Until `foodpin add` is wired, say so plainly instead of failing obscurely.
             if "$BIN_DIR/foodpin" add --name probe --type probe --location probe 2>&1 | grep -q "not implemented"; then
               echo "foodpin add is not implemented in this build; rerun with RELIABILITY_WRITER=stress" >&2; exit 2
             fi
             rm -rf "$LOCALCLOUD_HOME"; mkdir -p "$LOCALCLOUD_HOME"
             make_image ;;
    stress)  need "$BIN_DIR/localcloud-stress" ;;
    *) echo "RELIABILITY_WRITER must be foodpin or stress" >&2; exit 2 ;;
  esac
}

# A real JPEG for `foodpin add --image`, 1600x1200 so the pipeline scales it.
make_image() {
  IMAGE="$WORK/photo.jpg"
  if command -v convert >/dev/null; then
    convert -size 1600x1200 plasma:fractal -quality 85 "$IMAGE"
  else
    vips black "$IMAGE" 1600 1200 --bands 3
  fi
}

sql() { sqlite3 -batch -noheader "$DB" "PRAGMA busy_timeout=30000; $1" | grep -v '^30000$'; }

# Every record's asset row names a file that exists; prints the number of missing files.
missing_assets() {
  local missing=0 digest
  while read -r digest; do
    [ -n "$digest" ] || continue
    [ -f "$ASSETS/${digest:0:2}/$digest" ] || missing=$((missing + 1))
  done < <(sql "SELECT DISTINCT digest FROM record_assets;")
  echo "$missing"
}

finish() {
  if [ "$FAILED" = 0 ]; then
    rm -rf "$WORK"
    echo "PASS"
  else
    echo "kept the data in $WORK for inspection" >&2
    exit 1
  fi
}
