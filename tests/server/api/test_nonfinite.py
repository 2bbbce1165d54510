"""A verdict whose sample holds NaN (the ring-attention starter's): the server stores it and
answers it as strict JSON, "nan" where the number was, at every door (the submission, its
cases so far, its events); a NaN that reaches the database unencoded is refused."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.exc import StatementError

from cjudge.exercise.exercises import default_root, load_exercise
from cjudge.grading.submission import judge_code
from cjudge.sim.runtime import run_case
from server import jobqueue
from server.api.app import create_app
from server.db import write_session
from server.models import Submission
from server.settings import Settings

STARTER = (default_root() / "ring-attention" / "starter.py").read_text(encoding="utf-8")


def strict(text: str) -> Any:
    """``text`` read as JSON proper: ``NaN`` or ``Infinity`` there is an error."""
    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")
    return json.loads(text, parse_constant=refuse)


def events(c: TestClient, sid: int, headers: dict[str, str]) -> list[tuple[str, Any]]:
    """A finished submission's server-sent events, each data read as strict JSON."""
    body = c.get(f"/api/submissions/{sid}/events", headers=headers).text
    found, name = [], ""
    for line in body.splitlines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            found.append((name, strict(line[6:])))
    return found


def test_a_nan_sample_is_stored_and_served_as_strict_json(tmp_path: Path) -> None:
    exercise = load_exercise(default_root() / "ring-attention")
    result = judge_code(exercise, STARTER, "mine.py", run_case, "sim", only_samples=True)
    assert math.isnan(result["cases"][0]["sample"]["outputs"][0]["data"][0])
    settings = Settings(data_dir=tmp_path / "data", workers=0, sandbox="none",
                        allowed_hosts="testserver")
    with TestClient(create_app(settings, embedded_workers=False)) as c:
        token = c.post("/api/auth/register", json={"username": "learner",
                                                    "password": "correct horse battery"}
                       ).json()["token"]
        headers = {"authorization": f"Bearer {token}"}
        sid = c.post("/api/submissions", json={"exercise": "ring-attention", "code": STARTER},
                     headers=headers).json()["id"]
        engine = c.app.state.engine
        with write_session(engine) as s:
            claim = jobqueue.claim(s, "w", 30, 3)
            assert claim is not None and claim.id == sid
        with write_session(engine) as s:
            assert jobqueue.record_cases_so_far(s, claim, [dict(result["cases"][0])])
        running = strict(c.get(f"/api/submissions/{sid}", headers=headers).text)
        assert running["cases_so_far"][0]["sample"]["outputs"][0]["data"][0] == "nan"
        with write_session(engine) as s:
            assert jobqueue.finish(s, claim, dict(result), None)
        done = strict(c.get(f"/api/submissions/{sid}", headers=headers).text)
        assert done["verdict"] == "wrong_answer" and "got nan" in done["result"]["message"]
        assert done["result"]["cases"][0]["sample"]["outputs"][0]["data"][0] == "nan"
        assert isinstance(done["result"]["cases"][0]["wall_ms"], float)
        final = dict(events(c, sid, headers))
        assert final["case"]["sample"]["outputs"][1]["data"][0] == "nan"
        assert final["done"]["result"]["cases"][0]["sample"]["outputs"][0]["data"][0] == "nan"
        with pytest.raises(StatementError, match="JSON compliant"), write_session(engine) as s:
            s.exec(update(Submission).where(Submission.id == sid)
                   .values(result={"wall_ms": math.nan}))
