"""Running a course: leaderboards, display names, progress for staff (and its CSV), a
learner's own progress, quotas and queue positions, exercise versions across restarts."""

from __future__ import annotations

import csv
import io
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from cjudge.courses.results import headline
from cjudge.exercise.exercises import load_exercise
from server import course
from server.accounts import create_user
from server.db import make_engine, migrate, write_session
from server.exercise_sync import sync_exercises
from server.localserver import EXERCISES, JudgeServer, start_server
from server.models import DONE, Profile, Submission, utcnow

RING = "ring-allreduce"
SOLUTION = (EXERCISES / RING / "solution.py").read_text()
WRONG = (EXERCISES / RING / "wrong" / "allgather_adds_instead_of_copy.py").read_text()
STAFF = {"admin_username": "course_staff", "admin_password": "a-long-staff-password-9"}
PASSWORD = "correct horse battery staple"
SEEDS = (RING, "alltoall-transpose")


def seed_exercises(root: Path) -> Path:
    """A copy of the two seed exercises (others in the repository may be half-written)."""
    for name in SEEDS:
        shutil.copytree(EXERCISES / name, root / name)
    return root


def result(bytes_per_rank: list[int], times: list[tuple[int, float]] | None = None,
           headline: int | None = None) -> dict:
    """A verdict JSON with a small case and an 8-rank case (the headline one)."""
    big = {"name": "8-ranks", "world_size": 8, "verdict": "accepted",
           "bytes_sent": bytes_per_rank}
    if times is not None:
        big["model"] = {"sizes": [{"size": s, "time_s": t, "complete": True} for s, t in times]}
        if headline is not None:
            big["model"]["headline"] = headline
    small = {"name": "2-ranks", "world_size": 2, "verdict": "accepted", "bytes_sent": [1, 1]}
    return {"verdict": "accepted", "cases": [small, big]}


def below_floor(res: dict) -> dict:
    """``res`` with its small case measured below its exercise's floor."""
    res["cases"][0]["model"] = {"sizes": [], "floor": {"below": True}}
    return res


def test_a_run_below_its_floor_is_never_ranked(db) -> None:
    assert headline(below_floor(result([5])))["below_floor"]
    with write_session(db) as s:
        ids = {n: create_user(s, n, PASSWORD).id for n in ("gil", "hal")}
    finished(db, ids["gil"], "accepted", result([90], [(10**9, 2e-3)]), 20)
    finished(db, ids["hal"], "accepted", below_floor(result([1], [(10**9, 1e-9)])), 10)
    with write_session(db) as s:
        board = course.leaderboard(s, RING, "h", None, admin=True)
    assert [e["username"] for e in board] == ["gil"]


@pytest.fixture
def db(tmp_path: Path):
    """A migrated SQLite database with the repository's exercises."""
    url = f"sqlite:///{tmp_path / 'judge.db'}"
    migrate(url)
    engine = make_engine(url)
    sync_exercises(engine, {n: load_exercise(EXERCISES / n) for n in SEEDS})
    yield engine
    engine.dispose()


def finished(engine, user_id: int, verdict: str, res: dict, minutes_ago: float) -> int:
    """A finished submission, scored as the worker scores it."""
    with write_session(engine) as s:
        row = Submission(user_id=user_id, exercise_id=RING, content_hash="h", code="x",
                         seed=1, status=DONE, verdict=verdict, result=res,
                         created_at=utcnow() - timedelta(minutes=minutes_ago))
        s.add(row)
        s.flush()
        course.record_score(s, row)
        return row.id


