"""A NUL character is refused with 422 wherever a request carries text: the JSON body's fields,
the path and the query (on PostgreSQL it answered 500; SQLite stored it). A backslash followed
by the text ``u0000`` is not a NUL and passes."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.api.app import create_app
from server.api.nul import JSON_NUL
from server.settings import Settings


@pytest.fixture()
def client(tmp_path: Path):
    settings = Settings(data_dir=tmp_path / "data", workers=0, sandbox="none",
                        allowed_hosts="testserver")
    with TestClient(create_app(settings, embedded_workers=False)) as c:
        assert c.post("/api/auth/register", json={
            "username": "learner", "password": "correct horse battery"}).status_code == 201
        yield c


def test_a_nul_anywhere_is_422(client: TestClient) -> None:
    answers = {
        "code": client.post("/api/submissions", json={"exercise": "ring-allreduce",
                                                      "code": "x = '\x00'\n"}),
        "display name": client.put("/api/me/profile", json={"display_name": "a\x00b"}),
        "query": client.get("/api/submissions", params={"exercise": "ring\x00"}),
        "path": client.get("/api/exercises/ring%00allreduce"),
    }
    for what, answer in answers.items():
        assert answer.status_code == 422, (what, answer.text)
        body = answer.json()
        assert body["code"] == "invalid_request" and "NUL" in body["message_zh"], what
    assert answers["code"].json()["detail"][0]["loc"] == ["body"]


def test_an_escaped_backslash_before_u0000_is_text(client: TestClient) -> None:
    answer = client.post("/api/submissions", json={"exercise": "ring-allreduce",
                                                   "code": "x = '\\u0000'\n"})
    assert answer.status_code == 202, answer.text
    assert JSON_NUL.search(rb'"\\\u0000"') and not JSON_NUL.search(rb'"\\\\u0000"')
