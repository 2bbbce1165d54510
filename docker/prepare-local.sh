#!/usr/bin/env bash
# Copy into docker/local/ what image builds need from this host: extra CA certificates (for a
# PyPI mirror behind a private CA) and a local torch CPU wheel of the pinned version. Prints
# "wheel" when a torch wheel is staged (builds then need no TORCH_INDEX_URL), else nothing.
# Safe to run while another build reads docker/local: files are replaced atomically, only
# when they differ.
#   docker/prepare-local.sh [TORCH_VERSION]   (default 2.13.0+cpu)
set -euo pipefail
cd "$(dirname "$0")/local"
version=${1:-2.13.0+cpu}

stage() {  # stage FILE DIR: DIR/basename(FILE) becomes a copy of FILE
  local target="$2/$(basename "$1")"
  cmp -s "$1" "$target" 2>/dev/null && return
  cp "$1" "$target.tmp.$$"
  mv -f "$target.tmp.$$" "$target"
}

for crt in /usr/local/share/ca-certificates/*.crt /usr/local/share/ca-certificates/*/*.crt; do
  if [ -f "$crt" ]; then stage "$crt" certs; fi
done

# pip's find-links: from the environment, else from pip's configuration
links=${PIP_FIND_LINKS:-$(pip3 config get global.find-links 2>/dev/null || true)}
for dir in $links; do
  for whl in "${dir#file://}"/torch-"$version"-*.whl; do
    if [ -f "$whl" ]; then
      stage "$whl" wheels
      find wheels -name '*.whl' ! -name "$(basename "$whl")" -delete  # other versions
      echo wheel
      exit 0
    fi
  done
done
