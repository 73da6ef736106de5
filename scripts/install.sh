#!/usr/bin/env bash
# Installs foodpin under a prefix, with the sample restaurants it seeds a new data directory with.
#
#   scripts/install.sh [PREFIX]                  # default /usr/local; builds with swift build -c release --static-swift-stdlib
#   scripts/install.sh --binary PATH [PREFIX]    # installs an already built foodpin instead
#
# PREFIX/bin/foodpin                 the release binary
# PREFIX/share/foodpin/Assets/       Assets/ from this checkout: Restaurants/restaurants.json, the
#                                    photos, and FoodPin.ckdb (the schema); foodpin looks here first,
#                                    as <its directory>/../share/foodpin/Assets
#
# The binary it builds carries the Swift runtime and Foundation inside it (--static-swift-stdlib: no
# fifteen shared libraries to load at each start, and no toolchain needed where it runs); it loads
# libvips, libchafa, ncursesw, SQLite and libcrypto from the system, as `swift run` does. A binary
# given with --binary may instead load the Swift runtime from its toolchain (its RUNPATH).
set -euo pipefail
cd "$(dirname "$0")/.."

binary=""
if [ "${1:-}" = --binary ]; then
  binary="${2:?--binary needs a path}"
  shift 2
fi
PREFIX="${1:-/usr/local}"
if [ -z "$binary" ]; then
  swift build -c release --static-swift-stdlib --product foodpin
  binary=".build/release/foodpin"
fi
[ -x "$binary" ] || { echo "install.sh: no foodpin binary at $binary" >&2; exit 1; }
[ -f Assets/Restaurants/restaurants.json ] || { echo "install.sh: no Assets/ in $(pwd)" >&2; exit 1; }

install -d "$PREFIX/bin" "$PREFIX/share/foodpin"
install -m 755 "$binary" "$PREFIX/bin/foodpin"
# Replaced as a whole, so a sample removed from the checkout is not left behind.
rm -rf "$PREFIX/share/foodpin/Assets.new"
cp -R Assets "$PREFIX/share/foodpin/Assets.new"
rm -rf "$PREFIX/share/foodpin/Assets"
mv "$PREFIX/share/foodpin/Assets.new" "$PREFIX/share/foodpin/Assets"
echo "installed $PREFIX/bin/foodpin and $PREFIX/share/foodpin/Assets"
