"""Each platform's result file as its documentation gives it, strict: an unknown field, a wrong
type or a score out of range fails validation.

Gradescope: gradescope/autograder_samples ``docs/specs.md`` ("Output format", "Controlling Test
Case Visibility"); PrairieLearn: ``docs/externalGrading.md`` ("Grading results"); GitHub
Classroom: what ``autograding-grading-reporter`` reads (``src/main.js``, ``aggregate-results.js``,
``notify-classroom.js``): ``status``, ``max_score`` and each test's ``name``, ``status``,
``score``, ``message``, the fields its graders write.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

VISIBILITY = Literal["hidden", "after_due_date", "after_published", "visible"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class GradescopeTest(Strict):
    name: str
    score: float
    max_score: float
    status: Literal["passed", "failed"]
    output: str
    visibility: VISIBILITY


class GradescopeEntry(Strict):
    name: str
    value: float | int | str
    order: Literal["asc", "desc"] = "desc"


class Gradescope(Strict):
    score: float
    output: str | None = None
    tests: list[GradescopeTest]
    leaderboard: list[GradescopeEntry] = []


class PrairieLearnTest(Strict):
    name: str
    points: float | int
    max_points: float | int
    message: str


class PrairieLearn(Strict):
    gradable: bool
    score: float = Field(ge=0.0, le=1.0)
    message: str
    format_errors: str | list[str] | None = None
    tests: list[PrairieLearnTest]


class GitHubTest(Strict):
    name: str
    status: Literal["pass", "fail", "error"]
    score: int | float
    message: str
    test_code: str
    filename: str
    line_no: int
    execution_time: str


class GitHub(Strict):
    version: Literal[1]
    status: Literal["pass", "fail", "error"]
    max_score: int | float
    tests: list[GitHubTest]


SCHEMAS: dict[str, type[Strict]] = {"gradescope": Gradescope, "prairielearn": PrairieLearn,
                                    "github": GitHub}
