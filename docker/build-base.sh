#!/usr/bin/env bash
# Build a local stand-in for python:3.11-slim where no image registry is reachable:
# Debian bookworm (debootstrap) with python3.11 + venv + CA certificates, imported as an image.
# Skips the build when the image exists. Needs root, debootstrap and a running Docker engine.
#   docker/build-base.sh [IMAGE]        (default cjudge/base:bookworm-py311)
# Mirror: $DEBIAN_MIRROR, else the first deb.debian.org-style URI of this host's apt sources.
set -euo pipefail
image=${1:-cjudge/base:bookworm-py311}

if docker image inspect "$image" >/dev/null 2>&1; then
  echo "build-base: $image exists, skipping"
  exit 0
fi

command -v debootstrap >/dev/null || {
  echo "build-base: needs debootstrap to build $image (apt-get install debootstrap)" >&2; exit 1; }

mirror=${DEBIAN_MIRROR:-$( (grep -rhoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' \
  /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null || true) | head -n1 | awk '{print $2}')}
mirror=${mirror:-http://deb.debian.org/debian}
root=$(mktemp -d /tmp/cjudge-base.XXXXXX)
trap 'rm -rf "$root" "$root.log"' EXIT

echo "build-base: debootstrap bookworm from $mirror"
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
  bookworm "$root" "$mirror" >"$root.log" 2>&1 || { tail -n 30 "$root.log" >&2; exit 1; }
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc/* \
  "$root"/usr/share/man/* "$root"/usr/share/locale/*

tar -C "$root" -c . | docker import \
  -c 'ENV LANG=C.UTF-8' -c 'CMD ["python3"]' - "$image" >/dev/null
echo "build-base: built $image"
