"""The API answers as an API: ``/api/*`` never falls through to the web app (an unknown path is
404, a wrong method 405 with the methods the path takes), and every error, from every layer
(FastAPI's validation and body parsing, Starlette's routing, ours), is the error model
``{"code", "detail", "message_zh"}`` (issue 40). An in-process app with a built web app."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from server.api.app import create_app
from server.api.schemas import ErrorOut
from server.settings import Settings


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """The app, serving a built web app at ``/``, and a learner's bearer header."""
    root: Path = tmp_path_factory.mktemp("errors")
    (root / "web").mkdir()
    (root / "web" / "index.html").write_text("<!doctype html><title>the app</title>")
    app = create_app(Settings(data_dir=root / "data", workers=0, sandbox="none",
                              allowed_hosts="testserver", web_dist=root / "web"),
                     embedded_workers=False)
    with TestClient(app) as c:
        token = c.post("/api/auth/register", json={"username": "error_learner",
                                                   "password": "correct horse battery"}
                       ).json()["token"]
        c.cookies.clear()
        yield c, {"authorization": f"Bearer {token}"}


def error(response: httpx.Response, status: int, code: str | None = None) -> ErrorOut:
    """``response`` as the error model: ``status``, JSON with its three fields (``message_zh``
    in Chinese) and, if given, ``code``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = ErrorOut.model_validate(response.json())
    assert body.code and body.detail and body.message_zh
    assert any("\u4e00" <= ch <= "\u9fff" for ch in body.message_zh), body.message_zh
    assert code is None or body.code == code, body
    return body


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/api/no-such-thing"), ("POST", "/api/no-such-thing"), ("DELETE", "/api/a/b/c"),
    ("GET", "/api"), ("GET", "/api/"), ("GET", "/api/exercises/ring-allreduce/nothing")])
def test_an_unknown_api_path_is_404(api, method: str, path: str) -> None:
    c, learner = api
    error(c.request(method, path, headers=learner), 404, "not_found")


@pytest.mark.parametrize(("method", "path", "allow"), [
    ("GET", "/api/auth/login", "POST"),
    ("POST", "/api/exercises/ring-allreduce", "GET"),
    ("DELETE", "/api/submissions", "GET, POST"),
    ("PATCH", "/api/me/profile", "GET, PUT"),
    ("PUT", "/api/submissions/1/events", "GET"),
    ("GET", "/api/admin/regrade", "POST")])
def test_a_wrong_method_is_405_with_the_methods_the_path_takes(api, method: str, path: str,
                                                               allow: str) -> None:
    c, learner = api
    for headers in ({}, learner):
        r = c.request(method, path, headers=headers)
        error(r, 405, "method_not_allowed")
        assert r.headers["allow"] == allow


def test_the_web_app_still_serves_its_own_routes(api) -> None:
    c, _ = api
    assert "<title>the app</title>" in c.get("/course/somewhere").text
