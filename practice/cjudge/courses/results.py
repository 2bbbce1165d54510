"""A verdict as each course platform's result file, one test per case (``docs/courses.md``).

* Gradescope ``results.json``: ``score``, ``tests[]`` (``name``, ``score``, ``max_score``,
  ``status``, ``output``, ``visibility``) and a ``leaderboard`` of the headline modelled time and
  bytes; cases that are not samples are ``after_due_date`` (Gradescope's ``hidden`` is for tests
  worth no points).
* PrairieLearn ``results.json``: ``gradable`` (false for a file that does not compile: no attempt
  lost), ``score`` in [0, 1], ``tests[]`` (``name``, ``points``, ``max_points``, ``message``).
* GitHub Classroom: the JSON a grader step hands ``autograding-grading-reporter`` (base64 in its
  ``result`` output): ``version``, ``status``, ``max_score``, ``tests[]`` (``name``, ``status``,
  ``score``, ``message``, ``test_code``, ``filename``, ``line_no``, ``execution_time``).

A case that is not a sample is hidden: on every platform, at every level of the file (a test's
output or message, the top-level output or message), it shows only its name and verdict, never
its inputs, expected values or message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NotRequired, TypedDict

from ..contract.units import format_seconds, format_size
from ..contract.verdict_json import dumps
from ..contract.verdicts import label, title
from ..exercise.exercises import Exercise

PLATFORMS = ("gradescope", "prairielearn", "github")


def modelled(case: Mapping[str, object]) -> tuple[float, int] | None:
    """A case's modelled time (s) and size (B) at its headline size (``model.headline``, else
    its largest complete size); None when the case has no complete modelled size."""
    model = case.get("model")
    if not isinstance(model, dict):
        return None
    rows = [r for r in (model.get("sizes") or []) if isinstance(r, dict)
            and isinstance(r.get("time_s"), int | float) and isinstance(r.get("size"), int | float)
            and r.get("complete", True)]
    if not rows:
        return None
    row = next((r for r in rows if r["size"] == model.get("headline")), None) or max(
        rows, key=lambda r: r["size"])
    return float(row["time_s"]), int(row["size"])


class Headline(TypedDict):
    """A verdict's measures at the exercise's headline (:func:`headline`); None: not measured."""

    headline_case: str | None
    bytes_sent: int | None  # the busiest rank's
    model_time_s: float | None
    model_size: int | None
    below_floor: bool  # some case measured below its exercise's floor


def _cases(result: Mapping[str, object]) -> list[Mapping[str, object]]:
    """The verdict's cases that are objects (an untrusted verdict may hold anything)."""
    cases = result.get("cases")
    return [c for c in cases if isinstance(c, dict)] if isinstance(cases, list) else []


def _world(case: Mapping[str, object]) -> int | float:
    """A case's world size, 0 if it has no number for it."""
    world = case.get("world_size")
    return world if isinstance(world, int | float) else 0


def _below_floor(case: Mapping[str, object]) -> bool:
    """Whether the case's model says it measured below its exercise's floor."""
    model = case.get("model")
    floor = model.get("floor") if isinstance(model, dict) else None
    return isinstance(floor, dict) and floor.get("below") is True


def headline(result: Mapping[str, object]) -> Headline:
    """A verdict's measures at the exercise's headline (what leaderboards rank): the case with the
    most ranks (the first of them), its busiest rank's bytes, its :func:`modelled` time and
    size; and whether any case measured below its exercise's floor (never ranked)."""
    cases = _cases(result)
    if not cases:
        return Headline(headline_case=None, bytes_sent=None, model_time_s=None, model_size=None,
                        below_floor=False)
    case = max(cases, key=_world)
    sent = case.get("bytes_sent")
    numbers = [b for b in (sent if isinstance(sent, list) else [sent]) if isinstance(b, int | float)]
    time_size = modelled(case)
    return Headline(headline_case=str(case.get("name"))[:128],
                    bytes_sent=int(max(numbers)) if numbers else None,
                    model_time_s=time_size[0] if time_size else None,
                    model_size=time_size[1] if time_size else None,
                    below_floor=any(_below_floor(c) for c in cases))


