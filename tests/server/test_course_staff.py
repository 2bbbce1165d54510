"""Running a course with staff, over HTTP, on SQLite and on PostgreSQL: roles (the admin names
the staff), a learner's work opened by staff, deadlines and late submissions, regrades that keep
each earlier verdict, and the wide gradebook; each answered 401 without a session and 403 to
whoever may not."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from postgres import new_database
from pydantic import SecretStr

from server import jobqueue
from server.api.app import create_app
from server.db import write_session
from server.models import utcnow
from server.settings import Settings

RING, ALLTOALL = "ring-allreduce", "alltoall-transpose"
PASSWORD = "correct horse battery staple"
ADMIN = ("course_admin", "a-long-admin-password-9")


@pytest.fixture(params=["sqlite", "postgres"])
def client(request: pytest.FixtureRequest, tmp_path: Path,
           postgres_server: str | None) -> Iterator[TestClient]:
    """The app without workers (verdicts are written here as a worker writes them), with an
    admin from the settings: on SQLite, then on PostgreSQL where installed."""
    if request.param == "postgres" and postgres_server is None:
        pytest.skip("PostgreSQL is not installed here")
    settings = Settings(data_dir=tmp_path / "data", workers=0, sandbox="none",
                        allowed_hosts=["testserver"], rate_per_minute=1000,
                        admin_username=ADMIN[0], admin_password=SecretStr(ADMIN[1]),
                        database_url=new_database(postgres_server)
                        if request.param == "postgres" else None)
    with TestClient(create_app(settings, embedded_workers=False)) as c:
        yield c


def register(c: TestClient, name: str) -> dict[str, str]:
    r = c.post("/api/auth/register", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    c.cookies.clear()  # each request names its caller; none is anonymous
    return {"Authorization": f"Bearer {r.json()['token']}"}


def login(c: TestClient, name: str, password: str) -> dict[str, str]:
    r = c.post("/api/auth/login", json={"username": name, "password": password})
    assert r.status_code == 200, r.text
    c.cookies.clear()
    return {"Authorization": f"Bearer {r.json()['token']}"}


def submit(c: TestClient, who: dict[str, str], exercise: str = RING) -> int:
    r = c.post("/api/submissions", headers=who, json={"exercise": exercise, "code": "x = 1\n"})
    assert r.status_code == 202, r.text
    return int(r.json()["id"])


def judge(c: TestClient, verdict: str, version: str = "1.0") -> int:
    """Judge the next queued submission as a worker does: ``verdict`` by judge ``version``."""
    engine = c.app.state.engine  # type: ignore[attr-defined]
    with write_session(engine) as s:
        claim = jobqueue.claim(s, "w", 60, 3)
        assert claim is not None
    result: Any = {"verdict": verdict, "judge_version": version,  # the fields read here
                   "cases": [{"name": "8-ranks", "verdict": verdict}]}
    with write_session(engine) as s:
        assert jobqueue.finish(s, claim, result, None)
    return claim.id


def test_the_admin_names_the_staff_and_only_the_admin(client: TestClient) -> None:
    admin = login(client, *ADMIN)
    ta, learner = register(client, "ta_tom"), register(client, "lea")
    assert client.get("/api/admin/progress", headers=ta).status_code == 403
    r = client.put("/api/admin/users/TA_TOM/role", headers=admin, json={"role": "staff"})
    assert r.status_code == 200 and r.json()["role"] == "staff" and r.json()["username"] == "ta_tom"
    assert client.get("/api/admin/progress", headers=ta).status_code == 200  # at once
    staff = client.get("/api/admin/staff", headers=ta).json()
    assert [(m["username"], m["role"]) for m in staff] == [(ADMIN[0], "admin"), ("ta_tom", "staff")]
    for who, status, code in ((ta, 403, "admin_only"), (learner, 403, "admin_only"),
                              ({}, 401, "not_logged_in")):
        r = client.put("/api/admin/users/lea/role", headers=who, json={"role": "staff"})
        assert (r.status_code, r.json()["code"]) == (status, code)
        assert r.json()["message_zh"]
    assert client.get("/api/admin/staff", headers=learner).json()["code"] == "staff_only"
    assert client.put("/api/admin/users/nobody/role", headers=admin,
                      json={"role": "staff"}).json()["code"] == "unknown_user"
    r = client.put(f"/api/admin/users/{ADMIN[0]}/role", headers=admin, json={"role": "learner"})
    assert (r.status_code, r.json()["code"]) == (409, "admin_role")
    assert client.put("/api/admin/users/lea/role", headers=admin,
                      json={"role": "admin"}).status_code == 422
    client.put("/api/admin/users/ta_tom/role", headers=admin, json={"role": "learner"})
    assert client.get("/api/admin/progress", headers=ta).status_code == 403
    # staff are not learners: the progress table lists learners only
    rows = client.get("/api/admin/progress", headers=admin).json()["rows"]
    assert {r["username"] for r in rows} == {"ta_tom", "lea"}


def test_staff_open_a_learners_submissions_with_code_and_result(client: TestClient) -> None:
    admin = login(client, *ADMIN)
    ann, bob, ta = register(client, "ann"), register(client, "bob"), register(client, "ta_tim")
    client.put("/api/admin/users/ta_tim/role", headers=admin, json={"role": "staff"})
    first = submit(client, ann)
    judge(client, "accepted")
    submit(client, bob)
    judge(client, "wrong_answer")
    board = client.get(f"/api/exercises/{RING}/leaderboard", headers=ta).json()["entries"]
    ann_id = board[0]["user_id"]
    assert board[0]["username"] == "ann" and board[0]["submission_id"] == first
    learner_board = client.get(f"/api/exercises/{RING}/leaderboard", headers=bob).json()
    assert learner_board["entries"][0]["user_id"] is None
    listed = client.get(f"/api/submissions?of={ann_id}&exercise={RING}", headers=ta).json()
    assert [s["id"] for s in listed] == [first]
    one = client.get(f"/api/submissions/{first}", headers=ta).json()
    assert one["code"] == "x = 1\n" and one["result"]["verdict"] == "accepted"
    assert one["result"]["cases"][0]["name"] == "8-ranks"
    # a learner's `of` is ignored: their own list; another's submission is not found
    assert client.get(f"/api/submissions?of={ann_id}", headers=bob).json()[0]["id"] != first
    assert client.get(f"/api/submissions/{first}", headers=bob).status_code == 404
    assert client.get(f"/api/submissions/{first}").status_code == 401


def test_a_deadline_marks_later_submissions_late(client: TestClient) -> None:
    admin, ann = login(client, *ADMIN), register(client, "ann")
    before = submit(client, ann)
    judge(client, "accepted")
    due = utcnow().isoformat()  # after the first submission, before the next
    for who, status in ((ann, 403), ({}, 401)):
        assert client.put(f"/api/admin/exercises/{RING}/deadline", headers=who,
                          json={"due": due}).status_code == status
    r = client.put(f"/api/admin/exercises/{RING}/deadline", headers=admin, json={"due": due})
    assert r.status_code == 200 and r.json()["late"] == 0
    after = submit(client, ann)
    judge(client, "accepted")
    listed = {s["id"]: s["late"] for s in client.get("/api/submissions", headers=ann).json()}
    assert listed == {before: False, after: True}
    assert client.get(f"/api/submissions/{after}", headers=ann).json()["late"] is True
    assignments = client.get("/api/admin/assignments", headers=admin).json()
    assert [(a["exercise"], a["due"] is not None) for a in assignments] == [(RING, True)]
    earlier = (utcnow() - timedelta(days=1)).isoformat()
    assert client.put(f"/api/admin/exercises/{RING}/deadline", headers=admin,
                      json={"due": earlier}).json()["late"] == 2  # moved: both are late now
    assert client.get(f"/api/submissions/{before}", headers=ann).json()["late"] is True
    assert client.put(f"/api/admin/exercises/{RING}/deadline", headers=admin,
                      json={"due": None}).json()["late"] == 0
    assert client.get(f"/api/submissions/{after}", headers=ann).json()["late"] is False
    r = client.put(f"/api/admin/exercises/{RING}/deadline", headers=admin,
                   json={"due": "2026-12-24T23:59:00"})
    assert (r.status_code, r.json()["code"]) == (422, "deadline_without_offset")
    assert client.put("/api/admin/exercises/nope/deadline", headers=admin,
                      json={"due": None}).json()["code"] == "unknown_exercise"


def test_staff_stop_assigning_an_exercise(client: TestClient) -> None:
    admin, ann = login(client, *ADMIN), register(client, "ann")
    submit(client, ann)
    judge(client, "accepted")
    earlier = (utcnow() - timedelta(days=1)).isoformat()
    for exercise in (RING, ALLTOALL):
        client.put(f"/api/admin/exercises/{exercise}/deadline", headers=admin,
                   json={"due": earlier})
    for who, status in ((ann, 403), ({}, 401)):
        assert client.delete(f"/api/admin/exercises/{RING}/assignment",
                             headers=who).status_code == status
    assert client.delete(f"/api/admin/exercises/{RING}/assignment",
                         headers=admin).status_code == 204
    assigned = [a["exercise"] for a in client.get("/api/admin/assignments", headers=admin).json()]
    assert assigned == [ALLTOALL]
    assert [s["late"] for s in client.get("/api/submissions", headers=ann).json()] == [False]
    header = client.get("/api/admin/gradebook.csv", headers=admin).text.splitlines()[0]
    assert header == f"username,display_name,{ALLTOALL}"
    assert client.delete(f"/api/admin/exercises/{RING}/assignment",
                         headers=admin).status_code == 204  # again: nothing to undo
    assert client.delete("/api/admin/exercises/nope/assignment",
                         headers=admin).json()["code"] == "unknown_exercise"


def test_a_regrade_keeps_every_earlier_verdict(client: TestClient) -> None:
    admin, ann = login(client, *ADMIN), register(client, "ann")
    sid = submit(client, ann)
    judge(client, "accepted", "1.0")
    submit(client, ann)
    judge(client, "wrong_answer", "1.0")
    count = client.get(f"/api/admin/regrade/count?exercise={RING}&verdict=accepted",
                       headers=admin).json()
    assert count == {"exercise": RING, "count": 1}
    assert client.get(f"/api/admin/regrade/count?exercise={RING}",
                      headers=admin).json()["count"] == 2
    assert client.post("/api/admin/regrade", headers=ann,
                       json={"exercise": RING}).status_code == 403
    r = client.post("/api/admin/regrade", headers=admin,
                    json={"exercise": RING, "verdict": "accepted"})
    assert r.status_code == 202 and r.json() == {"exercise": RING, "queued": 1}
    assert client.post(f"/api/admin/submissions/{sid}/regrade",
                       headers=admin).json()["code"] == "not_finished"  # queued again
    assert judge(client, "wrong_answer", "2.0") == sid
    answer = client.get(f"/api/submissions/{sid}", headers=ann).json()  # the learner's view
    assert answer["verdict"] == "wrong_answer"
    [earlier] = answer["history"]
    assert (earlier["verdict"], earlier["judge_version"]) == ("accepted", "1.0")
    assert earlier["finished_at"] < earlier["regraded_at"] <= answer["finished_at"]
    assert client.post(f"/api/admin/submissions/{sid}/regrade", headers=ann).status_code == 403
    r = client.post(f"/api/admin/submissions/{sid}/regrade", headers=admin)
    assert r.status_code == 202 and r.json()["queued"] == 1
    judge(client, "accepted", "2.1")
    history = client.get(f"/api/submissions/{sid}", headers=admin).json()["history"]
    assert [(h["verdict"], h["judge_version"]) for h in history] == [("accepted", "1.0"),
                                                                    ("wrong_answer", "2.0")]


def gradebook(c: TestClient, who: dict[str, str], query: str = "") -> list[list[str]]:
    r = c.get(f"/api/admin/gradebook.csv{query}", headers=who)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(r.text)))


def test_the_gradebook_has_a_row_per_learner_and_a_column_per_assigned_exercise(
        client: TestClient) -> None:
    admin = login(client, *ADMIN)
    ann, bob, cat = register(client, "ann"), register(client, "bob"), register(client, "cat")
    client.put("/api/me/profile", headers=bob, json={"display_name": "Bobby"})
    submit(client, ann)
    judge(client, "accepted")
    submit(client, bob)
    judge(client, "deadlock")
    header, *rows = gradebook(client, admin)
    assert header[:2] == ["username", "display_name"] and len(header) > 10  # all, unassigned
    assert header.index(ALLTOALL) < header.index(RING)  # the catalog's order: primitives first
    for exercise in (ALLTOALL, RING):
        client.put(f"/api/admin/exercises/{exercise}/deadline", headers=admin,
                   json={"due": utcnow().isoformat()})  # after ann's and bob's
    submit(client, cat)  # late: accepted, but only after the deadline
    judge(client, "accepted")
    assert gradebook(client, admin) == [["username", "display_name", ALLTOALL, RING],
                                        ["ann", "", "", "1"], ["bob", "Bobby", "", "0"],
                                        ["cat", "", "", "0 late"]]
    assert gradebook(client, admin, "?late=counted")[3] == ["cat", "", "", "1 late"]
    assert client.get("/api/admin/gradebook.csv", headers=ann).status_code == 403
    assert client.get("/api/admin/gradebook.csv").status_code == 401
    assert client.get("/api/admin/gradebook.csv?late=half", headers=admin).status_code == 422


STAFF_ROUTES = (("GET", "/api/admin/staff", None), ("GET", "/api/admin/assignments", None),
                ("PUT", f"/api/admin/exercises/{RING}/deadline", {"due": None}),
                ("GET", f"/api/admin/regrade/count?exercise={RING}", None),
                ("POST", "/api/admin/submissions/1/regrade", None),
                ("POST", "/api/admin/regrade", {"exercise": RING}),
                ("GET", "/api/admin/gradebook.csv", None))


def test_every_staff_route_is_401_without_a_session_and_403_to_a_learner(
        client: TestClient) -> None:
    learner, admin = register(client, "lea"), login(client, *ADMIN)
    submit(client, learner)
    judge(client, "accepted")
    for method, path, body in STAFF_ROUTES:
        for who, status, code in (({}, 401, "not_logged_in"), (learner, 403, "staff_only")):
            r = client.request(method, path, headers=who, json=body)
            assert (r.status_code, r.json()["code"]) == (status, code), (method, path)
            assert r.json()["detail"] and r.json()["message_zh"]
        assert client.request(method, path, headers=admin, json=body).status_code < 300, path
