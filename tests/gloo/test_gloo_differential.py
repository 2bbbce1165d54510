"""The switch behaves like gloo: every exercise's reference and wrong files, and the probes in
``probes/``, run on real torch + gloo (``gloo_run``) and on the judge's switch (the real runtime,
graded by ``cjudge.grading.submission``), case by case.

Rank by rank: a rank that returned on gloo returned on the switch with the same output (the
grader's tolerance); one that raised raised the same exception, message included (but for
gloo's own C++ check failures, timestamped or with a port, whose wording the switch does not
copy); one left
blocked is blocked; one spinning is still computing. So gloo's hang with every unfinished rank
blocked is the switch's ``deadlock``, a spinning rank its ``time_limit``, a rank's error its
``runtime_error``. Gloo aborts a rank's process when a message is larger than its receive: that
rank must have failed on the switch with the same complaint, and the others are not compared
(gloo's peers fail on the closed connection or hang, depending on when the process died).
A send or receive naming a rank outside the group is undefined on gloo (it segfaults or hangs,
at random): the switch must then say ``runtime_error``, failing the ranks that made such calls.

Gloo has no rules, so files that call a primitive the exercise forbids, and the probes, run on
the switch with every primitive allowed: the comparison is then of the switch's own collectives
with gloo's (that the exercise's rules refuse them is the conformance test's job). The probes are
files written for an exercise's function that reach what its own files do not (a send before
its receive, tags, any-source receives, ``batch_isend_irecv``, subgroups, reduce ops, rooted
collectives, uneven all-to-all, mismatched collectives); each must also get the verdict its first
line declares, so that it keeps testing what it says.

Time (about 3 minutes on two busy cores, where each case costs a second or two and a hanging one
several): not every file runs every case. The reference runs the sample and the largest world's
last case; the k-th wrong file the exercise's k-th case (round the list), so that the wrong files
spread over the cases; a probe the largest world's last case. ``GLOO_DIFF_ALL_CASES=1`` runs every
case of every file instead (several minutes). Gloo runs while the switch does.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from cjudge.contract.primitives import CANONICAL
from cjudge.contract.protocol import CaseSpec, RawCase
from cjudge.exercise.exercises import Exercise, default_root, load_exercises
from cjudge.grading.compare import compare
from cjudge.grading.grade import plan_cases
from cjudge.grading.submission import judge_code
from cjudge.real import runtime as runtime_real

from .gloo_run import GlooCase, GlooRun

EXERCISES = load_exercises(default_root())
PROBES = Path(__file__).parent / "probes"
ALL_CASES = os.environ.get("GLOO_DIFF_ALL_CASES") == "1"
#: the switch's verdict for what gloo did (a run whose ranks all returned is judged on outputs)
VERDICTS = {"returned": {"accepted", "wrong_answer", "over_budget", "too_slow", "memory_limit"},
            "error": {"runtime_error"}, "deadlock": {"deadlock"}, "spinning": {"time_limit"}}
#: what the grader may say of a run whose ranks all returned: a memory count that a layer freed
#: before it was gathered is the learner's runtime_error (kit.where.peak), a verdict on the run
#: (here, layers assembled by calls the exercise forbids), not the switch diverging from gloo
GRADER_ERRORS = {"runtime_error"}
#: gloo's rank state -> the switch's
STATES = {"returned": "returned", "failed": "failed", "blocked": "blocked", "spinning": "running"}
#: what gloo says when it aborts a rank's process, which the switch's error must say too
ABORTS = ("Received data size doesn't match expected size",)
#: a failed check inside gloo's C++ ("[rank0]:[F1130 19:33:53.525918765 ProcessGroupGloo.cpp:1537]
#: Check failed: ...", "[enforce fail at .../pair.cc:801] ... Pair is not connected ([127.0.0.1]:
#: 31641...)"): a message with a time or a port that the switch words its own way; the type is
#: compared
GLOO_CHECK = re.compile(r"\[rank\d+\]:\[F\d{4} [\d:.]+ \S+\] Check failed: |\[enforce fail at ")
#: divergences found, (exercise, file) -> what differs: strict xfails, until the switch is fixed
DIVERGENCES: dict[tuple[str, str], str] = {}
#: files whose result torch leaves undefined on some ranks, (exercise, file) -> the ranks whose
#: outputs are compared: ``dist.reduce`` defines only the destination's tensor (gloo leaves its
#: scratch sums in the others', the switch leaves them as they were)
#: and a race on symmetric memory leaves every rank's output to the timing (gloo's is what it
#: happened to be; the switch's is what the barriers alone guarantee)
DEFINED_RANKS: dict[tuple[str, str], Callable[[CaseSpec], list[int]]] = {
    ("tree-reduce", "wrong/calls_reduce.py"): lambda case: [int(case["params"]["dst"])],
    ("oneshot-twoshot", "wrong/no_barrier.py"): lambda case: [],
    ("oneshot-twoshot", "wrong/two_shot_one_barrier.py"): lambda case: [],
}


def _declared(path: Path, key: str) -> str:
    """The value of the file's first-line ``# key: value``."""
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith(f"# {key}: "), f"{path} must start with '# {key}: ...'"
    return first.split(": ", 1)[1].strip()


def _files(ex: Exercise) -> list[tuple[Path, str, str]]:
    """(file, expected verdict, kind) for the reference, each wrong file and each probe."""
    probes = sorted((PROBES / ex.id).glob("*.py")) if (PROBES / ex.id).is_dir() else []
    return [(ex.path / "solution.py", "accepted", "reference"),
            *((w.path, w.expect.value, "wrong") for w in ex.wrong),
            *((p, _declared(p, "expect"), "probe") for p in probes)]


