"""The verdict of a submission the judge could not grade: ``judge_error``, never the learner's
fault. Every front door that gives up on a submission (the server's workers: no sandbox, a lost
exercise, too many attempts) makes it here, so it names the judge's version and the exercise's
hash as every verdict does."""

from __future__ import annotations

from .. import __version__
from ..contract.verdict_json import VerdictJSON
from ..contract.verdicts import Verdict


def judge_error_verdict(exercise_id: str, exercise_hash: str, runtime: str, seed: int,
                        why: str) -> VerdictJSON:
    """The verdict JSON of a submission the judge failed on for reason ``why`` (no cases)."""
    return VerdictJSON(
        exercise=exercise_id, verdict=Verdict.JUDGE_ERROR, runtime=runtime, cases=[],
        stdout="", seed=seed, judge_version=__version__, exercise_hash=exercise_hash,
        message=f"the judge failed ({why}); this is not your code's fault",
        message_zh="评测机出错，这不是你的代码的问题")
