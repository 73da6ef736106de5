#!/usr/bin/env bash
# Runs the README's set-up line and then its test line, exactly as written, in a fresh clone inside
# a fresh minimal Debian (the release of this machine) with the Swift toolchain mounted in:
#
#   sudo scripts/fresh-debian.sh [DIR]        # DIR: where the Debian tree goes (default: a temp dir)
#
# Needs root, mmdebstrap (apt-get install mmdebstrap) and Debian's mirror. The tree gets what
# swift.org lists for installing Swift on Debian 12, and nothing else; the toolchain (`which swift`)
# and the package mirror git uses (/opt/swift-packages, through git's url.insteadOf) are
# bind-mounted read-only. The log is DIR/readme-run.log. Not part of CI: it downloads Debian.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "fresh-debian.sh: run as root (it mounts and chroots)" >&2; exit 64; }
command -v mmdebstrap >/dev/null || { echo "fresh-debian.sh: apt-get install mmdebstrap first" >&2; exit 69; }
REPO="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${1:-$(mktemp -d /tmp/fresh-debian.XXXXXX)}"
mkdir -p "$DIR"   # mmdebstrap needs the parent of its target to exist
DIR="$(cd "$DIR" && pwd)"
ROOT="$DIR/root"
TOOLCHAIN="$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")"   # /opt/swift
. /etc/os-release
mounts=()
cleanup() {
  local i
  for (( i=${#mounts[@]}-1; i>=0; i-- )); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mount_in() { mkdir -p "$2"; mount "${@:3}" "$1" "$2"; mounts+=("$2"); }

if [ ! -x "$ROOT/bin/bash" ]; then
  # Swift's own Debian 12 dependencies (swift.org), plus sudo, since the README's lines use it.
  mmdebstrap --variant=minbase \
    --include=ca-certificates,binutils,git,gnupg2,libc6-dev,libcurl4-openssl-dev,libedit2,libgcc-12-dev,libpython3-dev,libsqlite3-0,libstdc++-12-dev,libxml2-dev,libz3-dev,pkg-config,python3-lldb-14,tzdata,unzip,zlib1g-dev,sudo \
    "$VERSION_CODENAME" "$ROOT" http://deb.debian.org/debian
fi
mount_in "$TOOLCHAIN" "$ROOT$TOOLCHAIN" --bind -o ro
mount_in /opt/swift-packages "$ROOT/opt/swift-packages" --bind -o ro
mount_in proc "$ROOT/proc" -t proc
mount_in sys "$ROOT/sys" -t sysfs
mount_in /dev "$ROOT/dev" --rbind
mount_in tmpfs "$ROOT/dev/shm" -t tmpfs
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# git reads github.com from the local mirror, as on this machine.
git config --system --get-regexp 'url\..*\.insteadof' | cut -d' ' -f1 | sort -u | while read -r key; do
  chroot "$ROOT" git config --system --unset-all "$key" || true
done
git config --system --get-regexp 'url\..*\.insteadof' | while read -r key value; do
  chroot "$ROOT" git config --system --add "$key" "$value"
done
rm -rf "$ROOT/root/FoodPin"
git clone -q "$REPO" "$ROOT/root/FoodPin"
cat > "$ROOT/root/run-readme.sh" <<'INNER'
#!/bin/bash
cd /root/FoodPin
setup=$(grep -m1 '^sudo apt-get update && sudo apt-get install' README.md)
tests=$(grep -m1 '&& swift test$' README.md)
for line in "$setup" "$tests"; do
  echo "== $line"; date -u; start=$(date +%s)
  bash -c "$line" < /dev/null
  echo "== exit $? after $(( $(date +%s) - start )) s"
done
INNER
chmod +x "$ROOT/root/run-readme.sh"
chroot "$ROOT" env -i HOME=/root PATH="$TOOLCHAIN/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  LANG=C.UTF-8 TERM=dumb /root/run-readme.sh 2>&1 | tee "$DIR/readme-run.log"
