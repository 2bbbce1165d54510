"""Grading and byte accounting on hand-made runtime reports (no ranks started)."""

from __future__ import annotations

import pytest

from cjudge.contract.primitives import allowed_ops, bytes_sent
from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.grading.submission import judge_code
from cjudge.switch.core import empty_trace

from .helpers import exercise


def _raw(spec, outputs, refused=(), stop=None, errors=None):
    errors = errors or {}
    trace = empty_trace(len(outputs))
    trace["refused"] = list(refused)
    return {"name": spec["name"], "trace": trace, "stop": stop, "wall_ms": 1.0,
            "stdout": "", "ranks": [
                {"rank": r, "state": "failed" if r in errors else "returned",
                 "output": out, "error": errors.get(r)} for r, out in enumerate(outputs)]}


def test_doubled_contribution_is_decoded():
    ex = exercise("ring-allreduce")
    spec = plan_cases(ex)[0]
    want = ex.grader.expected(spec["params"], 4, spec["inputs"])
    outputs = [dict(w, data=list(w["data"])) for w in want]
    outputs[2]["data"][5] += spec["inputs"][3]["data"][5]
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, outputs)))
    assert case["verdict"] == "wrong_answer"
    assert "rank 2: first wrong element at index 5" in case["message"]
    assert "rank 3's contribution" in case["message"] and "counted twice" in case["message"]


def test_wrong_shape_and_non_tensor_results():
    ex = exercise("alltoall-transpose")
    spec = plan_cases(ex)[0]
    want = ex.grader.expected(spec["params"], 4, spec["inputs"])
    flipped = [dict(w, shape=list(reversed(w["shape"]))) for w in want]
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, flipped)))
    assert "shape (4, 1), expected (1, 4)" in case["message"]
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, [None] * 4)))
    assert "the return value is not a tensor" in case["message"]


def test_a_grader_says_what_a_wrong_shape_means():
    ex = exercise("zero1-step")  # its diagnose_shape: a momentum of all N parameters
    spec = plan_cases(ex)[0]
    want = ex.grader.expected(spec["params"], 2, spec["inputs"])
    param = want[0]["tuple"][0]
    outputs = [{"tuple": [w["tuple"][0], param]} for w in want]
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, outputs)))
    assert case["verdict"] == "wrong_answer"
    assert "the return value[1]: shape (4,), expected (2,): a momentum of all N = 4" in \
        case["message"]
    assert "形状为 (4,)，应为 (2,)：这是全部 N = 4 个参数的动量" in case["message_zh"]
    outputs = [{"tuple": [w["tuple"][0], {**param, "shape": [1, 4]}]} for w in want]
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, outputs)))  # a shape the grader does not explain
    assert case["message"].endswith("the return value[1]: shape (1, 4), expected (2,)")


def test_transpose_diagnosis_names_the_misplaced_element():
    ex = exercise("alltoall-transpose")
    spec = plan_cases(ex)[0]
    want = ex.grader.expected(spec["params"], 4, spec["inputs"])
    outputs = [dict(w, data=list(w["data"])) for w in want]
    outputs[1]["data"][2] = spec["inputs"][0]["data"][3]
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, outputs)))
    assert "element [0][2] should be M[2][1]" in case["message"]
    assert "but is M[0][3]" in case["message"]


def test_a_refusal_by_the_switch_outranks_a_stop_and_is_reported_with_its_line():
    ex = exercise("ring-allreduce")
    spec = plan_cases(ex)[0]
    refusal = {"rank": 1, "kind": "all_reduce", "api": "all_reduce", "line": 9, "t": 3}
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, [None] * 4, refused=[refusal], stop="deadlock")))
    assert case["verdict"] == "forbidden_primitive"
    assert case["message"] == ("rank 1, line 9: calls all_reduce, which this "
                               "exercise does not allow (allowed: send, recv, isend, irecv, "
                               "batch_isend_irecv)")


def test_a_refused_call_is_named_as_the_learner_wrote_it():
    ex = exercise("ring-allreduce")
    spec = plan_cases(ex)[0]
    refusal = {"rank": 0, "kind": "all_gather", "api": "all_gather", "line": 12, "t": 3}
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, [None] * 4, refused=[refusal])))
    assert case["message"].startswith("rank 0, line 12: calls all_gather, which")


@pytest.mark.parametrize("api", ["nothing: the judge is broken", "send", "",
                                 "ProcessGroup.nothing: the judge is broken",
                                 "ProcessGroup.allreduce"])
def test_a_refusal_names_the_switchs_kind_of_call_whatever_the_rank_reported(api):
    ex = exercise("ring-allreduce")
    spec = plan_cases(ex)[0]
    refusal = {"rank": 0, "kind": "all_gather", "api": api, "line": 12, "t": 3}
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, [None] * 4, refused=[refusal])))
    assert case["message"].startswith("rank 0, line 12: calls all_gather_into_tensor, which")


