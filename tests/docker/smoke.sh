#!/usr/bin/env bash
# Smoke test of the docker-compose deployment, runnable here and in CI (as root, Debian's
# docker.io + docker-compose + debootstrap): start dockerd if needed, build the images (cached;
# offline-capable), bring up Postgres + the server behind its nginx proxy + 2 workers, drive the
# API through the proxy (tests/docker/smoke_driver.py: reference accepted, a wrong solution's
# verdict, a worker killed mid-job and the job finished by another), abuse the proxy
# (benchmarks/proxy_flood.py: a header flood and 2000 idle connections leave /healthz answering
# within 1 s), then `down -v`. Logs each step's elapsed time.
#   tests/docker/smoke.sh        (COMPOSE=... to choose docker-compose or "docker compose")
set -euo pipefail
cd "$(dirname "$0")/../.."
begin=$SECONDS
step() { printf '[smoke %4ds] %s\n' $((SECONDS - begin)) "$*"; }
logs=$(mktemp -d /tmp/cjudge-smoke.XXXXXX)
export COMPOSE=${COMPOSE:-$(command -v docker-compose || echo "docker compose")}

step "docker engine"
tests/docker/engine.sh
step "images (log $logs/build.log)"
docker/build-images.sh >"$logs/build.log" 2>&1 || { tail -n 40 "$logs/build.log"; exit 1; }
set -a
. docker/local/images.env
set +a

secret() { python3 -c 'import secrets; print(secrets.token_hex(16))'; }
POSTGRES_PASSWORD=$(secret)
CJUDGE_ADMIN_PASSWORD=$(secret)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])'; }
CJUDGE_PORT=$(free_port)
CJUDGE_TLS_PORT=$(free_port)
DOCKER_GID=$(stat -c %g /var/run/docker.sock)
export POSTGRES_PASSWORD CJUDGE_ADMIN_PASSWORD CJUDGE_PORT CJUDGE_TLS_PORT DOCKER_GID
export CJUDGE_ADMIN_USERNAME=admin CJUDGE_LEASE_S=5
compose() { $COMPOSE -p "cjudge-smoke-$$" "$@"; }  # its own project: runs may overlap
down() {
  compose logs --no-color >"$logs/compose.log" 2>&1 || true
  compose down -v --remove-orphans >>"$logs/down.log" 2>&1
}
trap 'step "FAILED: logs in $logs"; down' EXIT

step "compose up: db, server, proxy, 2 workers"
compose up -d --scale worker=2 >"$logs/up.log" 2>&1 || { cat "$logs/up.log"; exit 1; }
step "driving the API on port $CJUDGE_PORT"
python3 tests/docker/smoke_driver.py "http://127.0.0.1:$CJUDGE_PORT"
step "through the proxy: a header flood and 2000 idle connections; /healthz within 1 s"
python3 benchmarks/proxy_flood.py "http://127.0.0.1:$CJUDGE_PORT" --idle 2000 --header-mib 16
step "compose down -v"
trap - EXIT
down
step "passed in $((SECONDS - begin)) s (logs in $logs)"