@dataclass(frozen=True)
class Test:
    """One case of one exercise as a platform test: whether it passed, and what it says."""

    name: str
    passed: bool
    error: bool  # the judge's own fault (judge_error)
    sample: bool  # a sample case: its details may always be shown
    output: str  # verdict, bytes, modelled time and the message, in English and Chinese
    brief: str  # the verdict alone, for a case whose details stay hidden
    wall_ms: float | None


def _verdict(verdict: str) -> str:
    """``Wrong answer / 答案错误``, ``Over the byte budget (over_budget) / 通信量超标``."""
    return f"{label(verdict)} / {title(verdict, 'zh')}"


def _output(case: Mapping[str, object]) -> str:
    """A case's verdict, bytes, modelled time and message, in English then Chinese."""
    verdict = str(case.get("verdict"))
    lines = [_verdict(verdict)]
    sent_by_rank = case.get("bytes_sent")
    sent = [b for b in sent_by_rank if isinstance(b, int)] if isinstance(sent_by_rank, list) else []
    if sent:
        bound = case.get("bytes_bound")
        of = f" of {bound:,} B allowed" if isinstance(bound, int) and bound else ""
        of_zh = f"（上限 {bound:,} B）" if of else ""
        lines.append(f"bytes: the busiest rank sent {max(sent):,} B{of} / "
                     f"字节：发送最多的 rank 发送了 {max(sent):,} B{of_zh}")
    time_size = modelled(case)
    if time_size:
        t, size = format_seconds(time_size[0]), format_size(time_size[1])
        lines.append(f"modelled time: {t} at {size} / 建模时间：{t}（规模 {size}）")
    lines += [str(case[k]) for k in ("message", "message_zh") if case.get(k)]
    return "\n".join(lines)


def case_tests(exercise: Exercise, result: Mapping[str, object]) -> list[Test]:
    """One test per case of ``exercise``, in the exercise's order; a case the verdict lacks (the
    file did not compile, was not submitted) fails with the verdict's own message."""
    by_name = {c.get("name"): c for c in _cases(result)}
    overall = _ungraded_message(result)
    tests = []
    for spec in exercise.cases:
        case = by_name.get(spec.name)
        verdict = (case or result).get("verdict")  # None: no file was graded
        brief = _verdict(str(verdict)) if verdict else overall
        wall_ms = case.get("wall_ms") if case else None
        tests.append(Test(name=f"{exercise.id}: {spec.name}", passed=verdict == "accepted",
                          error=verdict == "judge_error", sample=spec.sample,
                          output=_output(case) if case else overall or brief, brief=brief,
                          wall_ms=wall_ms if isinstance(wall_ms, int | float) else None))
    return tests


def _ungraded_message(result: Mapping[str, object]) -> str:
    """The verdict's own message when it graded no case (the file did not compile, was not
    submitted); empty otherwise, since a graded verdict's message is one of its cases' and may
    be a hidden one's."""
    if result.get("cases"):
        return ""
    return "\n".join(str(result[k]) for k in ("message", "message_zh") if result.get(k))


def _shown(test: Test) -> str:
    """What a learner may read of ``test``: a sample's details, else its verdict alone."""
    return test.output if test.sample else test.brief


#: what each platform's bundle grades: (exercise, its verdict JSON, the file graded)
Graded = list[tuple[Exercise, Mapping[str, object], str]]


class GradescopeTest(TypedDict):
    """A test of Gradescope's ``results.json``."""

    name: str
    score: float
    max_score: float
    status: str
    output: str
    visibility: str


class LeaderboardEntry(TypedDict):
    """An entry of Gradescope's ``leaderboard``."""

    name: str
    value: float
    order: str


class GradescopeResults(TypedDict):
    """Gradescope's ``results.json``."""

    score: float
    tests: list[GradescopeTest]
    leaderboard: list[LeaderboardEntry]
    output: str


class PrairieLearnTest(TypedDict):
    """A test of PrairieLearn's ``results.json``."""

    name: str
    points: int
    max_points: int
    message: str


class PrairieLearnResults(TypedDict):
    """PrairieLearn's ``results.json``."""

    gradable: bool
    score: float
    message: str
    tests: list[PrairieLearnTest]
    format_errors: NotRequired[list[str]]


class GitHubTest(TypedDict):
    """A test of the result ``autograding-grading-reporter`` reads."""

    name: str
    status: str
    score: int
    message: str
    test_code: str
    filename: str
    line_no: int
    execution_time: str