def test_a_refusal_counts_even_when_the_rank_caught_it_and_answered_right():
    ex = exercise("ring-allreduce")
    spec = plan_cases(ex)[0]
    want = ex.grader.expected(spec["params"], 4, spec["inputs"])
    refusal = {"rank": 2, "kind": "all_reduce", "api": "all_reduce", "line": 4, "t": 1}
    assert grade_case(CaseFacts.of(ex, spec, _raw(spec, want)))["verdict"] == "accepted"
    assert grade_case(CaseFacts.of(ex, spec, _raw(spec, want, refused=[refusal])))["verdict"] == \
        "forbidden_primitive"


@pytest.mark.parametrize("op, rank, root, expected", [
    ("send", 0, None, 100), ("recv", 0, None, 0), ("all_reduce", 1, None, 150),
    ("reduce_scatter", 2, None, 75), ("all_gather", 0, None, 75), ("all_to_all", 3, None, 75),
    ("broadcast", 0, 0, 300), ("broadcast", 1, 0, 0), ("reduce", 1, 0, 100),
    ("reduce", 0, 0, 0), ("barrier", 0, None, 0),
])
def test_bytes_sent_follows_the_bandwidth_optimal_volumes(op, rank, root, expected):
    assert bytes_sent(op, 4, rank, 100, root=root) == expected


def test_uneven_all_to_all_counts_only_blocks_for_other_ranks():
    assert bytes_sent("all_to_all", 3, 1, 60, split_bytes=[10, 20, 30]) == 40


def test_allowed_names_map_to_canonical_ops():
    assert allowed_ops(["isend", "irecv"]) == {"send", "recv"}
    assert allowed_ops(["batch_isend_irecv"]) == {"send", "recv"}
    with pytest.raises(ValueError, match="unknown primitive 'telepathy'"):
        allowed_ops(["telepathy"])


def test_judge_code_runs_the_cases_it_is_given_and_no_others():
    ex = exercise("ring-allreduce")
    given = plan_cases(ex, seed=7)[2:4]
    seen = []

    def run_case(job, spec):
        seen.append(spec["name"])
        return _raw(spec, ex.grader.expected(spec["params"], spec["world_size"], spec["inputs"]))

    result = judge_code(ex, "def ring_all_reduce(t):\n    pass\n", "learner.py", run_case, "fake",
                        seed=7, cases=given, all_cases=True)
    assert seen == [spec["name"] for spec in given]
    assert [case["name"] for case in result["cases"]] == seen


def test_a_refused_os_call_says_that_ranks_are_confined():
    ex = exercise("ring-allreduce")
    spec = plan_cases(ex)[0]
    err = {"kind": "exception", "type": "PermissionError", "line": 7,
           "message": "[Errno 1] Operation not permitted", "traceback": "Traceback ..."}
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, [None] * 4, errors={0: err})))
    assert case["verdict"] == "runtime_error"
    assert case["message"].startswith("rank 0, line 7 raised PermissionError")
    assert "each rank is confined" in case["message"] and "每个 rank 都受到限制" in case["message_zh"]
    err["type"] = "ValueError"
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, [None] * 4, errors={0: err})))
    assert "confined" not in case["message"]


def _regraded(exercise_id: str, **grader) -> list[dict]:
    """The reference's cases on the simulation, graded with some grader functions replaced."""
    import dataclasses
    import types

    from cjudge.exercise.exercises import GRADER_FUNCTIONS
    from cjudge.sim.runtime import run_case

    ex = exercise(exercise_id)
    functions = {name: getattr(ex.grader, name) for name in GRADER_FUNCTIONS}
    changed = dataclasses.replace(ex, grader=types.SimpleNamespace(**(functions | grader)))
    job = ex.job_spec(ex.solution, "solution.py")
    return [grade_case(CaseFacts.of(changed, spec, run_case(job, spec))) for spec in plan_cases(ex)[:1]]


def test_per_rank_bounds_judge_each_rank_by_its_own():
    """tree-broadcast's sample: 8 ranks, 16 bytes each; root 5 sends three times, rank 6
    twice, ranks 7 and 0 once."""
    bounds = [16, 0, 0, 0, 0, 48, 32, 16]
    [case] = _regraded("tree-broadcast", bytes_bound=lambda p, w: bounds)
    assert case["verdict"] == "accepted" and case["bytes_bounds"] == bounds
    assert case["bytes_bound"] == 48
    [case] = _regraded("tree-broadcast", bytes_bound=lambda p, w: [16, 0, 0, 0, 0, 48, 16, 16])
    assert case["verdict"] == "over_budget"
    assert "rank 6 sent 32 bytes" in case["message"] and "its bound is 16 bytes" in case["message"]


