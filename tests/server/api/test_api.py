"""The HTTP API end to end, against a real server with sandboxed workers."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from server.localserver import EXERCISES, REPO, JudgeServer, start_server

RING = EXERCISES / "ring-allreduce"
SOLUTION = (RING / "solution.py").read_text()
WRONG = RING / "wrong" / "allgather_adds_instead_of_copy.py"


def cli_json(path: Path) -> dict:
    """What ``practice/judge.py test --json`` says about ``path``."""
    done = subprocess.run([sys.executable, "practice/judge.py", "test", "ring-allreduce",
                           str(path), "--json"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    return json.loads(done.stdout)


def per_case(result: dict) -> list[tuple]:
    """What must agree between the server and the CLI (inputs differ: the seed is secret)."""
    return [(c["name"], c["world_size"], c["verdict"], c["bytes_sent"], c["bytes_bound"])
            for c in result["cases"]]


@pytest.fixture(scope="module")
def learner(judge: JudgeServer) -> Iterator[httpx.Client]:
    with judge.client(judge.register()) as client:
        yield client


def test_health_docs_and_isolation_headers(judge: JudgeServer) -> None:
    with judge.client() as c:
        health = c.get("/healthz").json()
        assert health["status"] == "ok" and health["sandbox"] == "bwrap"
        assert c.get("/docs").status_code == 200
        assert "/api/submissions" in c.get("/openapi.json").json()["paths"]
        for path in ("/", "/api/exercises"):
            headers = c.get(path).headers
            assert headers["cross-origin-opener-policy"] == "same-origin"
            assert headers["cross-origin-embedder-policy"] == "require-corp"


def test_accounts(judge: JudgeServer) -> None:
    with judge.client() as c:
        creds = {"username": "bob_the_learner", "password": "long enough"}
        r = c.post("/api/auth/register", json=creds)
        assert r.status_code == 201 and r.json()["user"]["role"] == "learner"
        assert c.post("/api/auth/register", json=creds).status_code == 409
        assert c.post("/api/auth/register", json={"username": "x", "password": "long enough"}
                      ).status_code == 422
        assert c.post("/api/auth/register", json={"username": "shorty", "password": "short"}
                      ).status_code == 422
        assert c.post("/api/auth/login", json={**creds, "password": "wrong password"}
                      ).status_code == 401
    with judge.client() as c:  # the cookie alone logs in
        r = c.post("/api/auth/login", json=creds)
        cookie = r.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie
        assert c.get("/api/auth/me").json()["username"] == "bob_the_learner"
        c.post("/api/auth/logout")
        assert c.get("/api/auth/me").status_code == 401
    with judge.client("1.9999999999.forged") as c:
        assert c.get("/api/auth/me").status_code == 401


def test_exercises_never_show_the_reference(judge: JudgeServer) -> None:
    with judge.client() as c:
        listed = {e["id"]: e for e in c.get("/api/exercises").json()}
        assert "ring-allreduce" in listed
        # each exercise's place in the catalog, as its exercise.toml says
        place = ("track", "order", "prerequisites", "difficulty")
        assert {k: listed["tree-reduce"][k] for k in place} == {
            "track": "latency-optimal", "order": 2, "prerequisites": ["tree-broadcast"],
            "difficulty": "core"}
        assert listed["hierarchical-allreduce"]["chapter"] == [
            "The ring all-reduce and its volume", "The hardware topology"]
        detail = c.get("/api/exercises/ring-allreduce").json()
        assert detail["track"] == "bandwidth-optimal" and detail["prerequisites"]
        assert detail["statement"]["en"] and detail["statement"]["zh"] and detail["starter"]
        assert SOLUTION not in json.dumps(detail) and WRONG.read_text() not in json.dumps(detail)
        assert c.get("/api/exercises/no-such-thing").status_code == 404


def test_reference_and_wrong_solution_grade_as_the_cli_does(judge: JudgeServer,
                                                            learner: httpx.Client) -> None:
    token = learner.headers["authorization"].removeprefix("Bearer ")
    good = judge.wait(token, judge.submit(token, SOLUTION))
    bad = judge.wait(token, judge.submit(token, WRONG.read_text()))
    assert (good["verdict"], bad["verdict"]) == ("accepted", "wrong_answer")
    assert good["result"]["runtime"] == "torch" and "seed" not in good["result"]
    assert per_case(good["result"]) == per_case(cli_json(RING / "solution.py"))
    assert per_case(bad["result"]) == per_case(cli_json(WRONG))
    assert good["queue_ms"] is not None and good["grading_ms"] > 0


def test_compile_error_is_judged_without_running(judge: JudgeServer,
                                                 learner: httpx.Client) -> None:
    token = learner.headers["authorization"].removeprefix("Bearer ")
    body = judge.wait(token, judge.submit(token, "def ring_all_reduce(t):\n    return (\n"))
    assert body["verdict"] == "compile_error" and body["result"]["line"] == 2


def test_bad_input_is_refused_and_leaves_no_trace(judge: JudgeServer,
                                                  learner: httpx.Client) -> None:
    before = learner.get("/api/submissions").json()
    huge = "#" * (64 * 1024 + 1)
    assert learner.post("/api/submissions", json={"exercise": "ring-allreduce", "code": huge}
                        ).status_code == 413
    assert learner.post("/api/submissions", content=b"x" * (1 << 20),
                        headers={"content-type": "application/json"}).status_code == 413
    assert learner.post("/api/submissions", json={"exercise": "nope", "code": "x = 1"}
                        ).status_code == 404
    assert learner.post("/api/submissions", json={"exercise": "ring-allreduce"}
                        ).status_code == 422
    assert learner.post("/api/submissions", content=b"{not json",
                        headers={"content-type": "application/json"}).status_code == 422
    with judge.client() as anonymous:
        assert anonymous.post("/api/submissions", json={"exercise": "ring-allreduce",
                                                        "code": "x = 1"}).status_code == 401
    assert learner.get("/api/submissions").json() == before


def test_learners_see_only_their_own_and_admins_see_all(judge: JudgeServer) -> None:
    alice, eve = judge.register(), judge.register()
    sid = judge.submit(alice, SOLUTION)
    judge.wait(alice, sid)
    with judge.client(eve) as c:
        for _ in range(2):  # the second time eve is a known caller and the answer is cached
            assert c.get(f"/api/submissions/{sid}").status_code == 404
        assert sid not in [s["id"] for s in c.get("/api/submissions").json()]
        assert c.get("/api/submissions/999999").status_code == 404
    with judge.client(alice) as c:
        first, again = (c.get(f"/api/submissions/{sid}") for _ in range(2))
        assert first.json() == again.json() and again.headers["cross-origin-opener-policy"]
        mine = c.get("/api/submissions", params={"exercise": "ring-allreduce"}).json()
        assert sid in [s["id"] for s in mine]
        assert c.get("/api/submissions", params={"exercise": "alltoall-transpose"}).json() == []
    with judge.client() as c:
        admin = c.post("/api/auth/login", json={"username": "admin",
                                                "password": "admin-password"}).json()["token"]
    with judge.client(admin) as c:
        body = c.get(f"/api/submissions/{sid}").json()
        assert body["worker_id"] and "seed" in body["result"]
        assert sid in [s["id"] for s in c.get("/api/submissions",
                                              params={"everyone": True}).json()]


def test_cases_so_far_stream_as_server_sent_events(judge: JudgeServer) -> None:
    token = judge.register()
    sid = judge.submit(token, SOLUTION)
    events = []
    with judge.client(token) as c, c.stream("GET", f"/api/submissions/{sid}/events") as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        name = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                events.append((name, json.loads(line[6:])))
                if name == "done":
                    break
    cases = [data["name"] for name, data in events if name == "case"]
    assert len(cases) == 7 and len(set(cases)) == 7
    assert events[-1][1]["verdict"] == "accepted"
    assert ("status", {"id": sid, "status": "done"}) in events


def test_a_lone_surrogate_in_a_ranks_error_is_served(judge: JudgeServer) -> None:
    """A rank's message with a lone surrogate (no UTF-8 text holds one): the submission and its
    events are served, the surrogate escaped."""
    token = judge.register()
    sid = judge.submit(token, 'def ring_all_reduce(t):\n    raise ValueError("stray \\udfff")\n')
    body = judge.wait(token, sid)
    assert body["verdict"] == "runtime_error"
    assert body["result"]["message"].endswith("raised ValueError: stray \\udfff")
    with judge.client(token) as c:
        assert c.get(f"/api/submissions/{sid}").status_code == 200
        r = c.get(f"/api/submissions/{sid}/events")
    assert r.status_code == 200 and "event: done" in r.text and "stray \\\\udfff" in r.text


@pytest.mark.parametrize(("bounds", "status"), [
    ({"rate_per_minute": 2}, 429),
    ({"max_queued_per_user": 2}, 429),
    ({"max_queued_total": 2}, 503),
])
def test_bounds_answer_with_retry_after(tmp_path: Path, bounds: dict, status: int) -> None:
    server = start_server(tmp_path, workers=0, **bounds)
    try:
        token = server.register()
        for _ in range(2):
            server.submit(token, "x = 1")
        with server.client(token) as c:
            r = c.post("/api/submissions", json={"exercise": "ring-allreduce", "code": "x = 1"})
            assert r.status_code == status and int(r.headers["retry-after"]) >= 1
            assert len(c.get("/api/submissions").json()) == 2
    finally:
        server.stop()


def test_start_says_exactly_what_is_missing(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    done = subprocess.run([sys.executable, "-m", "server", "--data-dir", str(tmp_path)],
                          cwd=REPO, env={"PATH": str(empty)}, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode != 0
    assert "bwrap (Debian package bubblewrap)" in done.stderr
    assert "prlimit (Debian package util-linux)" in done.stderr
