#!/usr/bin/env bash
# Make sure a Docker engine answers, starting dockerd here if none does (as root, with Debian's
# docker.io; overlay2, else vfs storage). Exit 0 once one answers; else print why not, exit 1.
set -uo pipefail
docker info >/dev/null 2>&1 && exit 0
for tool in docker dockerd; do
  command -v "$tool" >/dev/null || { echo "no $tool: apt-get install docker.io"; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "no Docker engine answers, and starting dockerd needs root"; exit 1; }

log=${DOCKERD_LOG:-/tmp/cjudge-dockerd.log}
for driver in overlay2 vfs; do
  setsid dockerd --storage-driver="$driver" >"$log" 2>&1 < /dev/null &
  pid=$!
  for _ in $(seq 60); do
    docker info >/dev/null 2>&1 && { echo "started dockerd ($driver storage, log $log)"; exit 0; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
done
echo "dockerd did not start (log $log): $(tail -n 5 "$log")"
exit 1