def test_leaderboard_ranks_by_modelled_time_then_bytes_then_time(db) -> None:
    with write_session(db) as s:
        ids = {n: create_user(s, n, PASSWORD).id for n in ("ann", "bob", "cat", "dan", "eve")}
    finished(db, ids["ann"], "accepted", result([100]), 50)
    finished(db, ids["ann"], "accepted", result([90]), 10)  # ann's best: fewer bytes
    finished(db, ids["bob"], "accepted", result([90]), 40)  # ties ann on bytes, earlier
    finished(db, ids["cat"], "accepted", result([500], [(10**9, 2e-3)]), 30)
    finished(db, ids["dan"], "accepted", result([900], [(10**9, 1e-3)]), 20)
    finished(db, ids["eve"], "wrong_answer", result([1]), 5)  # not on the board
    with write_session(db) as s:
        s.add(Profile(user_id=ids["dan"], display_name="Dan D", display_key="dan d"))
    with write_session(db) as s:
        board = course.leaderboard(s, RING, "h", ids["bob"], admin=False)
    assert [(e["rank"], e["name"], e["bytes_sent"], e["model_time_s"]) for e in board] == [
        (1, "Dan D", 900, 1e-3), (2, "anonymous", 500, 2e-3), (3, "anonymous", 90, None),
        (4, "anonymous", 90, None)]
    assert [e["you"] for e in board] == [False, False, True, False]  # bob, earlier than ann
    assert board[2]["submission_id"] is not None and board[3]["submission_id"] is None
    assert "username" not in board[0]
    with write_session(db) as s:
        staff_view = course.leaderboard(s, RING, "h", None, admin=True)
    assert [e["username"] for e in staff_view] == ["dan", "cat", "bob", "ann"]


def test_a_regrade_updates_the_score(db) -> None:
    with write_session(db) as s:
        uid = create_user(s, "fay", PASSWORD).id
    sid = finished(db, uid, "accepted", result([10]), 1)
    with write_session(db) as s:
        row = s.get(Submission, sid)
        row.verdict, row.result = "over_budget", result([10**6])
        course.record_score(s, row)
    with write_session(db) as s:
        assert course.leaderboard(s, RING, "h", uid, admin=False) == []


def test_progress_counts_and_csv_field_by_field(db) -> None:
    with write_session(db) as s:
        ann, bob = create_user(s, "ann", PASSWORD).id, create_user(s, "bob", PASSWORD).id
        create_user(s, "boss", PASSWORD, role="admin")
    finished(db, ann, "wrong_answer", result([1]), 30)
    first = finished(db, ann, "accepted", result([1]), 20)
    finished(db, ann, "accepted", result([1]), 10)
    finished(db, bob, "deadlock", result([1]), 15)
    finished(db, bob, "wrong_answer", result([1]), 12)
    finished(db, bob, "judge_error", result([1]), 11)
    with write_session(db) as s:
        s.add(Profile(user_id=bob, display_name="Bobby", display_key="bobby"))
    with write_session(db) as s:
        table = course.progress(s)
        created = s.get(Submission, first).created_at
    ring = next(e for e in table["exercises"] if e["exercise"] == RING)
    assert (ring["learners"], ring["attempted"], ring["solved"]) == (2, 2, 1)
    assert ring["solve_rate"] == 0.5 and ring["solve_rate_of_attempted"] == 0.5
    assert ring["common_failures"] == [{"verdict": "wrong_answer", "count": 2},
                                       {"verdict": "deadlock", "count": 1}]
    rows = list(csv.reader(io.StringIO(course.progress_csv(table))))
    assert rows[0] == ["user_id", "username", "display_name", "exercise", "best_verdict",
                       "attempts", "solved", "first_accepted_at"]
    by_key = {(r[1], r[3]): r for r in rows[1:]}
    assert len(rows) == 1 + 2 * len(table["exercises"])  # learners × exercises, no staff
    stamp = created.replace(tzinfo=None).isoformat() + "Z"
    assert by_key[("ann", RING)] == [str(ann), "ann", "", RING, "accepted", "3", "1", stamp]
    assert by_key[("bob", RING)] == [str(bob), "bob", "Bobby", RING, "wrong_answer", "3", "0",
                                     ""]
    assert by_key[("ann", "alltoall-transpose")] == [str(ann), "ann", "", "alltoall-transpose",
                                                     "", "0", "0", ""]


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory):
    """A server with one worker, two learners who submitted the reference and a wrong file."""
    root = seed_exercises(tmp_path_factory.mktemp("exercises"))
    server = start_server(tmp_path_factory.mktemp("course"), workers=1, exercises_dir=root,
                          **STAFF)
    try:
        ann, bob = server.register("ann_learner", PASSWORD), server.register("bob_learner",
                                                                            PASSWORD)
        done = [server.wait(t, server.submit(t, code)) for t, code in
                ((ann, SOLUTION), (bob, WRONG), (bob, SOLUTION))]
        yield server, ann, bob, done
    finally:
        server.stop()


