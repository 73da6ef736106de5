#!/usr/bin/env bash
# CI-sized reliability runs: 4 processes x 50 adds at once, then 10 SIGKILLs mid-add.
# Full-size runs and their results: docs/RELIABILITY.md.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN_DIR="${BIN_DIR:-$ROOT/.build/debug}"
export BIN_DIR
# The writers are executables; build them if this checkout has not yet.
if [ ! -x "$BIN_DIR/localcloud-stress" ] || [ ! -x "$BIN_DIR/foodpin" ]; then
  (cd "$ROOT" && swift build --product localcloud-stress && swift build --product foodpin)
fi
# Through `foodpin add` when this build has it, else through the store's child writer.
if [ -z "${RELIABILITY_WRITER:-}" ]; then
  probe_home="$(mktemp -d)"
  if LOCALCLOUD_HOME="$probe_home" LOCALCLOUD_USER=probe "$BIN_DIR/foodpin" add --name probe --type probe --location probe >/dev/null 2>&1; then
    export RELIABILITY_WRITER=foodpin
  else
    export RELIABILITY_WRITER=stress
  fi
  rm -rf "$probe_home"
fi
echo "reliability: writer $RELIABILITY_WRITER"
bash "$ROOT/scripts/reliability/concurrency.sh" 4 50
bash "$ROOT/scripts/reliability/crash.sh" 10
