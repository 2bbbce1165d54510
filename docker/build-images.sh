#!/usr/bin/env bash
# Build the judge's images with Compose, also where no image registry is reachable: then local
# stand-ins for python:3.11-slim (build-base.sh) and postgres:16 (postgres.Dockerfile) are built
# first, and this host's torch CPU wheel is used if it has one (prepare-local.sh). Cached: a
# second run only rebuilds what changed. Writes the image settings that later Compose commands
# need to docker/local/images.env:
#   docker/build-images.sh && set -a && . docker/local/images.env && set +a && docker-compose up -d
set -euo pipefail
cd "$(dirname "$0")/.."
compose=${COMPOSE:-$(command -v docker-compose || echo "docker compose")}
torch=${CJUDGE_TORCH_VERSION:-2.13.0+cpu}

available() { docker image inspect "$1" >/dev/null 2>&1 || docker pull -q "$1" >/dev/null 2>&1; }

base=${CJUDGE_BASE_IMAGE:-python:3.11-slim}
if ! available "$base"; then
  echo "build-images: cannot pull $base: using a local stand-in"
  base=cjudge/base:bookworm-py311
  docker/build-base.sh "$base"
fi
postgres=${CJUDGE_POSTGRES_IMAGE:-postgres:16}
if ! available "$postgres"; then
  echo "build-images: cannot pull $postgres: building a local stand-in"
  postgres=cjudge/postgres:local
  docker build -q -f docker/postgres.Dockerfile --build-arg BASE_IMAGE="$base" -t "$postgres" . \
    >/dev/null
fi
index=${CJUDGE_TORCH_INDEX_URL-https://download.pytorch.org/whl/cpu}
if [ "$(docker/prepare-local.sh "$torch")" = wheel ]; then
  index=""  # the local wheel: no index needed
fi

cat > docker/local/images.env <<END
CJUDGE_BASE_IMAGE=$base
CJUDGE_POSTGRES_IMAGE=$postgres
CJUDGE_TORCH_VERSION=$torch
CJUDGE_TORCH_INDEX_URL=$index
END
set -a
. docker/local/images.env
set +a
# building needs none of the secrets the compose file requires to run
POSTGRES_PASSWORD=${POSTGRES_PASSWORD:-unused} DOCKER_GID=${DOCKER_GID:-0} $compose build
echo "build-images: built; settings in docker/local/images.env"