def staff_token(server: JudgeServer) -> str:
    with server.client() as c:
        r = c.post("/api/auth/login", json={"username": STAFF["admin_username"],
                                            "password": STAFF["admin_password"]})
    r.raise_for_status()
    return r.json()["token"]


@pytest.mark.needs_sandbox
def test_leaderboard_and_display_names_over_http(graded) -> None:
    server, ann, bob, done = graded
    assert [d["verdict"] for d in done] == ["accepted", "wrong_answer", "accepted"]
    with server.client(bob) as c:
        assert c.get("/api/me/profile").json() == {"display_name": None, "anonymous": True}
        assert c.put("/api/me/profile", json={"display_name": "Bob B."}).status_code == 200
        assert c.put("/api/me/profile", json={"display_name": "x"}).status_code == 422
        assert c.put("/api/me/profile", json={"display_name": "Anonymous"}).status_code == 422
        board = c.get(f"/api/exercises/{RING}/leaderboard").json()
    with server.client(ann) as c:
        assert c.put("/api/me/profile", json={"display_name": "bob b."}).status_code == 409
    assert board["ranked_by"][-2:] == ["bytes_sent", "submitted_at"]
    entries = board["entries"]
    assert [e["name"] for e in entries] == ["anonymous", "Bob B."]  # same bytes: ann first
    assert [e["you"] for e in entries] == [False, True]
    assert entries[0]["submission_id"] is None and entries[1]["submission_id"] == done[2]["id"]
    head = next(c for c in done[0]["result"]["cases"] if c["world_size"] == 8)  # the first
    assert entries[0]["headline_case"] == head["name"]
    assert entries[0]["bytes_sent"] == max(head["bytes_sent"]) > 0
    assert all(e["current_version"] for e in entries)
    with server.client() as c:
        assert c.get(f"/api/exercises/{RING}/leaderboard").status_code == 401
    with server.client(bob) as c:
        assert c.put("/api/me/profile", json={"display_name": None}).json()["anonymous"]


@pytest.mark.needs_sandbox
def test_staff_progress_and_csv_over_http(graded) -> None:
    server, ann, bob, done = graded
    with server.client(ann) as c:
        assert c.get("/api/admin/progress").status_code == 403
        assert c.get("/api/admin/progress.csv").status_code == 403
        mine = {r["exercise"]: r for r in c.get("/api/me/progress").json()}
    assert mine[RING]["best_verdict"] == "accepted" and mine[RING]["attempts"] == 1
    assert mine["alltoall-transpose"] == {"exercise": "alltoall-transpose",
                                          "best_verdict": None, "attempts": 0,
                                          "first_accepted_at": None}
    with server.client(staff_token(server)) as c:
        table = c.get("/api/admin/progress").json()
        response = c.get("/api/admin/progress.csv")
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    ring = next(e for e in table["exercises"] if e["exercise"] == RING)
    assert (ring["attempted"], ring["solved"]) == (2, 2)
    assert ring["common_failures"] == [{"verdict": "wrong_answer", "count": 1}]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    bob_ring = next(r for r in rows if r["username"] == "bob_learner" and r["exercise"] == RING)
    assert bob_ring["best_verdict"] == "accepted" and bob_ring["attempts"] == "2"
    assert bob_ring["solved"] == "1" and bob_ring["first_accepted_at"].endswith("Z")
    assert bob_ring["first_accepted_at"][:19] == done[2]["created_at"][:19]
    assert {r["username"] for r in rows} == {"ann_learner", "bob_learner"}


