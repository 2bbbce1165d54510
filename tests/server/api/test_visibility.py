"""The visibility rule (``server.access``): a submission is its owner's and staff's to see, at
every door it leaves by (its route, the fast path for finished ones, its events), whichever
way the caller sends its session (bearer token or cookie)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server import jobqueue
from server.access import may_see
from server.api.app import create_app
from server.api.deps import COOKIE
from server.api.routes import submissions
from server.db import write_session
from server.settings import Settings

GOOD = "correct horse battery"


def test_the_rule() -> None:
    assert may_see(7, 7, staff=False) and may_see(7, 8, staff=True) and may_see(7, None, True)
    assert not may_see(7, 8, staff=False) and not may_see(7, None, staff=False)


def _finish(app: Any, sid: int) -> None:
    """Grade submission ``sid`` as a worker would: accepted, one case."""
    with write_session(app.state.engine) as s:
        claim = jobqueue.claim(s, "w", 30, 3)
        assert claim is not None and claim.id == sid
    with write_session(app.state.engine) as s:
        assert jobqueue.finish(s, claim, {"verdict": "accepted", "stdout": "",
                                          "cases": [{"name": "one", "verdict": "accepted"}]},
                               None)


def _session(c: TestClient, username: str) -> str:
    answer = c.post("/api/auth/login" if username == "boss" else "/api/auth/register",
                    json={"username": username, "password": GOOD})
    assert answer.status_code in (200, 201), answer.text
    c.cookies.clear()
    return answer.json()["token"]


def _asks(c: TestClient, sid: int, token: str, by: str) -> tuple[int, int]:
    """The statuses of the submission and of its events, as the caller of ``token`` sends it
    ``by`` bearer token or cookie."""
    c.cookies.clear()
    headers = {"authorization": f"Bearer {token}"} if by == "bearer" else {}
    if by == "cookie":
        c.cookies.set(COOKIE, token)
    got = c.get(f"/api/submissions/{sid}", headers=headers).status_code
    events = c.get(f"/api/submissions/{sid}/events", headers=headers).status_code
    return got, events


@pytest.mark.parametrize("by", ["bearer", "cookie"])
def test_owner_and_staff_see_a_submission_and_no_one_else(tmp_path: Path, by: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    settings: dict[str, Any] = {"data_dir": tmp_path / "data", "workers": 0, "sandbox": "none",
                "allowed_hosts": "testserver", "admin_username": "boss", "admin_password": GOOD}
    with TestClient(create_app(Settings(**settings), embedded_workers=False)) as c:
        owner, other, staff = (_session(c, name) for name in ("owner", "onlooker", "boss"))
        sid = c.post("/api/submissions", json={"exercise": "ring-allreduce", "code": "x = 1"},
                     headers={"authorization": f"Bearer {owner}"}).json()["id"]
        _finish(c.app, sid)
        for _ in range(2):  # then again, answered from the caches (the fast path, for GET)
            assert _asks(c, sid, owner, by) == (200, 200)
            assert _asks(c, sid, staff, by) == (200, 200)
            assert _asks(c, sid, other, by) == (404, 404)

        def no_database(*_: Any) -> None:
            raise AssertionError("a cached submission was read again")

        monkeypatch.setattr(submissions, "present", no_database)
        assert _asks(c, sid, owner, by)[0] == 200  # cached, and still the owner's only
        assert _asks(c, sid, other, by)[0] == 404  # not a 500: the rule, before any read
