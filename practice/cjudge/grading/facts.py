"""What one case's run established, computed once: the spine of a case's journey.

A runtime's record (``RawCase``) becomes :class:`CaseFacts` once; grading decides the verdict
from them (``grading.grade_case``), the diagnosis puts the cause into words and the view draws
them (``view.present_case``), each reading the same facts instead of recomputing them: the bytes
and messages each rank sent against its bound, every rank's expected result, the case's one
replay of the cost model and its one schedule (steps, modelled clocks, the critical path).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

from ..contract.protocol import CaseSpec, RawCase
from ..contract.values import input_bytes
from ..contract.verdict_json import MemoryUse
from ..exercise.exercises import Exercise
from ..model.case import CaseModel, view_size
from ..model.schedule import Schedule, case_schedule
from ..switch.accounting import bytes_per_rank
from .chunks import Summary


class WrongAnswer(NamedTuple):
    """A wrong answer's message in its parts, each (English, Chinese): where the first
    difference is; the grader's ``hint``, its guess at the cause from that element or number
    alone (its ``diagnose``), which a diagnosis from the run's evidence replaces
    (``cjudge.grading.diagnosis.case``); the ``summary`` of wrong chunks by rank."""

    where: tuple[str, str]
    hint: tuple[str, str] | None = None
    summary: Summary | None = None

    def message(self, hint: bool = True, guess: bool = True) -> tuple[str, str]:
        """The case's message, (English, Chinese); without the element's hint when ``hint`` is
        False, without what the chunk pattern suggests when ``guess`` is False."""
        en, zh = self.where
        if hint and self.hint:
            en, zh = f"{en}; {self.hint[0]}", f"{zh}；{self.hint[1]}"
        if self.summary:
            (s_en, s_zh), more = self.summary
            if guess and more:
                s_en, s_zh = s_en + more[0], s_zh + more[1]
            en, zh = f"{en}. In all, {s_en}", f"{zh}。总计：{s_zh}"
        return en, zh


@dataclass
class CaseFacts:
    """One case's facts: its exercise, case and the runtime's record, and what they imply."""

    exercise: Exercise
    spec: CaseSpec
    raw: RawCase
    #: the bytes and the messages each rank sent, as the switch counted them
    sent: list[int]
    messages: list[int]
    #: each rank's bytes bound; ``per_rank``: the grader gave one per rank (a root's and the
    #: leaves'), not one for all
    bounds: list[int]
    per_rank: bool
    #: the case's one replay at every modelled size, made by grading for a finished, correct
    #: run with input tensors; None for any other
    modelled: CaseModel | None = field(default=None)
    #: the wrong answer's parts, when grading wrote the case's message from them (a result
    #: that differs; not a race, a rank's failure or a stop)
    wrong: WrongAnswer | None = field(default=None)
    #: the grader's memory count (its peak against its bound), when it counts memory and the
    #: count succeeded on a correct run
    memory: MemoryUse | None = field(default=None)

    @classmethod
    def of(cls, exercise: Exercise, spec: CaseSpec, raw: RawCase) -> CaseFacts:
        """The facts of ``raw``, the run of ``spec`` (a case of ``exercise``)."""
        sent, messages = bytes_per_rank(raw["trace"])
        bound = exercise.grader.bytes_bound(spec["params"], spec["world_size"])
        bounds = bound if isinstance(bound, list) else [bound] * spec["world_size"]
        return cls(exercise, spec, raw, sent, messages, bounds, isinstance(bound, list))

    @cached_property
    def schedule(self) -> Schedule:
        """The case's one schedule at the size the trace view draws (the worst over the bound,
        else the middle size), with its critical path: from grading's replay when it made one
        (so read it once grading has decided), else replayed here once."""
        model, modelled = self.exercise.model, self.modelled
        return case_schedule(self.raw["trace"], model, input_bytes(self.spec),
                             view_size(model, modelled.model if modelled else None),
                             self.spec["params"], modelled.drawn if modelled else None)

    @property
    def expected(self) -> list[Any]:
        """Every rank's expected result (the grader computes it once per case)."""
        return self.exercise.grader.expected(self.spec["params"], self.spec["world_size"],
                                             self.spec["inputs"])