@pytest.mark.needs_sandbox
def test_a_regrade_judges_again_and_the_leaderboard_follows(graded) -> None:
    server, ann, bob, done = graded
    with server.client(ann) as c:
        assert c.post("/api/admin/regrade", json={"exercise": RING}).status_code == 403
    with server.client(staff_token(server)) as c:
        r = c.post("/api/admin/regrade", json={"exercise": RING, "verdict": "accepted"})
    assert r.status_code == 202 and r.json() == {"exercise": RING, "queued": 2}
    again = server.wait(ann, done[0]["id"])  # not the cached answer of the first verdict
    assert again["verdict"] == "accepted" and again["attempts"] == 1
    assert again["finished_at"] > done[0]["finished_at"]
    assert server.wait(bob, done[1]["id"])["verdict"] == "wrong_answer"  # not asked for
    server.wait(bob, done[2]["id"])
    with server.client(ann) as c:
        board = c.get(f"/api/exercises/{RING}/leaderboard").json()["entries"]
    assert len(board) == 2 and {e["you"] for e in board} == {True, False}


@pytest.mark.needs_sandbox
def test_quota_and_queue_position(tmp_path: Path) -> None:
    server = start_server(tmp_path / "data", workers=0, rate_per_minute=5,
                          max_queued_per_user=10,
                          exercises_dir=seed_exercises(tmp_path / "exercises"))
    try:
        token = server.register("queue_learner", PASSWORD)
        created = []
        with server.client(token) as c:
            assert c.get("/api/me/quota").json()["remaining_this_minute"] == 5
            for _ in range(3):
                r = c.post("/api/submissions", json={"exercise": RING, "code": SOLUTION})
                created.append(r.json())
            quota = c.get("/api/me/quota").json()
            second = c.get(f"/api/submissions/{created[1]['id']}").json()
        assert [(x["queue_position"], x["remaining_this_minute"]) for x in created] == [
            (1, 4), (2, 3), (3, 2)]
        assert second["status"] == "queued" and second["queue_position"] == 2
        assert quota["used_this_minute"] == 3 and quota["pending"] == 3
        assert 0 < quota["next_frees_in_s"] <= 60
    finally:
        server.stop()


@pytest.mark.needs_sandbox
def test_an_added_or_changed_exercise_is_served_after_a_restart(tmp_path: Path) -> None:
    root = tmp_path / "exercises"
    shutil.copytree(EXERCISES / RING, root / RING)
    shutil.copytree(EXERCISES / RING, root / "ring-copy")
    toml = root / "ring-copy" / "exercise.toml"
    toml.write_text(toml.read_text().replace('id = "ring-allreduce"',
                                             'id = "ring-copy"\ndraft = true'))
    data = tmp_path / "data"
    server = start_server(data, workers=0, exercises_dir=root)
    try:
        token = server.register("version_learner", PASSWORD)
        with server.client(token) as c:
            assert [e["id"] for e in c.get("/api/exercises").json()] == [RING]  # a draft
        sid = server.submit(token, SOLUTION)
    finally:
        server.stop()
    toml.write_text(toml.read_text().replace("draft = true\n", ""))
    statement = root / RING / "statement.md"
    statement.write_text(statement.read_text() + "\nA clarification.\n")
    server = start_server(data, workers=0, exercises_dir=root)
    try:
        with server.client(token) as c:
            assert [e["id"] for e in c.get("/api/exercises").json()] == [RING, "ring-copy"]
            versions = c.get(f"/api/exercises/{RING}/versions").json()
            mine = c.get(f"/api/submissions/{sid}").json()
            history = c.get("/api/submissions").json()
        assert len(versions) == 2 and versions[0]["current"] and not versions[1]["current"]
        assert mine["content_hash"] == versions[1]["content_hash"] == history[0]["content_hash"]
        assert "A clarification." in versions[0]["statement"]["en"]
        assert "A clarification." not in versions[1]["statement"]["en"]
        assert f"exercise {RING} changed" in server.log()
    finally:
        server.stop()
