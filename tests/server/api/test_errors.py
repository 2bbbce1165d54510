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
    ("GET", "/api/admin/regrade", "POST"),
    ("POST", "/healthz", "GET")])
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


def test_401_not_logged_in(api) -> None:
    c, _ = api
    r = c.get("/api/auth/me")
    error(r, 401, "not_logged_in")
    assert r.headers["www-authenticate"] == "Bearer"


def test_403_staff_only(api) -> None:
    c, learner = api
    error(c.get("/api/admin/progress", headers=learner), 403, "staff_only")
    error(c.post("/api/admin/regrade", json={"exercise": "ring-allreduce"}, headers=learner),
          403, "staff_only")


def test_404_unknown_exercise_and_submission(api) -> None:
    c, learner = api
    error(c.get("/api/exercises/no-such-exercise"), 404, "unknown_exercise")
    error(c.get("/api/exercises/no-such-exercise/leaderboard", headers=learner), 404,
          "unknown_exercise")
    error(c.post("/api/submissions", json={"exercise": "no-such-exercise", "code": "x = 1"},
                 headers=learner), 404, "unknown_exercise")
    error(c.get("/api/submissions/424242", headers=learner), 404, "unknown_submission")


def test_400_from_fastapis_body_parsing_and_ours(api) -> None:
    c, learner = api
    error(c.post("/api/auth/login", content=b'{"username": "\xff\xfe"}',
                 headers={"content-type": "application/json"}), 400, "bad_request")
    error(c.get("/api/submissions/1/events", headers={**learner, "last-event-id": "x"}), 400,
          "bad_last_event_id")


def test_422_from_fastapis_validation_and_ours(api) -> None:
    c, learner = api
    body = error(c.post("/api/auth/login", json={"username": "x"}), 422, "invalid_request")
    assert isinstance(body.detail, list) and body.detail
    error(c.put("/api/me/profile", json={"display_name": "!!"}, headers=learner), 422,
          "bad_display_name")


def test_413_from_the_route(api) -> None:
    c, learner = api
    error(c.post("/api/submissions", json={"exercise": "ring-allreduce", "code": "#" * 70_000},
                 headers=learner), 413, "too_large")


def test_unknown_hosts_answer_in_the_error_model(api) -> None:
    c, _ = api
    error(c.get("/api/exercises", headers={"host": "rebind.attacker.test"}), 400, "bad_host")
