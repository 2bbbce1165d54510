"""Server-sent events keep a submission whole whatever its text holds: a JSON document may hold
U+2028, U+0085 or U+001C raw, which ``str.splitlines`` (fastapi.sse before 0.140.12, hence the
floor) but no event-stream parser takes for line ends."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

from server.api.routes.events import render
from server.api.schemas import SubmissionOut
from server.models import DONE

CODE = "a = 1\u2028b = 2\u0085c = 3\u001cd = 4\n"


def events(stream: bytes) -> list[dict[str, str]]:
    """``stream`` parsed as the HTML standard says (lines end at CR, LF or CRLF only)."""
    parsed: list[dict[str, str]] = []
    fields: dict[str, str] = {}
    for line in re.split(r"\r\n|\r|\n", stream.decode("utf-8")):
        if not line:
            if fields:
                parsed.append(fields)
            fields = {}
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        fields[name] = f"{fields[name]}\n{value}" if name == "data" and name in fields else value
    return parsed


def test_a_submission_whose_code_holds_unicode_line_separators_streams_whole() -> None:
    now = datetime.now(UTC)
    done = SubmissionOut(id=7, exercise="ring-allreduce", user_id=1, status=DONE,
                         verdict="accepted", created_at=now, finished_at=now, content_hash="h",
                         result=None, cases_so_far=[], code=CODE, filename="solution.py",
                         attempts=1, started_at=now, queue_ms=1.0, grading_ms=1.0)
    stream = render(done).body(0)
    assert [e["event"] for e in events(stream)] == ["status", "done"]
    assert json.loads(events(stream)[-1]["data"])["code"] == CODE
