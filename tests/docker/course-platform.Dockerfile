# The machine a course platform grades on, as tests/docker/test_course_bundles.py stands it in:
# the project's base image (docker/build-base.sh), GitHub's `runner` user, the pinned CPU torch
# installed once into /opt/cjudge/venv (the slow step: each bundle's own install steps then find
# the pin satisfied), and in /opt/wheels what those steps install besides (the kernel's
# dependencies, setuptools to build it), which pip takes from there instead of the network.
# Build context: wheels/ (a local torch wheel, or empty: TORCH_INDEX_URL) and certs/ (extra CA
# certificates for a PyPI mirror), as docker/local holds them.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
ARG TORCH
ARG TORCH_INDEX_URL=
ARG KERNEL_DEPS
COPY certs/ /tmp/certs/
COPY wheels/ /opt/wheels/
RUN set -e; cp /etc/ssl/certs/ca-certificates.crt /tmp/ca.pem; \
    for crt in /tmp/certs/*.crt; do if [ -f "$crt" ]; then cat "$crt" >> /tmp/ca.pem; fi; done; \
    useradd --create-home --uid 1001 --user-group runner; \
    mkdir -p /opt/cjudge; chown runner:runner /opt/cjudge
# GitHub's setup-python leaves an interpreter the runner user can install into
USER runner
RUN python3 -m venv /opt/cjudge/venv \
 && PIP_CERT=/tmp/ca.pem /opt/cjudge/venv/bin/pip install --no-cache-dir \
      --disable-pip-version-check --find-links /opt/wheels \
      ${TORCH_INDEX_URL:+--extra-index-url "$TORCH_INDEX_URL"} "$TORCH"
USER root
RUN PIP_CERT=/tmp/ca.pem /opt/cjudge/venv/bin/pip download --no-cache-dir \
      --disable-pip-version-check -d /opt/wheels "setuptools>=68" wheel $KERNEL_DEPS
ENV PIP_NO_INDEX=1 PIP_FIND_LINKS=/opt/wheels PIP_DISABLE_PIP_VERSION_CHECK=1
