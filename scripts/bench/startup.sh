#!/usr/bin/env bash
# Whole-process start-up and `foodpin add` figures, each set in one hyperfine run, with ratios.
#
#   scripts/bench/startup.sh [BIN_DIR]      # default .build/release (swift build -c release first)
#
# Run 1: `foodpin --version`, `foodpin list --limit 50` on a seeded store, `localcloud --help`
# and a Foundation hello-world. Run 2: `foodpin add` of a 12-megapixel JPEG (scaled to 1024 wide,
# quality 80, saved with its asset) against `vipsthumbnail --size 1024x` of the same file.
# Needs hyperfine, swiftc, ImageMagick's convert and vipsthumbnail.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${1:-.build/release}"
for tool in hyperfine swiftc convert vipsthumbnail python3; do
  command -v "$tool" >/dev/null || { echo "startup.sh: $tool is needed" >&2; exit 1; }
done
[ -x "$BIN/foodpin" ] && [ -x "$BIN/localcloud" ] || { echo "startup.sh: no foodpin/localcloud in $BIN" >&2; exit 1; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

printf 'import Foundation\nprint("hello \\(ProcessInfo.processInfo.processIdentifier)")\n' > "$TMP/hello.swift"
swiftc -O "$TMP/hello.swift" -o "$TMP/hello" 2>/dev/null
export LOCALCLOUD_HOME="$TMP/data" LOCALCLOUD_USER=bench
"$BIN/foodpin" list >/dev/null   # seeds the 24 samples
convert -size 4000x3000 plasma: -quality 92 "$TMP/photo.jpg"   # 12 MP

ratio() {  # ratio JSON A B: mean of command A over mean of command B
  python3 - "$@" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
mean = lambda i: results[int(i)]["mean"]
print(f"{mean(sys.argv[2]) / mean(sys.argv[3]):.2f}")
PY
}

cpu() {  # cpu JSON A B: "A ms / B ms = R", the mean user + system CPU time of A and B
  python3 - "$@" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
cpu = lambda i: (results[int(i)]["user"] + results[int(i)]["system"]) * 1000
a, b = cpu(sys.argv[2]), cpu(sys.argv[3])
print(f"{a:.1f} ms / {b:.1f} ms = {a / b:.2f}x")
PY
}

echo "=== start-up (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
hyperfine -N --warmup 5 --runs "${RUNS:-50}" --export-json "$TMP/start.json" \
  "$BIN/foodpin --version" \
  "$BIN/foodpin list --limit 50" \
  "$BIN/localcloud --help" \
  "$TMP/hello"
echo "foodpin --version / hello-world:               $(ratio "$TMP/start.json" 0 3)x"
echo "foodpin list --limit 50 / localcloud --help:   $(ratio "$TMP/start.json" 1 2)x   (target <= 1.5)"
python3 - "$TMP/start.json" <<'PY'
import json, sys
mean = json.load(open(sys.argv[1]))["results"][0]["mean"] * 1000
print(f"foodpin --version mean:                         {mean:.1f} ms   (target <= 12 ms)")
PY

echo "=== foodpin add of a 12 MP JPEG vs vipsthumbnail (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
hyperfine -N --warmup 3 --runs "${ADD_RUNS:-20}" --export-json "$TMP/add.json" \
  "$BIN/foodpin add --name Bench --type Test --location Here --image $TMP/photo.jpg" \
  "vipsthumbnail $TMP/photo.jpg --size 1024x -o $TMP/thumb.jpg[Q=80,strip]"
echo "foodpin add / vipsthumbnail:                   $(ratio "$TMP/add.json" 0 1)x   (target <= 0.9)"
echo "  CPU (user + system):                         $(cpu "$TMP/add.json" 0 1)"
