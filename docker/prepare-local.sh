#!/usr/bin/env bash
# Copy into docker/local/ what image builds need from this host: extra CA certificates (for a
# PyPI mirror behind a private CA) and a local torch CPU wheel of the pinned version. Prints
# "wheel" when a torch wheel was staged (builds then need no TORCH_INDEX_URL), else nothing.
#   docker/prepare-local.sh [TORCH_VERSION]   (default 2.13.0+cpu)
set -euo pipefail
cd "$(dirname "$0")/local"
version=${1:-2.13.0+cpu}

rm -f certs/*.crt wheels/*.whl
for crt in /usr/local/share/ca-certificates/*.crt /usr/local/share/ca-certificates/*/*.crt; do
  [ -f "$crt" ] && cp "$crt" certs/
done

# pip's find-links: from the environment, else from pip's configuration
links=${PIP_FIND_LINKS:-$(pip3 config get global.find-links 2>/dev/null || true)}
for dir in $links; do
  for whl in "${dir#file://}"/torch-"$version"-*.whl; do
    if [ -f "$whl" ]; then
      ln -f "$whl" wheels/ 2>/dev/null || cp "$whl" wheels/
      echo wheel
      exit 0
    fi
  done
done
