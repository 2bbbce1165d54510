#!/usr/bin/env bash
# Fetch Compose v2 (Debian trixie's docker-compose package, a static Go binary that also runs on
# bookworm) into .tools/compose-v2/, without installing it system-wide, so that the smoke test
# can check the compose file with v2 too while this machine's own Compose is Debian's v1.
# apt verifies the package against the Debian archive's keys. Prints the binary's path.
#   docker/fetch-compose-v2.sh           (CJUDGE_COMPOSE_V2_SUITE=... for another suite)
set -euo pipefail
cd "$(dirname "$0")/.."
out=.tools/compose-v2
bin=$out/docker-compose
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
suite=${CJUDGE_COMPOSE_V2_SUITE:-trixie}
# the mirror this machine's apt uses (deb.debian.org unless configured otherwise)
mirror=$(grep -rhoE '^(URIs:|deb) *[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ \
  2>/dev/null | head -n 1 | awk '{print $NF}' || true)
mirror=${mirror:-http://deb.debian.org/debian}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
  > "$work/sources.list"
apt_opts=(-q -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1
          -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" update >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }
(cd "$work" && apt-get "${apt_opts[@]}" download docker-compose >>"$work/apt.log" 2>&1) \
  || { cat "$work/apt.log" >&2; exit 1; }
dpkg-deb -x "$work"/docker-compose_*.deb "$work/root"
mkdir -p "$out"
install -m 755 "$work/root/usr/libexec/docker/cli-plugins/docker-compose" "$bin"
"$bin" version >&2
echo "$bin"