class GitHubResults(TypedDict):
    """The result ``autograding-grading-reporter`` reads."""

    version: int
    status: str
    max_score: int
    tests: list[GitHubTest]


def gradescope(graded: Graded) -> GradescopeResults:
    """Gradescope's ``results.json``: a point per case, the headline in the leaderboard."""
    tests: list[GradescopeTest] = []
    leaderboard: list[LeaderboardEntry] = []
    for exercise, result, _ in graded:
        tests += [GradescopeTest(name=t.name, score=1.0 if t.passed else 0.0, max_score=1.0,
                                 status="passed" if t.passed else "failed", output=_shown(t),
                                 visibility="visible" if t.sample else "after_due_date")
                  for t in case_tests(exercise, result)]
        best = headline(result)
        if result.get("verdict") == "accepted" and not best["below_floor"]:
            if best["model_time_s"] is not None and best["model_size"] is not None:
                leaderboard.append(LeaderboardEntry(
                    name=f"{exercise.id}: modelled µs at {format_size(best['model_size'])}",
                    value=round(best["model_time_s"] * 1e6, 3), order="asc"))
            if best["bytes_sent"] is not None:
                leaderboard.append(LeaderboardEntry(name=f"{exercise.id}: bytes (busiest rank)",
                                                    value=best["bytes_sent"], order="asc"))
    return GradescopeResults(score=sum(t["score"] for t in tests), tests=tests,
                             leaderboard=leaderboard, output=_summary(graded))


def prairielearn(graded: Graded) -> PrairieLearnResults:
    """PrairieLearn's ``results.json``: the fraction of cases passed; not gradable (no attempt
    lost) when a file does not compile."""
    tests = [t for exercise, result, _ in graded for t in case_tests(exercise, result)]
    errors = [str(result.get("message")) for _, result, _ in graded
              if result.get("verdict") == "compile_error"]
    out = PrairieLearnResults(
        gradable=not errors,
        score=sum(t.passed for t in tests) / len(tests) if tests else 0.0,
        message=_summary(graded),
        tests=[PrairieLearnTest(name=t.name, points=int(t.passed), max_points=1,
                                message=_shown(t)) for t in tests])
    if errors:
        out["format_errors"] = errors
    return out


def github(graded: Graded) -> GitHubResults:
    """The grader-step result ``autograding-grading-reporter`` reads (base64 of this JSON)."""
    tests = [(t, filename, exercise) for exercise, result, filename in graded
             for t in case_tests(exercise, result)]
    status = "error" if any(t.error for t, _, _ in tests) else \
        "pass" if all(t.passed for t, _, _ in tests) else "fail"
    return GitHubResults(
        version=1, status=status, max_score=len(tests),
        tests=[GitHubTest(name=t.name, status="error" if t.error else "pass" if t.passed
                          else "fail", score=int(t.passed), message=_shown(t),
                          test_code=f"cjudge test {exercise.id} {filename}",
                          filename=filename, line_no=0,
                          execution_time=f"{(t.wall_ms or 0) / 1000:.2f}s")
               for t, filename, exercise in tests])


def _summary(graded: Graded) -> str:
    """Each exercise's verdict and cases passed, in English and Chinese, and the message of a
    verdict that graded no case (a case's details are in its own test, where hidden stays
    hidden)."""
    parts = []
    for exercise, result, _ in graded:
        tests = case_tests(exercise, result)
        verdict = result.get("verdict")
        passed = sum(t.passed for t in tests)
        line = (f"{exercise.id}: {_verdict(str(verdict)) if verdict else 'no file / 没有文件'}; "
                f"{passed} of {len(tests)} cases passed / 通过 {passed}/{len(tests)} 个用例")
        parts.append("\n".join(filter(None, (line, _ungraded_message(result)))))
    return "\n\n".join(parts)


REPORTS: dict[str, Callable[[Graded], Mapping[str, object]]] = {
    "gradescope": gradescope, "prairielearn": prairielearn, "github": github}


def write_report(platform: str, graded: Graded, path: Path) -> None:
    """Write ``platform``'s result file for ``graded`` at ``path`` (its folder made if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(REPORTS[platform](graded), indent=1, ensure_ascii=False) + "\n",
                    encoding="utf-8")
