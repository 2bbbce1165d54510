#!/usr/bin/env bash
# Set up everything the judge and its tests need, from a fresh clone. Idempotent: re-running
# skips what is already there. Needs root for the Debian packages (bubblewrap, chromium, and
# docker.io, docker-compose, debootstrap for the docker-compose deployment's tests).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
command -v chromium >/dev/null || need_apt+=(chromium)
# the docker-compose deployment's smoke test: an engine, Compose, and debootstrap for a base image
command -v dockerd >/dev/null || need_apt+=(docker.io)
command -v docker-compose >/dev/null || need_apt+=(docker-compose)
command -v debootstrap >/dev/null || need_apt+=(debootstrap)
# the queue's tests on Postgres start a throw-away cluster with Debian's PostgreSQL
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing Debian packages: ${need_apt[*]}"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need_apt[@]}" >/dev/null
  else
    echo "setup: missing ${need_apt[*]}: run 'sudo apt-get install ${need_apt[*]}'" >&2
    exit 1
  fi
fi

# Compose v2 beside Debian's v1 (in .tools/, not installed): the smoke test runs with both
if [ ! -x .tools/compose-v2/docker-compose ]; then
  echo "setup: fetching Compose v2 (Debian trixie's docker-compose) into .tools/compose-v2"
  docker/fetch-compose-v2.sh >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  python3.11 -m venv .venv 2>/dev/null || python3 -m venv .venv
fi
stamp=.venv/.setup-$(sha1sum pyproject.toml | cut -c1-12)
if [ ! -f "$stamp" ]; then
  echo "setup: installing Python packages (torch 2.13.0 CPU build, pinned)"
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q "torch==2.13.0"
  .venv/bin/pip install -q -e ".[server,bench,dev]"
  touch "$stamp"
fi

# pyodide-build, at build time only: `pyodide lockfile add-wheels` writes the browser's
# pyodide-lock.json (web/scripts/build.mjs). It needs Python >= 3.12, so it has a venv of its own
# in .tools/pyodide-build, made from the first Python >= 3.12 found (PATH, pyenv's versions,
# Debian's python3.12 where the release has one, else a Python that uv fetches).
pyodide_pins=(pyodide-build==0.39.2 "pyodide-lock[wheel]==0.2.1")
pyodide_venv=.tools/pyodide-build
pyodide_stamp=$pyodide_venv/.setup-$(echo "${pyodide_pins[*]}" | sha1sum | cut -c1-12)
if [ ! -f "$pyodide_stamp" ]; then
  is_312() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; }
  py312=
  for candidate in python3.14 python3.13 python3.12 python3 \
      "$(pyenv root 2>/dev/null || echo /nonexistent)"/versions/3.1[2-9]*/bin/python3; do
    if is_312 "$candidate"; then py312=$candidate; break; fi
  done
  if [ -z "$py312" ] && [ "$(id -u)" = 0 ] && apt-cache show python3.12-venv >/dev/null 2>&1; then
    echo "setup: installing Debian's python3.12 for pyodide-build"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3.12 python3.12-venv >/dev/null
    py312=python3.12
  fi
  rm -rf "$pyodide_venv"
  if [ -n "$py312" ]; then
    echo "setup: creating $pyodide_venv (pyodide-build, $("$py312" --version))"
    "$py312" -m venv "$pyodide_venv"
  else
    echo "setup: creating $pyodide_venv (pyodide-build, a Python 3.12 fetched by uv)"
    .venv/bin/pip install -q uv
    .venv/bin/uv venv -q --seed --python 3.12 "$pyodide_venv"
  fi
  "$pyodide_venv/bin/pip" install -q "${pyodide_pins[@]}"
  "$pyodide_venv/bin/pyodide" lockfile add-wheels --help >/dev/null
  touch "$pyodide_stamp"
fi

if [ -f web/package.json ]; then
  if [ ! -d web/node_modules ] || [ web/package-lock.json -nt web/node_modules ]; then
    echo "setup: installing web packages (npm ci)"
    (cd web && npm ci --no-audit --no-fund --loglevel=error)
  fi
  echo "setup: building the web app"
  (cd web && npm run --silent build)
fi
echo "setup: ready"
