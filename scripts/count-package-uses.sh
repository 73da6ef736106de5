#!/usr/bin/env bash
# Counts the `package` declarations of LocalCloud that FoodPin (FoodPinCore, FoodPinTUI) uses, exactly.
#
# How: a copy of the package gets `@available(*, deprecated, message: "package")` in front of every
# `package` declaration in Sources/LocalCloud, and `swift build --product foodpin` builds it. Every use of
# such a declaration is then a deprecation warning at its use site. Warnings, unlike the errors that
# rewriting `package` to `internal` gives, do not stop the build, so a use in FoodPinTUI is counted
# even while FoodPinCore has uses too. LocalCloudCLI (the options both CLIs share) is counted apart.
#
# Usage: scripts/count-package-uses.sh            # prints the counts; exits 1 if FoodPin uses any
#        COUNT_DIR=/some/dir scripts/...          # where the copy and its build live (kept, so a rerun
#                                                 # rebuilds only LocalCloud and above)
# Output: each declaration used with its number of use sites, then
#         "FoodPin uses N package declarations of LocalCloud at M sites".
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd -P)
dir=${COUNT_DIR:-${TMPDIR:-/tmp}/foodpin-package-uses}
rm -rf "$dir/src" && mkdir -p "$dir/src"
# tar keeps the files' times, so a rerun rebuilds only what changed (and LocalCloud, which sed rewrites).
tar -C "$here" --exclude=./.build --exclude=./.build-release --exclude=./.git -cf - . | tar -C "$dir/src" -xf -

marker='@available(*, deprecated, message: "package")'
# Every `package` declaration that opens a line (after indentation), except overrides: an override of a
# `package` method is reached through the declaration it overrides, which is marked.
find "$dir/src/Sources/LocalCloud" -name '*.swift' -print0 | xargs -0 sed -i -E \
    "s/^([[:space:]]*)package (var|func|static|init|struct|enum|mutating|let|protocol|private|final|indirect|convenience|subscript|consuming|class|typealias|actor|extension|nonisolated)\b/\1$marker package \2/"

log="$dir/build.log"
(cd "$dir/src" && swift build --product foodpin --scratch-path "$dir/build" >"$log" 2>&1) || {
    grep -E "error:" "$log" | sort -u | head -40 >&2
    echo "count-package-uses: the build failed; see $log" >&2
    exit 2
}

# One line per use site: file:line:col and the declaration's name. The same site is reported once per
# module that compiles it, hence the sort -u.
grep -E "warning: '[^']+' is deprecated: package" "$log" \
    | sed -E "s/^([^:]+:[0-9]+:[0-9]+): warning: '([^']+)'.*/\1 \2/" \
    | sed -E "s#^$dir/src/##" | sort -u >"$dir/uses.txt" || true

report() { # $1: label, $2: path regex
    local uses
    uses=$(grep -E "^$2" "$dir/uses.txt" || true)
    local sites=0 names=0
    if [[ -n "$uses" ]]; then
        echo "$uses" | awk '{print $2}' | sort | uniq -c | sort -rn | sed 's/^/  /'
        sites=$(echo "$uses" | wc -l)
        names=$(echo "$uses" | awk '{print $2}' | sort -u | wc -l)
    fi
    echo "$1 uses $names package declarations of LocalCloud at $sites sites"
    [[ "$1" != FoodPin ]] || foodpin_names=$names
}
foodpin_names=0
report FoodPin "Sources/(FoodPinCore|FoodPinTUI)/"
report LocalCloudCLI "Sources/LocalCloudCLI/"
[[ "$foodpin_names" -eq 0 ]]