def test_check_traffic_turns_a_correct_answer_over_budget():
    seen = []

    def check(params, world, calls):
        seen.append(calls)
        sends = sum(1 for c in calls if c["op"] == "send")
        return (f"{sends} sends", f"{sends} 次发送") if sends > 2 else None

    [case] = _regraded("tree-broadcast", check_traffic=check)
    assert case["verdict"] == "over_budget" and case["message"] == "correct, but 7 sends"
    assert case["message_zh"] == "结果正确，但 7 次发送"
    assert {c["rank"] for c in seen[0] if c["op"] == "send"} == {5, 6, 7, 0}


def test_wrong_answers_are_summarised_by_chunk():
    ex = exercise("ring-allreduce")
    spec = plan_cases(ex)[0]  # 4 ranks, 8 elements: chunks of 2
    want = ex.grader.expected(spec["params"], 4, spec["inputs"])
    outputs = [dict(w, data=list(w["data"])) for w in want]
    for rank in range(4):  # rank r's chunk (r + 2) % 4 is wrong, as an all-gather a step short
        outputs[rank]["data"][2 * ((rank + 2) % 4) + 1] += 1
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, outputs)))
    assert "wrong chunks by rank (4 chunks each): rank 0: 2; rank 1: 3; rank 2: 0; rank 3: 1" \
        in case["message"] and "exactly one wrong chunk" in case["message"]
    assert "各 rank 的错误块" in case["message_zh"]
    outputs = [dict(w, data=list(w["data"])) for w in want]
    outputs[1]["data"][0] += 1  # one wrong element: the element says enough
    assert "wrong chunks" not in grade_case(CaseFacts.of(ex, spec, _raw(spec, outputs)))["message"]


def test_a_sample_takes_the_graders_example_inputs_whatever_the_seed():
    import dataclasses
    import types

    from cjudge.exercise.exercises import GRADER_FUNCTIONS

    ex = exercise("ring-allreduce")
    functions = {name: getattr(ex.grader, name) for name in GRADER_FUNCTIONS}

    def example(params, world):
        return [{"shape": [2], "dtype": "float32", "data": [10.0 * r, 10.0 * r + 1]}
                for r in range(world)]

    changed = dataclasses.replace(ex, grader=types.SimpleNamespace(**functions,
                                                                  example_inputs=example))
    for seed in (1, 2):
        specs = plan_cases(changed, seed=seed)
        assert specs[0]["sample"] and specs[0]["inputs"] == example({}, 4)
        assert specs[1]["inputs"] == plan_cases(ex, seed=seed)[1]["inputs"]  # hidden: seeded


def test_no_chunk_summary_when_every_chunk_is_wrong():
    ex = exercise("ring-allreduce")
    spec = plan_cases(ex)[0]
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, [dict(i) for i in spec["inputs"]])))  # never reduced
    assert case["verdict"] == "wrong_answer" and "wrong chunks" not in case["message"]


@pytest.mark.parametrize("exercise_id", ["ring-attention", "tree-reduce", "allreduce-small"])
def test_no_chunk_summary_where_the_result_does_not_travel_in_chunks(exercise_id):
    """Rows of attention, a tree's sum, a vector summed by doubling: the grader has no
    ``chunk_of``, so a wrong answer is never summarised by torch.chunk's pieces of it."""
    ex = exercise(exercise_id)
    spec = plan_cases(ex)[0]
    outputs = [dict(w, data=list(w["data"])) for w in
               ex.grader.expected(spec["params"], spec["world_size"], spec["inputs"])]
    for out in outputs:  # the first and the last element of every rank: two pieces of n
        out["data"][0] += 1
        out["data"][-1] += 1
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, outputs)))
    assert case["verdict"] == "wrong_answer"
    assert "wrong chunks" not in case["message"] and "错误块" not in case["message_zh"]


def test_an_all_to_all_is_summarised_by_the_block_each_rank_sent():
    ex = exercise("alltoall-transpose")
    spec = plan_cases(ex)[0]
    world = spec["world_size"]
    outputs = [dict(w, data=list(w["data"])) for w in
               ex.grader.expected(spec["params"], world, spec["inputs"])]
    for out in outputs:  # column 1 of every (k, n) result, the block from rank 1, is wrong
        for at in range(1, len(out["data"]), world):
            out["data"][at] += 1
    case = grade_case(CaseFacts.of(ex, spec, _raw(spec, outputs)))
    every = "; ".join(f"rank {r}: 1" for r in range(world))
    assert f"wrong chunks by rank ({world} chunks each): {every}" in case["message"]
