# A stand-in for the official postgres image where no registry is reachable (docker-compose.yml
# uses postgres:16 unless CJUDGE_POSTGRES_IMAGE names this one): Debian's PostgreSQL with the
# part of the official image's interface the compose file uses: POSTGRES_USER,
# POSTGRES_PASSWORD and POSTGRES_DB on first start, data in /var/lib/postgresql/data,
# pg_isready. Build context: the repository root.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
RUN set -e; mkdir -p /etc/postgresql-common; \
    echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      -o Dpkg::Options::=--force-confold postgresql; \
    rm -rf /var/lib/apt/lists/*; \
    ln -s /usr/lib/postgresql/*/bin/* /usr/local/bin/ 2>/dev/null || true; \
    mkdir -p /var/lib/postgresql/data /run/postgresql; \
    chown postgres:postgres /var/lib/postgresql/data /run/postgresql; \
    chmod 700 /var/lib/postgresql/data
COPY docker/postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint
ENV PGDATA=/var/lib/postgresql/data LANG=C.UTF-8
USER postgres
VOLUME /var/lib/postgresql/data
EXPOSE 5432
CMD ["postgres-entrypoint"]
