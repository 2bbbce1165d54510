"""Grading over hostile results: whatever a rank reports, as a real rank may send it (JSON over
its channel, checked by the switch) or as a simulated rank may leave it (any Python object,
encoded), every exercise's grading answers a verdict, never judge_error, in text that prints."""

from __future__ import annotations

import io
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from cjudge.cli.render import show_result
from cjudge.contract import values
from cjudge.grading.grade import plan_cases
from cjudge.grading.submission import judge_code
from cjudge.sim.runtime import run_case
from cjudge.switch.server import result_record

from .helpers import EXERCISES

#: a fixed, derandomized profile: the same examples on every run, however loaded the machine
FUZZ = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
#: numbers no comparison may choke on, drawn first; then any others
HOSTILE = [10**400, -(10**400), 1 << 63, -(1 << 63) - 1, math.inf, -math.inf, math.nan, True,
           False, -0.0, 1e308, 5e-324]
DTYPES = [*values.ITEMSIZE, "complex128", ""]

numbers = st.one_of(st.sampled_from(HOSTILE), st.integers(-(1 << 70), 1 << 70),
                    st.floats(allow_nan=True, allow_infinity=True))
#: strings with a lone surrogate (no UTF-8 text holds one), drawn first; then any others
text = st.one_of(st.sampled_from(["\ud800", "x\udfffy", "\ud83d", "é\udc80ü", "\x00", ""]),
                 st.text(st.one_of(st.characters(),
                                   st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF,
                                                 categories=["Cs"])), max_size=12))
scalars = st.one_of(numbers, text, st.none())


#: tensors of any dtype and shape, their data of any length
tensors = st.builds(lambda shape, dtype, data: {"shape": shape, "dtype": dtype, "data": data},
                    st.lists(st.integers(-1, 4), max_size=3), st.sampled_from(DTYPES),
                    st.lists(numbers, max_size=12))


def nested(leaves: st.SearchStrategy) -> st.SearchStrategy:
    """Lists and tuples of ``leaves``, a dict or an object's name among them."""
    return st.recursive(leaves, lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.builds(lambda v: {"tuple": v}, st.lists(inner, max_size=4)),
        st.builds(lambda k: {"object": k}, text), st.dictionaries(text, inner, max_size=2)),
        max_leaves=12)


def deep(depth: int, leaf: object) -> object:
    """``leaf`` in a list in a list … ``depth`` times."""
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def cyclic(leaf: object) -> list:
    """A list that holds ``leaf`` and itself."""
    loop: list = [leaf]
    loop.append(loop)
    return loop


@st.composite
def spoiled(draw: st.DrawFn, want: object) -> object:
    """The expected result with its tensors' elements, dtypes or shapes spoiled here and there."""
    if values.is_tensor(want):
        data = list(want["data"])
        for _ in range(draw(st.integers(0, 3))):
            if data:
                data[draw(st.integers(0, len(data) - 1))] = draw(numbers)
        shape = draw(st.one_of(st.just(want["shape"]), st.lists(st.integers(0, 4), max_size=3)))
        return {"shape": shape, "dtype": draw(st.sampled_from([want["dtype"], *DTYPES])),
                "data": data}
    if isinstance(want, list):
        return [draw(spoiled(w)) for w in want]
    if isinstance(want, dict) and "tuple" in want:
        return {"tuple": [draw(spoiled(w)) for w in want["tuple"]]}
    return draw(st.one_of(st.just(want), scalars))


def hostile(want: object) -> st.SearchStrategy:
    """What a rank may leave as its result: the expected one spoiled, any nesting of scalars and
    tensors, a deep or a cyclic list."""
    return st.one_of(spoiled(want), nested(st.one_of(scalars, tensors)),
                     st.builds(deep, st.integers(1, 40), scalars),
                     st.builds(cyclic, st.one_of(scalars, tensors)))


errors = st.fixed_dictionaries({
    "kind": st.sampled_from(["exception", "forbidden", "memory", "signal", "other"]),
    "type": text, "message": text, "traceback": text,
    "line": st.one_of(st.none(), st.integers(-5, 1 << 40), st.booleans()),
    "op": st.one_of(text, st.sampled_from(["all_reduce", "send"]))})


def over_the_wire(result: object) -> dict:
    """A real rank's end-of-call record as the switch takes it: JSON, then checked."""
    try:
        header = json.loads(json.dumps({"output": result}))
    except (ValueError, RecursionError):  # a cycle, or what json cannot write: the rank fails
        header = {"output": None, "error": {"kind": "exception", "type": "ValueError",
                                            "message": "not JSON", "traceback": ""}}
    return result_record(header)


def left_by_a_simulated_rank(result: object) -> dict:
    """A simulated rank's record: its result encoded (a tensor is a dict of the right form)."""
    well_formed = lambda v: v if values.is_tensor(v) and _consistent(v) else None  # noqa: E731
    return {"output": values.encode(result, well_formed), "error": None}


def _consistent(t: dict) -> bool:
    size = math.prod(t["shape"]) if all(isinstance(d, int) and d >= 0 for d in t["shape"]) \
        else -1
    return t["dtype"] in values.ITEMSIZE and size == len(t["data"]) and \
        all(isinstance(x, (int, float)) and (type(x) is not int or -(1 << 63) <= x < 1 << 63)
            for x in t["data"])


def reference_run(exercise_id: str) -> tuple:
    """(exercise, its first case, the reference's raw report on simulated ranks)."""
    ex = EXERCISES[exercise_id]
    spec = plan_cases(ex)[0]
    return ex, spec, run_case(ex.job_spec(ex.solution, "solution.py"), spec)


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_grading_answers_every_hostile_result(exercise_id: str) -> None:
    ex, spec, reference = reference_run(exercise_id)
    wants = ex.grader.expected(spec["params"], spec["world_size"], spec["inputs"])
    ranks = range(spec["world_size"])

    @FUZZ
    @given(data=st.data())
    def grade_hostile(data: st.DataObject) -> None:
        deliver = data.draw(st.sampled_from([over_the_wire, left_by_a_simulated_rank]))
        records = []
        for rank in ranks:
            if data.draw(st.sampled_from(["result", "result", "result", "error"])) == "error":
                records.append(result_record({"error": data.draw(errors)}))
            else:
                records.append(deliver(data.draw(hostile(wants[rank]))))
        raw = dict(reference, ranks=[
            {"rank": r, "state": "failed" if rec["error"] else "returned", **rec}
            for r, rec in zip(ranks, records, strict=True)])
        result = judge_code(ex, ex.solution, "solution.py", lambda job, s: raw, "sim",
                            cases=[spec])
        assert result["verdict"] != "judge_error", result["message"]
        json.dumps(result, ensure_ascii=False).encode("utf-8")  # every string prints
        for lang in ("en", "zh"):
            show_result(Console(file=io.StringIO(), width=100), result, lang)

    grade_hostile()
