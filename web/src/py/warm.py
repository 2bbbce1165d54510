"""Warming the judge's interpreter up once it is ready, before the learner's first run.

Chromium first runs WebAssembly through its baseline compiler and compiles a function to
optimized code only once it has run a while, on a background thread: the first "Run all" on a
page took two to four times as long as the later ones, the same cases on the same code (issue 37).
So as soon as Python is ready, while the learner reads the statement, the worker judges a small
program of its own on the ring all-reduce's cases, each as a learner's run judges a case: its
inputs made, its ranks simulated on the switch, the case graded (bytes, values, the model). The
interpreter's loop and the functions every step calls get hot through the same code as a
learner's run. Nothing of the learner's is run and nothing is kept: the next run compiles its own
code and makes its own cases.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from itertools import cycle, islice
from typing import Any

from cjudge.contract.verdict_json import CaseResult
from cjudge.exercise.exercises import Exercise
from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import PlannedCase, lazy_cases
from cjudge.grading.submission import judge_code

from .judge import EXERCISES, RUNTIME, run_case

#: the exercise whose cases the warm-up judges (the chapter's worked example)
EXERCISE = "ring-allreduce"
#: every rank sends its whole tensor to every other and adds what it receives: the all-reduce,
#: correct, but over the ring's bytes bound (the exercise's answer is not in the page)
PROGRAM = """
import torch
import torch.distributed as dist

def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    sends = [dist.isend(t, peer) for peer in range(n) if peer != rank]
    total, got = t.clone(), torch.empty_like(t)
    for peer in range(n):
        if peer != rank:
            dist.irecv(got, peer).wait()
            total.add_(got)
    for sent in sends:
        sent.wait()
    t.copy_(total)
"""
#: how long the warm-up may take at most (it stops after the case that passes it, or after the
#: case during which a request came), and how many cases it judges at most (each case 3 times)
BUDGET_S, CASES = 1.5, 21


def warm_case(hub: Any, exercise: Exercise, case: PlannedCase) -> CaseResult:
    """Judge the warm-up program on ``case`` of ``exercise`` (``judge_code``, as a learner's
    run is judged), its ranks run by ``hub``; the case's result, which nothing keeps."""
    verdict = judge_code(exercise, PROGRAM, "warm_up.py", partial(run_case, hub), RUNTIME,
                         cases=[case.make()], present=_shown_nowhere)
    return verdict["cases"][0]


def _shown_nowhere(_facts: CaseFacts, _case: CaseResult) -> None:
    """The warm-up's cases are shown nowhere: nothing is drawn or kept for them."""


def warm_up(wanted: Callable[[], bool], hub: Any) -> int:
    """Judge the warm-up program on the exercise's cases in turn, on ``hub`` (one whose messages
    go nowhere), until :data:`CASES` were judged, :data:`BUDGET_S` passed or ``wanted()`` says
    a request waits for the worker; the number of cases judged."""
    exercise = EXERCISES[EXERCISE]
    start = time.monotonic()
    for done, case in enumerate(islice(cycle(lazy_cases(exercise)), CASES), start=1):
        warm_case(hub, exercise, case)
        if time.monotonic() - start > BUDGET_S or wanted():
            return done
    return CASES