def _cases(ex: Exercise, index: int, kind: str) -> list[CaseSpec]:
    """The reference: the sample and the largest world's last case; a probe: the latter; the
    ``index``-th wrong file: the exercise's ``index``-th case (round the list), so that every
    case runs with some file."""
    cases = plan_cases(ex)
    if ALL_CASES:
        return cases
    last = max(reversed(cases), key=lambda c: c["world_size"])
    if kind == "probe":
        return [last]
    if kind == "wrong":
        return [cases[index % len(cases)]]
    sample = next((c for c in cases if c["sample"]), cases[0])
    return [sample] if sample is last else [sample, last]


def _params() -> list:
    params = []
    for ex in EXERCISES.values():
        for index, (path, expect, kind) in enumerate(_files(ex)):
            name = f"probes/{path.name}" if kind == "probe" else str(path.relative_to(ex.path))
            for case in _cases(ex, index - 1, kind):
                key = (ex.id, name, case["name"])
                marks = [pytest.mark.xfail(strict=True, reason=DIVERGENCES[key[:2]])] \
                    if key[:2] in DIVERGENCES else []
                params.append(pytest.param(ex, path, expect, case, marks=marks,
                                           id="/".join(key)))
    return params


def _on_switch(ex: Exercise, code: str, filename: str, case: CaseSpec) -> tuple[str, RawCase]:
    """(the judge's verdict, the runtime's raw report) of one case on the switch."""
    raws: list[RawCase] = []

    def run_case(job, spec):
        raws.append(runtime_real.run_case(job, spec))
        return raws[-1]

    result = judge_code(ex, code, filename, run_case, "torch-gloo", cases=[case])
    return result["cases"][0]["verdict"], raws[0]


def _differences(ex: Exercise, case: CaseSpec, gloo: GlooCase, verdict: str,
                 raw: RawCase, defined: list[int] | None = None) -> list[str]:
    """Where the switch did not do what gloo did; empty if it did."""
    if gloo.undefined:  # gloo crashed or hung at random: the switch must refuse those calls
        ranks = sorted({int(u.split()[1].rstrip(":")) for u in gloo.undefined})
        failed = [r for r in ranks if raw["ranks"][r]["state"] == "failed"]
        return [] if verdict == "runtime_error" and failed == ranks else [
            f"gloo: undefined calls {gloo.undefined}; switch: {verdict}, failed ranks {failed}"]
    diffs = []
    graded = VERDICTS[gloo.outcome] | (GRADER_ERRORS if gloo.outcome == "returned" and all(
        s["state"] == "returned" for s in raw["ranks"]) else set())
    if verdict not in graded:
        diffs.append(f"gloo: {gloo.outcome} ({[r.state for r in gloo.ranks]}); switch: {verdict} "
                     f"({[r['state'] for r in raw['ranks']]})")
    aborted = any(g.error and g.error[0].startswith("SIG") for g in gloo.ranks)
    for g, s in zip(gloo.ranks, raw["ranks"], strict=True):
        at, err = f"rank {g.rank}", s["error"] or {}
        if aborted:  # the others' fates depend on when the process died under them
            if g.error and g.error[0].startswith("SIG") and (s["state"] != "failed" or any(
                    p in g.error[1] and p not in err.get("message", "") for p in ABORTS)):
                diffs.append(f"{at}: gloo aborted ({g.error}), switch {s['state']} {err}")
        elif STATES[g.state] != s["state"]:
            diffs.append(f"{at}: gloo {g.state}, switch {s['state']}")
        elif g.state == "returned" and defined is not None and g.rank not in defined:
            continue
        elif g.state == "returned":
            if g.output is None or s["output"] is None:
                if (g.output, s["output"]) != (None, None):
                    diffs.append(f"{at}: gloo output {g.output}, switch output {s['output']}")
            elif (wrong := compare(ex, case, g.rank, s["output"], g.output)) is not None:
                diffs.append(f"{at}, switch against gloo: {wrong[0]}")
        elif g.state == "failed" and g.error is not None and (
                err.get("type") != g.error[0] or
                err.get("message") != g.error[1] and not GLOO_CHECK.match(g.error[1])):
            diffs.append(f"{at}: gloo raised {g.error}, switch "
                         f"{(err.get('type'), err.get('message'))}")
    return diffs


@pytest.mark.parametrize("ex, path, expect, case", _params())
def test_switch_does_what_gloo_does(ex: Exercise, path: Path, expect: str, case: CaseSpec):
    probe = path.is_relative_to(PROBES)
    if expect == "forbidden_primitive" or probe:
        ex = dataclasses.replace(ex, allowed=tuple(CANONICAL))
    code = path.read_text(encoding="utf-8")
    with GlooRun(ex.job_spec(code, path.name), case) as gloo_run:
        verdict, raw = _on_switch(ex, code, path.name, case)
        gloo = gloo_run.result()
    name = str(path.relative_to(ex.path)) if path.is_relative_to(ex.path) else path.name
    rule = DEFINED_RANKS.get((ex.id, name))
    diffs = _differences(ex, case, gloo, verdict, raw, rule(case) if rule else None)
    assert not diffs, "the switch diverged from gloo:\n" + "\n".join(diffs)
    if probe:
        assert verdict == expect, f"the probe declares {expect}; the switch says {verdict}"
