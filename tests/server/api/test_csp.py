"""The Content-Security-Policy of every page the server serves allows no inline script but the
API docs' own start-up script, by its hash."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from server.api.app import create_app
from server.settings import Settings

INLINE = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    data = tmp_path_factory.mktemp("csp") / "data"
    settings = Settings(data_dir=data, workers=0, sandbox="none", allowed_hosts=["testserver"])
    with TestClient(create_app(settings, embedded_workers=False)) as c:
        yield c


def script_src(csp: str) -> list[str]:
    """The sources of a policy's script-src directive."""
    return next(d.split()[1:] for d in csp.split(";") if d.split()[:1] == ["script-src"])


@pytest.mark.parametrize("path", ["/", "/api/exercises", "/api/no-such-thing", "/healthz",
                                  "/openapi.json", "/docs", "/redoc", "/docs/oauth2-redirect"])
def test_no_page_allows_inline_scripts(client: TestClient, path: str) -> None:
    csp = client.get(path).headers["content-security-policy"]
    sources = script_src(csp)
    assert "'unsafe-inline'" not in sources and "'unsafe-eval'" not in sources
    assert "object-src 'none'" in csp and "frame-ancestors 'none'" in csp


@pytest.mark.parametrize("path", ["/docs", "/docs/oauth2-redirect"])
def test_the_docs_inline_scripts_are_allowed_by_hash_alone(client: TestClient, path: str) -> None:
    page = client.get(path)
    scripts = INLINE.findall(page.text)
    assert scripts  # FastAPI's start-up script: the page needs it
    hashes = {f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'"
              for s in scripts}
    assert set(script_src(page.headers["content-security-policy"])) == {"'self'", *hashes}
