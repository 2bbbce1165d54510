"""A wrong answer's cause from its run: a request never waited, else the first step where the
run departs from the reference's on the same inputs; the stock guess from one element is
dropped when the evidence names the cause."""

from __future__ import annotations

import logging
from collections.abc import Callable

from .. import values
from ..chunks import ONE_WRONG_CHUNK
from ..protocol import CaseSpec, JobSpec, RawCase
from ..verdict_json import CaseResult
from . import divergence
from .waits import never_waited

RunCase = Callable[[JobSpec, CaseSpec], RawCase]
#: the reference's run on a case is given at most this long (it takes milliseconds)
REFERENCE_LIMIT_S = 2.0
log = logging.getLogger(__name__)


def reference_run(exercise, spec: CaseSpec, run: RunCase) -> RawCase | None:
    """The reference's run on ``spec``; None when there is no reference (a published copy) or
    it did not finish cleanly."""
    path = exercise.path / "solution.py"
    if not path.is_file():
        return None
    job = exercise.job_spec(path.read_text(encoding="utf-8"), "solution.py")
    job["time_limit_s"] = min(job["time_limit_s"], REFERENCE_LIMIT_S)
    raw = run(job, spec)
    if raw["stop"] is not None or any(r["state"] != "returned" for r in raw["ranks"]):
        return None
    return raw


def _element_hint(exercise, spec: CaseSpec, raw: RawCase) -> tuple[str, str] | None:
    """The grader's guess from the first wrong element of a 1-D result, as grading made it."""
    wants = exercise.grader.expected(spec["params"], spec["world_size"], spec["inputs"])
    for report, want in zip(raw["ranks"], wants, strict=True):
        got = report["output"]
        if not (values.is_tensor(got) and values.is_tensor(want)) or \
                got["shape"] != want["shape"] or got["dtype"] != want["dtype"]:
            continue
        for index, (g, w) in enumerate(zip(got["data"], want["data"], strict=True)):
            if not values.element_matches(g, w, want["dtype"]):
                return exercise.grader.diagnose(spec["params"], spec["world_size"],
                                                spec["inputs"], report["rank"], index, g)
    return None


def explain(exercise, spec: CaseSpec, raw: RawCase, result: CaseResult,
            run: RunCase | None) -> None:
    """Put the evidence's cause into a wrong answer's message (in place); total: a diagnosis
    that fails is logged and dropped."""
    if result["verdict"] != "wrong_answer":
        return
    try:
        cause = never_waited(raw["trace"])
        if cause is None and run is not None:
            ref = reference_run(exercise, spec, run)
            cause = divergence.explain(exercise, spec, raw["trace"], ref["trace"]) if ref else None
        if cause is None:
            return
        en, zh = result["message"], result["message_zh"]
        guess = _element_hint(exercise, spec, raw)
        if guess:  # the evidence names the cause: the guesses from the result go
            en, zh = en.replace(f"; {guess[0]}", "", 1), zh.replace(f"；{guess[1]}", "", 1)
        en, zh = en.replace(ONE_WRONG_CHUNK[0], ""), zh.replace(ONE_WRONG_CHUNK[1], "")
        result["message"] = f"{en}. Cause: {cause[0]}"
        result["message_zh"] = f"{zh}。原因：{cause[1]}"
    except Exception:  # noqa: BLE001 - a diagnosis is dropped, never the verdict
        log.exception("%s, case %s: dropped a diagnosis that failed", exercise.id, spec["name"])
